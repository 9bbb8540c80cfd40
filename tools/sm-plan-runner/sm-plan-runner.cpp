//===- sm-plan-runner.cpp - run a device plan that sm-run wrote -----------===//
//
// Runs the plan `sm-run --emit-plan DIR` wrote (binaries, buffers, launches
// and the inputs) on a Vulkan device, as sm-run would have: outputs go to
// result_<i>.npy and arg_<i>.npy, and --repeat times the whole program.
// It depends on nothing but the C++ runtime and the Vulkan loader, so that
// it runs on GPU machines without this project's toolchain.
//
// Exit status: 0 on success, 2 on errors.
//
//===----------------------------------------------------------------------===//

#include "DevicePlan.h"
#include "DriverRoot.h"
#include "PlanExecutor.h"
#include "RunnerOptions.h"

#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

using namespace sm_runner;

namespace {
const char *usage =
    R"(usage: sm-plan-runner DIR [--output-dir D] [--repeat N] [--device N]
                      [--input FILE.npy]...

Runs the plan that `sm-run PROGRAM --target NAME --emit-plan DIR` wrote:
the inputs are DIR/input_<i>.npy unless --input gives them (same shapes and
types as the plan was made for); result i goes to D/result_<i>.npy and each
argument the program writes to D/arg_<i>.npy (D defaults to DIR).
--repeat N times N more runs on the device.
)";

[[noreturn]] void fail(const std::string &message) {
  std::cerr << "sm-plan-runner: error: " << message << "\n";
  std::exit(2);
}
} // namespace

int main(int argc, char **argv) {
  std::string directory, outputDirectory;
  std::vector<std::string> inputPaths;
  uint64_t repeat = 0, device = 0;
  bool haveDevice = false;
  for (int i = 1; i < argc; ++i) {
    std::string argument = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc)
        fail(argument + " needs a value");
      return argv[++i];
    };
    std::string error;
    if (argument == "--help" || argument == "-h") {
      std::printf("%s", usage);
      return 0;
    } else if (argument == "--output-dir") {
      outputDirectory = value();
    } else if (argument == "--input") {
      inputPaths.push_back(value());
    } else if (argument == "--repeat") {
      if (!parseIntegerOption("--repeat", value(), 0, 100000, repeat, error))
        fail(error);
    } else if (argument == "--device") {
      if (!parseIntegerOption("--device", value(), 0, 64, device, error))
        fail(error);
      haveDevice = true;
    } else if (!argument.empty() && argument[0] == '-') {
      fail("unknown option '" + argument + "'\n" + usage);
    } else if (directory.empty()) {
      directory = argument;
    } else {
      fail("more than one plan directory given");
    }
  }
  if (directory.empty())
    fail(std::string("no plan directory given\n") + usage);
  if (outputDirectory.empty())
    outputDirectory = directory;

  std::string error;
  DevicePlan plan;
  if (!readDevicePlan(directory, plan, error))
    fail(error);
  std::vector<NpyArray> arrays;
  if (!readPlanInputs(plan, directory, inputPaths, arrays, error))
    fail(error);
  std::vector<const NpyArray *> inputs;
  for (const NpyArray &array : arrays)
    inputs.push_back(&array);

  if (!enterDriverRoot(argv, targetNeedsDriverRoot(plan.target), error))
    fail(error);
  VulkanDevice::OpenOptions selection;
  selection.index = haveDevice ? int(device) : -1;
  selection.preferCpu = targetRunsOnCpu(plan.target);
  std::unique_ptr<VulkanDevice> vulkan = VulkanDevice::open(selection, error);
  if (!vulkan)
    fail(error);
  std::printf("device: %s\n", vulkan->describe().c_str());
  int failedStep = -1;
  std::unique_ptr<PlanExecutor> executor =
      PlanExecutor::load(*vulkan, std::move(plan), error, failedStep);
  if (!executor)
    fail(error);
  std::vector<NpyArray> outputs;
  if (!executor->run(inputs, outputs, error))
    fail(error);
  if (!writePlanOutputs(executor->getPlan(), outputDirectory, outputs, error))
    fail(error);
  if (repeat) {
    sm_runner::VulkanDevice::Timing timing;
    if (!executor->time(unsigned(repeat), timing, error))
      fail(error);
    if (timing.stepNanoseconds.empty()) {
      std::printf("time: not measured (the device has no timestamps)\n");
    } else {
      std::printf("time: %.3f us per run (mean of %u runs, first step to "
                  "last)\n",
                  timing.totalNanoseconds / 1000, unsigned(repeat));
      double sum = 0;
      for (size_t i = 0; i < timing.stepNanoseconds.size(); ++i) {
        sum += timing.stepNanoseconds[i] / 1000;
        std::printf("  %2zu %-40s %10.3f us\n", i,
                    executor->getPlan().steps[i].name.c_str(),
                    timing.stepNanoseconds[i] / 1000);
      }
      std::printf("steps: %.3f us summed; host: %.3f us per run, submission "
                  "to completion\n",
                  sum, timing.hostNanoseconds / 1000);
    }
  }
  return 0;
}
