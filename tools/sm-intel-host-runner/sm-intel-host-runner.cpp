//===- sm-intel-host-runner.cpp - run Intel per-invocation kernels --------===//
//
// Runs the kernels of `sm-opt --sm-lower-to-intel` on the CPU: the LLVM IR of
// `sm-translate --emit-intel-host-llvm` (the same per-invocation code that
// becomes the SPIR-V binary) is compiled for the host and linked with a
// runtime where every invocation is a thread and the multiply-accumulate
// builtin is implemented from the extension's mapping rules. Results are
// checked like sm-vulkan-runner's.
//
//===----------------------------------------------------------------------===//

#include "BufferGuards.h"
#include "KernelSignature.h"
#include "RunnerOptions.h"
#include "TemporaryDirectory.h"

#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <iostream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace sm_runner;

extern "C" void sm_intel_launch(void (*entry)(void **), void **arguments,
                                const unsigned grid[3], const unsigned info[4]);

namespace {

const char *usage =
    R"(usage: sm-intel-host-runner KERNEL.ll --entry NAME [options]

Compiles KERNEL.ll (from sm-translate --emit-intel-host-llvm) for the host
with llc, links it against the SPV_INTEL host runtime built into this
tool, and runs kernel NAME over
a grid of workgroups on the CPU. Argument i of the kernel is --arg/--scalar
number i (integer scalars are 32-bit). The workgroup and subgroup sizes are
the kernel's.

  --entry NAME            the kernel to run
  --cxx COMPILER          C++ compiler (default: $CXX, else c++)
  --llc LLC               LLVM's llc (default: the one of LLVM 22)
)";

[[noreturn]] void fail(const std::string &message) {
  std::cerr << "sm-intel-host-runner: error: " << message << "\n";
  std::exit(2);
}

} // namespace

int main(int argc, char **argv) {
  std::string kernelPath, entry;
  CommonOptions options;
  const char *cxxFromEnvironment = std::getenv("CXX");
  std::string compiler = cxxFromEnvironment ? cxxFromEnvironment : "c++";
  std::string llc = SM_LLC_PATH;
  std::string error = parseHostRunnerCommandLine(
      argc, argv, usage, {{"--cxx", &compiler}, {"--llc", &llc}}, options,
      kernelPath, entry);
  if (!error.empty())
    fail(error);
  if (access(kernelPath.c_str(), R_OK) != 0)
    fail("cannot read '" + kernelPath + "'");

  TemporaryDirectory directory;
  if (!directory.create("sm-intel-", error))
    fail(error);
  std::string object = directory.getPath() + "/kernel.o";
  std::string library = directory.getPath() + "/kernel.so";
  std::string compile = llc + " -O1 -filetype=obj -relocation-model=pic " +
                        "-mtriple=x86_64-unknown-linux-gnu '" + kernelPath +
                        "' -o '" + object + "'";
  if (std::system(compile.c_str()) != 0)
    fail("llc rejected '" + kernelPath + "' (" + compile + ")");
  // The runtime is part of this executable, which exports its symbols to
  // the kernel library.
  std::string link =
      compiler + " -shared '" + object + "' -o '" + library + "'";
  if (std::system(link.c_str()) != 0)
    fail("cannot link the kernel (" + link + ")");
  void *handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    fail(std::string("cannot load the compiled kernel: ") + dlerror());
  // Loaded: the files are no longer needed, and a kernel that faults must
  // not leave them behind.
  directory.remove();
  using Entry = void (*)(void **);
  auto kernel = reinterpret_cast<Entry>(
      dlsym(handle, ("sm_intel_entry_" + entry).c_str()));
  auto info = reinterpret_cast<const unsigned *>(
      dlsym(handle, ("sm_intel_info_" + entry).c_str()));
  auto signature = reinterpret_cast<const char *>(
      dlsym(handle, ("sm_intel_signature_" + entry).c_str()));
  if (!kernel || !info)
    fail("the kernel file has no kernel '" + entry + "'");
  if (!signature)
    fail("the kernel file does not describe the arguments of '" + entry +
         "' (was it written by this sm-translate --emit-intel-host-llvm?)");
  error = checkKernelArguments(entry, signature, options.arguments);
  if (!error.empty())
    fail(error);

  std::vector<HostBuffer> before, after;
  if (!createBuffers(options, before, error))
    fail(error);
  after = before;
  GuardedHostBuffers guarded(before);
  std::vector<void *> pointers = guarded.getPointers();
  guarded.run(
      [&] { sm_intel_launch(kernel, pointers.data(), options.grid, info); });
  std::vector<std::string> damages = guarded.copyBack(after);
  std::printf("ran '%s' on the host: grid %u,%u,%u of workgroups %u,%u,%u, "
              "subgroup size %u\n",
              entry.c_str(), options.grid[0], options.grid[1], options.grid[2],
              info[1], info[2], info[3], info[0]);
  bool passed = reportBoundsChecks(damages, after);
  passed &= reportResults(options, before, after, error);
  if (!error.empty())
    fail(error);
  dlclose(handle);
  return passed ? 0 : 1;
}
