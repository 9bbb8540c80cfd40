//===- PlanExecutor.h - run a device plan on a Vulkan device ----*- C++ -*-===//
//
// Loads a DevicePlan onto a device once (pipelines, buffers, constants, the
// steps recorded into one command buffer with a barrier between steps) and
// runs it on inputs as often as wanted: inputs are uploaded, the recorded
// steps submitted, the guard bytes around every buffer checked, and the
// outputs read back. Shared by the runtime and sm-plan-runner.
//
//===----------------------------------------------------------------------===//

#ifndef SM_RUNTIME_VULKAN_PLANEXECUTOR_H
#define SM_RUNTIME_VULKAN_PLANEXECUTOR_H

#include "DevicePlan.h"
#include "VulkanDevice.h"

#include "SubgroupMatrix/Runtime/Npy.h"

#include <memory>
#include <string>
#include <vector>

namespace sm_runner {

class PlanExecutor {
public:
  /// Loads `plan` onto `device`. On failure returns nullptr with `error`;
  /// `failedStep` then names the step the error concerns (-1: none).
  static std::unique_ptr<PlanExecutor> load(VulkanDevice &device,
                                            DevicePlan plan, std::string &error,
                                            int &failedStep);
  ~PlanExecutor();

  const DevicePlan &getPlan() const { return plan; }

  /// Runs the plan once on `inputs` (one per plan input, checked against
  /// it) and reads every output into `outputs`, in the plan's order.
  bool run(const std::vector<const mlir::subgroup_matrix::runtime::NpyArray *>
               &inputs,
           std::vector<mlir::subgroup_matrix::runtime::NpyArray> &outputs,
           std::string &error);

  /// Times `repeat` runs of the recorded steps (on the inputs of the last
  /// run): see VulkanDevice::time.
  bool time(unsigned repeat, VulkanDevice::Timing &timing, std::string &error);

private:
  PlanExecutor(VulkanDevice &device, DevicePlan plan)
      : device(device), plan(std::move(plan)) {}
  VulkanDevice &device;
  DevicePlan plan;
  std::vector<int> buffers;
  std::vector<int> scalarBuffers;
  int prepared = -1;
};

} // namespace sm_runner

#endif // SM_RUNTIME_VULKAN_PLANEXECUTOR_H
