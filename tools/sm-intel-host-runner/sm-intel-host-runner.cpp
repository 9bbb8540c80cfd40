//===- sm-intel-host-runner.cpp - run Intel per-invocation kernels --------===//
//
// Runs the kernels of `sm-opt --sm-lower-to-intel` on the CPU: the LLVM IR of
// `sm-translate --emit-intel-host-llvm` (the same per-invocation code that
// becomes the SPIR-V binary) is compiled for the host and linked with a
// runtime where every invocation is a fiber (workgroups run in parallel) and
// the multiply-accumulate
// builtin is implemented from the extension's mapping rules. Results are
// checked like sm-vulkan-runner's.
//
//===----------------------------------------------------------------------===//

#include "HostRunnerMain.h"
#include "TemporaryDirectory.h"

#include <cstdlib>
#include <dlfcn.h>
#include <string>
#include <unistd.h>

using namespace sm_runner;

extern "C" void sm_intel_launch(void (*entry)(void **), void **arguments,
                                const unsigned grid[3], const unsigned info[4]);

namespace {

const char *usage =
    R"(usage: sm-intel-host-runner KERNEL.ll --entry NAME [options]
       sm-intel-host-runner --plan DIR [--output-dir D]

Compiles KERNEL.ll (from sm-translate --emit-intel-host-llvm) for the host
with llc, links it against the SPV_INTEL host runtime built into this
tool, and runs kernel NAME over
a grid of workgroups on the CPU. Argument i of the kernel is --arg/--scalar
number i (integer scalars are 32-bit). The workgroup and subgroup sizes are
the kernel's.

  --entry NAME            the kernel to run
  --plan DIR              run the whole program the runtime wrote to DIR (a
                          device plan with its kernels and inputs; sm-run
                          does this for Intel targets); outputs go to
                          result_<i>.npy and arg_<i>.npy in DIR, or in
                          --output-dir D
  --cxx COMPILER          C++ compiler (default: $CXX, else c++)
  --llc LLC               LLVM's llc (default: the one of LLVM 22)
)";

/// Compiles the kernel file at `path` for the host and loads it; false with
/// `error`.
bool loadKernels(const std::string &path, const std::string &compiler,
                 const std::string &llc, void *&handle, std::string &error) {
  if (access(path.c_str(), R_OK) != 0) {
    error = "cannot read '" + path + "'";
    return false;
  }
  TemporaryDirectory directory;
  if (!directory.create("sm-intel-", error))
    return false;
  std::string object = directory.getPath() + "/kernel.o";
  std::string library = directory.getPath() + "/kernel.so";
  std::string compile = llc + " -O1 -filetype=obj -relocation-model=pic " +
                        "-mtriple=x86_64-unknown-linux-gnu '" + path +
                        "' -o '" + object + "'";
  if (std::system(compile.c_str()) != 0) {
    error = "llc rejected '" + path + "' (" + compile + ")";
    return false;
  }
  // The runtime is part of this executable, which exports its symbols to
  // the kernel library.
  std::string link =
      compiler + " -shared '" + object + "' -o '" + library + "'";
  if (std::system(link.c_str()) != 0) {
    error = "cannot link the kernel (" + link + ")";
    return false;
  }
  handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    error = std::string("cannot load the compiled kernel: ") + dlerror();
    return false;
  }
  // Loaded: the files are no longer needed, and a kernel that faults must
  // not leave them behind.
  directory.remove();
  return true;
}

/// One kernel of a loaded kernel file.
struct IntelKernel {
  void (*function)(void **) = nullptr;
  /// The subgroup size and the workgroup's three sizes.
  const unsigned *info = nullptr;
  const char *signature = nullptr;
};

/// Finds kernel `entry` in `handle`; false with `error`.
bool findKernel(void *handle, const std::string &entry, IntelKernel &kernel,
                std::string &error) {
  kernel.function = reinterpret_cast<void (*)(void **)>(
      dlsym(handle, ("sm_intel_entry_" + entry).c_str()));
  kernel.info = reinterpret_cast<const unsigned *>(
      dlsym(handle, ("sm_intel_info_" + entry).c_str()));
  kernel.signature = reinterpret_cast<const char *>(
      dlsym(handle, ("sm_intel_signature_" + entry).c_str()));
  if (!kernel.function || !kernel.info) {
    error = "the kernel file has no kernel '" + entry + "'";
    return false;
  }
  if (!kernel.signature) {
    error = "the kernel file does not describe the arguments of '" + entry +
            "' (was it written by this sm-translate --emit-intel-host-llvm?)";
    return false;
  }
  return true;
}

/// The Intel kernels of one LLVM IR file, compiled with llc.
class IntelKernelFile : public HostKernelFile {
public:
  std::string compiler, llc = SM_LLC_PATH;

  bool load(const std::string &path, std::string &error) override {
    return loadKernels(path, compiler, llc, handle, error);
  }
  bool getSignature(const std::string &entry, std::string &signature,
                    std::string &error) override {
    IntelKernel kernel;
    if (!findKernel(handle, entry, kernel, error))
      return false;
    signature = kernel.signature;
    return true;
  }
  bool launch(const std::string &entry, void **arguments,
              const unsigned grid[3], std::string &shape,
              std::string &error) override {
    IntelKernel kernel;
    if (!findKernel(handle, entry, kernel, error))
      return false;
    sm_intel_launch(kernel.function, arguments, grid, kernel.info);
    const unsigned *info = kernel.info;
    shape = "workgroups " + std::to_string(info[1]) + "," +
            std::to_string(info[2]) + "," + std::to_string(info[3]) +
            ", subgroup size " + std::to_string(info[0]);
    return true;
  }

private:
  void *handle = nullptr;
};

} // namespace

int main(int argc, char **argv) {
  IntelKernelFile kernels;
  const char *cxxFromEnvironment = std::getenv("CXX");
  kernels.compiler = cxxFromEnvironment ? cxxFromEnvironment : "c++";
  return runHostRunner(argc, argv, "sm-intel-host-runner", usage,
                       {{"--cxx", &kernels.compiler}, {"--llc", &kernels.llc}},
                       kernels);
}
