//===- sm-msl-host-runner.cpp - run emitted Metal kernels on the CPU ------===//
//
// Compiles the Metal Shading Language of `sm-translate --emit-msl` as C++
// against this tool's host `metal_stdlib`, loads it, runs a kernel over a
// grid (every invocation a host thread, simdgroup matrix functions as
// rendezvous of their simdgroup) and checks the results like
// sm-vulkan-runner does. There is no Metal compiler on Linux; this is how
// the emitted code is executed and its numbers proven.
//
//===----------------------------------------------------------------------===//

#include "GemmCheck.h"
#include "HostBuffer.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <iostream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace sm_runner;

namespace {

const char *usage =
    R"(usage: sm-msl-host-runner KERNEL.metal --entry NAME [options]

Compiles KERNEL.metal (from sm-translate --emit-msl) as C++20 with the host
metal_stdlib, then runs kernel NAME over a grid of threadgroups on the CPU.
Argument i of the kernel is [[buffer(i)]].

  --entry NAME            the kernel to run
  --arg TYPE:COUNT:FILL   the next kernel argument (as sm-vulkan-runner)
  --scalar TYPE:VALUE     the next kernel argument, a scalar
  --grid X[,Y[,Z]]        threadgroups to run (default 1,1,1); the
                          threadgroup size is the kernel's known_block_size
  --check gemm:SPEC       compare a result with the CPU reference (as
                          sm-vulkan-runner)
  --expect-same X:Y       argument X after the run equals Y before it
  --dump ARG              print argument ARG after the run
  --cxx COMPILER          C++ compiler (default: $CXX, else c++)
Exit status: 0 when every check passed, 1 when one failed, 2 on errors.
)";

[[noreturn]] void fail(const std::string &message) {
  std::cerr << "sm-msl-host-runner: error: " << message << "\n";
  std::exit(2);
}

} // namespace

int main(int argc, char **argv) {
  std::string kernelPath, entry;
  std::vector<BufferSpec> arguments;
  std::vector<GemmCheck> checks;
  std::vector<std::pair<int, int>> sameChecks;
  std::vector<int> dumps;
  unsigned grid[3] = {1, 1, 1};
  const char *cxxFromEnvironment = std::getenv("CXX");
  std::string compiler = cxxFromEnvironment ? cxxFromEnvironment : "c++";

  auto value = [&](int &i) -> std::string {
    if (i + 1 >= argc)
      fail(std::string(argv[i]) + " needs a value");
    return argv[++i];
  };
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i], error;
    if (arg == "--help" || arg == "-h") {
      std::cout << usage;
      return 0;
    } else if (arg == "--entry") {
      entry = value(i);
    } else if (arg == "--arg") {
      std::optional<BufferSpec> spec = parseBufferSpec(value(i), error);
      if (!spec)
        fail("--arg: " + error);
      arguments.push_back(*spec);
    } else if (arg == "--scalar") {
      std::string text = value(i);
      size_t colon = text.find(':');
      if (colon == std::string::npos)
        fail("--scalar needs TYPE:VALUE, got '" + text + "'");
      std::optional<BufferSpec> spec = parseBufferSpec(
          text.substr(0, colon) + ":1:const:" + text.substr(colon + 1), error);
      if (!spec)
        fail("--scalar: " + error);
      arguments.push_back(*spec);
    } else if (arg == "--grid") {
      std::string text = value(i);
      if (std::sscanf(text.c_str(), "%u,%u,%u", &grid[0], &grid[1], &grid[2]) <
              1 ||
          !grid[0] || !grid[1] || !grid[2])
        fail("--grid needs X[,Y[,Z]] of positive integers, got '" + text + "'");
    } else if (arg == "--check") {
      std::optional<GemmCheck> check = parseGemmCheck(value(i), error);
      if (!check)
        fail(error);
      checks.push_back(*check);
    } else if (arg == "--expect-same") {
      std::string text = value(i);
      int x, y;
      if (std::sscanf(text.c_str(), "%d:%d", &x, &y) != 2)
        fail("--expect-same needs X:Y, got '" + text + "'");
      sameChecks.push_back({x, y});
    } else if (arg == "--dump") {
      dumps.push_back(std::atoi(value(i).c_str()));
    } else if (arg == "--cxx") {
      compiler = value(i);
    } else if (!arg.empty() && arg[0] == '-') {
      fail("unknown option '" + arg + "' (see --help)");
    } else {
      kernelPath = arg;
    }
  }
  if (kernelPath.empty() || entry.empty())
    fail("a kernel file and --entry are needed (see --help)");
  if (access(kernelPath.c_str(), R_OK) != 0)
    fail("cannot read '" + kernelPath + "'");

  // Compile the Metal source as C++ into a shared library.
  char directory[] = "/tmp/sm-msl-XXXXXX";
  if (!mkdtemp(directory))
    fail("cannot create a temporary directory");
  std::string library = std::string(directory) + "/kernel.so";
  std::string command = compiler + " -std=c++20 -O1 -w -shared -fPIC " +
                        "-DSM_MSL_HOST -I'" SM_MSL_HOST_INCLUDE_DIR "' " +
                        "-x c++ '" + kernelPath + "' -o '" + library +
                        "' -pthread";
  if (std::system(command.c_str()) != 0)
    fail("the host C++ compiler rejected '" + kernelPath + "' (" + command +
         ")");
  void *handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    fail(std::string("cannot load the compiled kernel: ") + dlerror());
  using Launch = int (*)(const char *, void **, const unsigned *, unsigned *);
  auto launch = reinterpret_cast<Launch>(dlsym(handle, "sm_msl_launch"));
  if (!launch)
    fail("the compiled kernel has no sm_msl_launch (was it emitted by "
         "sm-translate --emit-msl?)");

  std::vector<HostBuffer> before, after;
  for (size_t i = 0; i < arguments.size(); ++i) {
    before.emplace_back(arguments[i].type, arguments[i].count);
    std::string error;
    if (!before.back().fill(arguments[i].fill, error))
      fail("argument " + std::to_string(i) + ": " + error);
  }
  after = before;
  std::vector<void *> pointers;
  for (HostBuffer &buffer : after)
    pointers.push_back(buffer.getBytes().data());
  unsigned threadgroupSize[3] = {0, 0, 0};
  if (launch(entry.c_str(), pointers.data(), grid, threadgroupSize) != 0)
    fail("the kernel file has no kernel '" + entry + "'");
  std::printf("ran '%s' on the host: grid %u,%u,%u of threadgroups %u,%u,%u\n",
              entry.c_str(), grid[0], grid[1], grid[2], threadgroupSize[0],
              threadgroupSize[1], threadgroupSize[2]);

  for (int index : dumps) {
    if (index < 0 || size_t(index) >= after.size())
      fail("--dump " + std::to_string(index) + ": no such argument");
    std::printf("argument %d (%s x %zu):", index,
                getElementTypeName(after[index].getType()),
                after[index].size());
    for (size_t i = 0; i < after[index].size(); ++i)
      std::printf(" %g", after[index].get(i));
    std::printf("\n");
  }
  bool allPassed = true;
  for (const GemmCheck &gemm : checks) {
    CheckReport report = runGemmCheck(gemm, before, after);
    allPassed &= report.passed;
    std::printf("check gemm %zux%zux%zu (C = argument %d, %s): %s: %zu "
                "elements, %zu mismatches, %zu written outside C, max abs "
                "error %.3g, max rel error %.3g\n",
                gemm.m, gemm.n, gemm.k, gemm.c.buffer,
                getElementTypeName(after[gemm.c.buffer].getType()),
                report.passed ? "PASSED" : "FAILED", report.compared,
                report.mismatches, report.clobbered, report.maxAbsError,
                report.maxRelError);
    if (!report.details.empty())
      std::printf("%s", report.details.c_str());
  }
  for (auto [x, y] : sameChecks) {
    if (x < 0 || y < 0 || size_t(x) >= after.size() ||
        size_t(y) >= after.size())
      fail("--expect-same: no such argument");
    bool passed = after[x].getBytes() == before[y].getBytes();
    allPassed &= passed;
    std::printf("check same: argument %d after the run %s argument %d before "
                "it\n",
                x, passed ? "PASSED: equals" : "FAILED: differs from", y);
  }
  dlclose(handle);
  std::remove(library.c_str());
  rmdir(directory);
  return allPassed ? 0 : 1;
}
