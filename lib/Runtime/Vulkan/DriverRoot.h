//===- DriverRoot.h - Vulkan drivers from a newer Debian root ---*- C++ -*-===//
//
// Mesa 26's lavapipe, the CPU device with cooperative matrices, needs a newer
// C library than the system's: utils/setup.sh installs it in a Debian root
// (.deps/vulkan-root). A tool that runs Vulkan kernels on it runs itself
// again through that root's dynamic loader and libraries, with the root's
// driver manifests; this is the one place that decides it.
//
//===----------------------------------------------------------------------===//

#ifndef SM_RUNTIME_VULKAN_DRIVERROOT_H
#define SM_RUNTIME_VULKAN_DRIVERROOT_H

#include <string>

namespace sm_runner {

/// Whether `target` names a device that only the root's drivers offer
/// (`cpu-lavapipe-coopmat`).
bool targetNeedsDriverRoot(const std::string &target);

/// Whether `target` runs on a CPU Vulkan device (lavapipe).
bool targetRunsOnCpu(const std::string &target);

/// Whether this process runs through the root's loader.
bool inDriverRoot();

/// The root the tools use: $SM_VULKAN_ROOT, else, where `required`, the one
/// utils/setup.sh makes in this checkout; empty where there is none to use.
std::string findDriverRoot(bool required);

/// Runs the program `argv` again through the root's dynamic loader, with its
/// libraries and driver manifests (each manifest VK_DRIVER_FILES names is
/// replaced by the root's of the same name; lavapipe's when it names none),
/// when $SM_VULKAN_ROOT is set or `required` holds and this process is not
/// already there. Returns true where nothing had to change; false, with
/// `error` saying why, where the root is needed but missing or cannot run.
bool enterDriverRoot(char **argv, bool required, std::string &error);

} // namespace sm_runner

#endif // SM_RUNTIME_VULKAN_DRIVERROOT_H
