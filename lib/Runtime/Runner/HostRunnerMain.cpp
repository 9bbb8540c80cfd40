//===- HostRunnerMain.cpp - what the host runners' mains share ------------===//

#include "HostRunnerMain.h"

#include "BufferGuards.h"
#include "HostPlanExecutor.h"
#include "KernelSignature.h"
#include "RunnerOptions.h"

#include <cstdio>
#include <iostream>

using namespace sm_runner;

int sm_runner::runHostRunner(
    int argc, char **argv, const char *tool, const char *usage,
    const std::vector<std::pair<std::string, std::string *>> &stringOptions,
    HostKernelFile &kernels) {
  auto fail = [&](const std::string &message) {
    std::cerr << tool << ": error: " << message << "\n";
    return 2;
  };
  HostRunnerInvocation invocation;
  CommonOptions options;
  std::string error = parseHostRunnerCommandLine(
      argc, argv, usage, stringOptions, options, invocation);
  if (!error.empty())
    return fail(error);

  if (!invocation.planDirectory.empty()) {
    auto load = [&](const std::string &path, HostLaunch &launch,
                    std::string &error) {
      if (!kernels.load(path, error))
        return false;
      launch = [&](const std::string &entry, const DevicePlan::Step &step,
                   void **arguments, const unsigned grid[3],
                   std::string &error) {
        std::string signature, shape;
        if (!kernels.getSignature(entry, signature, error))
          return false;
        error = checkLaunchArguments(entry, signature, step);
        return error.empty() &&
               kernels.launch(entry, arguments, grid, shape, error);
      };
      return true;
    };
    if (!runHostPlanDirectory(invocation.planDirectory,
                              invocation.outputDirectory, load, error))
      return fail(error);
    return 0;
  }

  const std::string &entry = invocation.entry;
  std::string signature;
  if (!kernels.load(invocation.kernelPath, error) ||
      !kernels.getSignature(entry, signature, error))
    return fail(error);
  error = checkKernelArguments(entry, signature, options.arguments);
  if (!error.empty())
    return fail(error);

  std::vector<HostBuffer> before, after;
  if (!createBuffers(options, before, error))
    return fail(error);
  after = before;
  GuardedHostBuffers guarded(before);
  std::vector<void *> pointers = guarded.getPointers();
  std::string shape;
  bool launched = true;
  guarded.run([&] {
    launched =
        kernels.launch(entry, pointers.data(), options.grid, shape, error);
  });
  if (!launched)
    return fail(error);
  std::vector<std::string> damages = guarded.copyBack(after);
  std::printf("ran '%s' on the host: grid %u,%u,%u of %s\n", entry.c_str(),
              options.grid[0], options.grid[1], options.grid[2], shape.c_str());
  bool passed = reportBoundsChecks(damages, after);
  passed &= reportResults(options, before, after, error);
  if (!error.empty())
    return fail(error);
  return passed ? 0 : 1;
}
