//===- HostPlanExecutor.cpp - run a device plan on the host ---------------===//

#include "HostPlanExecutor.h"

#include "BufferGuards.h"
#include "HostBuffer.h"

#include <cstdio>
#include <cstring>

using namespace sm_runner;

/// `size` bytes at `bytes` as a host buffer of bytes, for a guarded mapping.
static HostBuffer makeByteBuffer(const char *bytes, uint64_t size) {
  HostBuffer buffer(ElementType::U8, size);
  std::memcpy(buffer.getBytes().data(), bytes, size);
  return buffer;
}

bool sm_runner::runHostPlan(const DevicePlan &plan,
                            const std::vector<const NpyArray *> &inputs,
                            const HostLaunch &launch,
                            std::vector<NpyArray> &outputs,
                            std::string &error) {
  if (!checkPlanInputs(plan, inputs, error))
    return false;
  std::vector<std::vector<char>> buffers;
  for (const DevicePlan::Buffer &buffer : plan.buffers) {
    std::vector<char> bytes;
    if (buffer.start == DevicePlan::Buffer::Start::Input) {
      if (!getInputBytes(plan, buffer, *inputs[buffer.argument], bytes, error))
        return false;
    } else if (buffer.start == DevicePlan::Buffer::Start::Data) {
      bytes = buffer.data;
    } else {
      // Poisoned, so that elements no kernel writes show.
      bytes.assign(buffer.size, char(0xFF));
    }
    buffers.push_back(std::move(bytes));
  }

  for (const DevicePlan::Step &step : plan.steps) {
    if (step.isCopy) {
      const DevicePlan::Argument &source = step.arguments[0];
      const DevicePlan::Argument &target = step.arguments[1];
      std::memmove(buffers[target.buffer].data() + target.offset,
                   buffers[source.buffer].data() + source.offset, source.size);
      continue;
    }
    std::vector<HostBuffer> arguments;
    for (const DevicePlan::Argument &argument : step.arguments)
      arguments.push_back(
          argument.isScalar
              ? makeByteBuffer(argument.scalar.data(), argument.scalar.size())
              : makeByteBuffer(buffers[argument.buffer].data() +
                                   argument.offset,
                               argument.size));
    std::vector<HostBuffer> after = arguments;
    GuardedHostBuffers guarded(arguments);
    std::vector<void *> pointers = guarded.getPointers();
    const std::string &entry = plan.kernels[step.kernel].entry;
    bool launched = true;
    guarded.run([&] {
      launched = launch(entry, step, pointers.data(), step.grid.data(), error);
    });
    if (!launched)
      return false;
    std::vector<std::string> damages = guarded.copyBack(after);
    for (size_t i = 0; i < damages.size(); ++i)
      if (!damages[i].empty()) {
        error = step.name + " wrote outside its argument " + std::to_string(i) +
                ": " + damages[i];
        return false;
      }
    for (size_t i = 0; i < step.arguments.size(); ++i)
      if (!step.arguments[i].isScalar)
        std::memcpy(buffers[step.arguments[i].buffer].data() +
                        step.arguments[i].offset,
                    after[i].getBytes().data(), step.arguments[i].size);
  }

  outputs.clear();
  for (const DevicePlan::Output &output : plan.outputs) {
    uint64_t size;
    if (!getOutputSize(plan, output, size, error))
      return false;
    outputs.push_back(
        decodeOutput(output, buffers[output.buffer].data() + output.offset));
  }
  return true;
}

bool sm_runner::runHostPlanDirectory(
    const std::string &directory, std::string outputDirectory,
    const std::function<bool(const std::string &, HostLaunch &, std::string &)>
        &load,
    std::string &error) {
  DevicePlan plan;
  std::vector<NpyArray> arrays;
  if (!readDevicePlan(directory, plan, error) ||
      !readPlanInputs(plan, directory, {}, arrays, error))
    return false;
  if (plan.hostSourceName.empty()) {
    error = "the plan in '" + directory +
            "' has no host source (a plan for a Vulkan target runs with "
            "sm-plan-runner)";
    return false;
  }
  HostLaunch launch;
  if (!load(directory + "/" + plan.hostSourceName, launch, error))
    return false;
  std::vector<const NpyArray *> inputs;
  for (const NpyArray &array : arrays)
    inputs.push_back(&array);
  std::vector<NpyArray> outputs;
  if (!runHostPlan(plan, inputs, launch, outputs, error))
    return false;
  return writePlanOutputs(plan,
                          outputDirectory.empty() ? directory : outputDirectory,
                          outputs, error);
}
