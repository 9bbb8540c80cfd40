//===- VulkanApi.cpp - the Vulkan entry points, loaded at run time --------===//

#include "VulkanApi.h"

#include <algorithm>
#include <cstring>
#include <dlfcn.h>

namespace sm_runner {

#define SM_DEFINE(name) PFN_##name name = nullptr;
SM_VULKAN_FUNCTIONS(SM_DEFINE)
SM_INSTANCE_FUNCTIONS(SM_DEFINE)
SM_DEVICE_FUNCTIONS(SM_DEFINE)
#undef SM_DEFINE
PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;
PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR
    vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR = nullptr;
PFN_vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV
    vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV =
        nullptr;

bool loadVulkanLoader(std::string &error) {
  static std::string loadError;
  static bool loaded = [] {
    void *library = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      loadError = "cannot load the Vulkan loader libvulkan.so.1";
      return false;
    }
    vkGetInstanceProcAddr = reinterpret_cast<PFN_vkGetInstanceProcAddr>(
        dlsym(library, "vkGetInstanceProcAddr"));
    if (!vkGetInstanceProcAddr) {
      loadError = "libvulkan.so.1 has no vkGetInstanceProcAddr";
      return false;
    }
#define SM_LOAD_GLOBAL(name)                                                   \
  name = reinterpret_cast<PFN_##name>(vkGetInstanceProcAddr(nullptr, #name));
    SM_VULKAN_FUNCTIONS(SM_LOAD_GLOBAL)
#undef SM_LOAD_GLOBAL
    return true;
  }();
  error = loadError;
  return loaded;
}

void loadInstanceFunctions(VkInstance instance) {
#define SM_LOAD_INSTANCE(name)                                                 \
  name = reinterpret_cast<PFN_##name>(vkGetInstanceProcAddr(instance, #name));
  SM_INSTANCE_FUNCTIONS(SM_LOAD_INSTANCE)
#undef SM_LOAD_INSTANCE
  vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR =
      reinterpret_cast<PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR>(
          vkGetInstanceProcAddr(
              instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR"));
  vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV =
      reinterpret_cast<
          PFN_vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV>(
          vkGetInstanceProcAddr(instance, "vkGetPhysicalDeviceCooperativeMatrix"
                                          "FlexibleDimensionsPropertiesNV"));
}

void loadDeviceFunctions(VkDevice device) {
#define SM_LOAD_DEVICE(name)                                                   \
  name = reinterpret_cast<PFN_##name>(vkGetDeviceProcAddr(device, #name));
  SM_DEVICE_FUNCTIONS(SM_LOAD_DEVICE)
#undef SM_LOAD_DEVICE
}

bool hasExtension(const std::vector<VkExtensionProperties> &extensions,
                  const char *name) {
  return std::any_of(extensions.begin(), extensions.end(),
                     [&](const VkExtensionProperties &extension) {
                       return std::strcmp(extension.extensionName, name) == 0;
                     });
}

} // namespace sm_runner
