//===- sm-msl-host-runner.cpp - run emitted Metal kernels on the CPU ------===//
//
// Compiles the Metal Shading Language of `sm-translate --emit-msl` as C++
// against this tool's host `metal_stdlib`, loads it, runs a kernel over a
// grid (every invocation a fiber of the host thread that runs its
// threadgroup, simdgroup matrix functions as rendezvous of their simdgroup) and
// checks the results like sm-vulkan-runner does. There is no Metal compiler on
// Linux; this is how the emitted code is executed and its numbers proven.
//
//===----------------------------------------------------------------------===//

#include "HostRunnerMain.h"
#include "TemporaryDirectory.h"

#include <cstdlib>
#include <dlfcn.h>
#include <string>
#include <unistd.h>

using namespace sm_runner;

namespace {

const char *usage =
    R"(usage: sm-msl-host-runner KERNEL.metal --entry NAME [options]
       sm-msl-host-runner --plan DIR [--output-dir D]

Compiles KERNEL.metal (from sm-translate --emit-msl) as C++20 with the host
metal_stdlib, then runs kernel NAME over a grid of threadgroups on the CPU:
threadgroups in parallel, every invocation a fiber of the host thread that
runs its threadgroup, simdgroup matrix functions rendezvous of their
simdgroup. Argument i of the kernel is [[buffer(i)]]; the threadgroup
size is the kernel's known_block_size.

  --entry NAME            the kernel to run
  --plan DIR              run the whole program the runtime wrote to DIR (a
                          device plan with its kernels and inputs; sm-run
                          does this for Apple targets); outputs go to
                          result_<i>.npy and arg_<i>.npy in DIR, or in
                          --output-dir D
  --cxx COMPILER          C++ compiler (default: $CXX, else c++)
)";

/// The functions of a compiled kernel file.
struct MetalKernels {
  void *handle = nullptr;
  int (*launch)(const char *, void **, const unsigned *, unsigned *) = nullptr;
  const char *(*signature)(const char *) = nullptr;
};

/// The `-I` options that find the host metal_stdlib and the fibers it runs
/// invocations on: installed beside this tool (`<prefix>/share/
/// subgroup-matrix/msl-host`), else in the source tree it was built from.
std::string getHostIncludeOptions() {
  char executable[4096];
  ssize_t length =
      readlink("/proc/self/exe", executable, sizeof(executable) - 1);
  if (length > 0) {
    std::string path(executable, length);
    std::string prefix = path.substr(0, path.find_last_of('/'));
    prefix = prefix.substr(0, prefix.find_last_of('/'));
    std::string installed = prefix + "/share/subgroup-matrix/msl-host";
    if (access((installed + "/metal_stdlib").c_str(), R_OK) == 0)
      return "-I'" + installed + "' ";
  }
  return "-I'" SM_MSL_HOST_INCLUDE_DIR "' -I'" SM_RUNNER_INCLUDE_DIR "' ";
}

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
                        "-DSM_MSL_HOST " + getHostIncludeOptions() +
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

/// The Metal kernels of one source file, compiled as C++.
class MetalKernelFile : public HostKernelFile {
public:
  std::string compiler;

  bool load(const std::string &path, std::string &error) override {
    return loadKernels(path, compiler, kernels, error);
  }
  bool getSignature(const std::string &entry, std::string &signature,
                    std::string &error) override {
    return findSignature(kernels, entry, signature, error);
  }
  bool launch(const std::string &entry, void **arguments,
              const unsigned grid[3], std::string &shape,
              std::string &error) override {
    unsigned threadgroupSize[3] = {0, 0, 0};
    if (kernels.launch(entry.c_str(), arguments, grid, threadgroupSize)) {
      error = "the kernel file has no kernel '" + entry + "'";
      return false;
    }
    shape = "threadgroups " + std::to_string(threadgroupSize[0]) + "," +
            std::to_string(threadgroupSize[1]) + "," +
            std::to_string(threadgroupSize[2]);
    return true;
  }

private:
  MetalKernels kernels;
};

} // namespace

int main(int argc, char **argv) {
  MetalKernelFile kernels;
  const char *cxxFromEnvironment = std::getenv("CXX");
  kernels.compiler = cxxFromEnvironment ? cxxFromEnvironment : "c++";
  return runHostRunner(argc, argv, "sm-msl-host-runner", usage,
                       {{"--cxx", &kernels.compiler}}, kernels);
}
