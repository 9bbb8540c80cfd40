//===- VulkanApi.h - the Vulkan entry points, loaded at run time -*- C++
//-*-===//
//
// The runtime and sm-vulkan-runner load the Vulkan loader with dlopen, so
// that they run (and report a missing loader) on machines without a Vulkan
// SDK. The entry points they call are these function pointers.
//
//===----------------------------------------------------------------------===//

#ifndef SM_RUNTIME_VULKAN_VULKANAPI_H
#define SM_RUNTIME_VULKAN_VULKANAPI_H

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

// VK_KHR_shader_bfloat16 (extension 142) is newer than the 1.4.309 headers
// Debian 13 ships; its few definitions follow the Vulkan registry.
#ifndef VK_KHR_shader_bfloat16
#define VK_KHR_shader_bfloat16 1
#define VK_KHR_SHADER_BFLOAT16_EXTENSION_NAME "VK_KHR_shader_bfloat16"
constexpr VkStructureType
    VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_BFLOAT16_FEATURES_KHR =
        VkStructureType(1000141000);
constexpr VkComponentTypeKHR VK_COMPONENT_TYPE_BFLOAT16_KHR =
    VkComponentTypeKHR(1000141000);
struct VkPhysicalDeviceShaderBfloat16FeaturesKHR {
  VkStructureType sType;
  void *pNext;
  VkBool32 shaderBFloat16Type;
  VkBool32 shaderBFloat16DotProduct;
  VkBool32 shaderBFloat16CooperativeMatrix;
};
#endif

#include <string>
#include <vector>

#define SM_VULKAN_FUNCTIONS(X)                                                 \
  X(vkCreateInstance)                                                          \
  X(vkEnumerateInstanceExtensionProperties)
#define SM_INSTANCE_FUNCTIONS(X)                                               \
  X(vkDestroyInstance)                                                         \
  X(vkEnumeratePhysicalDevices)                                                \
  X(vkGetPhysicalDeviceProperties2)                                            \
  X(vkGetPhysicalDeviceFeatures2)                                              \
  X(vkGetPhysicalDeviceQueueFamilyProperties)                                  \
  X(vkGetPhysicalDeviceMemoryProperties)                                       \
  X(vkEnumerateDeviceExtensionProperties)                                      \
  X(vkCreateDevice)                                                            \
  X(vkGetDeviceProcAddr)
#define SM_DEVICE_FUNCTIONS(X)                                                 \
  X(vkDestroyDevice)                                                           \
  X(vkGetDeviceQueue)                                                          \
  X(vkCreateBuffer)                                                            \
  X(vkDestroyBuffer)                                                           \
  X(vkGetBufferMemoryRequirements)                                             \
  X(vkAllocateMemory)                                                          \
  X(vkFreeMemory)                                                              \
  X(vkBindBufferMemory)                                                        \
  X(vkMapMemory)                                                               \
  X(vkUnmapMemory)                                                             \
  X(vkCreateShaderModule)                                                      \
  X(vkDestroyShaderModule)                                                     \
  X(vkCreateDescriptorSetLayout)                                               \
  X(vkDestroyDescriptorSetLayout)                                              \
  X(vkCreatePipelineLayout)                                                    \
  X(vkDestroyPipelineLayout)                                                   \
  X(vkCreateComputePipelines)                                                  \
  X(vkDestroyPipeline)                                                         \
  X(vkCreateDescriptorPool)                                                    \
  X(vkDestroyDescriptorPool)                                                   \
  X(vkAllocateDescriptorSets)                                                  \
  X(vkUpdateDescriptorSets)                                                    \
  X(vkCreateCommandPool)                                                       \
  X(vkDestroyCommandPool)                                                      \
  X(vkAllocateCommandBuffers)                                                  \
  X(vkBeginCommandBuffer)                                                      \
  X(vkEndCommandBuffer)                                                        \
  X(vkCmdBindPipeline)                                                         \
  X(vkCmdBindDescriptorSets)                                                   \
  X(vkCmdDispatch)                                                             \
  X(vkCmdCopyBuffer)                                                           \
  X(vkCmdPipelineBarrier)                                                      \
  X(vkCmdResetQueryPool)                                                       \
  X(vkCmdWriteTimestamp)                                                       \
  X(vkCreateQueryPool)                                                         \
  X(vkDestroyQueryPool)                                                        \
  X(vkGetQueryPoolResults)                                                     \
  X(vkQueueSubmit)                                                             \
  X(vkQueueWaitIdle)                                                           \
  X(vkCreateFence)                                                             \
  X(vkDestroyFence)                                                            \
  X(vkResetFences)                                                             \
  X(vkGetFenceStatus)                                                          \
  X(vkWaitForFences)                                                           \
  X(vkResetCommandBuffer)                                                      \
  X(vkFreeCommandBuffers)

namespace sm_runner {

#define SM_DECLARE_EXTERN(name) extern PFN_##name name;
SM_VULKAN_FUNCTIONS(SM_DECLARE_EXTERN)
SM_INSTANCE_FUNCTIONS(SM_DECLARE_EXTERN)
SM_DEVICE_FUNCTIONS(SM_DECLARE_EXTERN)
#undef SM_DECLARE_EXTERN
extern PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr;
extern PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR
    vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR;
/// VK_NV_cooperative_matrix2's list of flexible-dimension granularities;
/// null where the instance does not know the extension.
extern PFN_vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV
    vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV;

/// Opens libvulkan.so.1 and loads the global entry points; on failure
/// returns false with `error` saying why. Later calls return the first
/// result.
bool loadVulkanLoader(std::string &error);
/// Loads the entry points of `instance`.
void loadInstanceFunctions(VkInstance instance);
/// Loads the entry points of `device`.
void loadDeviceFunctions(VkDevice device);

bool hasExtension(const std::vector<VkExtensionProperties> &extensions,
                  const char *name);

} // namespace sm_runner

#endif // SM_RUNTIME_VULKAN_VULKANAPI_H
