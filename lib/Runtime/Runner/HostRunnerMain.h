//===- HostRunnerMain.h - what the host runners' mains share ----*- C++ -*-===//
//
// sm-intel-host-runner and sm-msl-host-runner differ only in how they turn
// a kernel file into code that runs on the host; everything else (the
// command line, the buffers between guard pages, the checks and the report,
// whole plans with --plan) is runHostRunner.
//
//===----------------------------------------------------------------------===//

#ifndef SM_RUNTIME_RUNNER_HOSTRUNNERMAIN_H
#define SM_RUNTIME_RUNNER_HOSTRUNNERMAIN_H

#include <string>
#include <utility>
#include <vector>

namespace sm_runner {

/// A kernel file compiled for the host, as a host runner loads it.
class HostKernelFile {
public:
  virtual ~HostKernelFile() = default;
  /// Compiles and loads the kernel file at `path`.
  virtual bool load(const std::string &path, std::string &error) = 0;
  /// The signature text of kernel `entry` (KernelSignature.h); false with
  /// `error` when the file has no such kernel.
  virtual bool getSignature(const std::string &entry, std::string &signature,
                            std::string &error) = 0;
  /// Runs kernel `entry` over `grid` on `arguments`; `shape` gets what the
  /// report says of its workgroups ("workgroups 64,1,1, subgroup size 16").
  virtual bool launch(const std::string &entry, void **arguments,
                      const unsigned grid[3], std::string &shape,
                      std::string &error) = 0;
};

/// The main function of a host runner named `tool`: parses the command
/// line (parseHostRunnerCommandLine with `usage` and `stringOptions`), then
/// runs and checks one kernel of a kernel file, or a whole plan (--plan).
/// Returns the exit status: 0 when every check passed, 1 when one failed,
/// 2 on errors.
int runHostRunner(
    int argc, char **argv, const char *tool, const char *usage,
    const std::vector<std::pair<std::string, std::string *>> &stringOptions,
    HostKernelFile &kernels);

} // namespace sm_runner

#endif // SM_RUNTIME_RUNNER_HOSTRUNNERMAIN_H
