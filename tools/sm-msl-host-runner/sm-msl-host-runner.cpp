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
#include "HostPlanExecutor.h"
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
       sm-msl-host-runner --plan DIR [--output-dir D]

Compiles KERNEL.metal (from sm-translate --emit-msl) as C++20 with the host
metal_stdlib, then runs kernel NAME over a grid of threadgroups on the CPU:
every invocation a host thread, simdgroup matrix functions rendezvous of
their simdgroup. Argument i of the kernel is [[buffer(i)]]; the threadgroup
size is the kernel's known_block_size.

  --entry NAME            the kernel to run
  --plan DIR              run the whole program the runtime wrote to DIR (a
                          device plan with its kernels and inputs; sm-run
                          does this for Apple targets); outputs go to
                          result_<i>.npy and arg_<i>.npy in DIR, or in
                          --output-dir D
  --cxx COMPILER          C++ compiler (default: $CXX, else c++)
)";

[[noreturn]] void fail(const std::string &message) {
  std::cerr << "sm-msl-host-runner: error: " << message << "\n";
  std::exit(2);
}

/// The functions of a compiled kernel file.
struct MetalKernels {
  void *handle = nullptr;
  int (*launch)(const char *, void **, const unsigned *, unsigned *) = nullptr;
  const char *(*signature)(const char *) = nullptr;
};

/// Compiles the Metal source at `path` as C++ into a shared library and
/// loads it; false with `error`.
bool loadKernels(const std::string &path, const std::string &compiler,
                 MetalKernels &kernels, std::string &error) {
  if (access(path.c_str(), R_OK) != 0) {
    error = "cannot read '" + path + "'";
    return false;
  }
  TemporaryDirectory directory;
  if (!directory.create("sm-msl-", error))
    return false;
  std::string library = directory.getPath() + "/kernel.so";
  std::string command = compiler + " -std=c++20 -O1 -w -shared -fPIC " +
                        "-DSM_MSL_HOST -I'" SM_MSL_HOST_INCLUDE_DIR "' " +
                        "-x c++ '" + path + "' -o '" + library + "' -pthread";
  if (std::system(command.c_str()) != 0) {
    error = "the host C++ compiler rejected '" + path + "' (" + command + ")";
    return false;
  }
  kernels.handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!kernels.handle) {
    error = std::string("cannot load the compiled kernel: ") + dlerror();
    return false;
  }
  // Loaded: the files are no longer needed, and a kernel that faults must
  // not leave them behind.
  directory.remove();
  kernels.launch = reinterpret_cast<decltype(kernels.launch)>(
      dlsym(kernels.handle, "sm_msl_launch"));
  kernels.signature = reinterpret_cast<decltype(kernels.signature)>(
      dlsym(kernels.handle, "sm_msl_signature"));
  if (!kernels.launch) {
    error = "the compiled kernel has no sm_msl_launch (was it emitted by "
            "sm-translate --emit-msl?)";
    return false;
  }
  return true;
}

/// The signature text of kernel `entry`; false with `error` when the file
/// has no such kernel.
bool findSignature(const MetalKernels &kernels, const std::string &entry,
                   std::string &signature, std::string &error) {
  const char *text =
      kernels.signature ? kernels.signature(entry.c_str()) : nullptr;
  if (!text) {
    error = "the kernel file has no kernel '" + entry + "'";
    return false;
  }
  signature = text;
  return true;
}

} // namespace

int main(int argc, char **argv) {
  HostRunnerInvocation invocation;
  CommonOptions options;
  const char *cxxFromEnvironment = std::getenv("CXX");
  std::string compiler = cxxFromEnvironment ? cxxFromEnvironment : "c++";
  std::string error = parseHostRunnerCommandLine(
      argc, argv, usage, {{"--cxx", &compiler}}, options, invocation);
  if (!error.empty())
    fail(error);

  MetalKernels kernels;
  if (!invocation.planDirectory.empty()) {
    auto load = [&](const std::string &path, HostLaunch &launch,
                    std::string &error) {
      if (!loadKernels(path, compiler, kernels, error))
        return false;
      launch = [&](const std::string &entry, const DevicePlan::Step &step,
                   void **arguments, const unsigned grid[3],
                   std::string &error) {
        std::string signature;
        if (!findSignature(kernels, entry, signature, error))
          return false;
        error = checkLaunchArguments(entry, signature, step);
        if (!error.empty())
          return false;
        unsigned threadgroupSize[3] = {0, 0, 0};
        kernels.launch(entry.c_str(), arguments, grid, threadgroupSize);
        return true;
      };
      return true;
    };
    if (!runHostPlanDirectory(invocation.planDirectory,
                              invocation.outputDirectory, load, error))
      fail(error);
    return 0;
  }

  const std::string &entry = invocation.entry;
  std::string signature;
  if (!loadKernels(invocation.kernelPath, compiler, kernels, error) ||
      !findSignature(kernels, entry, signature, error))
    fail(error);
  error = checkKernelArguments(entry, signature, options.arguments);
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
    status = kernels.launch(entry.c_str(), pointers.data(), options.grid,
                            threadgroupSize);
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
  dlclose(kernels.handle);
  return passed ? 0 : 1;
}
