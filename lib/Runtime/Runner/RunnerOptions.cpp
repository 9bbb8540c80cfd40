//===- RunnerOptions.cpp - command line and reports shared by runners -----===//

#include "RunnerOptions.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

using namespace sm_runner;

const char *sm_runner::commonOptionsHelp =
    R"(  --arg TYPE:COUNT:FILL   the next kernel argument: COUNT elements of TYPE
                          (f16 bf16 f32 f64 i8 u8 i32 u32), filled with
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

/// Splits `text` at every `separator`.
static std::vector<std::string> splitFields(const std::string &text,
                                            char separator) {
  std::vector<std::string> fields;
  size_t start = 0;
  while (true) {
    size_t end = text.find(separator, start);
    fields.push_back(text.substr(start, end - start));
    if (end == std::string::npos)
      return fields;
    start = end + 1;
  }
}

bool sm_runner::parseIntegerOption(const std::string &option,
                                   const std::string &text, uint64_t min,
                                   uint64_t max, uint64_t &value,
                                   std::string &error) {
  std::optional<uint64_t> parsed = parseBoundedInteger(text, min, max);
  if (!parsed) {
    error = option + " needs an integer from " + std::to_string(min) + " to " +
            std::to_string(max) + ", got '" + text + "'";
    return false;
  }
  value = *parsed;
  return true;
}

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
    std::vector<std::string> fields = splitFields(text, ',');
    bool valid = fields.size() <= 3;
    for (size_t d = 0; valid && d < fields.size(); ++d) {
      std::optional<uint64_t> count =
          parseBoundedInteger(fields[d], 1, maxGridDimension);
      valid = count.has_value();
      if (valid)
        options.grid[d] = unsigned(*count);
    }
    if (!valid)
      error = "--grid needs X[,Y[,Z]] of integers from 1 to " +
              std::to_string(maxGridDimension) + ", got '" + text + "'";
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
    std::vector<std::string> fields = splitFields(text, ':');
    std::optional<uint64_t> x, y;
    if (fields.size() == 2) {
      x = parseBoundedInteger(fields[0], 0, maxArgumentIndex);
      y = parseBoundedInteger(fields[1], 0, maxArgumentIndex);
    }
    if (!x || !y)
      error =
          "--expect-same needs X:Y, two argument numbers, got '" + text + "'";
    else
      options.sameChecks.push_back({int(*x), int(*y)});
    return true;
  }
  if (arg == "--output") {
    if (!value(text))
      return true;
    size_t colon = text.find(':');
    std::optional<uint64_t> index;
    if (colon != std::string::npos && colon + 1 < text.size())
      index = parseBoundedInteger(text.substr(0, colon), 0, maxArgumentIndex);
    if (!index)
      error = "--output needs ARG:PATH, an argument number and a file, got '" +
              text + "'";
    else
      options.outputs.push_back({int(*index), text.substr(colon + 1)});
    return true;
  }
  if (arg == "--dump") {
    if (!value(text))
      return true;
    std::optional<uint64_t> index =
        parseBoundedInteger(text, 0, maxArgumentIndex);
    if (!index)
      error = "--dump needs an argument number, got '" + text + "'";
    else
      options.dumps.push_back(int(*index));
    return true;
  }
  return false;
}

std::string
sm_runner::checkArgumentMemory(const std::vector<BufferSpec> &arguments) {
  double bytes = 0;
  for (const BufferSpec &argument : arguments)
    bytes += double(argument.count) * double(getElementSize(argument.type));
  long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || pageSize <= 0)
    return "";
  double available = double(pages) * double(pageSize);
  constexpr double copies = 3;
  if (bytes * copies <= available)
    return "";
  char message[256];
  std::snprintf(message, sizeof(message),
                "the arguments take %.0f MiB, which a runner holds about %.0f "
                "times; this machine has %.0f MiB of memory",
                bytes / (1 << 20), copies, available / (1 << 20));
  return message;
}

bool sm_runner::createBuffers(const CommonOptions &options,
                              std::vector<HostBuffer> &buffers,
                              std::string &error) {
  error = checkArgumentMemory(options.arguments);
  if (!error.empty())
    return false;
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
    CommonOptions &options, HostRunnerInvocation &invocation) {
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
    std::string *value = arg == "--entry"        ? &invocation.entry
                         : arg == "--plan"       ? &invocation.planDirectory
                         : arg == "--output-dir" ? &invocation.outputDirectory
                                                 : nullptr;
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
      invocation.kernelPath = arg;
    }
  }
  if (!invocation.planDirectory.empty()) {
    if (!invocation.kernelPath.empty() || !invocation.entry.empty() ||
        !options.arguments.empty())
      return "--plan runs a whole plan: it takes no kernel file, --entry or "
             "arguments";
    return "";
  }
  if (invocation.kernelPath.empty() || invocation.entry.empty())
    return "a kernel file and --entry are needed, or --plan (see --help)";
  return "";
}
