//===- VulkanDeviceInfo.h - what a Vulkan device offers ---------*- C++ -*-===//
//
// A device's properties and features, and the comparison of what a SPIR-V
// binary needs with them, shared by the runtime and sm-vulkan-runner: a
// kernel the device cannot run is refused before it is dispatched, with a
// message naming each missing piece.
//
//===----------------------------------------------------------------------===//

#ifndef SM_RUNTIME_VULKAN_VULKANDEVICEINFO_H
#define SM_RUNTIME_VULKAN_VULKANDEVICEINFO_H

#include "SpirvReflection.h"
#include "VulkanApi.h"

#include <optional>
#include <string>
#include <vector>

namespace sm_runner {

struct DeviceInfo {
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkPhysicalDeviceProperties2 properties{};
  VkPhysicalDeviceSubgroupProperties subgroup{};
  VkPhysicalDeviceVulkan12Properties vulkan12{};
  VkPhysicalDeviceVulkan13Properties vulkan13{};
  VkPhysicalDeviceDriverProperties driver{};
  std::vector<VkExtensionProperties> extensions;
};

/// The properties and extensions of `physical`.
DeviceInfo queryDevice(VkPhysicalDevice physical);

/// The dialect's name of a cooperative-matrix component type ("f16",
/// "si8", ...), or nullptr for types the dialect lacks.
const char *componentName(VkComponentTypeKHR type);

/// The cooperative-matrix configurations the device reports.
std::vector<VkCooperativeMatrixPropertiesKHR>
getCooperativeMatrixProperties(const DeviceInfo &info);

/// What VK_NV_cooperative_matrix2's flexible dimensions allow: a matrix
/// whose dimensions are multiples of a granularity's, up to maxDimension.
struct FlexibleDimensions {
  std::vector<VkCooperativeMatrixFlexibleDimensionsPropertiesNV> granularities;
  uint32_t maxDimension = 0;
};

/// The device's flexible dimensions; none where it lacks the
/// cooperativeMatrixFlexibleDimensions feature.
FlexibleDimensions getFlexibleDimensions(const DeviceInfo &info);

/// The streaming multiprocessors (VK_NV_shader_sm_builtins) or active
/// compute units (VK_AMD_shader_core_properties2) of the device; 0 where
/// it reports neither.
uint32_t getComputeUnitCount(const DeviceInfo &info);

/// The device as a `#subgroup_matrix.target` attribute, after comment
/// lines on what was kept: the cooperative-matrix configurations the WGSL
/// proposal keeps (subgroup scope, no saturation, A == B, C == result,
/// types the dialect has), the subgroup size, the compute units, the
/// workgroup memory (maxComputeSharedMemorySize), the 64-bit types, the
/// VK_NV_cooperative_matrix2 features, the flexible-dimension granularities
/// kept by the same rule and their largest dimension, and the vendor.
std::string describeTarget(const DeviceInfo &info);

/// The features a device offers that kernels may need, as queried.
struct DeviceFeatures {
  VkPhysicalDeviceFeatures2 core{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  VkPhysicalDeviceVulkan11Features vulkan11{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  VkPhysicalDeviceVulkan12Features vulkan12{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceVulkan13Features vulkan13{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  VkPhysicalDeviceCooperativeMatrixFeaturesKHR cooperativeMatrix{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR};
  VkPhysicalDeviceShaderBfloat16FeaturesKHR bfloat16{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_BFLOAT16_FEATURES_KHR};
  VkPhysicalDeviceCooperativeMatrix2FeaturesNV cooperativeMatrix2{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_2_FEATURES_NV};
};

/// Whether the device has what SPIR-V `capability` needs; capabilities this
/// table does not know are left to the driver.
bool hasCapability(uint32_t capability, const DeviceInfo &info,
                   const DeviceFeatures &features);

/// What a binary needs that a device does not offer.
struct MissingRequirements {
  /// One description per missing piece ("capability Float64").
  std::vector<std::string> pieces;
  /// Missing pieces that lowering with emulation would avoid.
  bool needsMatrixUnits = false;
  /// The binary was lowered for a subgroup size the device does not run.
  bool wrongSubgroupSize = false;

  bool empty() const { return pieces.empty(); }
  /// The message for the binary at `path` on `info`'s device: the missing
  /// pieces and how to lower the kernel for this device instead.
  std::string describe(const std::string &path, const DeviceInfo &info) const;
};

/// Compares what `module` declares (capabilities, cooperative-matrix
/// configurations, the subgroup size it was lowered for, unless
/// `requestedSubgroupSize` overrides it) and a launch `grid` with what the
/// device offers.
MissingRequirements findMissingRequirements(const SpirvModule &module,
                                            const DeviceInfo &info,
                                            const DeviceFeatures &features,
                                            uint32_t requestedSubgroupSize,
                                            const unsigned grid[3]);

} // namespace sm_runner

#endif // SM_RUNTIME_VULKAN_VULKANDEVICEINFO_H
