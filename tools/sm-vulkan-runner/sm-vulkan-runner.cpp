//===- sm-vulkan-runner.cpp - run a SPIR-V compute kernel on Vulkan -------===//
//
// Loads a SPIR-V binary, binds one storage buffer per kernel argument (the
// ABI of sm-lower-to-vulkan: argument i is binding i of set 0, scalars are
// one-element buffers), dispatches it with a required full subgroup size,
// reads the buffers back, checks GEMM-shaped results against a CPU
// reference and times the kernel with GPU timestamps.
//
// It depends on nothing but the Vulkan loader, so that it can be carried to
// machines without this project's toolchain.
//
// Why one file of this size: it is a command-line tool whose parts (usage,
// options, buffers with guards, the dispatch and its timing, the checks)
// each serve main() alone; what the runtime shares with it (device
// queries, SPIR-V reflection, requirement checks, buffer specs and guards)
// is already in lib/Runtime/Vulkan and tools/runner-support.
//
//===----------------------------------------------------------------------===//

#include "BufferGuards.h"
#include "RunnerOptions.h"

#include "DriverRoot.h"
#include "VulkanDeviceInfo.h"

#include <spirv/unified1/spirv.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

using namespace sm_runner;

namespace {

const char *usage = R"(usage: sm-vulkan-runner KERNEL.spv [options]
       sm-vulkan-runner --list-coopmat | --list-devices

Runs the compute kernel of KERNEL.spv, as sm-lower-to-vulkan and
sm-translate --serialize-spirv produce it: argument i of the kernel is the
storage buffer at binding i of descriptor set 0. Each is bound at an offset
inside an allocation that holds guard bytes before and after it, and its
range reaches over those after it, so that drivers which bounds-check every
access against the range (lavapipe) still let a write past the end land
there; a kernel that reads the buffer's length (OpArrayLength) sees them.

The binary is read first: a malformed one is named as such, the arguments
are checked against its bindings (their number and element types), and
what it needs from the device (capabilities, cooperative-matrix
configurations, the subgroup size it was lowered for) is compared with what
the device offers; a mismatch is an error (exit status 2) naming what is
missing, and nothing runs.

  --entry NAME            entry point (default: the only one, or "main")

With no --arg, a kernel whose binary records its launch (the kernels of
sm-tile-matmul do) runs with the grid, arguments and checks it records.

  --size NAME=VALUE       a size the recorded launch leaves to run time (a
                          kernel built for a dynamic M, N or K): its grid,
                          buffer lengths, size arguments and check follow

  --repeat N              time N further dispatches with GPU timestamps
  --print-timings         with --repeat, print every dispatch's time
  --pipeline-statistics   print what the driver reports about the compiled
                          kernel (VK_KHR_pipeline_executable_properties:
                          registers, memory, ...), where it reports anything
  --subgroup-size N       require subgroups of N invocations, all full
                          (default: the device's subgroup size)
  --append-lengths        pass one more argument: a u32 buffer with the length
                          in elements of every argument before it (the
                          kernels of sm-lower-to-vulkan=robust-access=1 with
                          runtime-sized buffers take it)
  --compile-only          create the pipeline (the driver compiles the
                          kernel) and stop; no --arg is needed
  --device N              use physical device N (see --list-devices)
  --list-devices          print the Vulkan devices
  --list-coopmat          print the device's cooperative-matrix configurations
                          as a #subgroup_matrix.target that sm-opt reads
)";

const char *usageTail =
    "Exit status: 0 when every check passed, 1 when one failed, 2 on errors.\n";

struct Options : CommonOptions {
  std::string kernelPath;
  std::string entry;
  uint32_t subgroupSize = 0;
  uint32_t repeat = 0;
  bool compileOnly = false;
  bool printTimings = false;
  bool pipelineStatistics = false;
  bool appendLengths = false;
  bool listDevices = false;
  bool listCoopmat = false;
  uint32_t device = 0;
  /// Values of the sizes a recorded launch names ("M" -> 130).
  std::map<std::string, uint64_t> sizes;
};

/// The most timed dispatches (each takes two timestamps of 8 bytes).
constexpr uint64_t maxRepeat = 1000000;

[[noreturn]] void fail(const std::string &message) {
  std::cerr << "sm-vulkan-runner: error: " << message << "\n";
  std::exit(2);
}

Options parseOptions(int argc, char **argv) {
  Options options;
  auto value = [&](int &i) -> std::string {
    if (i + 1 >= argc)
      fail(std::string(argv[i]) + " needs a value");
    return argv[++i];
  };
  auto integer = [&](int &i, uint64_t min, uint64_t max) {
    std::string option = argv[i], error;
    uint64_t result = 0;
    if (!parseIntegerOption(option, value(i), min, max, result, error))
      fail(error);
    return result;
  };
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string error;
    if (parseCommonOption(i, argc, argv, options, error)) {
      if (!error.empty())
        fail(error);
    } else if (arg == "--help" || arg == "-h") {
      std::cout << usage << commonOptionsHelp << usageTail;
      std::exit(0);
    } else if (arg == "--entry") {
      options.entry = value(i);
    } else if (arg == "--subgroup-size") {
      options.subgroupSize = uint32_t(integer(i, 1, 128));
      if (options.subgroupSize & (options.subgroupSize - 1))
        fail("--subgroup-size needs a power of two, got " +
             std::to_string(options.subgroupSize));
    } else if (arg == "--repeat") {
      options.repeat = uint32_t(integer(i, 0, maxRepeat));
    } else if (arg == "--pipeline-statistics") {
      options.pipelineStatistics = true;
    } else if (arg == "--print-timings") {
      options.printTimings = true;
    } else if (arg == "--append-lengths") {
      options.appendLengths = true;
    } else if (arg == "--compile-only") {
      options.compileOnly = true;
    } else if (arg == "--device") {
      options.device = uint32_t(integer(i, 0, 255));
    } else if (arg == "--size") {
      std::string text = value(i);
      size_t equals = text.find('=');
      std::optional<uint64_t> size;
      if (equals != std::string::npos && equals > 0)
        size =
            parseBoundedInteger(text.substr(equals + 1), 0, maxBufferElements);
      if (!size)
        fail("--size needs NAME=VALUE with an integer from 0 to " +
             std::to_string(maxBufferElements) + ", got '" + text + "'");
      options.sizes[text.substr(0, equals)] = *size;
    } else if (arg == "--list-devices") {
      options.listDevices = true;
    } else if (arg == "--list-coopmat") {
      options.listCoopmat = true;
    } else if (!arg.empty() && arg[0] == '-') {
      fail("unknown option '" + arg + "' (see --help)");
    } else if (options.kernelPath.empty()) {
      options.kernelPath = arg;
    } else {
      fail("more than one kernel given: '" + options.kernelPath + "' and '" +
           arg + "'");
    }
  }
  if (!options.listDevices && !options.listCoopmat &&
      options.kernelPath.empty())
    fail("no kernel given (see --help)");
  if (options.appendLengths) {
    BufferSpec lengths;
    lengths.type = ElementType::U32;
    lengths.count = std::max<size_t>(options.arguments.size(), 1);
    lengths.fill.kind = Fill::Kind::Values;
    for (const BufferSpec &argument : options.arguments)
      lengths.fill.values.push_back(double(argument.count));
    options.arguments.push_back(lengths);
  }
  return options;
}

//===----------------------------------------------------------------------===//
// Vulkan calls (lib/Runtime/Vulkan loads the entry points)
//===----------------------------------------------------------------------===//

void check(VkResult result, const char *what) {
  if (result != VK_SUCCESS)
    fail(std::string(what) + " failed with VkResult " +
         std::to_string(int(result)));
}

void loadLoader() {
  std::string error;
  if (!loadVulkanLoader(error))
    fail(error);
}

//===----------------------------------------------------------------------===//
// Devices
//===----------------------------------------------------------------------===//

/// Prints the device as a target attribute (describeTarget).
void listCooperativeMatrices(const DeviceInfo &info) {
  if (!vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR ||
      !hasExtension(info.extensions, VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME))
    fail(std::string(info.properties.properties.deviceName) +
         " does not support VK_KHR_cooperative_matrix");
  std::fputs(describeTarget(info).c_str(), stdout);
}

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

struct DeviceBuffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkDeviceSize size = 0;
};

uint32_t findMemoryType(const VkPhysicalDeviceMemoryProperties &memory,
                        uint32_t allowed, VkMemoryPropertyFlags wanted) {
  for (uint32_t i = 0; i < memory.memoryTypeCount; ++i)
    if ((allowed & (1u << i)) &&
        (memory.memoryTypes[i].propertyFlags & wanted) == wanted)
      return i;
  return UINT32_MAX;
}

DeviceBuffer createBuffer(VkDevice device,
                          const VkPhysicalDeviceMemoryProperties &memory,
                          VkDeviceSize size, VkBufferUsageFlags usage,
                          VkMemoryPropertyFlags properties) {
  DeviceBuffer result;
  result.size = size;
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = size;
  info.usage = usage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  check(vkCreateBuffer(device, &info, nullptr, &result.buffer),
        "vkCreateBuffer");
  VkMemoryRequirements requirements;
  vkGetBufferMemoryRequirements(device, result.buffer, &requirements);
  uint32_t type =
      findMemoryType(memory, requirements.memoryTypeBits, properties);
  if (type == UINT32_MAX)
    fail("no suitable memory type for a buffer");
  VkMemoryAllocateInfo allocate{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  allocate.allocationSize = requirements.size;
  allocate.memoryTypeIndex = type;
  check(vkAllocateMemory(device, &allocate, nullptr, &result.memory),
        "vkAllocateMemory");
  check(vkBindBufferMemory(device, result.buffer, result.memory, 0),
        "vkBindBufferMemory");
  return result;
}

/// Prints every statistic the driver reports for each executable of
/// `pipeline` (VK_KHR_pipeline_executable_properties).
void printPipelineStatistics(VkDevice device, VkPipeline pipeline) {
  auto getProperties =
      reinterpret_cast<PFN_vkGetPipelineExecutablePropertiesKHR>(
          vkGetDeviceProcAddr(device, "vkGetPipelineExecutablePropertiesKHR"));
  auto getStatistics =
      reinterpret_cast<PFN_vkGetPipelineExecutableStatisticsKHR>(
          vkGetDeviceProcAddr(device, "vkGetPipelineExecutableStatisticsKHR"));
  if (!getProperties || !getStatistics) {
    std::printf("pipeline statistics: not available\n");
    return;
  }
  VkPipelineInfoKHR pipelineInfo{VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR};
  pipelineInfo.pipeline = pipeline;
  uint32_t count = 0;
  getProperties(device, &pipelineInfo, &count, nullptr);
  std::vector<VkPipelineExecutablePropertiesKHR> executables(
      count, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR});
  getProperties(device, &pipelineInfo, &count, executables.data());
  for (uint32_t e = 0; e < count; ++e) {
    std::printf("pipeline executable %u: %s (%s), subgroup size %u\n", e,
                executables[e].name, executables[e].description,
                executables[e].subgroupSize);
    VkPipelineExecutableInfoKHR executableInfo{
        VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR};
    executableInfo.pipeline = pipeline;
    executableInfo.executableIndex = e;
    uint32_t statisticCount = 0;
    getStatistics(device, &executableInfo, &statisticCount, nullptr);
    std::vector<VkPipelineExecutableStatisticKHR> statistics(
        statisticCount, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR});
    getStatistics(device, &executableInfo, &statisticCount, statistics.data());
    for (const VkPipelineExecutableStatisticKHR &statistic : statistics) {
      std::printf("  %s: ", statistic.name);
      switch (statistic.format) {
      case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
        std::printf("%s", statistic.value.b32 ? "true" : "false");
        break;
      case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
        std::printf("%lld", static_cast<long long>(statistic.value.i64));
        break;
      case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
        std::printf("%llu",
                    static_cast<unsigned long long>(statistic.value.u64));
        break;
      case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR:
        std::printf("%g", statistic.value.f64);
        break;
      default:
        std::printf("?");
      }
      std::printf(" (%s)\n", statistic.description);
    }
  }
}

/// Evaluates a size expression of a recorded launch: integers and size
/// names, multiplied with '*', ceildiv(X,Y) and min(X,Y). Returns nothing and
/// sets `error` when it is malformed or names a size `sizes` lacks.
class SizeExpression {
public:
  SizeExpression(const std::string &text,
                 const std::map<std::string, uint64_t> &sizes)
      : text(text), sizes(sizes) {}

  std::optional<uint64_t> evaluate(std::string &error) {
    std::optional<uint64_t> value = product(error);
    if (value && position != text.size()) {
      error = "unexpected '" + text.substr(position) + "' in '" + text + "'";
      return std::nullopt;
    }
    return value;
  }

private:
  std::optional<uint64_t> product(std::string &error) {
    std::optional<uint64_t> value = atom(error);
    while (value && position < text.size() && text[position] == '*') {
      ++position;
      std::optional<uint64_t> factor = atom(error);
      if (!factor)
        return std::nullopt;
      *value *= *factor;
    }
    return value;
  }

  std::optional<uint64_t> atom(std::string &error) {
    size_t start = position;
    if (position < text.size() && std::isdigit(text[position])) {
      while (position < text.size() && std::isdigit(text[position]))
        ++position;
      return std::strtoull(text.substr(start, position - start).c_str(),
                           nullptr, 10);
    }
    while (position < text.size() &&
           (std::isalnum(text[position]) || text[position] == '_'))
      ++position;
    std::string name = text.substr(start, position - start);
    if ((name == "ceildiv" || name == "min") && position < text.size() &&
        text[position] == '(') {
      ++position;
      std::optional<uint64_t> x = product(error);
      if (!x || !expect(',', error))
        return std::nullopt;
      std::optional<uint64_t> y = product(error);
      if (!y || !expect(')', error))
        return std::nullopt;
      if (name == "min")
        return std::min(*x, *y);
      if (*y == 0) {
        error = "division by zero in '" + text + "'";
        return std::nullopt;
      }
      return (*x + *y - 1) / *y;
    }
    if (name.empty()) {
      error = "expected a number or a size name in '" + text + "'";
      return std::nullopt;
    }
    auto found = sizes.find(name);
    if (found == sizes.end()) {
      error = "the kernel's launch needs the size " + name + " (pass --size " +
              name + "=VALUE)";
      return std::nullopt;
    }
    return found->second;
  }

  bool expect(char c, std::string &error) {
    if (position < text.size() && text[position] == c) {
      ++position;
      return true;
    }
    error = std::string("expected '") + c + "' in '" + text + "'";
    return false;
  }

  const std::string &text;
  const std::map<std::string, uint64_t> &sizes;
  size_t position = 0;
};

/// Replaces every "{EXPRESSION}" in `word` by its value.
std::string expandSizes(const std::string &word,
                        const std::map<std::string, uint64_t> &sizes) {
  std::string result;
  size_t position = 0;
  while (position < word.size()) {
    size_t open = word.find('{', position);
    if (open == std::string::npos) {
      result += word.substr(position);
      break;
    }
    size_t close = word.find('}', open);
    if (close == std::string::npos)
      fail("the kernel's launch description has an unclosed '{' in '" + word +
           "'");
    result += word.substr(position, open - position);
    std::string error;
    std::optional<uint64_t> value =
        SizeExpression(word.substr(open + 1, close - open - 1), sizes)
            .evaluate(error);
    if (!value)
      fail(error);
    result += std::to_string(*value);
    position = close + 1;
  }
  return result;
}

//===----------------------------------------------------------------------===//
// What the kernel needs from the device
//===----------------------------------------------------------------------===//

/// Refuses, with exit status 2, a kernel that needs what the device does not
/// offer: capabilities, cooperative-matrix configurations, its subgroup size,
/// the grid. The message names each missing piece and how to lower the
/// kernel for this device instead. With `compileOnly` it is a warning.
void checkDeviceRequirements(const std::string &path, const SpirvModule &module,
                             const DeviceInfo &info,
                             const DeviceFeatures &features,
                             uint32_t requestedSubgroupSize,
                             const unsigned grid[3], bool compileOnly) {
  MissingRequirements missing = findMissingRequirements(
      module, info, features, requestedSubgroupSize, grid);
  if (missing.empty())
    return;
  std::string message = missing.describe(path, info);
  // Compiling alone is how the driver's compiler is tried on kernels for
  // other devices (RADV's null device compiles the H100's kernels): the
  // mismatch is worth knowing, and nothing runs.
  if (compileOnly) {
    std::cerr << "sm-vulkan-runner: warning: " << message
              << "\n(--compile-only: the driver compiles it anyway)\n";
    return;
  }
  fail(message);
}

} // namespace

int main(int argc, char **argv) {
  Options options = parseOptions(argc, argv);
  // $SM_VULKAN_ROOT: run on the drivers of that root (DriverRoot.h).
  if (std::string error; !enterDriverRoot(argv, /*required=*/false, error))
    fail(error);

  // The kernel, its entry point and its arguments are checked before any
  // device is touched.
  SpirvModule module;
  std::string entry = options.entry;
  if (!options.kernelPath.empty()) {
    std::string error;
    if (!readSpirvModule(options.kernelPath, module, error))
      fail(error);
    if (entry.empty()) {
      if (module.entryPoints.size() != 1)
        fail("the kernel has " + std::to_string(module.entryPoints.size()) +
             " entry points; choose one with --entry");
      entry = module.entryPoints.front();
    } else if (std::find(module.entryPoints.begin(), module.entryPoints.end(),
                         entry) == module.entryPoints.end()) {
      fail("the kernel has no entry point '" + entry + "'");
    }
    // A kernel that says how to launch it runs that way unless the command
    // line gives its arguments.
    std::vector<std::string> launch = findLaunchOptions(module, entry);
    if (!launch.empty() && options.arguments.empty() && !options.compileOnly) {
      for (std::string &word : launch)
        word = expandSizes(word, options.sizes);
      std::vector<char *> argv = {const_cast<char *>("launch")};
      for (std::string &word : launch)
        argv.push_back(word.data());
      std::string launchText;
      for (const std::string &word : launch)
        launchText += " " + word;
      for (int i = 1; i < int(argv.size()); ++i) {
        if (!parseCommonOption(i, int(argv.size()), argv.data(), options,
                               error) ||
            !error.empty())
          fail("the kernel's launch description is malformed at '" +
               std::string(argv[i]) + "'" +
               (error.empty() ? "" : ": " + error));
      }
      std::printf("launch: from the kernel:%s\n", launchText.c_str());
    }
    std::vector<KernelParameter> parameters = getEntryParameters(module, entry);
    if (options.compileOnly && options.arguments.empty()) {
      // Compiling needs only the layout: one placeholder per binding.
      options.arguments.resize(parameters.size());
      for (BufferSpec &placeholder : options.arguments)
        placeholder.count = 1;
    } else {
      error = checkArguments(entry, parameters, options.arguments);
      if (error.empty())
        error = checkArgumentMemory(options.arguments);
      if (!error.empty())
        fail(error);
    }
  }
  loadLoader();

  VkApplicationInfo application{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  application.pApplicationName = "sm-vulkan-runner";
  application.apiVersion = VK_API_VERSION_1_3;
  VkInstanceCreateInfo instanceInfo{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  instanceInfo.pApplicationInfo = &application;
  VkInstance instance;
  check(vkCreateInstance(&instanceInfo, nullptr, &instance),
        "vkCreateInstance");
  loadInstanceFunctions(instance);

  uint32_t deviceCount = 0;
  vkEnumeratePhysicalDevices(instance, &deviceCount, nullptr);
  std::vector<VkPhysicalDevice> physicalDevices(deviceCount);
  vkEnumeratePhysicalDevices(instance, &deviceCount, physicalDevices.data());
  if (options.listDevices) {
    for (uint32_t i = 0; i < deviceCount; ++i) {
      DeviceInfo info = queryDevice(physicalDevices[i]);
      std::printf("%u: %s (%s %s), Vulkan %u.%u, subgroup size %u (%u..%u)%s\n",
                  i, info.properties.properties.deviceName,
                  info.driver.driverName, info.driver.driverInfo,
                  VK_API_VERSION_MAJOR(info.properties.properties.apiVersion),
                  VK_API_VERSION_MINOR(info.properties.properties.apiVersion),
                  info.subgroup.subgroupSize, info.vulkan13.minSubgroupSize,
                  info.vulkan13.maxSubgroupSize,
                  hasExtension(info.extensions,
                               VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME)
                      ? ", VK_KHR_cooperative_matrix"
                      : "");
    }
    return 0;
  }
  if (options.device >= deviceCount)
    fail("no Vulkan device " + std::to_string(options.device) + " (found " +
         std::to_string(deviceCount) + ")");
  DeviceInfo info = queryDevice(physicalDevices[options.device]);
  if (options.listCoopmat) {
    listCooperativeMatrices(info);
    return 0;
  }

  // Enable every feature the device has among those kernels use, except
  // robust buffer access, which costs speed and hides out-of-bounds bugs.
  DeviceFeatures queried;
  VkPhysicalDeviceCooperativeMatrixFeaturesKHR &cooperativeMatrix =
      queried.cooperativeMatrix;
  VkPhysicalDeviceShaderBfloat16FeaturesKHR &bfloat16 = queried.bfloat16;
  VkPhysicalDeviceVulkan13Features &vulkan13 = queried.vulkan13;
  VkPhysicalDeviceVulkan12Features &vulkan12 = queried.vulkan12;
  VkPhysicalDeviceVulkan11Features &vulkan11 = queried.vulkan11;
  VkPhysicalDeviceFeatures2 &features = queried.core;
  std::vector<const char *> deviceExtensions;
  void *chain = &vulkan13;
  vulkan13.pNext = &vulkan12;
  vulkan12.pNext = &vulkan11;
  if (hasExtension(info.extensions, VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME)) {
    deviceExtensions.push_back(VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME);
    cooperativeMatrix.pNext = chain;
    chain = &cooperativeMatrix;
  }
  if (hasExtension(info.extensions, VK_KHR_SHADER_BFLOAT16_EXTENSION_NAME)) {
    deviceExtensions.push_back(VK_KHR_SHADER_BFLOAT16_EXTENSION_NAME);
    bfloat16.pNext = chain;
    chain = &bfloat16;
  }
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR executableProperties{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
  bool captureStatistics =
      options.pipelineStatistics &&
      hasExtension(info.extensions,
                   VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
  if (captureStatistics) {
    deviceExtensions.push_back(
        VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
    executableProperties.pNext = chain;
    chain = &executableProperties;
  }
  features.pNext = chain;
  vkGetPhysicalDeviceFeatures2(info.physical, &features);
  checkDeviceRequirements(options.kernelPath, module, info, queried,
                          options.subgroupSize, options.grid,
                          options.compileOnly);
  features.features.robustBufferAccess = VK_FALSE;
  vulkan13.robustImageAccess = VK_FALSE;
  cooperativeMatrix.cooperativeMatrixRobustBufferAccess = VK_FALSE;

  uint32_t familyCount = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(info.physical, &familyCount,
                                           nullptr);
  std::vector<VkQueueFamilyProperties> families(familyCount);
  vkGetPhysicalDeviceQueueFamilyProperties(info.physical, &familyCount,
                                           families.data());
  uint32_t family = UINT32_MAX;
  for (uint32_t i = 0; i < familyCount && family == UINT32_MAX; ++i)
    if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT)
      family = i;
  if (family == UINT32_MAX)
    fail("the device has no compute queue");

  float priority = 1.0f;
  VkDeviceQueueCreateInfo queueInfo{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queueInfo.queueFamilyIndex = family;
  queueInfo.queueCount = 1;
  queueInfo.pQueuePriorities = &priority;
  VkDeviceCreateInfo deviceInfo{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  deviceInfo.pNext = &features;
  deviceInfo.queueCreateInfoCount = 1;
  deviceInfo.pQueueCreateInfos = &queueInfo;
  deviceInfo.enabledExtensionCount = uint32_t(deviceExtensions.size());
  deviceInfo.ppEnabledExtensionNames = deviceExtensions.data();
  VkDevice device;
  check(vkCreateDevice(info.physical, &deviceInfo, nullptr, &device),
        "vkCreateDevice");
  loadDeviceFunctions(device);
  VkQueue queue;
  vkGetDeviceQueue(device, family, 0, &queue);

  std::printf("device: %s (%s %s), subgroup size %u\n",
              info.properties.properties.deviceName, info.driver.driverName,
              info.driver.driverInfo, info.subgroup.subgroupSize);

  // The kernel and its pipeline.
  VkShaderModuleCreateInfo moduleInfo{
      VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  moduleInfo.codeSize = module.words.size() * 4;
  moduleInfo.pCode = module.words.data();
  VkShaderModule shader;
  check(vkCreateShaderModule(device, &moduleInfo, nullptr, &shader),
        "vkCreateShaderModule");

  size_t argumentCount = options.arguments.size();
  std::vector<VkDescriptorSetLayoutBinding> bindings(argumentCount);
  for (size_t i = 0; i < argumentCount; ++i) {
    bindings[i].binding = uint32_t(i);
    bindings[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    bindings[i].descriptorCount = 1;
    bindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  VkDescriptorSetLayoutCreateInfo layoutInfo{
      VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  layoutInfo.bindingCount = uint32_t(argumentCount);
  layoutInfo.pBindings = bindings.data();
  VkDescriptorSetLayout setLayout;
  check(vkCreateDescriptorSetLayout(device, &layoutInfo, nullptr, &setLayout),
        "vkCreateDescriptorSetLayout");
  VkPipelineLayoutCreateInfo pipelineLayoutInfo{
      VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  pipelineLayoutInfo.setLayoutCount = 1;
  pipelineLayoutInfo.pSetLayouts = &setLayout;
  VkPipelineLayout pipelineLayout;
  check(vkCreatePipelineLayout(device, &pipelineLayoutInfo, nullptr,
                               &pipelineLayout),
        "vkCreatePipelineLayout");

  uint32_t subgroupSize = options.subgroupSize  ? options.subgroupSize
                          : module.subgroupSize ? module.subgroupSize
                                                : info.subgroup.subgroupSize;
  VkPipelineShaderStageRequiredSubgroupSizeCreateInfo requiredSize{
      VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO};
  requiredSize.requiredSubgroupSize = subgroupSize;
  VkComputePipelineCreateInfo pipelineInfo{
      VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  pipelineInfo.stage.sType =
      VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  pipelineInfo.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  pipelineInfo.stage.module = shader;
  pipelineInfo.stage.pName = entry.c_str();
  if (vulkan13.subgroupSizeControl && vulkan13.computeFullSubgroups) {
    if (subgroupSize < info.vulkan13.minSubgroupSize ||
        subgroupSize > info.vulkan13.maxSubgroupSize)
      fail("subgroup size " + std::to_string(subgroupSize) +
           " is outside the device's range " +
           std::to_string(info.vulkan13.minSubgroupSize) + ".." +
           std::to_string(info.vulkan13.maxSubgroupSize));
    pipelineInfo.stage.pNext = &requiredSize;
    pipelineInfo.stage.flags =
        VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT;
  } else if (subgroupSize != info.subgroup.subgroupSize) {
    fail("the device cannot require a subgroup size");
  }
  pipelineInfo.layout = pipelineLayout;
  if (captureStatistics)
    pipelineInfo.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
  VkPipeline pipeline;
  check(vkCreateComputePipelines(device, VK_NULL_HANDLE, 1, &pipelineInfo,
                                 nullptr, &pipeline),
        "vkCreateComputePipelines");
  std::printf("pipeline: created for entry point '%s', subgroup size %u%s\n",
              entry.c_str(), subgroupSize,
              pipelineInfo.stage.pNext ? " (required, full subgroups)" : "");
  if (options.pipelineStatistics && !captureStatistics)
    std::printf("pipeline statistics: the device does not offer %s\n",
                VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
  if (captureStatistics)
    printPipelineStatistics(device, pipeline);
  if (options.compileOnly) {
    vkDestroyPipeline(device, pipeline, nullptr);
    vkDestroyPipelineLayout(device, pipelineLayout, nullptr);
    vkDestroyDescriptorSetLayout(device, setLayout, nullptr);
    vkDestroyShaderModule(device, shader, nullptr);
    vkDestroyDevice(device, nullptr);
    vkDestroyInstance(instance, nullptr);
    return 0;
  }

  // Host copies, device buffers and staging buffers. Each device buffer
  // holds guard regions before and after the argument, bound at an offset
  // with the argument's exact range: with robust buffer access off, a kernel
  // that writes past either end lands in them, and they are checked after
  // the run. (Reads past the end cannot be caught on the device.)
  VkPhysicalDeviceMemoryProperties memory;
  vkGetPhysicalDeviceMemoryProperties(info.physical, &memory);
  VkDeviceSize offsetAlignment = std::max<VkDeviceSize>(
      info.properties.properties.limits.minStorageBufferOffsetAlignment, 1);
  VkDeviceSize guardBytes =
      (4096 + offsetAlignment - 1) / offsetAlignment * offsetAlignment;
  std::vector<HostBuffer> before;
  std::vector<DeviceBuffer> deviceBuffers, stagingBuffers;
  for (size_t i = 0; i < argumentCount; ++i) {
    const BufferSpec &spec = options.arguments[i];
    before.emplace_back(spec.type, spec.count);
    std::string error;
    if (!before.back().fill(spec.fill, error))
      fail("argument " + std::to_string(i) + ": " + error);
    VkDeviceSize dataSize = before.back().getBytes().size();
    VkDeviceSize size = guardBytes + dataSize + guardBytes;
    deviceBuffers.push_back(createBuffer(device, memory, size,
                                         VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                             VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                             VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                         VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT));
    stagingBuffers.push_back(createBuffer(
        device, memory, size,
        VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
            VK_MEMORY_PROPERTY_HOST_COHERENT_BIT));
    void *mapped;
    check(
        vkMapMemory(device, stagingBuffers.back().memory, 0, size, 0, &mapped),
        "vkMapMemory");
    auto *bytes = static_cast<uint8_t *>(mapped);
    fillGuardBytes(bytes, guardBytes, -int64_t(guardBytes));
    std::memcpy(bytes + guardBytes, before.back().getBytes().data(), dataSize);
    fillGuardBytes(bytes + guardBytes + dataSize, guardBytes, 0);
    vkUnmapMemory(device, stagingBuffers.back().memory);
  }

  VkDescriptorPoolSize poolSize{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                uint32_t(std::max<size_t>(argumentCount, 1))};
  VkDescriptorPoolCreateInfo poolInfo{
      VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  poolInfo.maxSets = 1;
  poolInfo.poolSizeCount = 1;
  poolInfo.pPoolSizes = &poolSize;
  VkDescriptorPool pool;
  check(vkCreateDescriptorPool(device, &poolInfo, nullptr, &pool),
        "vkCreateDescriptorPool");
  VkDescriptorSetAllocateInfo setInfo{
      VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  setInfo.descriptorPool = pool;
  setInfo.descriptorSetCount = 1;
  setInfo.pSetLayouts = &setLayout;
  VkDescriptorSet set;
  check(vkAllocateDescriptorSets(device, &setInfo, &set),
        "vkAllocateDescriptorSets");
  std::vector<VkDescriptorBufferInfo> bufferInfos(argumentCount);
  std::vector<VkWriteDescriptorSet> writes(argumentCount);
  for (size_t i = 0; i < argumentCount; ++i) {
    bufferInfos[i] = {deviceBuffers[i].buffer, guardBytes,
                      before[i].getBytes().size() + guardBytes};
    writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    writes[i].dstSet = set;
    writes[i].dstBinding = uint32_t(i);
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[i].pBufferInfo = &bufferInfos[i];
  }
  vkUpdateDescriptorSets(device, uint32_t(argumentCount), writes.data(), 0,
                         nullptr);

  VkCommandPoolCreateInfo commandPoolInfo{
      VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  commandPoolInfo.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  commandPoolInfo.queueFamilyIndex = family;
  VkCommandPool commandPool;
  check(vkCreateCommandPool(device, &commandPoolInfo, nullptr, &commandPool),
        "vkCreateCommandPool");
  VkCommandBufferAllocateInfo commandInfo{
      VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  commandInfo.commandPool = commandPool;
  commandInfo.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  commandInfo.commandBufferCount = 1;
  VkCommandBuffer commands;
  check(vkAllocateCommandBuffers(device, &commandInfo, &commands),
        "vkAllocateCommandBuffers");

  uint32_t timestampCount = 2 * std::max<uint32_t>(options.repeat, 1);
  VkQueryPoolCreateInfo queryInfo{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  queryInfo.queryType = VK_QUERY_TYPE_TIMESTAMP;
  queryInfo.queryCount = timestampCount;
  VkQueryPool queries;
  check(vkCreateQueryPool(device, &queryInfo, nullptr, &queries),
        "vkCreateQueryPool");

  auto barrier = [&](VkAccessFlags from, VkAccessFlags to,
                     VkPipelineStageFlags fromStage,
                     VkPipelineStageFlags toStage) {
    VkMemoryBarrier memoryBarrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    memoryBarrier.srcAccessMask = from;
    memoryBarrier.dstAccessMask = to;
    vkCmdPipelineBarrier(commands, fromStage, toStage, 0, 1, &memoryBarrier, 0,
                         nullptr, 0, nullptr);
  };
  auto submit = [&]() {
    check(vkEndCommandBuffer(commands), "vkEndCommandBuffer");
    VkSubmitInfo submitInfo{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submitInfo.commandBufferCount = 1;
    submitInfo.pCommandBuffers = &commands;
    check(vkQueueSubmit(queue, 1, &submitInfo, VK_NULL_HANDLE),
          "vkQueueSubmit");
    check(vkQueueWaitIdle(queue), "vkQueueWaitIdle (the kernel may have "
                                  "faulted)");
    check(vkResetCommandBuffer(commands, 0), "vkResetCommandBuffer");
  };
  auto begin = [&]() {
    VkCommandBufferBeginInfo beginInfo{
        VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    beginInfo.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    check(vkBeginCommandBuffer(commands, &beginInfo), "vkBeginCommandBuffer");
  };
  auto dispatch = [&]() {
    vkCmdBindPipeline(commands, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    vkCmdBindDescriptorSets(commands, VK_PIPELINE_BIND_POINT_COMPUTE,
                            pipelineLayout, 0, 1, &set, 0, nullptr);
    vkCmdDispatch(commands, options.grid[0], options.grid[1], options.grid[2]);
  };

  // The checked run: upload, one dispatch, download.
  begin();
  for (size_t i = 0; i < argumentCount; ++i) {
    VkBufferCopy region{0, 0, deviceBuffers[i].size};
    vkCmdCopyBuffer(commands, stagingBuffers[i].buffer, deviceBuffers[i].buffer,
                    1, &region);
  }
  barrier(VK_ACCESS_TRANSFER_WRITE_BIT,
          VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT,
          VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
  dispatch();
  barrier(VK_ACCESS_SHADER_WRITE_BIT, VK_ACCESS_TRANSFER_READ_BIT,
          VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT);
  for (size_t i = 0; i < argumentCount; ++i) {
    VkBufferCopy region{0, 0, deviceBuffers[i].size};
    vkCmdCopyBuffer(commands, deviceBuffers[i].buffer, stagingBuffers[i].buffer,
                    1, &region);
  }
  submit();

  std::vector<HostBuffer> after;
  std::vector<std::string> damages;
  for (size_t i = 0; i < argumentCount; ++i) {
    after.emplace_back(before[i].getType(), before[i].size());
    void *mapped;
    check(vkMapMemory(device, stagingBuffers[i].memory, 0,
                      stagingBuffers[i].size, 0, &mapped),
          "vkMapMemory");
    auto *bytes = static_cast<const uint8_t *>(mapped);
    size_t dataSize = after[i].getBytes().size();
    std::memcpy(after[i].getBytes().data(), bytes + guardBytes, dataSize);
    damages.push_back(checkGuardBytes(bytes, guardBytes,
                                      bytes + guardBytes + dataSize, guardBytes,
                                      after[i]));
    vkUnmapMemory(device, stagingBuffers[i].memory);
  }

  std::string reportError;
  bool allPassed = reportBoundsChecks(damages, after);
  allPassed &= reportResults(options, before, after, reportError);
  if (!reportError.empty())
    fail(reportError);

  if (options.repeat && !allPassed) {
    std::printf("time: not measured, since a check failed\n");
  } else if (options.repeat) {
    begin();
    vkCmdResetQueryPool(commands, queries, 0, timestampCount);
    for (uint32_t r = 0; r < options.repeat; ++r) {
      vkCmdWriteTimestamp(commands, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries,
                          2 * r);
      dispatch();
      vkCmdWriteTimestamp(commands, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT,
                          queries, 2 * r + 1);
      barrier(VK_ACCESS_SHADER_WRITE_BIT,
              VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT,
              VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
              VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
    }
    submit();
    std::vector<uint64_t> stamps(timestampCount);
    check(vkGetQueryPoolResults(device, queries, 0, timestampCount,
                                stamps.size() * 8, stamps.data(), 8,
                                VK_QUERY_RESULT_64_BIT |
                                    VK_QUERY_RESULT_WAIT_BIT),
          "vkGetQueryPoolResults");
    double period = info.properties.properties.limits.timestampPeriod;
    std::vector<double> microseconds;
    for (uint32_t r = 0; r < options.repeat; ++r)
      microseconds.push_back(double(stamps[2 * r + 1] - stamps[2 * r]) *
                             period / 1000.0);
    if (options.printTimings) {
      std::printf("timings (us, in dispatch order):");
      for (double time : microseconds)
        std::printf(" %.1f", time);
      std::printf("\n");
    }
    std::sort(microseconds.begin(), microseconds.end());
    double median = microseconds[microseconds.size() / 2];
    std::printf("time: median %.2f us, min %.2f us, max %.2f us over %u "
                "dispatches (GPU timestamps)\n",
                median, microseconds.front(), microseconds.back(),
                options.repeat);
    for (const GemmCheck &gemm : options.checks)
      std::printf("rate: %.2f T%s/s for %zux%zux%zu\n",
                  2.0 * gemm.m * gemm.n * gemm.k / (median * 1e-6) / 1e12,
                  isFloat(before[gemm.a.buffer].getType()) ? "FLOP" : "OP",
                  gemm.m, gemm.n, gemm.k);
  }

  vkDestroyQueryPool(device, queries, nullptr);
  vkDestroyCommandPool(device, commandPool, nullptr);
  vkDestroyDescriptorPool(device, pool, nullptr);
  for (size_t i = 0; i < argumentCount; ++i)
    for (const DeviceBuffer &buffer : {deviceBuffers[i], stagingBuffers[i]}) {
      vkDestroyBuffer(device, buffer.buffer, nullptr);
      vkFreeMemory(device, buffer.memory, nullptr);
    }
  vkDestroyPipeline(device, pipeline, nullptr);
  vkDestroyPipelineLayout(device, pipelineLayout, nullptr);
  vkDestroyDescriptorSetLayout(device, setLayout, nullptr);
  vkDestroyShaderModule(device, shader, nullptr);
  vkDestroyDevice(device, nullptr);
  vkDestroyInstance(instance, nullptr);
  return allPassed ? 0 : 1;
}
