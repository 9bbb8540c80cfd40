//===- RunnerOptions.h - command line and reports shared by runners -*- C++
//-*-===//

#ifndef SM_RUNTIME_RUNNER_RUNNEROPTIONS_H
#define SM_RUNTIME_RUNNER_RUNNEROPTIONS_H

#include "GemmCheck.h"
#include "HostBuffer.h"

#include <string>
#include <utility>
#include <vector>

namespace sm_runner {

/// The options every runner takes: kernel arguments, the grid, and what to
/// check or print afterwards.
struct CommonOptions {
  std::vector<BufferSpec> arguments;
  unsigned grid[3] = {1, 1, 1};
  std::vector<GemmCheck> checks;
  std::vector<std::pair<int, int>> sameChecks;
  std::vector<int> dumps;
  /// --output ARG:PATH: argument ARG's bytes after the run go to PATH.
  std::vector<std::pair<int, std::string>> outputs;
};

/// The largest workgroup count of one grid dimension (Vulkan's guaranteed
/// minimum of maxComputeWorkGroupCount is 65535; devices check their own).
constexpr uint64_t maxGridDimension = (uint64_t(1) << 31) - 1;
/// The largest argument number an option may name.
constexpr uint64_t maxArgumentIndex = 1023;

/// Parses `text`, the value of `option`, as an integer in [min, max]; sets
/// `error` ("--repeat needs an integer from 0 to ..., got 'abc'") otherwise.
bool parseIntegerOption(const std::string &option, const std::string &text,
                        uint64_t min, uint64_t max, uint64_t &value,
                        std::string &error);

/// The help text of the common options.
extern const char *commonOptionsHelp;

/// Consumes argv[i] (and its value) if it is a common option. Returns false
/// if it is not one; sets `error` if it is one but malformed.
bool parseCommonOption(int &i, int argc, char **argv, CommonOptions &options,
                       std::string &error);

/// What a host runner is asked to run: one kernel of a kernel file, or a
/// whole plan that the runtime wrote (HostPlanExecutor.h).
struct HostRunnerInvocation {
  std::string kernelPath, entry;
  /// --plan DIRECTORY, and --output-dir for its outputs.
  std::string planDirectory, outputDirectory;
};

/// Parses the command line of a runner that compiles a kernel file on the
/// host: the common options; `--help`, which prints `usage`, the common
/// options and the exit statuses, then exits; `--NAME VALUE` for each named
/// string in `stringOptions`; and the kernel file with `--entry`, or
/// `--plan DIRECTORY` (with `--output-dir`). Returns an error message, empty
/// on success.
std::string parseHostRunnerCommandLine(
    int argc, char **argv, const char *usage,
    const std::vector<std::pair<std::string, std::string *>> &stringOptions,
    CommonOptions &options, HostRunnerInvocation &invocation);

/// Checks that the arguments fit in this machine's memory: a runner holds
/// each about three times (before, after, and the device's or guarded
/// copy). Returns an error message, or an empty string.
std::string checkArgumentMemory(const std::vector<BufferSpec> &arguments);

/// Fills the buffers of `options.arguments`; sets `error` on failure.
bool createBuffers(const CommonOptions &options,
                   std::vector<HostBuffer> &buffers, std::string &error);

/// Prints the dumps and the results of every check comparing `after` with
/// `before`; returns whether every check passed.
bool reportResults(const CommonOptions &options,
                   const std::vector<HostBuffer> &before,
                   const std::vector<HostBuffer> &after, std::string &error);

} // namespace sm_runner

#endif // SM_RUNTIME_RUNNER_RUNNEROPTIONS_H
