//===- VulkanDevice.cpp - a Vulkan device that runs programs --------------===//
//
// The one owner of a program's Vulkan objects: instance and device,
// buffers with their guard regions, pipelines, recorded step sequences,
// submission and timing.
//
// Why one file of this size: every member works on the same handles (the
// device, its queue, command pool, fence and timestamp queries) and on the
// tables of buffers, kernels and sequences that ids index; the file is
// ordered as a run goes (open, buffers, kernels, sequences, submission,
// timing), and a split would put those tables in a header for no reader's
// benefit.
//
//===----------------------------------------------------------------------===//

#include "VulkanDevice.h"

#include "BufferGuards.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>

using namespace sm_runner;

namespace {
std::string vulkanError(const char *what, VkResult result) {
  std::string message = std::string(what) + " failed with VkResult " +
                        std::to_string(int(result));
  if (result == VK_ERROR_OUT_OF_DEVICE_MEMORY)
    message += " (the device is out of memory)";
  else if (result == VK_ERROR_OUT_OF_HOST_MEMORY)
    message += " (the host is out of memory)";
  else if (result == VK_ERROR_DEVICE_LOST)
    message += " (the device was lost: a kernel faulted or ran too long)";
  return message;
}
} // namespace

#define SM_CHECK(call, what)                                                   \
  do {                                                                         \
    VkResult checkedResult = (call);                                           \
    if (checkedResult != VK_SUCCESS) {                                         \
      error = vulkanError(what, checkedResult);                                \
      return {};                                                               \
    }                                                                          \
  } while (false)

struct VulkanDevice::Buffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  uint64_t size = 0;
};

struct VulkanDevice::Kernel {
  VkShaderModule shader = VK_NULL_HANDLE;
  VkDescriptorSetLayout setLayout = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
  unsigned bindings = 0;
  uint32_t subgroupSize = 0;
};

struct VulkanDevice::Prepared {
  /// The steps as they run, timestamped at the start and the end.
  VkCommandBuffer commands = VK_NULL_HANDLE;
  VkQueryPool queries = VK_NULL_HANDLE;
  /// The same steps with a timestamp after each.
  VkCommandBuffer profiledCommands = VK_NULL_HANDLE;
  VkQueryPool stepQueries = VK_NULL_HANDLE;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  size_t steps = 0;
};

bool VulkanDevice::createInstance(VkInstance &instance, std::string &error) {
  if (!loadVulkanLoader(error))
    return false;
  VkApplicationInfo application{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  application.pApplicationName = "subgroup-matrix-runtime";
  application.apiVersion = VK_API_VERSION_1_3;
  VkInstanceCreateInfo instanceInfo{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  instanceInfo.pApplicationInfo = &application;
  SM_CHECK(vkCreateInstance(&instanceInfo, nullptr, &instance),
           "vkCreateInstance");
  loadInstanceFunctions(instance);
  return true;
}

/// The physical devices of `instance`, in the loader's order.
static std::vector<VkPhysicalDevice> getPhysicalDevices(VkInstance instance) {
  uint32_t count = 0;
  vkEnumeratePhysicalDevices(instance, &count, nullptr);
  std::vector<VkPhysicalDevice> physicals(count);
  vkEnumeratePhysicalDevices(instance, &count, physicals.data());
  return physicals;
}

bool VulkanDevice::forEachDevice(
    const std::function<void(unsigned, const DeviceInfo &)> &visit,
    std::string &error) {
  VkInstance instance = VK_NULL_HANDLE;
  if (!createInstance(instance, error))
    return false;
  std::vector<VkPhysicalDevice> physicals = getPhysicalDevices(instance);
  for (size_t i = 0; i < physicals.size(); ++i)
    visit(unsigned(i), queryDevice(physicals[i]));
  vkDestroyInstance(instance, nullptr);
  return true;
}

std::unique_ptr<VulkanDevice> VulkanDevice::open(OpenOptions selection,
                                                 std::string &error) {
  std::unique_ptr<VulkanDevice> result(new VulkanDevice());
  VulkanDevice &self = *result;
  if (!createInstance(self.instance, error))
    return nullptr;
  std::vector<VkPhysicalDevice> physicals = getPhysicalDevices(self.instance);
  uint32_t count = uint32_t(physicals.size());
  if (count == 0) {
    error = "there is no Vulkan device";
    return nullptr;
  }
  int chosen = selection.index;
  if (chosen >= int(count)) {
    error = "there is no Vulkan device " + std::to_string(chosen) +
            " (there are " + std::to_string(count) + ")";
    return nullptr;
  }
  if (chosen < 0) {
    // The first device of the wanted kind, else the first of any kind.
    for (uint32_t i = 0; i < count && chosen < 0; ++i) {
      VkPhysicalDeviceProperties properties;
      VkPhysicalDeviceProperties2 properties2{
          VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
      vkGetPhysicalDeviceProperties2(physicals[i], &properties2);
      properties = properties2.properties;
      bool isCpu = properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
      if (isCpu == selection.preferCpu)
        chosen = int(i);
    }
    if (chosen < 0)
      chosen = 0;
  }
  self.info = queryDevice(physicals[chosen]);

  DeviceFeatures &queried = self.features;
  std::vector<const char *> extensions;
  void *chain = &queried.vulkan13;
  queried.vulkan13.pNext = &queried.vulkan12;
  queried.vulkan12.pNext = &queried.vulkan11;
  if (hasExtension(self.info.extensions,
                   VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME)) {
    extensions.push_back(VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME);
    queried.cooperativeMatrix.pNext = chain;
    chain = &queried.cooperativeMatrix;
  }
  if (hasExtension(self.info.extensions,
                   VK_KHR_SHADER_BFLOAT16_EXTENSION_NAME)) {
    extensions.push_back(VK_KHR_SHADER_BFLOAT16_EXTENSION_NAME);
    queried.bfloat16.pNext = chain;
    chain = &queried.bfloat16;
  }
  // Kernels lowered for a target that lists VK_NV_cooperative_matrix2
  // features use its instructions; every feature the device has is enabled.
  if (hasExtension(self.info.extensions,
                   VK_NV_COOPERATIVE_MATRIX_2_EXTENSION_NAME)) {
    extensions.push_back(VK_NV_COOPERATIVE_MATRIX_2_EXTENSION_NAME);
    queried.cooperativeMatrix2.pNext = chain;
    chain = &queried.cooperativeMatrix2;
  }
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR executableProperties{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
  self.capturesStatistics =
      selection.pipelineStatistics &&
      hasExtension(self.info.extensions,
                   VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
  if (self.capturesStatistics) {
    extensions.push_back(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
    executableProperties.pNext = chain;
    chain = &executableProperties;
  }
  queried.core.pNext = chain;
  vkGetPhysicalDeviceFeatures2(self.info.physical, &queried.core);
  // Robust buffer access costs speed and would hide the writes the guards
  // catch.
  queried.core.features.robustBufferAccess = VK_FALSE;
  queried.vulkan13.robustImageAccess = VK_FALSE;
  queried.cooperativeMatrix.cooperativeMatrixRobustBufferAccess = VK_FALSE;

  uint32_t familyCount = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(self.info.physical, &familyCount,
                                           nullptr);
  std::vector<VkQueueFamilyProperties> families(familyCount);
  vkGetPhysicalDeviceQueueFamilyProperties(self.info.physical, &familyCount,
                                           families.data());
  self.queueFamily = UINT32_MAX;
  for (uint32_t i = 0; i < familyCount && self.queueFamily == UINT32_MAX; ++i)
    if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT)
      self.queueFamily = i;
  if (self.queueFamily == UINT32_MAX) {
    error = "device '" + result->describe() + "' has no compute queue";
    return nullptr;
  }
  float priority = 1.0f;
  VkDeviceQueueCreateInfo queueInfo{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queueInfo.queueFamilyIndex = self.queueFamily;
  queueInfo.queueCount = 1;
  queueInfo.pQueuePriorities = &priority;
  VkDeviceCreateInfo deviceInfo{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  deviceInfo.pNext = &queried.core;
  deviceInfo.queueCreateInfoCount = 1;
  deviceInfo.pQueueCreateInfos = &queueInfo;
  deviceInfo.enabledExtensionCount = uint32_t(extensions.size());
  deviceInfo.ppEnabledExtensionNames = extensions.data();
  SM_CHECK(
      vkCreateDevice(self.info.physical, &deviceInfo, nullptr, &self.device),
      "vkCreateDevice");
  loadDeviceFunctions(self.device);
  vkGetDeviceQueue(self.device, self.queueFamily, 0, &self.queue);
  VkCommandPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  poolInfo.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  poolInfo.queueFamilyIndex = self.queueFamily;
  SM_CHECK(
      vkCreateCommandPool(self.device, &poolInfo, nullptr, &self.commandPool),
      "vkCreateCommandPool");
  vkGetPhysicalDeviceMemoryProperties(self.info.physical,
                                      &self.memoryProperties);
  uint64_t alignment = std::max<uint64_t>(
      self.info.properties.properties.limits.minStorageBufferOffsetAlignment,
      1);
  self.guardBytes = (4096 + alignment - 1) / alignment * alignment;
  return result;
}

VulkanDevice::~VulkanDevice() {
  if (device) {
    // RADV's null device (kernels compiled for a GPU that is not here)
    // cannot wait on its queue; nothing was submitted to it.
    if (submitted)
      vkQueueWaitIdle(queue);
    for (size_t i = 0; i < prepared.size(); ++i)
      destroyPrepared(int(i));
    for (std::unique_ptr<Kernel> &kernel : kernels) {
      vkDestroyPipeline(device, kernel->pipeline, nullptr);
      vkDestroyPipelineLayout(device, kernel->layout, nullptr);
      vkDestroyDescriptorSetLayout(device, kernel->setLayout, nullptr);
      vkDestroyShaderModule(device, kernel->shader, nullptr);
    }
    for (size_t i = 0; i < buffers.size(); ++i)
      destroyBuffer(int(i));
    vkDestroyCommandPool(device, commandPool, nullptr);
    if (done)
      vkDestroyFence(device, done, nullptr);
    vkDestroyDevice(device, nullptr);
  }
  if (instance)
    vkDestroyInstance(instance, nullptr);
}

std::string VulkanDevice::describe() const {
  return std::string(info.properties.properties.deviceName) + " (" +
         info.driver.driverName + " " + info.driver.driverInfo + ")";
}

bool VulkanDevice::hasTimestamps() const {
  return info.properties.properties.limits.timestampComputeAndGraphics &&
         info.properties.properties.limits.timestampPeriod > 0;
}

bool VulkanDevice::createRawBuffer(uint64_t size, bool hostVisible,
                                   VkBuffer &buffer, VkDeviceMemory &memory,
                                   std::string &error) {
  // Kernels bind each buffer whole; past the device's range (or its memory)
  // the driver's own error would not say why.
  const VkPhysicalDeviceLimits &limits = info.properties.properties.limits;
  if (!hostVisible && size > limits.maxStorageBufferRange) {
    error = "it is larger than the device can bind as one storage buffer (" +
            std::to_string(limits.maxStorageBufferRange) + " bytes)";
    return false;
  }
  uint64_t largestHeap = 0;
  for (uint32_t i = 0; i < memoryProperties.memoryHeapCount; ++i)
    largestHeap = std::max(largestHeap, memoryProperties.memoryHeaps[i].size);
  if (size > largestHeap) {
    error = "it is larger than the device's memory (" +
            std::to_string(largestHeap) + " bytes)";
    return false;
  }
  VkBufferCreateInfo bufferInfo{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bufferInfo.size = std::max<uint64_t>(size, 4);
  bufferInfo.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                     VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                     (hostVisible ? 0 : VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  bufferInfo.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  SM_CHECK(vkCreateBuffer(device, &bufferInfo, nullptr, &buffer),
           "vkCreateBuffer");
  VkMemoryRequirements requirements;
  vkGetBufferMemoryRequirements(device, buffer, &requirements);
  VkMemoryPropertyFlags wanted = hostVisible
                                     ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                           VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
                                     : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
  uint32_t type = UINT32_MAX;
  for (uint32_t i = 0;
       i < memoryProperties.memoryTypeCount && type == UINT32_MAX; ++i)
    if ((requirements.memoryTypeBits & (1u << i)) &&
        (memoryProperties.memoryTypes[i].propertyFlags & wanted) == wanted)
      type = i;
  if (type == UINT32_MAX) {
    vkDestroyBuffer(device, buffer, nullptr);
    error = "the device has no memory type for a buffer";
    return false;
  }
  VkMemoryAllocateInfo allocate{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  allocate.allocationSize = requirements.size;
  allocate.memoryTypeIndex = type;
  VkResult result = vkAllocateMemory(device, &allocate, nullptr, &memory);
  if (result != VK_SUCCESS) {
    vkDestroyBuffer(device, buffer, nullptr);
    error = vulkanError("vkAllocateMemory", result) + " allocating " +
            std::to_string(size) + " bytes";
    return false;
  }
  SM_CHECK(vkBindBufferMemory(device, buffer, memory, 0), "vkBindBufferMemory");
  return true;
}

int VulkanDevice::createBuffer(uint64_t size, std::string &error) {
  auto buffer = std::make_unique<Buffer>();
  buffer->size = size;
  uint64_t padded = (size + 3) / 4 * 4;
  if (!createRawBuffer(guardBytes + padded + guardBytes, false, buffer->buffer,
                       buffer->memory, error))
    return -1;
  buffers.push_back(std::move(buffer));
  int id = int(buffers.size()) - 1;
  // The guards hold a pattern that depends on the position, so that a
  // write is seen wherever it lands.
  std::vector<uint8_t> front(guardBytes), back(guardBytes + padded - size);
  fillGuardBytes(front.data(), front.size(), -int64_t(front.size()));
  fillGuardBytes(back.data(), back.size(), 0);
  if (!writeBuffer(id, -guardBytes, front.data(), front.size(), error) ||
      !writeBuffer(id, size, back.data(), back.size(), error))
    return -1;
  return id;
}

void VulkanDevice::destroyBuffer(int id) {
  if (id < 0 || id >= int(buffers.size()) || !buffers[id])
    return;
  vkDestroyBuffer(device, buffers[id]->buffer, nullptr);
  vkFreeMemory(device, buffers[id]->memory, nullptr);
  buffers[id].reset();
}

bool VulkanDevice::allocateCommands(VkCommandBuffer &commands,
                                    std::string &error) {
  VkCommandBufferAllocateInfo allocate{
      VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  allocate.commandPool = commandPool;
  allocate.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  allocate.commandBufferCount = 1;
  SM_CHECK(vkAllocateCommandBuffers(device, &allocate, &commands),
           "vkAllocateCommandBuffers");
  return true;
}

bool VulkanDevice::submitOnce(
    const std::function<void(VkCommandBuffer)> &record, std::string &error) {
  VkCommandBuffer commands;
  if (!allocateCommands(commands, error))
    return false;
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  SM_CHECK(vkBeginCommandBuffer(commands, &begin), "vkBeginCommandBuffer");
  record(commands);
  SM_CHECK(vkEndCommandBuffer(commands), "vkEndCommandBuffer");
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &commands;
  submitted = true;
  SM_CHECK(vkQueueSubmit(queue, 1, &submit, VK_NULL_HANDLE), "vkQueueSubmit");
  SM_CHECK(vkQueueWaitIdle(queue), "vkQueueWaitIdle");
  vkFreeCommandBuffers(device, commandPool, 1, &commands);
  return true;
}

/// Makes transfers and kernels before a barrier visible to those after it.
static void recordBarrier(VkCommandBuffer commands) {
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  barrier.srcAccessMask =
      VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  barrier.dstAccessMask =
      VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
      VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  VkPipelineStageFlags stages =
      VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
  vkCmdPipelineBarrier(commands, stages, stages, 0, 1, &barrier, 0, nullptr, 0,
                       nullptr);
}

bool VulkanDevice::writeBuffer(int id, uint64_t offset, const void *data,
                               uint64_t size, std::string &error) {
  return transfer(id, offset, const_cast<void *>(data), size, true, error);
}

bool VulkanDevice::readBuffer(int id, uint64_t offset, void *data,
                              uint64_t size, std::string &error) {
  return transfer(id, offset, data, size, false, error);
}

bool VulkanDevice::transfer(int id, uint64_t offset, void *host, uint64_t size,
                            bool toDevice, std::string &error) {
  if (size == 0)
    return true;
  // `offset` counts from the data; the guards before it are reachable
  // through negative offsets (createBuffer writes them that way).
  uint64_t start = guardBytes + offset;
  VkBuffer staging;
  VkDeviceMemory stagingMemory;
  if (!createRawBuffer(size, true, staging, stagingMemory, error))
    return false;
  auto copyStaging = [&](bool intoStaging) {
    void *mapped = nullptr;
    VkResult result = vkMapMemory(device, stagingMemory, 0, size, 0, &mapped);
    if (result != VK_SUCCESS) {
      error = vulkanError("vkMapMemory", result);
      return false;
    }
    if (intoStaging)
      std::memcpy(mapped, host, size);
    else
      std::memcpy(host, mapped, size);
    vkUnmapMemory(device, stagingMemory);
    return true;
  };
  VkBuffer buffer = buffers[id]->buffer;
  bool ok = (!toDevice || copyStaging(true)) &&
            submitOnce(
                [&](VkCommandBuffer commands) {
                  recordBarrier(commands);
                  VkBufferCopy region{toDevice ? 0 : start,
                                      toDevice ? start : 0, size};
                  vkCmdCopyBuffer(commands, toDevice ? staging : buffer,
                                  toDevice ? buffer : staging, 1, &region);
                },
                error) &&
            (toDevice || copyStaging(false));
  vkDestroyBuffer(device, staging, nullptr);
  vkFreeMemory(device, stagingMemory, nullptr);
  return ok;
}

std::string VulkanDevice::checkGuards(int id, unsigned elementSize,
                                      std::string &error) {
  uint64_t size = buffers[id]->size;
  uint64_t padded = (size + 3) / 4 * 4;
  std::vector<uint8_t> front(guardBytes), back(guardBytes + padded - size);
  if (!readBuffer(id, -guardBytes, front.data(), front.size(), error) ||
      !readBuffer(id, size, back.data(), back.size(), error))
    return "";
  return checkGuardBytes(front.data(), front.size(), back.data(), back.size(),
                         elementSize, size);
}

int VulkanDevice::createKernel(const SpirvModule &module,
                               const std::string &entry, unsigned bindings,
                               std::string &error, uint32_t subgroupSize) {
  auto kernel = std::make_unique<Kernel>();
  kernel->bindings = bindings;
  VkShaderModuleCreateInfo moduleInfo{
      VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  moduleInfo.codeSize = module.words.size() * 4;
  moduleInfo.pCode = module.words.data();
  auto fail = [&](const std::string &message) {
    error = message;
    if (kernel->layout)
      vkDestroyPipelineLayout(device, kernel->layout, nullptr);
    if (kernel->setLayout)
      vkDestroyDescriptorSetLayout(device, kernel->setLayout, nullptr);
    if (kernel->shader)
      vkDestroyShaderModule(device, kernel->shader, nullptr);
    return -1;
  };
  VkResult result =
      vkCreateShaderModule(device, &moduleInfo, nullptr, &kernel->shader);
  if (result != VK_SUCCESS)
    return fail(vulkanError("vkCreateShaderModule", result));
  std::vector<VkDescriptorSetLayoutBinding> layoutBindings(bindings);
  for (unsigned i = 0; i < bindings; ++i) {
    layoutBindings[i].binding = i;
    layoutBindings[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    layoutBindings[i].descriptorCount = 1;
    layoutBindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  VkDescriptorSetLayoutCreateInfo setInfo{
      VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  setInfo.bindingCount = bindings;
  setInfo.pBindings = layoutBindings.data();
  result = vkCreateDescriptorSetLayout(device, &setInfo, nullptr,
                                       &kernel->setLayout);
  if (result != VK_SUCCESS)
    return fail(vulkanError("vkCreateDescriptorSetLayout", result));
  VkPipelineLayoutCreateInfo layoutInfo{
      VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  layoutInfo.setLayoutCount = 1;
  layoutInfo.pSetLayouts = &kernel->setLayout;
  result =
      vkCreatePipelineLayout(device, &layoutInfo, nullptr, &kernel->layout);
  if (result != VK_SUCCESS)
    return fail(vulkanError("vkCreatePipelineLayout", result));

  if (!subgroupSize)
    subgroupSize =
        module.subgroupSize ? module.subgroupSize : info.subgroup.subgroupSize;
  kernel->subgroupSize = subgroupSize;
  VkPipelineShaderStageRequiredSubgroupSizeCreateInfo requiredSize{
      VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO};
  requiredSize.requiredSubgroupSize = subgroupSize;
  VkComputePipelineCreateInfo pipelineInfo{
      VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  pipelineInfo.stage.sType =
      VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  pipelineInfo.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  pipelineInfo.stage.module = kernel->shader;
  pipelineInfo.stage.pName = entry.c_str();
  if (requiresSubgroupSize()) {
    if (subgroupSize < info.vulkan13.minSubgroupSize ||
        subgroupSize > info.vulkan13.maxSubgroupSize)
      return fail("subgroup size " + std::to_string(subgroupSize) +
                  " is outside the device's range " +
                  std::to_string(info.vulkan13.minSubgroupSize) + ".." +
                  std::to_string(info.vulkan13.maxSubgroupSize));
    pipelineInfo.stage.pNext = &requiredSize;
    pipelineInfo.stage.flags =
        VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT;
  } else if (subgroupSize != info.subgroup.subgroupSize) {
    return fail("the device cannot require subgroups of " +
                std::to_string(subgroupSize) + " invocations");
  }
  pipelineInfo.layout = kernel->layout;
  if (capturesStatistics)
    pipelineInfo.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
  result = vkCreateComputePipelines(device, VK_NULL_HANDLE, 1, &pipelineInfo,
                                    nullptr, &kernel->pipeline);
  if (result != VK_SUCCESS)
    return fail(vulkanError("vkCreateComputePipelines", result) +
                " for entry point '" + entry + "'");
  kernels.push_back(std::move(kernel));
  return int(kernels.size()) - 1;
}

uint32_t VulkanDevice::getSubgroupSize(int kernel) const {
  return kernels[kernel]->subgroupSize;
}

/// One pipeline statistic's value as text.
static std::string formatStatistic(const VkPipelineExecutableStatisticKHR &s) {
  switch (s.format) {
  case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
    return s.value.b32 ? "true" : "false";
  case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
    return std::to_string(s.value.i64);
  case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
    return std::to_string(s.value.u64);
  case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR: {
    char text[32];
    std::snprintf(text, sizeof(text), "%g", s.value.f64);
    return text;
  }
  default:
    return "?";
  }
}

std::string VulkanDevice::describePipelineStatistics(int id) const {
  if (!capturesStatistics)
    return std::string("pipeline statistics: the device does not offer ") +
           VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME + "\n";
  auto getProperties =
      reinterpret_cast<PFN_vkGetPipelineExecutablePropertiesKHR>(
          vkGetDeviceProcAddr(device, "vkGetPipelineExecutablePropertiesKHR"));
  auto getStatistics =
      reinterpret_cast<PFN_vkGetPipelineExecutableStatisticsKHR>(
          vkGetDeviceProcAddr(device, "vkGetPipelineExecutableStatisticsKHR"));
  if (!getProperties || !getStatistics)
    return "pipeline statistics: not available\n";
  VkPipeline pipeline = kernels[id]->pipeline;
  VkPipelineInfoKHR pipelineInfo{VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR};
  pipelineInfo.pipeline = pipeline;
  uint32_t count = 0;
  getProperties(device, &pipelineInfo, &count, nullptr);
  std::vector<VkPipelineExecutablePropertiesKHR> executables(
      count, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR});
  getProperties(device, &pipelineInfo, &count, executables.data());
  std::string text;
  for (uint32_t e = 0; e < count; ++e) {
    text += "pipeline executable " + std::to_string(e) + ": " +
            executables[e].name + " (" + executables[e].description +
            "), subgroup size " + std::to_string(executables[e].subgroupSize) +
            "\n";
    VkPipelineExecutableInfoKHR executableInfo{
        VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR};
    executableInfo.pipeline = pipeline;
    executableInfo.executableIndex = e;
    uint32_t statisticCount = 0;
    getStatistics(device, &executableInfo, &statisticCount, nullptr);
    std::vector<VkPipelineExecutableStatisticKHR> statistics(
        statisticCount, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR});
    getStatistics(device, &executableInfo, &statisticCount, statistics.data());
    for (const VkPipelineExecutableStatisticKHR &statistic : statistics)
      text += std::string("  ") + statistic.name + ": " +
              formatStatistic(statistic) + " (" + statistic.description + ")\n";
  }
  return text;
}

int VulkanDevice::prepare(const std::vector<Step> &steps, std::string &error) {
  uint64_t alignment = std::max<uint64_t>(
      info.properties.properties.limits.minStorageBufferOffsetAlignment, 1);
  const uint32_t *maxCount =
      info.properties.properties.limits.maxComputeWorkGroupCount;
  uint32_t sets = 0, descriptors = 0;
  for (const Step &step : steps) {
    if (step.isCopy)
      continue;
    ++sets;
    descriptors += uint32_t(step.bindings.size());
    for (int d = 0; d < 3; ++d)
      if (step.grid[d] > maxCount[d]) {
        error = "a launch of " + std::to_string(step.grid[d]) +
                " workgroups in dimension " + std::to_string(d) +
                " exceeds the device's limit of " + std::to_string(maxCount[d]);
        return -1;
      }
    for (const Binding &binding : step.bindings)
      if (binding.offset % alignment) {
        error = "a kernel argument starts at byte " +
                std::to_string(binding.offset) +
                " of its buffer, which the device cannot bind (offsets "
                "must be multiples of " +
                std::to_string(alignment) + ")";
        return -1;
      }
  }
  prepared.push_back(std::make_unique<Prepared>());
  int id = int(prepared.size()) - 1;
  if (!record(*prepared.back(), steps, sets, descriptors, error)) {
    // What a failed recording left is freed with the rest.
    destroyPrepared(id);
    return -1;
  }
  return id;
}

bool VulkanDevice::record(Prepared &result, const std::vector<Step> &steps,
                          uint32_t sets, uint32_t descriptors,
                          std::string &error) {
  result.steps = steps.size();
  if (sets) {
    VkDescriptorPoolSize poolSize{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                  std::max<uint32_t>(descriptors, 1)};
    VkDescriptorPoolCreateInfo poolInfo{
        VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    poolInfo.maxSets = sets;
    poolInfo.poolSizeCount = 1;
    poolInfo.pPoolSizes = &poolSize;
    SM_CHECK(vkCreateDescriptorPool(device, &poolInfo, nullptr, &result.pool),
             "vkCreateDescriptorPool");
  }
  // One descriptor set per launch, shared by both recordings.
  std::vector<VkDescriptorSet> descriptorSets(steps.size(), VK_NULL_HANDLE);
  for (size_t index = 0; index < steps.size(); ++index) {
    const Step &step = steps[index];
    if (step.isCopy)
      continue;
    const Kernel &kernel = *kernels[step.kernel];
    VkDescriptorSetAllocateInfo setInfo{
        VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    setInfo.descriptorPool = result.pool;
    setInfo.descriptorSetCount = 1;
    setInfo.pSetLayouts = &kernel.setLayout;
    SM_CHECK(vkAllocateDescriptorSets(device, &setInfo, &descriptorSets[index]),
             "vkAllocateDescriptorSets");
    std::vector<VkDescriptorBufferInfo> bufferInfos(step.bindings.size());
    std::vector<VkWriteDescriptorSet> writes(step.bindings.size());
    for (size_t i = 0; i < step.bindings.size(); ++i) {
      const Binding &binding = step.bindings[i];
      const Buffer &buffer = *buffers[binding.buffer];
      // The range reaches over the guard after the data, so that drivers
      // that bounds-check each access against it let a stray write land in
      // the guard, where it is seen.
      uint64_t padded = (buffer.size + 3) / 4 * 4;
      bufferInfos[i] = {buffer.buffer, guardBytes + binding.offset,
                        padded - binding.offset + guardBytes};
      writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
      writes[i].dstSet = descriptorSets[index];
      writes[i].dstBinding = uint32_t(i);
      writes[i].descriptorCount = 1;
      writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      writes[i].pBufferInfo = &bufferInfos[i];
    }
    vkUpdateDescriptorSets(device, uint32_t(writes.size()), writes.data(), 0,
                           nullptr);
  }

  auto recordStep = [&](VkCommandBuffer commands, size_t index) {
    const Step &step = steps[index];
    if (step.isCopy) {
      VkBufferCopy region{guardBytes + step.copySource.offset,
                          guardBytes + step.copyTarget.offset,
                          step.copySource.size};
      vkCmdCopyBuffer(commands, buffers[step.copySource.buffer]->buffer,
                      buffers[step.copyTarget.buffer]->buffer, 1, &region);
      return;
    }
    const Kernel &kernel = *kernels[step.kernel];
    vkCmdBindPipeline(commands, VK_PIPELINE_BIND_POINT_COMPUTE,
                      kernel.pipeline);
    vkCmdBindDescriptorSets(commands, VK_PIPELINE_BIND_POINT_COMPUTE,
                            kernel.layout, 0, 1, &descriptorSets[index], 0,
                            nullptr);
    if (step.grid[0] && step.grid[1] && step.grid[2])
      vkCmdDispatch(commands, step.grid[0], step.grid[1], step.grid[2]);
  };
  // The program as it runs, timestamped before its first step and after its
  // last only, so that timing a whole run does not perturb it; and, where
  // the device has timestamps, a second recording with one after every step,
  // for the time of each.
  auto recordSequence = [&](VkCommandBuffer &commands, VkQueryPool &queries,
                            bool eachStep) -> bool {
    uint32_t stamps = eachStep ? uint32_t(steps.size()) + 1 : 2;
    if (hasTimestamps()) {
      VkQueryPoolCreateInfo queryInfo{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
      queryInfo.queryType = VK_QUERY_TYPE_TIMESTAMP;
      queryInfo.queryCount = stamps;
      SM_CHECK(vkCreateQueryPool(device, &queryInfo, nullptr, &queries),
               "vkCreateQueryPool");
    }
    if (!allocateCommands(commands, error))
      return false;
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    SM_CHECK(vkBeginCommandBuffer(commands, &begin), "vkBeginCommandBuffer");
    if (queries) {
      vkCmdResetQueryPool(commands, queries, 0, stamps);
      vkCmdWriteTimestamp(commands, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries,
                          0);
    }
    recordBarrier(commands);
    for (size_t index = 0; index < steps.size(); ++index) {
      if (index)
        recordBarrier(commands);
      recordStep(commands, index);
      if (queries && (eachStep || index + 1 == steps.size()))
        vkCmdWriteTimestamp(commands, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT,
                            queries, eachStep ? uint32_t(index + 1) : 1);
    }
    recordBarrier(commands);
    SM_CHECK(vkEndCommandBuffer(commands), "vkEndCommandBuffer");
    return true;
  };
  return recordSequence(result.commands, result.queries, false) &&
         (!hasTimestamps() ||
          recordSequence(result.profiledCommands, result.stepQueries, true));
}

void VulkanDevice::destroyPrepared(int id) {
  if (id < 0 || id >= int(prepared.size()) || !prepared[id])
    return;
  Prepared &sequence = *prepared[id];
  for (VkCommandBuffer commands :
       {sequence.commands, sequence.profiledCommands})
    if (commands)
      vkFreeCommandBuffers(device, commandPool, 1, &commands);
  if (sequence.pool)
    vkDestroyDescriptorPool(device, sequence.pool, nullptr);
  for (VkQueryPool queries : {sequence.queries, sequence.stepQueries})
    if (queries)
      vkDestroyQueryPool(device, queries, nullptr);
  prepared[id].reset();
}

bool VulkanDevice::submitAndWait(VkCommandBuffer commands, std::string &error) {
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &commands;
  // Made at the first submission: RADV's null device, which only compiles,
  // cannot make fences.
  if (!done) {
    VkFenceCreateInfo fenceInfo{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    SM_CHECK(vkCreateFence(device, &fenceInfo, nullptr, &done),
             "vkCreateFence");
  }
  SM_CHECK(vkResetFences(device, 1, &done), "vkResetFences");
  submitted = true;
  SM_CHECK(vkQueueSubmit(queue, 1, &submit, done), "vkQueueSubmit");
  // A blocking wait returns tens of microseconds after the GPU is done (on
  // NVIDIA, about 50: as long as a whole small program), so the fence is
  // polled for the first 2 ms, which short programs finish in; longer ones
  // then block.
  auto start = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - start <
         std::chrono::milliseconds(2)) {
    VkResult status = vkGetFenceStatus(device, done);
    if (status == VK_SUCCESS)
      return true;
    if (status != VK_NOT_READY) {
      error = vulkanError("vkGetFenceStatus", status);
      return false;
    }
  }
  SM_CHECK(vkWaitForFences(device, 1, &done, VK_TRUE, UINT64_MAX),
           "vkWaitForFences");
  return true;
}

bool VulkanDevice::run(int id, unsigned times, std::string &error) {
  for (unsigned run = 0; run < times; ++run)
    if (!submitAndWait(prepared[id]->commands, error))
      return false;
  return true;
}

/// Reads `stamps.size()` timestamps of `queries`.
static VkResult readTimestamps(VkDevice device, VkQueryPool queries,
                               std::vector<uint64_t> &stamps) {
  return vkGetQueryPoolResults(
      device, queries, 0, uint32_t(stamps.size()),
      stamps.size() * sizeof(uint64_t), stamps.data(), sizeof(uint64_t),
      VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
}

bool VulkanDevice::runTimed(VkCommandBuffer commands, VkQueryPool queries,
                            unsigned times,
                            const std::function<void(double, double)> &visit,
                            std::string &error) {
  double period = info.properties.properties.limits.timestampPeriod;
  std::vector<uint64_t> ends(2);
  for (unsigned run = 0; run < times; ++run) {
    auto start = std::chrono::steady_clock::now();
    if (!submitAndWait(commands, error))
      return false;
    std::chrono::duration<double, std::nano> host =
        std::chrono::steady_clock::now() - start;
    SM_CHECK(readTimestamps(device, queries, ends), "vkGetQueryPoolResults");
    visit(double(ends[1] - ends[0]) * period, host.count());
  }
  return true;
}

bool VulkanDevice::time(int id, unsigned times, Timing &timing,
                        std::string &error) {
  Prepared &sequence = *prepared[id];
  timing = Timing();
  if (!sequence.queries || !times)
    return true;
  double period = info.properties.properties.limits.timestampPeriod;
  // Each step's time, from the recording with a timestamp after each.
  std::vector<uint64_t> stamps(sequence.steps + 1);
  timing.stepNanoseconds.assign(stamps.size() - 1, 0.0);
  for (unsigned run = 0; run < times; ++run) {
    if (!submitAndWait(sequence.profiledCommands, error))
      return false;
    SM_CHECK(readTimestamps(device, sequence.stepQueries, stamps),
             "vkGetQueryPoolResults");
    for (size_t i = 1; i < stamps.size(); ++i)
      timing.stepNanoseconds[i - 1] +=
          double(stamps[i] - stamps[i - 1]) * period / times;
  }
  // The whole program as it runs: on the device, first step to last, and on
  // the host, from submission to the wait's return.
  return runTimed(
      sequence.commands, sequence.queries, times,
      [&](double device, double host) {
        timing.totalNanoseconds += device / times;
        timing.hostNanoseconds += host / times;
      },
      error);
}

bool VulkanDevice::timeEachRun(int id, unsigned times,
                               std::vector<double> &nanoseconds,
                               std::string &error) {
  Prepared &sequence = *prepared[id];
  nanoseconds.clear();
  if (!sequence.queries)
    return true;
  return runTimed(
      sequence.commands, sequence.queries, times,
      [&](double device, double) { nanoseconds.push_back(device); }, error);
}
