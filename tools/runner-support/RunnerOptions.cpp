//===- RunnerOptions.cpp - command line and reports shared by runners -----===//

#include "RunnerOptions.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

using namespace sm_runner;

const char *sm_runner::commonOptionsHelp =
    R"(  --arg TYPE:COUNT:FILL   the next kernel argument: COUNT elements of TYPE
                          (f16 bf16 f32 i8 u8 i32 u32), filled with
                          random[:SEED] (floats in [-1, 1], full-range 8-bit
                          integers), const:VALUE, iota, file:PATH, or poison
                          (all bytes 0xFF, so unwritten elements show)
  --scalar TYPE:VALUE     the next kernel argument, a scalar
  --grid X[,Y[,Z]]        workgroups to dispatch (default 1,1,1)
  --check gemm:SPEC       compare a result with a CPU reference:
                          M=..,N=..,K=..,A=arg,B=arg,C=arg and optionally
                          lda/ldb/ldc, a-/b-/c-offset, a-/b-/c-col-major,
                          acc=arg or init=VALUE (initial accumulator) and
                          add/sub/mul/div=VALUE (scalar ops, in order)
  --expect-same X:Y       check that argument X after the run holds exactly
                          what argument Y held before it (X:X: untouched)
  --dump ARG              print argument ARG after the run
  --output ARG:PATH       write argument ARG's bytes after the run to PATH
                          (for references computed elsewhere)

Every argument lies between guard bytes that are checked after the run (on
the host runners also between inaccessible pages, which stop the kernel at
its first read or write there): a kernel that writes outside an argument
fails the run ("check bounds"), which names the argument and the offset.
)";

bool sm_runner::parseCommonOption(int &i, int argc, char **argv,
                                  CommonOptions &options, std::string &error) {
  std::string arg = argv[i];
  auto value = [&](std::string &out) {
    if (i + 1 >= argc) {
      error = arg + " needs a value";
      return false;
    }
    out = argv[++i];
    return true;
  };
  std::string text;
  if (arg == "--arg") {
    if (!value(text))
      return true;
    std::optional<BufferSpec> spec = parseBufferSpec(text, error);
    if (!spec)
      error = "--arg: " + error;
    else
      options.arguments.push_back(*spec);
    return true;
  }
  if (arg == "--scalar") {
    if (!value(text))
      return true;
    size_t colon = text.find(':');
    if (colon == std::string::npos) {
      error = "--scalar needs TYPE:VALUE, got '" + text + "'";
      return true;
    }
    std::optional<BufferSpec> spec = parseBufferSpec(
        text.substr(0, colon) + ":1:const:" + text.substr(colon + 1), error);
    if (!spec)
      error = "--scalar: " + error;
    else
      options.arguments.push_back(*spec);
    return true;
  }
  if (arg == "--grid") {
    if (!value(text))
      return true;
    unsigned x = 1, y = 1, z = 1;
    if (std::sscanf(text.c_str(), "%u,%u,%u", &x, &y, &z) < 1 || !x || !y || !z)
      error = "--grid needs X[,Y[,Z]] of positive integers, got '" + text + "'";
    options.grid[0] = x, options.grid[1] = y, options.grid[2] = z;
    return true;
  }
  if (arg == "--check") {
    if (!value(text))
      return true;
    std::optional<GemmCheck> check = parseGemmCheck(text, error);
    if (check)
      options.checks.push_back(*check);
    return true;
  }
  if (arg == "--expect-same") {
    if (!value(text))
      return true;
    int x, y;
    if (std::sscanf(text.c_str(), "%d:%d", &x, &y) != 2)
      error = "--expect-same needs X:Y, got '" + text + "'";
    else
      options.sameChecks.push_back({x, y});
    return true;
  }
  if (arg == "--output") {
    if (!value(text))
      return true;
    size_t colon = text.find(':');
    char *end = nullptr;
    long index =
        colon == std::string::npos ? -1 : std::strtol(text.c_str(), &end, 10);
    if (colon == std::string::npos || end != text.c_str() + colon ||
        index < 0 || colon + 1 == text.size())
      error = "--output needs ARG:PATH, got '" + text + "'";
    else
      options.outputs.push_back({int(index), text.substr(colon + 1)});
    return true;
  }
  if (arg == "--dump") {
    if (value(text))
      options.dumps.push_back(std::atoi(text.c_str()));
    return true;
  }
  return false;
}

bool sm_runner::createBuffers(const CommonOptions &options,
                              std::vector<HostBuffer> &buffers,
                              std::string &error) {
  for (size_t i = 0; i < options.arguments.size(); ++i) {
    const BufferSpec &spec = options.arguments[i];
    buffers.emplace_back(spec.type, spec.count);
    if (!buffers.back().fill(spec.fill, error)) {
      error = "argument " + std::to_string(i) + ": " + error;
      return false;
    }
  }
  return true;
}

bool sm_runner::reportResults(const CommonOptions &options,
                              const std::vector<HostBuffer> &before,
                              const std::vector<HostBuffer> &after,
                              std::string &error) {
  auto exists = [&](int index) {
    return index >= 0 && size_t(index) < after.size();
  };
  for (int index : options.dumps) {
    if (!exists(index)) {
      error = "--dump " + std::to_string(index) + ": no such argument";
      return false;
    }
    std::printf("argument %d (%s x %zu):", index,
                getElementTypeName(after[index].getType()),
                after[index].size());
    for (size_t i = 0; i < after[index].size(); ++i)
      std::printf(" %g", after[index].get(i));
    std::printf("\n");
  }
  for (const auto &[index, path] : options.outputs) {
    if (!exists(index)) {
      error = "--output " + std::to_string(index) + ": no such argument";
      return false;
    }
    FILE *file = std::fopen(path.c_str(), "wb");
    const std::vector<uint8_t> &bytes = after[index].getBytes();
    if (!file ||
        std::fwrite(bytes.data(), 1, bytes.size(), file) != bytes.size()) {
      if (file)
        std::fclose(file);
      error =
          "--output " + std::to_string(index) + ": cannot write '" + path + "'";
      return false;
    }
    std::fclose(file);
  }
  bool allPassed = true;
  for (const GemmCheck &gemm : options.checks) {
    CheckReport report = runGemmCheck(gemm, before, after);
    allPassed &= report.passed;
    const char *type = exists(gemm.c.buffer)
                           ? getElementTypeName(after[gemm.c.buffer].getType())
                           : "?";
    std::printf("check gemm %zux%zux%zu (C = argument %d, %s): %s: %zu "
                "elements, %zu mismatches, %zu written outside C, max abs "
                "error %.3g, max rel error %.3g\n",
                gemm.m, gemm.n, gemm.k, gemm.c.buffer, type,
                report.passed ? "PASSED" : "FAILED", report.compared,
                report.mismatches, report.clobbered, report.maxAbsError,
                report.maxRelError);
    if (report.unwritten)
      std::printf("  %zu of the mismatches were never written (they still "
                  "hold C's poison), the first at%s%s\n",
                  report.unwritten, report.unwrittenPositions.c_str(),
                  report.unwritten > 8 ? " ..." : "");
    if (!report.details.empty())
      std::printf("%s", report.details.c_str());
  }
  for (auto [x, y] : options.sameChecks) {
    if (!exists(x) || !exists(y)) {
      error = "--expect-same " + std::to_string(x) + ":" + std::to_string(y) +
              ": no such argument";
      return false;
    }
    const std::vector<uint8_t> &got = after[x].getBytes();
    const std::vector<uint8_t> &expected = before[y].getBytes();
    size_t differing = 0;
    for (size_t i = 0; i < std::min(got.size(), expected.size()); ++i)
      differing += got[i] != expected[i];
    bool passed = got.size() == expected.size() && differing == 0;
    allPassed &= passed;
    if (got.size() != expected.size()) {
      std::printf("check same: argument %d after the run FAILED: it holds %zu "
                  "bytes, argument %d held %zu\n",
                  x, got.size(), y, expected.size());
      continue;
    }
    std::printf("check same: argument %d after the run %s argument %d before "
                "it (%zu of %zu bytes differ)\n",
                x, passed ? "PASSED: equals" : "FAILED: differs from", y,
                differing, got.size());
  }
  return allPassed;
}

std::string sm_runner::parseHostRunnerCommandLine(
    int argc, char **argv, const char *usage,
    const std::vector<std::pair<std::string, std::string *>> &stringOptions,
    CommonOptions &options, std::string &kernelPath, std::string &entry) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i], error;
    if (parseCommonOption(i, argc, argv, options, error)) {
      if (!error.empty())
        return error;
      continue;
    }
    if (arg == "--help" || arg == "-h") {
      std::printf("%s%s", usage, commonOptionsHelp);
      std::printf("Exit status: 0 when every check passed, 1 when one "
                  "failed, 2 on errors.\n");
      std::exit(0);
    }
    std::string *value = arg == "--entry" ? &entry : nullptr;
    for (const auto &[name, target] : stringOptions)
      if (arg == name)
        value = target;
    if (value) {
      if (i + 1 >= argc)
        return arg + " needs a value";
      *value = argv[++i];
    } else if (!arg.empty() && arg[0] == '-') {
      return "unknown option '" + arg + "' (see --help)";
    } else {
      kernelPath = arg;
    }
  }
  if (kernelPath.empty() || entry.empty())
    return "a kernel file and --entry are needed (see --help)";
  return "";
}
