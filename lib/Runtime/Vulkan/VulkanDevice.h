//===- VulkanDevice.h - a Vulkan device that runs programs ------*- C++ -*-===//
//
// The device side of the runtime: buffers in device memory, kernels as
// compute pipelines, and sequences of dispatches and copies recorded once
// into one command buffer, with a barrier between consecutive steps, and
// submitted as often as wanted. Every failure is returned as a message;
// nothing here exits.
//
// Each buffer is allocated with guard bytes before and after its data and
// bound with a range that reaches over those after it, so that a kernel
// that writes outside its argument is caught (checkGuards), as
// sm-vulkan-runner does.
//
//===----------------------------------------------------------------------===//

#ifndef SM_RUNTIME_VULKAN_VULKANDEVICE_H
#define SM_RUNTIME_VULKAN_VULKANDEVICE_H

#include "VulkanDeviceInfo.h"

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace sm_runner {

class VulkanDevice {
public:
  /// Which device to open and how: `index` in the loader's order when it is
  /// not negative, else the first GPU, or the first CPU device (lavapipe)
  /// when `preferCpu` is set (and a GPU when there is no CPU device).
  struct OpenOptions {
    int index = -1;
    bool preferCpu = false;
    /// Enables VK_KHR_pipeline_executable_properties where the device offers
    /// it, so that describePipelineStatistics has something to say.
    bool pipelineStatistics = false;
  };

  /// Calls `visit` with the index and properties of every device the loader
  /// offers, in its order; false with `error` when there is no loader.
  static bool
  forEachDevice(const std::function<void(unsigned, const DeviceInfo &)> &visit,
                std::string &error);

  /// Opens a device with every feature kernels may use that it offers;
  /// returns nullptr with `error` set on failure.
  static std::unique_ptr<VulkanDevice> open(OpenOptions selection,
                                            std::string &error);
  ~VulkanDevice();
  VulkanDevice(const VulkanDevice &) = delete;
  VulkanDevice &operator=(const VulkanDevice &) = delete;

  const DeviceInfo &getInfo() const { return info; }
  const DeviceFeatures &getFeatures() const { return features; }
  /// "NVIDIA H100 (NVIDIA 580.65)".
  std::string describe() const;

  /// A device buffer of `size` bytes; returns its id, or -1 with `error`.
  int createBuffer(uint64_t size, std::string &error);
  void destroyBuffer(int buffer);
  /// Copies between host memory and bytes [offset, offset + size) of a
  /// buffer's data.
  bool writeBuffer(int buffer, uint64_t offset, const void *data, uint64_t size,
                   std::string &error);
  bool readBuffer(int buffer, uint64_t offset, void *data, uint64_t size,
                  std::string &error);
  /// Whether the guard bytes around the buffer's data are intact: "" if
  /// they are, else what checkGuardBytes says of them for elements of
  /// `elementSize` bytes ("written past its end at byte offset 400 ...").
  std::string checkGuards(int buffer, unsigned elementSize, std::string &error);

  /// A pipeline for `entry` of `module` with `bindings` storage buffers,
  /// running in full subgroups of `subgroupSize` invocations (0: the size
  /// the module was lowered for, else the device's); returns its id, or -1
  /// with `error` (the driver refused it, the device cannot run that size).
  int createKernel(const SpirvModule &module, const std::string &entry,
                   unsigned bindings, std::string &error,
                   uint32_t subgroupSize = 0);
  /// The subgroup size kernel `kernel` runs with.
  uint32_t getSubgroupSize(int kernel) const;
  /// Whether kernels run in full subgroups of their required size (the
  /// device has subgroupSizeControl and computeFullSubgroups); else in the
  /// device's own size.
  bool requiresSubgroupSize() const {
    return features.vulkan13.subgroupSizeControl &&
           features.vulkan13.computeFullSubgroups;
  }
  /// What the driver reports about the compiled code of `kernel`
  /// (VK_KHR_pipeline_executable_properties: registers, memory, ...), one
  /// line per executable and per statistic; a line saying why there is
  /// nothing when the device was not opened with `pipelineStatistics` or
  /// does not offer the extension.
  std::string describePipelineStatistics(int kernel) const;

  /// One step of a sequence: a dispatch, or a copy between buffers.
  struct Binding {
    int buffer = -1;
    uint64_t offset = 0, size = 0;
  };
  struct Step {
    bool isCopy = false;
    int kernel = -1;
    std::array<uint32_t, 3> grid{1, 1, 1};
    std::vector<Binding> bindings;
    Binding copySource, copyTarget;
  };
  /// Records `steps` into a command buffer; returns its id, or -1 with
  /// `error` (an argument at an offset the device cannot bind, a grid
  /// larger than the device's limit).
  int prepare(const std::vector<Step> &steps, std::string &error);
  void destroyPrepared(int prepared);
  /// Submits a prepared sequence `times` times, waiting for each.
  bool run(int prepared, unsigned times, std::string &error);
  /// What timing a prepared sequence measures, as means over the timed
  /// runs, in nanoseconds.
  struct Timing {
    /// Each step's time on the device, from the end of the one before (in a
    /// recording with a timestamp after every step).
    std::vector<double> stepNanoseconds;
    /// A whole run on the device as it runs (no timestamps in between),
    /// from the start of the first step to the end of the last.
    double totalNanoseconds = 0;
    /// A whole run on the host: from submission to the wait's return.
    double hostNanoseconds = 0;
  };
  /// Submits the step-timed recording `times` times, then the plain one
  /// `times` times; `timing` stays empty on a device without timestamps.
  bool time(int prepared, unsigned times, Timing &timing, std::string &error);
  /// Submits the plain recording `times` times and gives each run's time on
  /// the device (the start of its first step to the end of its last), in
  /// nanoseconds and in order; empty on a device without timestamps.
  bool timeEachRun(int prepared, unsigned times,
                   std::vector<double> &nanoseconds, std::string &error);
  bool hasTimestamps() const;

private:
  VulkanDevice() = default;
  struct Buffer;
  struct Kernel;
  struct Prepared;
  bool submitOnce(const std::function<void(VkCommandBuffer)> &record,
                  std::string &error);
  /// Copies `size` bytes between `host` and a buffer through a staging
  /// buffer, to the device when `toDevice`.
  bool transfer(int buffer, uint64_t offset, void *host, uint64_t size,
                bool toDevice, std::string &error);
  bool createRawBuffer(uint64_t size, bool hostVisible, VkBuffer &buffer,
                       VkDeviceMemory &memory, std::string &error);
  /// Loads the Vulkan loader and creates an instance with its functions.
  static bool createInstance(VkInstance &instance, std::string &error);
  /// Submits `commands` `times` times; `visit` gets each run's device time
  /// from `queries` (stamps 0 and 1) and its host time, in nanoseconds.
  bool runTimed(VkCommandBuffer commands, VkQueryPool queries, unsigned times,
                const std::function<void(double, double)> &visit,
                std::string &error);

  VkInstance instance = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t queueFamily = 0;
  VkCommandPool commandPool = VK_NULL_HANDLE;
  /// Signalled when a submission of a prepared sequence completes.
  VkFence done = VK_NULL_HANDLE;
  VkPhysicalDeviceMemoryProperties memoryProperties{};
  DeviceInfo info;
  DeviceFeatures features;
  bool capturesStatistics = false;
  /// Whether anything was submitted to the queue (the destructor waits).
  bool submitted = false;
  uint64_t guardBytes = 0;
  std::vector<std::unique_ptr<Buffer>> buffers;
  std::vector<std::unique_ptr<Kernel>> kernels;
  std::vector<std::unique_ptr<Prepared>> prepared;
  /// Fills `result`: its descriptor sets, the plain recording of `steps`
  /// and the step-timed one.
  bool record(Prepared &result, const std::vector<Step> &steps, uint32_t sets,
              uint32_t descriptors, std::string &error);
  bool submitAndWait(VkCommandBuffer commands, std::string &error);
  /// A primary command buffer from the device's pool.
  bool allocateCommands(VkCommandBuffer &commands, std::string &error);
};

} // namespace sm_runner

#endif // SM_RUNTIME_VULKAN_VULKANDEVICE_H
