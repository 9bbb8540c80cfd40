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

#include "BufferGuards.h"
#include "KernelSignature.h"
#include "RunnerOptions.h"
#include "TemporaryDirectory.h"

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
metal_stdlib, then runs kernel NAME over a grid of threadgroups on the CPU:
every invocation a host thread, simdgroup matrix functions rendezvous of
their simdgroup. Argument i of the kernel is [[buffer(i)]]; the threadgroup
size is the kernel's known_block_size.

  --entry NAME            the kernel to run
  --cxx COMPILER          C++ compiler (default: $CXX, else c++)
)";

[[noreturn]] void fail(const std::string &message) {
  std::cerr << "sm-msl-host-runner: error: " << message << "\n";
  std::exit(2);
}

} // namespace

int main(int argc, char **argv) {
  std::string kernelPath, entry;
  CommonOptions options;
  const char *cxxFromEnvironment = std::getenv("CXX");
  std::string compiler = cxxFromEnvironment ? cxxFromEnvironment : "c++";
  std::string error = parseHostRunnerCommandLine(
      argc, argv, usage, {{"--cxx", &compiler}}, options, kernelPath, entry);
  if (!error.empty())
    fail(error);
  if (access(kernelPath.c_str(), R_OK) != 0)
    fail("cannot read '" + kernelPath + "'");

  // Compile the Metal source as C++ into a shared library.
  TemporaryDirectory directory;
  if (!directory.create("sm-msl-", error))
    fail(error);
  std::string library = directory.getPath() + "/kernel.so";
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
  // Loaded: the files are no longer needed, and a kernel that faults must
  // not leave them behind.
  directory.remove();
  using Launch = int (*)(const char *, void **, const unsigned *, unsigned *);
  auto launch = reinterpret_cast<Launch>(dlsym(handle, "sm_msl_launch"));
  if (!launch)
    fail("the compiled kernel has no sm_msl_launch (was it emitted by "
         "sm-translate --emit-msl?)");

  using Signature = const char *(*)(const char *);
  auto signature =
      reinterpret_cast<Signature>(dlsym(handle, "sm_msl_signature"));
  const char *signatureText = signature ? signature(entry.c_str()) : nullptr;
  if (!signatureText)
    fail("the kernel file has no kernel '" + entry + "'");
  error = checkKernelArguments(entry, signatureText, options.arguments);
  if (!error.empty())
    fail(error);

  std::vector<HostBuffer> before, after;
  if (!createBuffers(options, before, error))
    fail(error);
  after = before;
  GuardedHostBuffers guarded(before);
  std::vector<void *> pointers = guarded.getPointers();
  unsigned threadgroupSize[3] = {0, 0, 0};
  int status = 0;
  guarded.run([&] {
    status =
        launch(entry.c_str(), pointers.data(), options.grid, threadgroupSize);
  });
  if (status)
    fail("the kernel file has no kernel '" + entry + "'");
  std::vector<std::string> damages = guarded.copyBack(after);
  std::printf("ran '%s' on the host: grid %u,%u,%u of threadgroups %u,%u,%u\n",
              entry.c_str(), options.grid[0], options.grid[1], options.grid[2],
              threadgroupSize[0], threadgroupSize[1], threadgroupSize[2]);
  bool passed = reportBoundsChecks(damages, after);
  passed &= reportResults(options, before, after, error);
  if (!error.empty())
    fail(error);
  dlclose(handle);
  return passed ? 0 : 1;
}
