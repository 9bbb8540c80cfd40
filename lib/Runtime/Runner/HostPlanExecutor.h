//===- HostPlanExecutor.h - run a device plan on the host -------*- C++ -*-===//
//
// The host runners (sm-intel-host-runner, sm-msl-host-runner) run a whole
// program's DevicePlan, written by the runtime, the way PlanExecutor runs
// one on a Vulkan device: the plan's buffers in host memory, its copies and
// launches in order, and its outputs read back. Each launch's arguments are
// copied into guarded mappings (GuardedHostBuffers) and back, so that a
// kernel that reaches outside them stops with the argument named.
//
//===----------------------------------------------------------------------===//

#ifndef SM_RUNTIME_RUNNER_HOSTPLANEXECUTOR_H
#define SM_RUNTIME_RUNNER_HOSTPLANEXECUTOR_H

#include "DevicePlan.h"

#include <functional>
#include <string>
#include <vector>

namespace sm_runner {

/// Runs kernel `entry` of the host source over `grid` on the argument
/// pointers `arguments` (a scalar's points at its bytes); `step` is the
/// launch, whose arguments the runner checks against the kernel's
/// signature. False with `error`.
using HostLaunch = std::function<bool(
    const std::string &entry, const DevicePlan::Step &step, void **arguments,
    const unsigned grid[3], std::string &error)>;

/// Runs `plan` once on `inputs` (one per plan input, checked against it)
/// with `launch` for its kernels and gives its outputs in the plan's order.
bool runHostPlan(const DevicePlan &plan,
                 const std::vector<const NpyArray *> &inputs,
                 const HostLaunch &launch, std::vector<NpyArray> &outputs,
                 std::string &error);

/// What a host runner does with `--plan DIRECTORY`: reads the plan and its
/// inputs (DIRECTORY/input_<i>.npy), calls `load` with the path of the
/// plan's host source to compile it and get the launch function, runs the
/// plan and writes its outputs to `outputDirectory` (DIRECTORY when empty).
/// False with `error`.
bool runHostPlanDirectory(
    const std::string &directory, std::string outputDirectory,
    const std::function<bool(const std::string &sourcePath, HostLaunch &launch,
                             std::string &error)> &load,
    std::string &error);

} // namespace sm_runner

#endif // SM_RUNTIME_RUNNER_HOSTPLANEXECUTOR_H
