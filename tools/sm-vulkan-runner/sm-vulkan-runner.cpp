//===- sm-vulkan-runner.cpp - run a SPIR-V compute kernel on Vulkan -------===//
//
// Loads a SPIR-V binary, binds one storage buffer per kernel argument (the
// ABI of sm-lower-to-vulkan: argument i is binding i of set 0, scalars are
// one-element buffers), dispatches it with a required full subgroup size,
// reads the buffers back, checks GEMM-shaped results against a CPU
// reference and times the kernel with GPU timestamps.
//
// A front end over the runtime's device (lib/Runtime/Vulkan/VulkanDevice):
// the kernel runs as a one-step sequence there, through the same buffers,
// guards, pipelines and submission as every program sm-run runs. What is
// left here is the command line and the report. It depends on nothing but
// the Vulkan loader, so that it can be carried to machines without this
// project's toolchain.
//
//===----------------------------------------------------------------------===//

#include "BufferGuards.h"
#include "RunnerOptions.h"

#include "DriverRoot.h"
#include "RecordedLaunch.h"
#include "VulkanDevice.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
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
// What the kernel needs from the device
//===----------------------------------------------------------------------===//

/// Refuses, with exit status 2, a kernel that needs what the device does not
/// offer: capabilities, cooperative-matrix configurations, its subgroup size,
/// the grid. The message names each missing piece and how to lower the
/// kernel for this device instead. With `compileOnly` it is a warning.
void checkDeviceRequirements(const std::string &path, const SpirvModule &module,
                             const VulkanDevice &device,
                             uint32_t requestedSubgroupSize,
                             const unsigned grid[3], bool compileOnly) {
  MissingRequirements missing =
      findMissingRequirements(module, device.getInfo(), device.getFeatures(),
                              requestedSubgroupSize, grid);
  if (missing.empty())
    return;
  std::string message = missing.describe(path, device.getInfo());
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

/// Reads the kernel, chooses its entry point, takes the launch it records
/// when the command line gives no arguments, and checks the arguments
/// against its bindings.
SpirvModule readKernel(Options &options) {
  SpirvModule module;
  std::string error;
  if (!readSpirvModule(options.kernelPath, module, error))
    fail(error);
  if (options.entry.empty()) {
    if (module.entryPoints.size() != 1)
      fail("the kernel has " + std::to_string(module.entryPoints.size()) +
           " entry points; choose one with --entry");
    options.entry = module.entryPoints.front();
  } else if (std::find(module.entryPoints.begin(), module.entryPoints.end(),
                       options.entry) == module.entryPoints.end()) {
    fail("the kernel has no entry point '" + options.entry + "'");
  }
  if (options.arguments.empty() && !options.compileOnly) {
    std::vector<std::string> launch;
    if (!readRecordedLaunch(module, options.entry, options.sizes, launch,
                            error))
      fail(error);
    std::vector<char *> argv = {const_cast<char *>("launch")};
    std::string launchText;
    for (std::string &word : launch) {
      argv.push_back(word.data());
      launchText += " " + word;
    }
    for (int i = 1; i < int(argv.size()); ++i)
      if (!parseCommonOption(i, int(argv.size()), argv.data(), options,
                             error) ||
          !error.empty())
        fail("the kernel's launch description is malformed at '" +
             std::string(argv[i]) + "'" + (error.empty() ? "" : ": " + error));
    if (!launch.empty())
      std::printf("launch: from the kernel:%s\n", launchText.c_str());
  }
  std::vector<KernelParameter> parameters =
      getEntryParameters(module, options.entry);
  if (options.compileOnly && options.arguments.empty()) {
    // Compiling needs only the layout: one placeholder per binding.
    options.arguments.resize(parameters.size());
    for (BufferSpec &placeholder : options.arguments)
      placeholder.count = 1;
    return module;
  }
  error = checkArguments(options.entry, parameters, options.arguments);
  if (error.empty())
    error = checkArgumentMemory(options.arguments);
  if (!error.empty())
    fail(error);
  return module;
}

/// Prints every Vulkan device, one per line.
void listDevices() {
  std::string error;
  bool listed = VulkanDevice::forEachDevice(
      [](unsigned index, const DeviceInfo &info) {
        std::printf(
            "%u: %s (%s %s), Vulkan %u.%u, subgroup size %u (%u..%u)%s\n",
            index, info.properties.properties.deviceName,
            info.driver.driverName, info.driver.driverInfo,
            VK_API_VERSION_MAJOR(info.properties.properties.apiVersion),
            VK_API_VERSION_MINOR(info.properties.properties.apiVersion),
            info.subgroup.subgroupSize, info.vulkan13.minSubgroupSize,
            info.vulkan13.maxSubgroupSize,
            hasExtension(info.extensions,
                         VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME)
                ? ", VK_KHR_cooperative_matrix"
                : "");
      },
      error);
  if (!listed)
    fail(error);
}

/// Times `repeat` runs of the prepared dispatch and prints the median,
/// extremes and, for each GEMM check, the rate.
void reportTiming(VulkanDevice &device, int prepared, const Options &options,
                  const std::vector<HostBuffer> &before) {
  std::string error;
  std::vector<double> nanoseconds;
  if (!device.timeEachRun(prepared, options.repeat, nanoseconds, error))
    fail(error);
  if (nanoseconds.empty()) {
    std::printf("time: not measured (the device has no timestamps)\n");
    return;
  }
  std::vector<double> microseconds;
  for (double time : nanoseconds)
    microseconds.push_back(time / 1000.0);
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

} // namespace

int main(int argc, char **argv) {
  Options options = parseOptions(argc, argv);
  // $SM_VULKAN_ROOT: run on the drivers of that root (DriverRoot.h).
  if (std::string error; !enterDriverRoot(argv, /*required=*/false, error))
    fail(error);
  if (options.listDevices) {
    listDevices();
    return 0;
  }

  // The kernel, its entry point and its arguments are checked before any
  // device is touched.
  SpirvModule module;
  if (!options.kernelPath.empty())
    module = readKernel(options);

  std::string error;
  VulkanDevice::OpenOptions selection;
  selection.index = int(options.device);
  selection.pipelineStatistics = options.pipelineStatistics;
  std::unique_ptr<VulkanDevice> device = VulkanDevice::open(selection, error);
  if (!device)
    fail(error);
  const DeviceInfo &info = device->getInfo();
  if (options.listCoopmat) {
    if (!vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR ||
        !hasExtension(info.extensions,
                      VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME))
      fail(std::string(info.properties.properties.deviceName) +
           " does not support VK_KHR_cooperative_matrix");
    std::fputs(describeTarget(info).c_str(), stdout);
    return 0;
  }
  checkDeviceRequirements(options.kernelPath, module, *device,
                          options.subgroupSize, options.grid,
                          options.compileOnly);
  std::printf("device: %s (%s %s), subgroup size %u\n",
              info.properties.properties.deviceName, info.driver.driverName,
              info.driver.driverInfo, info.subgroup.subgroupSize);

  size_t argumentCount = options.arguments.size();
  int kernel =
      device->createKernel(module, options.entry, unsigned(argumentCount),
                           error, options.subgroupSize);
  if (kernel < 0)
    fail(error);
  std::printf("pipeline: created for entry point '%s', subgroup size %u%s\n",
              options.entry.c_str(), device->getSubgroupSize(kernel),
              device->requiresSubgroupSize() ? " (required, full subgroups)"
                                             : "");
  if (options.pipelineStatistics)
    std::fputs(device->describePipelineStatistics(kernel).c_str(), stdout);
  if (options.compileOnly)
    return 0;

  // The arguments, each in a device buffer between guard bytes (VulkanDevice
  // checks them after the run: with robust buffer access off, a kernel that
  // writes past either end lands in them; reads past the end cannot be
  // caught on the device).
  std::vector<HostBuffer> before;
  VulkanDevice::Step dispatch;
  dispatch.kernel = kernel;
  std::copy(options.grid, options.grid + 3, dispatch.grid.begin());
  for (size_t i = 0; i < argumentCount; ++i) {
    const BufferSpec &spec = options.arguments[i];
    before.emplace_back(spec.type, spec.count);
    if (!before.back().fill(spec.fill, error))
      fail("argument " + std::to_string(i) + ": " + error);
    const std::vector<uint8_t> &bytes = before.back().getBytes();
    int buffer = device->createBuffer(bytes.size(), error);
    if (buffer < 0 ||
        !device->writeBuffer(buffer, 0, bytes.data(), bytes.size(), error))
      fail("argument " + std::to_string(i) + ": " + error);
    dispatch.bindings.push_back({buffer, 0, bytes.size()});
  }
  int prepared = device->prepare({dispatch}, error);
  if (prepared < 0 || !device->run(prepared, 1, error))
    fail(error);

  std::vector<HostBuffer> after;
  std::vector<std::string> damages;
  for (size_t i = 0; i < argumentCount; ++i) {
    after.emplace_back(before[i].getType(), before[i].size());
    std::vector<uint8_t> &bytes = after.back().getBytes();
    int buffer = dispatch.bindings[i].buffer;
    if (!device->readBuffer(buffer, 0, bytes.data(), bytes.size(), error))
      fail(error);
    damages.push_back(device->checkGuards(
        buffer, unsigned(getElementSize(before[i].getType())), error));
    if (!error.empty())
      fail(error);
  }

  std::string reportError;
  bool allPassed = reportBoundsChecks(damages, after);
  allPassed &= reportResults(options, before, after, reportError);
  if (!reportError.empty())
    fail(reportError);
  if (options.repeat && !allPassed)
    std::printf("time: not measured, since a check failed\n");
  else if (options.repeat)
    reportTiming(*device, prepared, options, before);
  return allPassed ? 0 : 1;
}
