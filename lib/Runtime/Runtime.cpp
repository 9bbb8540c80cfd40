//===- Runtime.cpp - compile a program once, run it on arrays -------------===//

#include "SubgroupMatrix/Runtime/Runtime.h"

#include "SubgroupMatrix/Runtime/ExecutionPlan.h"
#include "SubgroupMatrix/Target/Translations.h"

#include "VulkanDevice.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <map>

using namespace mlir;
using namespace mlir::subgroup_matrix;
using namespace mlir::subgroup_matrix::runtime;

//===----------------------------------------------------------------------===//
// Compiling
//===----------------------------------------------------------------------===//

/// The SPIR-V binary of one kernel module.
struct CompiledProgram::Binary {
  std::string kernelModule;
  sm_runner::SpirvModule spirv;
};

CompiledProgram::~CompiledProgram() = default;

/// Runs `pipeline` (passes of the module, without an anchor) on `module`.
static LogicalResult runPipeline(ModuleOp module, const std::string &pipeline) {
  PassManager manager(module->getName());
  std::string error;
  llvm::raw_string_ostream errorStream(error);
  if (failed(parsePassPipeline(pipeline, manager, errorStream)))
    return emitError(module.getLoc())
           << "cannot build the pipeline '" << pipeline << "': " << error;
  return manager.run(module);
}

FailureOr<std::unique_ptr<CompiledProgram>>
CompiledProgram::compile(OwningOpRef<ModuleOp> module, StringRef target,
                         StringRef entry) {
  std::unique_ptr<CompiledProgram> program(new CompiledProgram());
  program->target = target.str();
  // Intel and Metal programs would run through the CPU host runners, which
  // the runtime does not drive yet.
  if (target.starts_with("intel-") || target.starts_with("apple-"))
    return emitError(module->getLoc())
           << "the runtime runs programs on Vulkan devices; target '" << target
           << "' (Intel or Metal) is not run by it yet: compile with "
              "sm-lower-to-intel or --emit-msl and run the kernels with "
              "sm-intel-host-runner or sm-msl-host-runner";
  // A program that launches nothing yet is a linalg program.
  bool compiled =
      module->walk([](gpu::LaunchFuncOp) { return WalkResult::interrupt(); })
          .wasInterrupted();
  if (!compiled && failed(runPipeline(*module, "sm-linalg-to-gpu{target=" +
                                                   target.str() + "}")))
    return failure();
  FailureOr<func::FuncOp> host = findHostFunction(*module, entry);
  if (failed(host))
    return failure();
  program->entry = host->getSymName().str();

  // The kernels are lowered on a copy: the host function and the kernels'
  // own IR (which says which arguments they write) stay as they are.
  OwningOpRef<ModuleOp> lowered(cast<ModuleOp>((*module)->clone()));
  if (failed(runPipeline(*lowered,
                         "sm-lower-to-vulkan{target=" + target.str() + "}")))
    return failure();
  WalkResult serialized = lowered->walk([&](spirv::ModuleOp spirvModule) {
    SmallVector<uint32_t> words;
    if (failed(serializeSPIRVModule(spirvModule, words)))
      return WalkResult::interrupt();
    auto binary = std::make_unique<Binary>();
    // sm-lower-to-vulkan names the SPIR-V module of gpu.module @NAME
    // "__spv__NAME".
    StringRef name = spirvModule.getSymName().value_or("");
    binary->kernelModule =
        name.starts_with("__spv__") ? name.drop_front(7).str() : name.str();
    std::string error;
    if (!sm_runner::parseSpirvModule(
            std::vector<uint32_t>(words.begin(), words.end()),
            "the binary of '" + binary->kernelModule + "'", binary->spirv,
            error)) {
      spirvModule.emitError(error);
      return WalkResult::interrupt();
    }
    program->binaries.push_back(std::move(binary));
    return WalkResult::advance();
  });
  if (serialized.wasInterrupted())
    return failure();
  program->module = std::move(module);
  return program;
}

unsigned CompiledProgram::getNumArguments() {
  auto host = module->lookupSymbol<func::FuncOp>(entry);
  return host.getNumArguments();
}

MemRefType CompiledProgram::getArgumentType(unsigned index) {
  auto host = module->lookupSymbol<func::FuncOp>(entry);
  return dyn_cast<MemRefType>(host.getArgumentTypes()[index]);
}

std::string mlir::subgroup_matrix::runtime::getNpyTypeCode(Type type) {
  if (type.isF16())
    return "f2";
  if (type.isBF16())
    return "u2";
  if (type.isF32())
    return "f4";
  if (type.isF64())
    return "f8";
  if (type.isInteger(1))
    return "b1";
  if (auto integer = dyn_cast<IntegerType>(type)) {
    unsigned width = integer.getWidth();
    if (width != 8 && width != 16 && width != 32 && width != 64)
      return "";
    return (integer.isUnsigned() ? "u" : "i") + std::to_string(width / 8);
  }
  if (type.isIndex())
    return "i8";
  return "";
}

/// Whether an array of type code `code` can carry elements of `type`:
/// its own code, or the other signedness of the same width (numpy writes
/// uint8 data for i8 buffers as readily as int8).
static bool acceptsTypeCode(Type type, StringRef code) {
  std::string expected = getNpyTypeCode(type);
  if (expected.empty())
    return false;
  if (code == expected)
    return true;
  bool integerLike = isa<IntegerType>(type) || type.isBF16();
  return integerLike && code.size() == 2 && expected.size() == 2 &&
         (code[0] == 'i' || code[0] == 'u') && code[1] == expected[1];
}

static std::string describeTypeCode(StringRef code) {
  static const std::map<std::string, std::string> names = {
      {"f2", "float16"}, {"f4", "float32"}, {"f8", "float64"}, {"i1", "int8"},
      {"u1", "uint8"},   {"i2", "int16"},   {"u2", "uint16"},  {"i4", "int32"},
      {"u4", "uint32"},  {"i8", "int64"},   {"u8", "uint64"},  {"b1", "bool"}};
  auto found = names.find(code.str());
  return found == names.end() ? code.str() : found->second;
}

//===----------------------------------------------------------------------===//
// Running
//===----------------------------------------------------------------------===//

namespace {
/// A program's kernels on the device, and the buffers and recorded steps
/// of each set of argument shapes it ran with.
struct LoadedProgram {
  /// Pipelines by "module::kernel".
  llvm::StringMap<int> kernels;
  /// The parameters of each kernel as its binary declares them.
  llvm::StringMap<std::vector<sm_runner::KernelParameter>> parameters;

  struct Instance {
    ExecutionPlan plan;
    /// The device buffer of each plan buffer.
    std::vector<int> buffers;
    /// The one-value buffers that hold launch scalars.
    std::vector<int> scalarBuffers;
    int prepared = -1;
    std::vector<std::string> stepNames;
  };
  /// By argument shapes.
  std::map<std::vector<std::vector<int64_t>>, Instance> instances;
};
} // namespace

struct Device::State {
  MLIRContext *context = nullptr;
  std::unique_ptr<sm_runner::VulkanDevice> device;
  std::map<CompiledProgram *, LoadedProgram> programs;
};

Device::~Device() = default;

FailureOr<std::unique_ptr<Device>> Device::open(MLIRContext *context, int index,
                                                StringRef target) {
  std::unique_ptr<Device> result(new Device());
  result->state = std::make_unique<State>();
  result->state->context = context;
  std::string error;
  sm_runner::VulkanDevice::Selection selection;
  selection.index = index;
  selection.preferCpu = target == "cpu-lavapipe";
  result->state->device = sm_runner::VulkanDevice::open(selection, error);
  if (!result->state->device)
    return emitError(UnknownLoc::get(context)) << error;
  return result;
}

std::string Device::describe() const { return state->device->describe(); }

/// How `value` prints, for messages.
template <typename T> static std::string printed(T value) {
  std::string text;
  llvm::raw_string_ostream stream(text);
  stream << value;
  return text;
}

/// The bytes of a launch scalar as the kernel's parameter declares it.
static std::vector<char> encodeScalar(const LaunchArgument &argument,
                                      const sm_runner::KernelParameter &param) {
  using Kind = sm_runner::KernelParameter::Kind;
  unsigned width = param.bitWidth ? param.bitWidth : 32;
  std::vector<char> bytes(width / 8);
  if (param.kind == Kind::Float) {
    if (width == 64) {
      double value = argument.floatValue;
      std::memcpy(bytes.data(), &value, 8);
    } else {
      float value = float(argument.floatValue);
      std::memcpy(bytes.data(), &value, std::min<size_t>(4, bytes.size()));
    }
    return bytes;
  }
  int64_t value = argument.integerValue;
  std::memcpy(bytes.data(), &value, bytes.size());
  return bytes;
}

FailureOr<RunResults> Device::run(CompiledProgram &program,
                                  ArrayRef<NpyArray> arguments,
                                  RunTimings *timings, unsigned repeat) {
  sm_runner::VulkanDevice &device = *state->device;
  ModuleOp module = program.getModule();
  auto host = module.lookupSymbol<func::FuncOp>(program.getEntry());
  Location location = host.getLoc();
  std::string error;
  auto fail = [&](const Twine &message) -> FailureOr<RunResults> {
    return emitError(location) << message;
  };

  // The arguments against the function's types.
  if (arguments.size() != host.getNumArguments())
    return fail("'" + program.getEntry() + "' takes " +
                Twine(host.getNumArguments()) + " arguments, but " +
                Twine(arguments.size()) + " arrays were given");
  std::vector<std::vector<int64_t>> shapes;
  SmallVector<SmallVector<int64_t>> planShapes;
  for (auto [index, array] : llvm::enumerate(arguments)) {
    Type type = host.getArgumentTypes()[index];
    auto memref = dyn_cast<MemRefType>(type);
    if (!memref)
      return fail("argument " + Twine(index) + " of '" + program.getEntry() +
                  "' is a scalar (" + printed(type) +
                  "), which the runtime does not pass yet; make it a "
                  "rank-0 tensor");
    if (!acceptsTypeCode(memref.getElementType(), array.dtype))
      return fail("argument " + Twine(index) + " is " + printed(memref) +
                  ": it takes " +
                  describeTypeCode(getNpyTypeCode(memref.getElementType())) +
                  " elements" +
                  (memref.getElementType().isBF16() ? " (bf16 bits)" : "") +
                  ", but a " + describeTypeCode(array.dtype) + " array " +
                  array.describe() + " was given");
    bool fits = int64_t(array.shape.size()) == memref.getRank();
    for (auto [dim, size] : llvm::enumerate(memref.getShape()))
      fits = fits && (ShapedType::isDynamic(size) || size == array.shape[dim]);
    if (!fits)
      return fail("argument " + Twine(index) + " is " + printed(memref) +
                  ", but an array of shape " + array.describe() + " was given");
    shapes.push_back(array.shape);
    planShapes.emplace_back(array.shape.begin(), array.shape.end());
  }

  LoadedProgram &loaded = state->programs[&program];
  auto found = loaded.instances.find(shapes);
  if (found == loaded.instances.end()) {
    FailureOr<ExecutionPlan> plan = planExecution(host, planShapes);
    if (failed(plan))
      return failure();
    LoadedProgram::Instance instance;
    instance.plan = std::move(*plan);
    // Buffers: arguments are uploaded each run, allocations start poisoned
    // (all bytes 0xFF, so that elements no kernel writes show), constants
    // are uploaded once.
    for (const PlanBuffer &buffer : instance.plan.buffers) {
      int id = device.createBuffer(buffer.sizeInBytes, error);
      if (id < 0)
        return fail("cannot allocate a buffer of " + Twine(buffer.sizeInBytes) +
                    " bytes: " + error);
      instance.buffers.push_back(id);
      std::vector<char> initial;
      if (buffer.origin == PlanBuffer::Origin::Allocation) {
        initial.assign(buffer.sizeInBytes, char(0xFF));
      } else if (buffer.origin == PlanBuffer::Origin::Constant) {
        auto dense = dyn_cast<DenseElementsAttr>(buffer.initialValue);
        if (!dense)
          return fail("a constant of the program is not dense data");
        ArrayRef<char> raw = dense.getRawData();
        if (dense.isSplat()) {
          for (int64_t i = 0; i < buffer.sizeInBytes; i += raw.size())
            initial.insert(initial.end(), raw.begin(), raw.end());
        } else {
          initial.assign(raw.begin(), raw.end());
        }
        if (int64_t(initial.size()) != buffer.sizeInBytes)
          return fail("a constant of the program has elements the runtime "
                      "cannot upload (not whole bytes)");
      }
      if (!initial.empty() &&
          !device.writeBuffer(id, 0, initial.data(), initial.size(), error))
        return fail(error);
    }
    // Kernels and the steps that launch them.
    std::vector<sm_runner::VulkanDevice::Step> steps;
    for (const auto &planned : instance.plan.steps) {
      sm_runner::VulkanDevice::Step step;
      if (const auto *copy = std::get_if<PlanCopy>(&planned)) {
        step.isCopy = true;
        step.copySource = {instance.buffers[copy->source],
                           uint64_t(copy->sourceOffsetInBytes),
                           uint64_t(copy->sizeInBytes)};
        step.copyTarget = {instance.buffers[copy->target],
                           uint64_t(copy->targetOffsetInBytes),
                           uint64_t(copy->sizeInBytes)};
        steps.push_back(step);
        instance.stepNames.push_back("copy");
        continue;
      }
      const PlanLaunch &launch = std::get<PlanLaunch>(planned);
      std::string key = launch.kernelModule + "::" + launch.kernel;
      auto kernel = loaded.kernels.find(key);
      if (kernel == loaded.kernels.end()) {
        const CompiledProgram::Binary *binary = nullptr;
        for (const auto &candidate : program.binaries)
          if (candidate->kernelModule == launch.kernelModule)
            binary = candidate.get();
        if (!binary)
          return emitError(launch.location)
                 << "launches a kernel of '" << launch.kernelModule
                 << "', which was not compiled";
        unsigned grid[3] = {launch.grid[0], launch.grid[1], launch.grid[2]};
        sm_runner::MissingRequirements missing =
            sm_runner::findMissingRequirements(binary->spirv, device.getInfo(),
                                               device.getFeatures(), 0, grid);
        if (!missing.empty())
          return emitError(launch.location) << missing.describe(
                     "@" + launch.kernelModule + "::@" + launch.kernel,
                     device.getInfo());
        std::vector<sm_runner::KernelParameter> parameters =
            sm_runner::getEntryParameters(binary->spirv, launch.kernel);
        int id = device.createKernel(binary->spirv, launch.kernel,
                                     parameters.size(), error);
        if (id < 0)
          return emitError(launch.location) << error;
        kernel = loaded.kernels.insert({key, id}).first;
        loaded.parameters[key] = std::move(parameters);
      }
      const std::vector<sm_runner::KernelParameter> &parameters =
          loaded.parameters[key];
      if (parameters.size() != launch.arguments.size())
        return emitError(launch.location)
               << "passes " << launch.arguments.size()
               << " arguments to a kernel whose binary takes "
               << parameters.size();
      step.kernel = kernel->second;
      step.grid = launch.grid;
      for (auto [index, argument] : llvm::enumerate(launch.arguments)) {
        if (argument.isBuffer) {
          step.bindings.push_back({instance.buffers[argument.buffer],
                                   uint64_t(argument.offsetInBytes),
                                   uint64_t(argument.sizeInBytes)});
          continue;
        }
        std::vector<char> bytes = encodeScalar(argument, parameters[index]);
        int id = device.createBuffer(bytes.size(), error);
        if (id < 0 ||
            !device.writeBuffer(id, 0, bytes.data(), bytes.size(), error))
          return fail(error);
        instance.scalarBuffers.push_back(id);
        step.bindings.push_back({id, 0, uint64_t(bytes.size())});
      }
      steps.push_back(std::move(step));
      instance.stepNames.push_back("@" + launch.kernelModule + "::@" +
                                   launch.kernel);
    }
    instance.prepared = device.prepare(steps, error);
    if (instance.prepared < 0)
      return fail(error);
    found = loaded.instances.emplace(shapes, std::move(instance)).first;
  }
  LoadedProgram::Instance &instance = found->second;

  // Upload, run, check the guards, read back.
  for (const PlanBuffer &buffer : instance.plan.buffers) {
    if (buffer.origin != PlanBuffer::Origin::Argument)
      continue;
    const NpyArray &array = arguments[buffer.argument];
    unsigned id = &buffer - instance.plan.buffers.begin();
    if (!device.writeBuffer(instance.buffers[id], 0, array.data.data(),
                            array.data.size(), error))
      return fail(error);
  }
  if (!device.run(instance.prepared, 1, nullptr, error))
    return fail(error);
  for (auto [index, id] : llvm::enumerate(instance.buffers)) {
    std::string damage = device.checkGuards(id, error);
    if (!error.empty())
      return fail(error);
    if (!damage.empty()) {
      const PlanBuffer &buffer = instance.plan.buffers[index];
      std::string what = buffer.origin == PlanBuffer::Origin::Argument
                             ? "argument " + std::to_string(buffer.argument)
                             : "an intermediate buffer of " +
                                   std::to_string(buffer.sizeInBytes) +
                                   " bytes";
      return fail("a kernel wrote outside " + what + ": " + damage);
    }
  }
  RunResults results;
  auto readArray = [&](unsigned buffer, int64_t offset, Type elementType,
                       ArrayRef<int64_t> shape,
                       NpyArray &array) -> LogicalResult {
    array.dtype = getNpyTypeCode(elementType);
    array.shape.assign(shape.begin(), shape.end());
    array.data.resize(array.getNumElements() * array.getElementSize());
    if (!device.readBuffer(instance.buffers[buffer], offset, array.data.data(),
                           array.data.size(), error))
      return emitError(location) << error;
    return success();
  };
  for (const PlanResult &result : instance.plan.results) {
    NpyArray array;
    if (failed(readArray(result.buffer, result.offsetInBytes,
                         result.elementType, result.shape, array)))
      return failure();
    results.results.push_back(std::move(array));
  }
  for (unsigned argument : instance.plan.writtenArguments) {
    for (auto [index, buffer] : llvm::enumerate(instance.plan.buffers)) {
      if (buffer.origin != PlanBuffer::Origin::Argument ||
          buffer.argument != argument)
        continue;
      NpyArray array;
      if (failed(readArray(index, 0, buffer.elementType, buffer.shape, array)))
        return failure();
      results.writtenArguments.push_back({argument, std::move(array)});
    }
  }

  if (timings && repeat) {
    std::vector<std::vector<double>> times;
    if (!device.run(instance.prepared, repeat, &times, error))
      return fail(error);
    timings->runs = repeat;
    timings->steps.clear();
    timings->totalMicroseconds = 0;
    if (!times.empty()) {
      std::vector<double> sums(instance.stepNames.size(), 0.0);
      for (const std::vector<double> &run : times)
        for (size_t i = 0; i < run.size() && i < sums.size(); ++i)
          sums[i] += run[i];
      for (size_t i = 0; i < sums.size(); ++i) {
        double mean = sums[i] / times.size() / 1000.0;
        timings->steps.push_back({instance.stepNames[i], mean});
        timings->totalMicroseconds += mean;
      }
    }
  }
  return results;
}
