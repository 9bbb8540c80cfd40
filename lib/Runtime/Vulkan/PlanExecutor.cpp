//===- PlanExecutor.cpp - run a device plan on a Vulkan device ------------===//

#include "PlanExecutor.h"

#include <algorithm>
#include <cstdlib>

using namespace sm_runner;
using mlir::subgroup_matrix::runtime::NpyArray;

std::unique_ptr<PlanExecutor> PlanExecutor::load(VulkanDevice &device,
                                                 DevicePlan plan,
                                                 std::string &error,
                                                 int &failedStep) {
  failedStep = -1;
  std::unique_ptr<PlanExecutor> executor(
      new PlanExecutor(device, std::move(plan)));
  const DevicePlan &loaded = executor->plan;

  std::vector<SpirvModule> modules(loaded.binaries.size());
  for (size_t i = 0; i < loaded.binaries.size(); ++i)
    if (!parseSpirvModule(loaded.binaries[i], "binary " + std::to_string(i),
                          modules[i], error))
      return nullptr;

  // Pipelines, after checking each kernel against the device at the
  // largest grid it is launched with.
  std::vector<int> pipelines(loaded.kernels.size(), -1);
  std::vector<std::vector<KernelParameter>> parameters(loaded.kernels.size());
  for (size_t index = 0; index < loaded.steps.size(); ++index) {
    const DevicePlan::Step &step = loaded.steps[index];
    if (step.isCopy || pipelines[step.kernel] >= 0)
      continue;
    const DevicePlan::Kernel &kernel = loaded.kernels[step.kernel];
    const SpirvModule &module = modules[kernel.binary];
    unsigned grid[3] = {0, 0, 0};
    for (const DevicePlan::Step &other : loaded.steps)
      if (!other.isCopy && other.kernel == step.kernel)
        for (int d = 0; d < 3; ++d)
          grid[d] = std::max(grid[d], other.grid[d]);
    MissingRequirements missing = findMissingRequirements(
        module, device.getInfo(), device.getFeatures(), 0, grid);
    failedStep = int(index);
    if (!missing.empty()) {
      error = missing.describe(step.name, device.getInfo());
      return nullptr;
    }
    parameters[step.kernel] = getEntryParameters(module, kernel.entry);
    if (parameters[step.kernel].size() != step.arguments.size()) {
      error = step.name + " is launched with " +
              std::to_string(step.arguments.size()) +
              " arguments, but its binary takes " +
              std::to_string(parameters[step.kernel].size());
      return nullptr;
    }
    pipelines[step.kernel] = device.createKernel(
        module, kernel.entry, unsigned(step.arguments.size()), error);
    if (pipelines[step.kernel] < 0)
      return nullptr;
    failedStep = -1;
  }

  for (const DevicePlan::Output &output : loaded.outputs) {
    uint64_t size;
    if (!getOutputSize(loaded, output, size, error))
      return nullptr;
  }

  // Buffers: constants are uploaded now, poisoned buffers filled now (and
  // each program writes them before it reads them, or the poison shows).
  for (const DevicePlan::Buffer &buffer : loaded.buffers) {
    int id = device.createBuffer(buffer.size, error);
    if (id < 0) {
      error = "the device cannot hold " +
              (buffer.start == DevicePlan::Buffer::Start::Input
                   ? "argument " + std::to_string(buffer.argument)
                   : std::string("an intermediate buffer")) +
              " of " + std::to_string(buffer.size) + " bytes: " + error;
      return nullptr;
    }
    executor->buffers.push_back(id);
    std::vector<char> initial;
    if (buffer.start == DevicePlan::Buffer::Start::Poison)
      initial.assign(buffer.size, char(0xFF));
    else if (buffer.start == DevicePlan::Buffer::Start::Data)
      initial = buffer.data;
    if (!initial.empty() &&
        !device.writeBuffer(id, 0, initial.data(), initial.size(), error))
      return nullptr;
  }

  std::vector<VulkanDevice::Step> steps;
  for (const DevicePlan::Step &planned : loaded.steps) {
    VulkanDevice::Step step;
    auto binding = [&](const DevicePlan::Argument &argument) {
      return VulkanDevice::Binding{executor->buffers[argument.buffer],
                                   argument.offset, argument.size};
    };
    if (planned.isCopy) {
      step.isCopy = true;
      step.copySource = binding(planned.arguments[0]);
      step.copyTarget = binding(planned.arguments[1]);
      steps.push_back(step);
      continue;
    }
    step.kernel = pipelines[planned.kernel];
    step.grid = planned.grid;
    for (const DevicePlan::Argument &argument : planned.arguments) {
      if (!argument.isScalar) {
        step.bindings.push_back(binding(argument));
        continue;
      }
      int id = device.createBuffer(argument.scalar.size(), error);
      if (id < 0 || !device.writeBuffer(id, 0, argument.scalar.data(),
                                        argument.scalar.size(), error))
        return nullptr;
      executor->scalarBuffers.push_back(id);
      step.bindings.push_back({id, 0, uint64_t(argument.scalar.size())});
    }
    steps.push_back(std::move(step));
  }
  executor->prepared = device.prepare(steps, error);
  if (executor->prepared < 0)
    return nullptr;
  return executor;
}

PlanExecutor::~PlanExecutor() {
  device.destroyPrepared(prepared);
  for (int id : buffers)
    device.destroyBuffer(id);
  for (int id : scalarBuffers)
    device.destroyBuffer(id);
}

bool PlanExecutor::run(const std::vector<const NpyArray *> &inputs,
                       std::vector<NpyArray> &outputs, std::string &error) {
  if (!checkPlanInputs(plan, inputs, error))
    return false;
  for (size_t index = 0; index < plan.buffers.size(); ++index) {
    const DevicePlan::Buffer &buffer = plan.buffers[index];
    if (buffer.start != DevicePlan::Buffer::Start::Input)
      continue;
    std::vector<char> bytes;
    if (!getInputBytes(plan, buffer, *inputs[buffer.argument], bytes, error))
      return false;
    if (!device.writeBuffer(buffers[index], 0, bytes.data(), bytes.size(),
                            error))
      return false;
  }
  if (!device.run(prepared, 1, error))
    return false;
  for (size_t index = 0; index < buffers.size(); ++index) {
    // An input's elements name the damage; an intermediate buffer's bytes.
    const DevicePlan::Buffer &buffer = plan.buffers[index];
    unsigned elementSize = 1;
    if (buffer.start == DevicePlan::Buffer::Start::Input &&
        !plan.inputs[buffer.argument].packedBits)
      elementSize =
          unsigned(std::atoi(plan.inputs[buffer.argument].dtype.c_str() + 1));
    std::string damage = device.checkGuards(buffers[index], elementSize, error);
    if (!error.empty())
      return false;
    if (damage.empty())
      continue;
    error = "a kernel wrote outside " +
            (buffer.start == DevicePlan::Buffer::Start::Input
                 ? "argument " + std::to_string(buffer.argument)
                 : "an intermediate buffer of " + std::to_string(buffer.size) +
                       " bytes") +
            ": " + damage;
    return false;
  }
  outputs.clear();
  for (const DevicePlan::Output &output : plan.outputs) {
    uint64_t size;
    std::vector<char> bytes;
    if (!getOutputSize(plan, output, size, error))
      return false;
    bytes.resize(size);
    if (!device.readBuffer(buffers[output.buffer], output.offset, bytes.data(),
                           size, error))
      return false;
    outputs.push_back(decodeOutput(output, bytes.data()));
  }
  return true;
}

bool PlanExecutor::time(unsigned repeat, VulkanDevice::Timing &timing,
                        std::string &error) {
  return device.time(prepared, repeat, timing, error);
}
