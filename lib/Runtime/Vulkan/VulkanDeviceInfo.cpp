//===- VulkanDeviceInfo.cpp - what a Vulkan device offers -----------------===//

#include "VulkanDeviceInfo.h"

#include <spirv/unified1/spirv.hpp>

#include <algorithm>
#include <tuple>
#include <type_traits>

namespace sm_runner {

DeviceInfo queryDevice(VkPhysicalDevice physical) {
  DeviceInfo info;
  info.physical = physical;
  info.driver.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES;
  info.vulkan13.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_PROPERTIES;
  info.vulkan13.pNext = &info.driver;
  info.vulkan12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES;
  info.vulkan12.pNext = &info.vulkan13;
  info.subgroup.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
  info.subgroup.pNext = &info.vulkan12;
  info.properties.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
  info.properties.pNext = &info.subgroup;
  vkGetPhysicalDeviceProperties2(physical, &info.properties);
  uint32_t count = 0;
  vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, nullptr);
  info.extensions.resize(count);
  vkEnumerateDeviceExtensionProperties(physical, nullptr, &count,
                                       info.extensions.data());
  return info;
}

const char *componentName(VkComponentTypeKHR type) {
  if (type == VK_COMPONENT_TYPE_BFLOAT16_KHR)
    return "bf16";
  switch (type) {
  case VK_COMPONENT_TYPE_FLOAT16_KHR:
    return "f16";
  case VK_COMPONENT_TYPE_FLOAT32_KHR:
    return "f32";
  case VK_COMPONENT_TYPE_SINT8_KHR:
    return "si8";
  case VK_COMPONENT_TYPE_UINT8_KHR:
    return "ui8";
  case VK_COMPONENT_TYPE_SINT32_KHR:
    return "si32";
  case VK_COMPONENT_TYPE_UINT32_KHR:
    return "ui32";
  default:
    return nullptr;
  }
}

std::vector<VkCooperativeMatrixPropertiesKHR>
getCooperativeMatrixProperties(const DeviceInfo &info) {
  if (!vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR ||
      !hasExtension(info.extensions, VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME))
    return {};
  uint32_t count = 0;
  vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR(info.physical, &count,
                                                    nullptr);
  std::vector<VkCooperativeMatrixPropertiesKHR> properties(
      count, {VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_KHR});
  vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR(info.physical, &count,
                                                    properties.data());
  return properties;
}

/// The device's VK_NV_cooperative_matrix2 features, all false where it
/// lacks the extension.
static VkPhysicalDeviceCooperativeMatrix2FeaturesNV
getCooperativeMatrix2Features(const DeviceInfo &info) {
  VkPhysicalDeviceCooperativeMatrix2FeaturesNV coopmat2{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_2_FEATURES_NV};
  if (!hasExtension(info.extensions, VK_NV_COOPERATIVE_MATRIX_2_EXTENSION_NAME))
    return coopmat2;
  VkPhysicalDeviceFeatures2 features{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  features.pNext = &coopmat2;
  vkGetPhysicalDeviceFeatures2(info.physical, &features);
  return coopmat2;
}

FlexibleDimensions getFlexibleDimensions(const DeviceInfo &info) {
  FlexibleDimensions flexible;
  if (!vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV ||
      !getCooperativeMatrix2Features(info).cooperativeMatrixFlexibleDimensions)
    return flexible;
  VkPhysicalDeviceCooperativeMatrix2PropertiesNV limits{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_2_PROPERTIES_NV};
  VkPhysicalDeviceProperties2 properties{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  properties.pNext = &limits;
  vkGetPhysicalDeviceProperties2(info.physical, &properties);
  flexible.maxDimension =
      limits.cooperativeMatrixFlexibleDimensionsMaxDimension;
  uint32_t count = 0;
  vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV(
      info.physical, &count, nullptr);
  flexible.granularities.assign(
      count,
      {VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_FLEXIBLE_DIMENSIONS_PROPERTIES_NV});
  vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV(
      info.physical, &count, flexible.granularities.data());
  flexible.granularities.resize(count);
  return flexible;
}

uint32_t getComputeUnitCount(const DeviceInfo &info) {
  // Each structure is chained only where its extension is supported.
  VkPhysicalDeviceShaderSMBuiltinsPropertiesNV nvidia{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV};
  VkPhysicalDeviceShaderCoreProperties2AMD amd{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CORE_PROPERTIES_2_AMD};
  VkPhysicalDeviceProperties2 properties{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  if (hasExtension(info.extensions, VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME))
    properties.pNext = &nvidia;
  else if (hasExtension(info.extensions,
                        VK_AMD_SHADER_CORE_PROPERTIES_2_EXTENSION_NAME))
    properties.pNext = &amd;
  else
    return 0;
  vkGetPhysicalDeviceProperties2(info.physical, &properties);
  return properties.pNext == &nvidia ? nvidia.shaderSMCount
                                     : amd.activeComputeUnitCount;
}

/// The target attribute's name of the vendor with Vulkan vendor ID `id`
/// (PCI's, or Khronos' for Mesa's CPU device), or nullptr.
static const char *getVendorName(uint32_t id) {
  switch (id) {
  case 0x10DE:
    return "nvidia";
  case 0x1002:
    return "amd";
  case 0x8086:
    return "intel";
  case 0x106B:
    return "apple";
  case VK_VENDOR_ID_MESA:
    return "mesa";
  default:
    return nullptr;
  }
}

/// Appends to `text` a comment line on the configuration (or granularity)
/// `p` of shape `shape`, kept or dropped by the rule of describeTarget, and
/// a kept one to the attribute's list `kept`.
template <typename Properties>
static void describeRow(const Properties &p, const std::string &shape,
                        const std::string &note, std::string &text,
                        std::string &kept) {
  const char *a = componentName(p.AType), *b = componentName(p.BType),
             *c = componentName(p.CType), *r = componentName(p.ResultType);
  // Workgroup scope only as a flexible granularity, which names the
  // workgroup size it holds for (workgroupInvocations); the attribute's
  // configurations are subgroup matrices.
  bool flexibleWorkgroup = false;
  if constexpr (std::is_same_v<
                    Properties,
                    VkCooperativeMatrixFlexibleDimensionsPropertiesNV>)
    flexibleWorkgroup = p.scope == VK_SCOPE_WORKGROUP_KHR;
  bool keep = (p.scope == VK_SCOPE_SUBGROUP_KHR || flexibleWorkgroup) &&
              !p.saturatingAccumulation && a && b && c && r &&
              p.AType == p.BType && p.CType == p.ResultType;
  text += std::string("// ") + (keep ? "kept    " : "dropped ") + shape + " " +
          (a ? a : "?") + " x " + (b ? b : "?") + " + " + (c ? c : "?") +
          " -> " + (r ? r : "?") +
          (p.saturatingAccumulation ? " (saturating)" : "") + note + "\n";
  if (!keep)
    return;
  kept += std::string(kept.empty() ? "" : ", ") + "<" + shape + ", " + a +
          " -> " + r;
  if constexpr (std::is_same_v<
                    Properties,
                    VkCooperativeMatrixFlexibleDimensionsPropertiesNV>)
    if (flexibleWorkgroup)
      kept += ", workgroup = " + std::to_string(p.workgroupInvocations);
  kept += ">";
}

std::string describeTarget(const DeviceInfo &info) {
  std::vector<VkCooperativeMatrixPropertiesKHR> properties =
      getCooperativeMatrixProperties(info);
  std::string text =
      std::string("// ") + info.properties.properties.deviceName + ", driver " +
      info.driver.driverName + " " + info.driver.driverInfo + ", " +
      std::to_string(properties.size()) + " configurations reported\n";
  std::string configs;
  for (const VkCooperativeMatrixPropertiesKHR &p : properties)
    describeRow(p,
                std::to_string(p.MSize) + "x" + std::to_string(p.NSize) + "x" +
                    std::to_string(p.KSize),
                "", text, configs);
  FlexibleDimensions flexible = getFlexibleDimensions(info);
  std::string granularities;
  for (const VkCooperativeMatrixFlexibleDimensionsPropertiesNV &p :
       flexible.granularities)
    describeRow(
        p,
        std::to_string(p.MGranularity) + "x" + std::to_string(p.NGranularity) +
            "x" + std::to_string(p.KGranularity),
        p.scope == VK_SCOPE_WORKGROUP_KHR
            ? " (flexible, workgroup scope, " +
                  std::to_string(p.workgroupInvocations) + " invocations)"
            : " (flexible)",
        text, granularities);
  std::string name = info.properties.properties.deviceName;
  std::replace(name.begin(), name.end(), '"', '\'');
  VkPhysicalDeviceCooperativeMatrix2FeaturesNV coopmat2 =
      getCooperativeMatrix2Features(info);
  VkPhysicalDeviceFeatures2 features{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  vkGetPhysicalDeviceFeatures2(info.physical, &features);
  text += "#subgroup_matrix.target<\"" + name +
          "\", subgroup_size = " + std::to_string(info.subgroup.subgroupSize) +
          ", configs = [" + configs + "]";
  if (uint32_t units = getComputeUnitCount(info))
    text += ", compute_units = " + std::to_string(units);
  text += ", workgroup_memory = " +
          std::to_string(
              info.properties.properties.limits.maxComputeSharedMemorySize);
  if (features.features.shaderFloat64)
    text += ", float64";
  if (features.features.shaderInt64)
    text += ", int64";
  // In the order of the attribute's nv_coopmat2 keywords.
  std::pair<VkBool32, const char *> coopmat2Features[] = {
      {coopmat2.cooperativeMatrixWorkgroupScope, "workgroup_scope"},
      {coopmat2.cooperativeMatrixFlexibleDimensions, "flexible_dimensions"},
      {coopmat2.cooperativeMatrixReductions, "reductions"},
      {coopmat2.cooperativeMatrixConversions, "conversions"},
      {coopmat2.cooperativeMatrixPerElementOperations,
       "per_element_operations"},
      {coopmat2.cooperativeMatrixTensorAddressing, "tensor_addressing"},
      {coopmat2.cooperativeMatrixBlockLoads, "block_loads"}};
  std::string listed;
  for (auto [supported, keyword] : coopmat2Features)
    if (supported)
      listed += std::string(listed.empty() ? "" : ", ") + keyword;
  if (!listed.empty())
    text += ", nv_coopmat2 = [" + listed + "]";
  if (!granularities.empty())
    text +=
        ", flexible_granularities = [" + granularities +
        "], flexible_max_dimension = " + std::to_string(flexible.maxDimension);
  if (const char *vendor = getVendorName(info.properties.properties.vendorID))
    text += std::string(", vendor = ") + vendor;
  return text + ">\n";
}

namespace {
/// The VkComponentTypeKHR of a component name of CooperativeMatrixMultiply.
std::optional<VkComponentTypeKHR> parseComponent(const std::string &name) {
  for (VkComponentTypeKHR type :
       {VK_COMPONENT_TYPE_FLOAT16_KHR, VK_COMPONENT_TYPE_FLOAT32_KHR,
        VK_COMPONENT_TYPE_SINT8_KHR, VK_COMPONENT_TYPE_UINT8_KHR,
        VK_COMPONENT_TYPE_SINT32_KHR, VK_COMPONENT_TYPE_UINT32_KHR,
        VK_COMPONENT_TYPE_BFLOAT16_KHR})
    if (name == componentName(type))
      return type;
  return std::nullopt;
}

} // namespace

bool hasCapability(uint32_t capability, const DeviceInfo &info,
                   const DeviceFeatures &features) {
  // Each class of subgroup operations, and the device's flag for it.
  static constexpr std::pair<spv::Capability, VkSubgroupFeatureFlagBits>
      subgroupClasses[] = {
          {spv::CapabilityGroupNonUniform, VK_SUBGROUP_FEATURE_BASIC_BIT},
          {spv::CapabilityGroupNonUniformVote, VK_SUBGROUP_FEATURE_VOTE_BIT},
          {spv::CapabilityGroupNonUniformArithmetic,
           VK_SUBGROUP_FEATURE_ARITHMETIC_BIT},
          {spv::CapabilityGroupNonUniformBallot,
           VK_SUBGROUP_FEATURE_BALLOT_BIT},
          {spv::CapabilityGroupNonUniformShuffle,
           VK_SUBGROUP_FEATURE_SHUFFLE_BIT},
          {spv::CapabilityGroupNonUniformShuffleRelative,
           VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT},
          {spv::CapabilityGroupNonUniformClustered,
           VK_SUBGROUP_FEATURE_CLUSTERED_BIT},
          {spv::CapabilityGroupNonUniformQuad, VK_SUBGROUP_FEATURE_QUAD_BIT}};
  for (auto [subgroupCapability, flag] : subgroupClasses)
    if (capability == uint32_t(subgroupCapability))
      return (info.subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
             (info.subgroup.supportedOperations & flag);
  bool bfloat16 =
      hasExtension(info.extensions, VK_KHR_SHADER_BFLOAT16_EXTENSION_NAME);
  bool coopmat2 =
      hasExtension(info.extensions, VK_NV_COOPERATIVE_MATRIX_2_EXTENSION_NAME);
  switch (capability) {
  case spv::CapabilityFloat16:
    return features.vulkan12.shaderFloat16;
  case spv::CapabilityFloat64:
    return features.core.features.shaderFloat64;
  case spv::CapabilityInt64:
    return features.core.features.shaderInt64;
  case spv::CapabilityInt16:
    return features.core.features.shaderInt16;
  case spv::CapabilityInt8:
    return features.vulkan12.shaderInt8;
  case spv::CapabilityStorageBuffer16BitAccess:
    return features.vulkan11.storageBuffer16BitAccess;
  case spv::CapabilityStorageBuffer8BitAccess:
    return features.vulkan12.storageBuffer8BitAccess;
  case spv::CapabilityVulkanMemoryModel:
    return features.vulkan12.vulkanMemoryModel;
  case spv::CapabilityCooperativeMatrixKHR:
    return hasExtension(info.extensions,
                        VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME) &&
           features.cooperativeMatrix.cooperativeMatrix;
  case 5116: // BFloat16TypeKHR
    return bfloat16 && features.bfloat16.shaderBFloat16Type;
  case 5118: // BFloat16CooperativeMatrixKHR
    return bfloat16 && features.bfloat16.shaderBFloat16CooperativeMatrix;
  case spv::CapabilityCooperativeMatrixReductionsNV:
    return coopmat2 && features.cooperativeMatrix2.cooperativeMatrixReductions;
  case spv::CapabilityCooperativeMatrixConversionsNV:
    return coopmat2 && features.cooperativeMatrix2.cooperativeMatrixConversions;
  case spv::CapabilityCooperativeMatrixPerElementOperationsNV:
    return coopmat2 &&
           features.cooperativeMatrix2.cooperativeMatrixPerElementOperations;
  case spv::CapabilityCooperativeMatrixTensorAddressingNV:
    return coopmat2 &&
           features.cooperativeMatrix2.cooperativeMatrixTensorAddressing;
  case spv::CapabilityCooperativeMatrixBlockLoadsNV:
    return coopmat2 && features.cooperativeMatrix2.cooperativeMatrixBlockLoads;
  // The pointers that decode functions receive.
  case spv::CapabilityPhysicalStorageBufferAddresses:
    return features.vulkan12.bufferDeviceAddress;
  default:
    return true;
  }
}

MissingRequirements findMissingRequirements(const SpirvModule &module,
                                            const DeviceInfo &info,
                                            const DeviceFeatures &features,
                                            uint32_t requestedSubgroupSize,
                                            const unsigned grid[3]) {
  MissingRequirements result;
  std::vector<std::string> &missing = result.pieces;
  bool &needsMatrixUnits = result.needsMatrixUnits;
  auto declares = [&](uint32_t capability) {
    return std::find(module.capabilities.begin(), module.capabilities.end(),
                     capability) != module.capabilities.end();
  };
  for (uint32_t capability : module.capabilities) {
    if (capability == spv::CapabilitySignedZeroInfNanPreserve) {
      // Kernels keep infinities and NaN for f32 always, and for f16 and
      // f64 where they compute in them (capabilities Float16, Float64).
      for (auto [width, preserved, used] :
           {std::tuple{16, info.vulkan12.shaderSignedZeroInfNanPreserveFloat16,
                       declares(spv::CapabilityFloat16)},
            std::tuple{32, info.vulkan12.shaderSignedZeroInfNanPreserveFloat32,
                       true},
            std::tuple{64, info.vulkan12.shaderSignedZeroInfNanPreserveFloat64,
                       declares(spv::CapabilityFloat64)}})
        if (used && !preserved)
          missing.push_back("infinities and NaN kept in " +
                            std::to_string(width) +
                            "-bit floats (shaderSignedZeroInfNanPreserveFloat" +
                            std::to_string(width) + ")");
      continue;
    }
    if (hasCapability(capability, info, features))
      continue;
    if (capability == spv::CapabilityCooperativeMatrixKHR) {
      missing.push_back("cooperative matrices (capability "
                        "CooperativeMatrixKHR, VK_KHR_cooperative_matrix)");
      needsMatrixUnits = true;
    } else if (capability == 5118) {
      missing.push_back(
          "bf16 cooperative matrices (capability "
          "BFloat16CooperativeMatrixKHR, VK_KHR_shader_bfloat16)");
      needsMatrixUnits = true;
    } else {
      missing.push_back("capability " + getCapabilityName(capability));
    }
  }
  if (!needsMatrixUnits && !module.multiplies.empty()) {
    std::vector<VkCooperativeMatrixPropertiesKHR> offered =
        getCooperativeMatrixProperties(info);
    // The device reports its flexible dimensions, but a kernel may use
    // them only where they were enabled (VulkanDevice enables every
    // feature the device has).
    FlexibleDimensions flexible;
    if (features.cooperativeMatrix2.cooperativeMatrixFlexibleDimensions)
      flexible = getFlexibleDimensions(info);
    for (const CooperativeMatrixMultiply &multiply : module.multiplies) {
      std::optional<VkComponentTypeKHR> a = parseComponent(multiply.a),
                                        b = parseComponent(multiply.b),
                                        c = parseComponent(multiply.c),
                                        r = parseComponent(multiply.result);
      bool found = a && b && c && r &&
                   std::any_of(offered.begin(), offered.end(),
                               [&](const VkCooperativeMatrixPropertiesKHR &p) {
                                 return p.scope == VK_SCOPE_SUBGROUP_KHR &&
                                        p.MSize == multiply.m &&
                                        p.NSize == multiply.n &&
                                        p.KSize == multiply.k &&
                                        p.AType == *a && p.BType == *b &&
                                        p.CType == *c && p.ResultType == *r &&
                                        bool(p.saturatingAccumulation) ==
                                            multiply.saturating;
                               });
      found =
          found ||
          (a && b && c && r &&
           std::any_of(
               flexible.granularities.begin(), flexible.granularities.end(),
               [&](const VkCooperativeMatrixFlexibleDimensionsPropertiesNV &p) {
                 auto fits = [&](uint32_t size, uint32_t granularity) {
                   return granularity && size % granularity == 0 &&
                          size <= flexible.maxDimension;
                 };
                 return p.scope == VK_SCOPE_SUBGROUP_KHR &&
                        fits(multiply.m, p.MGranularity) &&
                        fits(multiply.n, p.NGranularity) &&
                        fits(multiply.k, p.KGranularity) && p.AType == *a &&
                        p.BType == *b && p.CType == *c && p.ResultType == *r &&
                        bool(p.saturatingAccumulation) == multiply.saturating;
               }));
      if (!found) {
        missing.push_back("the cooperative-matrix configuration " +
                          multiply.describe());
        needsMatrixUnits = true;
      }
    }
  }
  bool &wrongSubgroupSize = result.wrongSubgroupSize;
  if (module.subgroupSize && !requestedSubgroupSize) {
    bool canRequire = features.vulkan13.subgroupSizeControl &&
                      features.vulkan13.computeFullSubgroups;
    uint32_t low =
        canRequire ? info.vulkan13.minSubgroupSize : info.subgroup.subgroupSize;
    uint32_t high =
        canRequire ? info.vulkan13.maxSubgroupSize : info.subgroup.subgroupSize;
    if (module.subgroupSize < low || module.subgroupSize > high) {
      missing.push_back(
          "subgroups of " + std::to_string(module.subgroupSize) +
          " invocations, which the kernel was lowered for (the device runs " +
          std::to_string(low) +
          (low == high ? "" : ".." + std::to_string(high)) + ")");
      wrongSubgroupSize = true;
    }
  }
  const uint32_t *maxCount =
      info.properties.properties.limits.maxComputeWorkGroupCount;
  for (int d = 0; d < 3; ++d)
    if (grid[d] > maxCount[d])
      missing.push_back("a grid of " + std::to_string(grid[d]) +
                        " workgroups in dimension " + std::to_string(d) +
                        " (at most " + std::to_string(maxCount[d]) + ")");
  return result;
}

std::string MissingRequirements::describe(const std::string &path,
                                          const DeviceInfo &info) const {
  std::string message = "'" + path + "' needs what device '" +
                        info.properties.properties.deviceName +
                        "' does not offer:";
  for (const std::string &piece : pieces)
    message += "\n  - " + piece;
  if (needsMatrixUnits || wrongSubgroupSize)
    message += "\nLower the kernel for this device: sm-opt "
               "--sm-lower-to-vulkan=target=NAME with its preset "
               "(cpu-lavapipe for Mesa's CPU device) or the target that "
               "--list-coopmat prints";
  if (needsMatrixUnits)
    message += ", or emulate the matrices it lacks with "
               "--sm-lower-to-vulkan=emulation=all";
  return message;
}

} // namespace sm_runner
