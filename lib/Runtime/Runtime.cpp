//===- Runtime.cpp - compile a program once, run it on arrays -------------===//
//
// Compiling (CompiledProgram) and running (Device: the plan of one call,
// its buffers and launches on a Vulkan device or a host runner).
//
// Why one file of this size: a compiled program's binaries
// (CompiledProgram::Binary, private to this file) are what running reads,
// kernel by kernel; splitting compiling from running would put that
// private structure in a header that both halves, and no user, include.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/Runtime/Runtime.h"
#include "SubgroupMatrix/Conversion/SubgroupMatrixToSPIRV/SubgroupMatrixToSPIRV.h"

#include "SubgroupMatrix/IR/TargetPresets.h"
#include "SubgroupMatrix/Runtime/ExecutionPlan.h"
#include "SubgroupMatrix/Target/MSL/TranslateToMSL.h"
#include "SubgroupMatrix/Target/Translations.h"

#include "DriverRoot.h"
#include "PlanExecutor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <cstring>
#include <dlfcn.h>
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
  /// The Vulkan binary.
  sm_runner::SpirvModule spirv;
  /// For the host runners: LLVM IR or Metal source of every kernel.
  std::string hostSource;
};

CompiledProgram::Backend
mlir::subgroup_matrix::runtime::getBackend(TargetAttr target) {
  if (target && target.getBackend() == TargetBackend::OpenCL)
    return CompiledProgram::Backend::IntelHost;
  if (target && target.getBackend() == TargetBackend::Metal)
    return CompiledProgram::Backend::MetalHost;
  return CompiledProgram::Backend::Vulkan;
}

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
                         StringRef entry, const CompileOptions &options) {
  std::string coopmat2 =
      options.nvCooperativeMatrix2 ? "" : " nv-coopmat2=false";
  std::unique_ptr<CompiledProgram> program(new CompiledProgram());
  program->target = target.str();
  static std::atomic<uint64_t> nextIdentity{1};
  program->identity = nextIdentity++;
  // An unknown name is reported by the pipeline below, by name.
  program->backend =
      getBackend(lookupTargetPreset(module->getContext(), target));
  // A program that launches nothing yet is a linalg program.
  bool compiled =
      module->walk([](gpu::LaunchFuncOp) { return WalkResult::interrupt(); })
          .wasInterrupted();
  if (!compiled &&
      failed(runPipeline(*module, "sm-linalg-to-gpu{target=" + target.str() +
                                      coopmat2 + "}")))
    return failure();
  FailureOr<func::FuncOp> host = findHostFunction(*module, entry);
  if (failed(host))
    return failure();
  program->entry = host->getSymName().str();

  // The kernels are lowered on a copy: the host function and the kernels'
  // own IR (which says which arguments they write) stay as they are.
  OwningOpRef<ModuleOp> lowered(cast<ModuleOp>((*module)->clone()));
  if (program->backend != Backend::Vulkan) {
    // Intel's per-invocation form as LLVM IR for sm-intel-host-runner, or
    // Metal source for sm-msl-host-runner: one file for all kernels.
    auto binary = std::make_unique<Binary>();
    llvm::raw_string_ostream text(binary->hostSource);
    if (program->backend == Backend::IntelHost) {
      if (failed(runPipeline(
              *lowered, "sm-lower-to-intel{target=" + target.str() + "}")) ||
          failed(translateToIntelHostLLVM(*lowered, text)))
        return failure();
    } else if (failed(lowerAndTranslateToMSL(*lowered, text, target))) {
      return failure();
    }
    lowered->walk([&](gpu::GPUModuleOp kernels) {
      binary->kernelModule = kernels.getSymName().str();
    });
    program->binaries.push_back(std::move(binary));
    program->module = std::move(module);
    return program;
  }
  if (failed(runPipeline(*lowered, "sm-lower-to-vulkan{target=" + target.str() +
                                       coopmat2 + "}")))
    return failure();
  WalkResult serialized = lowered->walk([&](spirv::ModuleOp spirvModule) {
    SmallVector<uint32_t> words;
    if (failed(serializeSPIRVModule(spirvModule, words)))
      return WalkResult::interrupt();
    auto binary = std::make_unique<Binary>();
    // sm-lower-to-vulkan names the SPIR-V module of gpu.module @NAME
    // "__spv__NAME".
    StringRef name = spirvModule.getSymName().value_or("");
    name.consume_front(getSPIRVModulePrefix());
    binary->kernelModule = name.str();
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
    // Narrower integers (i4) come one per byte; the device packs them.
    if (width < 8 && 8 % width == 0)
      width = 8;
    if (width != 8 && width != 16 && width != 32 && width != 64)
      return "";
    return (integer.isUnsigned() ? "u" : "i") + std::to_string(width / 8);
  }
  if (type.isIndex())
    return "i8";
  return "";
}

/// The width of an element that device buffers pack several to a byte
/// (i4: 4), or 0.
static unsigned getPackedBits(Type type) {
  auto integer = dyn_cast<IntegerType>(type);
  return integer && integer.getWidth() < 8 && integer.getWidth() > 1
             ? integer.getWidth()
             : 0;
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
/// A program on the device: the executor of each set of argument shapes it
/// ran with (buffers, pipelines and recorded steps are kept for the next
/// run of those shapes), and what each plan's outputs are.
struct LoadedProgram {
  struct Instance {
    std::unique_ptr<sm_runner::PlanExecutor> executor;
  };
  std::map<std::vector<std::vector<int64_t>>, Instance> instances;
};
} // namespace

struct Device::State {
  MLIRContext *context = nullptr;
  /// The Vulkan device, or none for the host runners' targets.
  std::unique_ptr<sm_runner::VulkanDevice> device;
  CompiledProgram::Backend backend = CompiledProgram::Backend::Vulkan;
  /// Where sm-intel-host-runner and sm-msl-host-runner are.
  std::string runnerDirectory;
  /// By CompiledProgram identity: an address could be reused by the next
  /// program after one is destroyed.
  std::map<uint64_t, LoadedProgram> programs;
};

Device::~Device() = default;

/// The CPU runner of a host backend.
static std::string getRunnerName(CompiledProgram::Backend backend) {
  return backend == CompiledProgram::Backend::IntelHost ? "sm-intel-host-runner"
                                                        : "sm-msl-host-runner";
}

bool mlir::subgroup_matrix::runtime::enterTargetEnvironment(
    StringRef target, char **argv, std::string &error) {
  return sm_runner::enterDriverRoot(
      argv, sm_runner::targetNeedsDriverRoot(target.str()), error);
}

/// `<prefix>/bin` of the library or program that holds this code
/// (`<prefix>/lib/libSubgroupMatrixCAPI.so` or `<prefix>/bin/sm-run`), in a
/// build tree or an installed prefix alike, wherever it was moved.
static std::string getToolsDirectory() {
  Dl_info info;
  if (!dladdr(reinterpret_cast<void *>(&getToolsDirectory), &info) ||
      !info.dli_fname)
    return "";
  SmallString<256> path(info.dli_fname);
  if (llvm::sys::fs::make_absolute(path))
    return "";
  StringRef prefix =
      llvm::sys::path::parent_path(llvm::sys::path::parent_path(path));
  return (prefix + "/bin").str();
}

FailureOr<std::unique_ptr<Device>> Device::open(MLIRContext *context, int index,
                                                StringRef target) {
  std::unique_ptr<Device> result(new Device());
  result->state = std::make_unique<State>();
  result->state->context = context;
  std::string error;
  result->state->backend = getBackend(lookupTargetPreset(context, target));
  if (result->state->backend != CompiledProgram::Backend::Vulkan) {
    // The tools of the prefix this code was built or installed into, else
    // (for a program of another project that links the runtime) the ones on
    // PATH, unless SM_TOOLS_DIR says otherwise.
    std::string name = getRunnerName(result->state->backend);
    std::string directory;
    if (const char *fromEnvironment = std::getenv("SM_TOOLS_DIR")) {
      directory = fromEnvironment;
    } else {
      directory = getToolsDirectory();
      if (!llvm::sys::fs::can_execute(directory + "/" + name))
        if (llvm::ErrorOr<std::string> onPath =
                llvm::sys::findProgramByName(name))
          directory = llvm::sys::path::parent_path(*onPath).str();
    }
    std::string runner = directory + "/" + name;
    if (!llvm::sys::fs::can_execute(runner))
      return emitError(UnknownLoc::get(context))
             << "target '" << target << "' runs through " << runner
             << ", which is not there (build it, or set SM_TOOLS_DIR)";
    result->state->runnerDirectory = directory;
    return result;
  }
  if (sm_runner::targetNeedsDriverRoot(target.str()) &&
      !sm_runner::inDriverRoot())
    return emitError(UnknownLoc::get(context))
           << "target '" << target
           << "' runs on Mesa 26's lavapipe, whose C library is newer than "
              "this process's: run the program through sm-run, or start it "
              "through the loader of the root utils/setup.sh makes "
              "(.deps/vulkan-root, lib/Runtime/Vulkan/DriverRoot.h)";
  sm_runner::VulkanDevice::OpenOptions selection;
  selection.index = index;
  selection.preferCpu = sm_runner::targetRunsOnCpu(target.str());
  result->state->device = sm_runner::VulkanDevice::open(selection, error);
  if (!result->state->device)
    return emitError(UnknownLoc::get(context)) << error;
  return result;
}

std::string Device::describe() const {
  if (!state->device)
    return "the CPU, through " + state->runnerDirectory + "/" +
           getRunnerName(state->backend);
  return state->device->describe();
}

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

/// The value of a rank-0 array of a type code getNpyTypeCode gives, as the
/// plan's interpreter holds scalars.
static double getScalarValue(const NpyArray &array) {
  const char *bytes = array.data.data();
  auto read = [&](auto value) {
    std::memcpy(&value, bytes, sizeof(value));
    return double(value);
  };
  StringRef code = array.dtype;
  if (code == "f2") {
    uint16_t bits;
    std::memcpy(&bits, bytes, 2);
    return APFloat(APFloat::IEEEhalf(), APInt(16, bits)).convertToDouble();
  }
  if (code == "u2")
    return read(uint16_t());
  if (code == "f4")
    return read(float());
  if (code == "f8")
    return read(double());
  if (code == "i1")
    return read(int8_t());
  if (code == "u1" || code == "b1")
    return read(uint8_t());
  if (code == "i2")
    return read(int16_t());
  if (code == "i4")
    return read(int32_t());
  if (code == "u4")
    return read(uint32_t());
  if (code == "u8")
    return read(uint64_t());
  return read(int64_t());
}

/// The values of `host`'s scalar arguments (0 at the positions of
/// buffers), from the rank-0 arrays given for them.
static SmallVector<double> getScalarArguments(func::FuncOp host,
                                              ArrayRef<NpyArray> arguments) {
  SmallVector<double> scalars(arguments.size(), 0.0);
  for (auto [index, array] : llvm::enumerate(arguments))
    if (!isa<MemRefType>(host.getArgumentTypes()[index]))
      scalars[index] = getScalarValue(array);
  return scalars;
}

/// Checks `arguments` against the types of `host`'s arguments (count,
/// element type, shape) and gives their shapes (none for a scalar, which
/// comes as a rank-0 array).
static LogicalResult checkArguments(func::FuncOp host,
                                    ArrayRef<NpyArray> arguments,
                                    SmallVector<SmallVector<int64_t>> &shapes) {
  auto fail = [&](const Twine &message) {
    return emitError(host.getLoc()) << message;
  };
  if (arguments.size() != host.getNumArguments())
    return fail("'" + host.getSymName() + "' takes " +
                Twine(host.getNumArguments()) + " arguments, but " +
                Twine(arguments.size()) + " arrays were given");
  for (auto [index, array] : llvm::enumerate(arguments)) {
    Type type = host.getArgumentTypes()[index];
    auto memref = dyn_cast<MemRefType>(type);
    if (!memref) {
      if (!type.isIntOrIndexOrFloat() || getNpyTypeCode(type).empty())
        return fail("argument " + Twine(index) + " of '" + host.getSymName() +
                    "' is " + printed(type) +
                    ", which the runtime cannot pass");
      if (!array.shape.empty() || !acceptsTypeCode(type, array.dtype))
        return fail("argument " + Twine(index) + " of '" + host.getSymName() +
                    "' is a scalar (" + printed(type) +
                    "): it takes a "
                    "rank-0 " +
                    describeTypeCode(getNpyTypeCode(type)) + " array, but " +
                    array.describe() + " was given");
      shapes.emplace_back();
      continue;
    }
    if (!acceptsTypeCode(memref.getElementType(), array.dtype))
      return fail("argument " + Twine(index) + " is " + printed(memref) +
                  ": it takes " +
                  describeTypeCode(getNpyTypeCode(memref.getElementType())) +
                  " elements" +
                  (memref.getElementType().isBF16() ? " (bf16 bits)" : "") +
                  (getPackedBits(memref.getElementType())
                       ? " (one " + printed(memref.getElementType()) +
                             " value per byte)"
                       : "") +
                  ", but a " + describeTypeCode(array.dtype) + " array " +
                  array.describe() + " was given");
    bool fits = int64_t(array.shape.size()) == memref.getRank();
    for (auto [dim, size] : llvm::enumerate(memref.getShape()))
      fits = fits && (ShapedType::isDynamic(size) || size == array.shape[dim]);
    if (!fits)
      return fail("argument " + Twine(index) + " is " + printed(memref) +
                  ", but an array of shape " + array.describe() + " was given");
    shapes.emplace_back(array.shape.begin(), array.shape.end());
  }

  return success();
}

/// The bytes of a constant buffer of the plan: dense data (a splat
/// repeated) or a resource blob, which front-ends that freeze parameters
/// (torch-mlir, dynamo) keep weights in. An error at `loc` if they are not
/// exactly the buffer's bytes.
static FailureOr<std::vector<char>> getConstantBytes(const PlanBuffer &buffer,
                                                     Location loc) {
  std::vector<char> bytes;
  if (auto resource =
          dyn_cast<DenseResourceElementsAttr>(buffer.initialValue)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return emitError(loc) << "a constant of the program names the resource '"
                            << resource.getRawHandle().getKey()
                            << "', which the file does not hold (its data was "
                               "elided)";
    ArrayRef<char> raw = blob->getData();
    bytes.assign(raw.begin(), raw.end());
  } else if (auto dense = dyn_cast<DenseElementsAttr>(buffer.initialValue)) {
    ArrayRef<char> raw = dense.getRawData();
    if (dense.isSplat())
      while (int64_t(bytes.size()) < buffer.sizeInBytes)
        bytes.insert(bytes.end(), raw.begin(), raw.end());
    else
      bytes.assign(raw.begin(), raw.end());
  } else {
    return emitError(loc) << "a constant of the program is not dense data";
  }
  if (int64_t(bytes.size()) != buffer.sizeInBytes)
    return emitError(loc)
           << "a constant of the program has elements the runtime cannot "
              "upload (not whole bytes, or not as many as its type holds)";
  return bytes;
}

FailureOr<sm_runner::DevicePlan>
Device::buildDevicePlan(CompiledProgram &program, const ExecutionPlan &plan,
                        ArrayRef<NpyArray> arguments) {
  sm_runner::DevicePlan result;
  result.target = program.target;
  bool onHost = program.backend != CompiledProgram::Backend::Vulkan;
  if (onHost) {
    result.hostSourceName =
        program.backend == CompiledProgram::Backend::IntelHost
            ? "kernels.ll"
            : "kernels.metal";
    result.hostSource = program.binaries.front()->hostSource;
  } else {
    for (const auto &binary : program.binaries)
      result.binaries.push_back(binary->spirv.words);
  }
  auto host = program.getModule().lookupSymbol<func::FuncOp>(program.entry);
  for (auto [type, array] : llvm::zip(host.getArgumentTypes(), arguments))
    result.inputs.push_back({getNpyTypeCode(getElementTypeOrSelf(type)),
                             array.shape,
                             getPackedBits(getElementTypeOrSelf(type))});
  for (const PlanBuffer &buffer : plan.buffers) {
    sm_runner::DevicePlan::Buffer planned;
    planned.size = uint64_t(buffer.sizeInBytes);
    if (buffer.origin == PlanBuffer::Origin::Argument) {
      planned.start = sm_runner::DevicePlan::Buffer::Start::Input;
      planned.argument = int(buffer.argument);
    } else if (buffer.origin == PlanBuffer::Origin::Constant) {
      planned.start = sm_runner::DevicePlan::Buffer::Start::Data;
      FailureOr<std::vector<char>> bytes =
          getConstantBytes(buffer, host.getLoc());
      if (failed(bytes))
        return failure();
      planned.data = std::move(*bytes);
    }
    result.buffers.push_back(std::move(planned));
  }
  llvm::StringMap<unsigned> kernelIndices;
  for (const auto &step : plan.steps) {
    sm_runner::DevicePlan::Step planned;
    if (const auto *copy = std::get_if<PlanCopy>(&step)) {
      planned.isCopy = true;
      planned.name = "copy";
      sm_runner::DevicePlan::Argument source, target;
      source.buffer = copy->source;
      source.offset = uint64_t(copy->sourceOffsetInBytes);
      target.buffer = copy->target;
      target.offset = uint64_t(copy->targetOffsetInBytes);
      source.size = target.size = uint64_t(copy->sizeInBytes);
      planned.arguments = {source, target};
      result.steps.push_back(std::move(planned));
      continue;
    }
    const PlanLaunch &launch = std::get<PlanLaunch>(step);
    std::string key = launch.kernelModule + "::" + launch.kernel;
    unsigned binaryIndex = 0;
    const CompiledProgram::Binary *binary = nullptr;
    for (auto [index, candidate] : llvm::enumerate(program.binaries))
      if (candidate->kernelModule == launch.kernelModule) {
        binary = candidate.get();
        binaryIndex = unsigned(index);
      }
    if (!binary)
      return emitError(launch.location)
             << "launches a kernel of '" << launch.kernelModule
             << "', which was not compiled";
    auto [kernel, inserted] =
        kernelIndices.insert({key, unsigned(result.kernels.size())});
    if (inserted)
      result.kernels.push_back({binaryIndex, launch.kernel});
    // The host runners' kernels take 32-bit scalars; they check the
    // arguments against the kernel's signature themselves.
    std::vector<sm_runner::KernelParameter> parameters;
    if (onHost)
      for (const LaunchArgument &argument : launch.arguments)
        parameters.push_back({!argument.isBuffer,
                              isa_and_nonnull<FloatType>(argument.scalarType)
                                  ? sm_runner::KernelParameter::Kind::Float
                                  : sm_runner::KernelParameter::Kind::Integer,
                              32});
    else
      parameters = sm_runner::getEntryParameters(binary->spirv, launch.kernel);
    if (parameters.size() != launch.arguments.size())
      return emitError(launch.location)
             << "passes " << launch.arguments.size()
             << " arguments to a kernel whose binary takes "
             << parameters.size();
    planned.name = "@" + launch.kernelModule + "::@" + launch.kernel;
    planned.kernel = kernel->second;
    planned.grid = launch.grid;
    for (auto [argument, parameter] : llvm::zip(launch.arguments, parameters)) {
      sm_runner::DevicePlan::Argument placed;
      if (argument.isBuffer) {
        placed.buffer = argument.buffer;
        placed.offset = uint64_t(argument.offsetInBytes);
        placed.size = uint64_t(argument.sizeInBytes);
      } else {
        placed.isScalar = true;
        placed.scalar = encodeScalar(argument, parameter);
      }
      planned.arguments.push_back(std::move(placed));
    }
    result.steps.push_back(std::move(planned));
  }
  for (const PlanResult &planned : plan.results)
    result.outputs.push_back(
        {-1, planned.buffer, uint64_t(planned.offsetInBytes),
         getNpyTypeCode(planned.elementType),
         std::vector<int64_t>(planned.shape.begin(), planned.shape.end()),
         getPackedBits(planned.elementType)});
  for (unsigned argument : plan.writtenArguments)
    for (auto [index, buffer] : llvm::enumerate(plan.buffers))
      if (buffer.origin == PlanBuffer::Origin::Argument &&
          buffer.argument == argument)
        result.outputs.push_back(
            {int(argument), unsigned(index), 0,
             getNpyTypeCode(buffer.elementType),
             std::vector<int64_t>(buffer.shape.begin(), buffer.shape.end()),
             getPackedBits(buffer.elementType)});
  return result;
}

FailureOr<sm_runner::DevicePlan>
Device::planDevice(CompiledProgram &program, ArrayRef<NpyArray> arguments,
                   ExecutionPlan &plan) {
  auto host = program.getModule().lookupSymbol<func::FuncOp>(program.entry);
  SmallVector<SmallVector<int64_t>> shapes;
  if (failed(checkArguments(host, arguments, shapes)))
    return failure();
  FailureOr<ExecutionPlan> evaluated =
      planExecution(host, shapes, getScalarArguments(host, arguments));
  if (failed(evaluated))
    return failure();
  plan = std::move(*evaluated);
  return buildDevicePlan(program, plan, arguments);
}

/// Writes `plan` and its inputs, `arguments`, into `directory`: what
/// sm-plan-runner and the host runners' --plan read.
static LogicalResult writePlanDirectory(const sm_runner::DevicePlan &plan,
                                        ArrayRef<NpyArray> arguments,
                                        StringRef directory, Location loc) {
  std::string error;
  if (!sm_runner::writeDevicePlan(plan, directory.str(), error))
    return emitError(loc) << error;
  for (auto [index, array] : llvm::enumerate(arguments))
    if (!writeNpy((directory + "/input_" + Twine(index) + ".npy").str(), array,
                  error))
      return emitError(loc) << error;
  return success();
}

/// The outputs of a run of `plan`, in its order, as the program's results
/// and the arguments it writes.
static RunResults collectResults(const sm_runner::DevicePlan &plan,
                                 std::vector<NpyArray> outputs) {
  RunResults results;
  for (auto [output, array] : llvm::zip(plan.outputs, outputs)) {
    if (output.argument < 0)
      results.results.push_back(std::move(array));
    else
      results.writtenArguments.push_back(
          {unsigned(output.argument), std::move(array)});
  }
  return results;
}

FailureOr<RunResults> Device::runOnHost(CompiledProgram &program,
                                        ArrayRef<NpyArray> arguments) {
  auto host = program.getModule().lookupSymbol<func::FuncOp>(program.entry);
  ExecutionPlan plan;
  FailureOr<sm_runner::DevicePlan> devicePlan =
      planDevice(program, arguments, plan);
  if (failed(devicePlan))
    return failure();
  auto fail = [&](Location location,
                  const Twine &message) -> FailureOr<RunResults> {
    return emitError(location) << message;
  };
  // The runner runs the whole plan from a directory, as sm-plan-runner
  // runs a Vulkan plan: the plan, its kernels and inputs in, the outputs
  // back as .npy files.
  llvm::SmallString<128> directory;
  if (std::error_code code =
          llvm::sys::fs::createUniqueDirectory("sm-runtime", directory))
    return fail(host.getLoc(),
                "cannot create a scratch directory: " + code.message());
  llvm::scope_exit removeDirectory(
      [&] { llvm::sys::fs::remove_directories(directory); });
  if (failed(
          writePlanDirectory(*devicePlan, arguments, directory, host.getLoc())))
    return failure();
  std::string error;

  std::string runner =
      state->runnerDirectory + "/" + getRunnerName(program.backend);
  std::string log = (directory + "/runner.log").str();
  SmallVector<StringRef> argv = {runner, "--plan", directory};
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(log),
                                          StringRef(log)};
  int status = llvm::sys::ExecuteAndWait(runner, argv, std::nullopt, redirects);
  if (status != 0) {
    auto text = llvm::MemoryBuffer::getFile(log);
    std::string output = text ? (*text)->getBuffer().str() : "";
    if (output.size() > 2000)
      output = "..." + output.substr(output.size() - 2000);
    return fail(host.getLoc(), getRunnerName(program.backend) +
                                   " failed (exit status " + Twine(status) +
                                   "):\n" + output);
  }

  std::vector<NpyArray> outputs;
  if (!sm_runner::readPlanOutputs(*devicePlan, directory.str().str(), outputs,
                                  error))
    return fail(host.getLoc(), error);
  return collectResults(*devicePlan, std::move(outputs));
}

FailureOr<RunResults> Device::run(CompiledProgram &program,
                                  ArrayRef<NpyArray> arguments,
                                  RunTimings *timings, unsigned repeat) {
  if (program.backend != state->backend)
    return emitError(program.getModule().getLoc())
           << "the program was compiled for target '" << program.target
           << "', which this device does not run";
  if (program.backend != CompiledProgram::Backend::Vulkan) {
    if (timings) {
      timings->steps.clear();
      timings->runs = 0;
      timings->totalMicroseconds = 0;
    }
    return runOnHost(program, arguments);
  }
  sm_runner::VulkanDevice &device = *state->device;
  ModuleOp module = program.getModule();
  auto host = module.lookupSymbol<func::FuncOp>(program.getEntry());
  Location location = host.getLoc();
  std::string error;
  auto fail = [&](const Twine &message) -> FailureOr<RunResults> {
    return emitError(location) << message;
  };

  SmallVector<SmallVector<int64_t>> planShapes;
  if (failed(checkArguments(host, arguments, planShapes)))
    return failure();
  // An instance is made for one set of shapes and scalar values (a plan's
  // launches carry the scalars).
  std::vector<std::vector<int64_t>> shapes;
  for (const NpyArray &array : arguments) {
    shapes.push_back(array.shape);
    if (array.shape.empty())
      shapes.back().assign(
          {-1, int64_t(llvm::bit_cast<uint64_t>(getScalarValue(array)))});
  }

  LoadedProgram &loaded = state->programs[program.identity];
  auto found = loaded.instances.find(shapes);
  if (found == loaded.instances.end()) {
    ExecutionPlan plan;
    FailureOr<sm_runner::DevicePlan> devicePlan =
        planDevice(program, arguments, plan);
    if (failed(devicePlan))
      return failure();
    int failedStep = -1;
    LoadedProgram::Instance instance;
    instance.executor = sm_runner::PlanExecutor::load(
        device, std::move(*devicePlan), error, failedStep);
    if (!instance.executor) {
      if (failedStep >= 0)
        if (const auto *launch =
                std::get_if<PlanLaunch>(&plan.steps[failedStep]))
          return emitError(launch->location) << error;
      return fail(error);
    }
    found = loaded.instances.emplace(shapes, std::move(instance)).first;
  }
  sm_runner::PlanExecutor &executor = *found->second.executor;

  std::vector<const NpyArray *> inputs;
  for (const NpyArray &array : arguments)
    inputs.push_back(&array);
  std::vector<NpyArray> outputs;
  if (!executor.run(inputs, outputs, error))
    return fail(error);
  RunResults results = collectResults(executor.getPlan(), std::move(outputs));
  if (timings && repeat) {
    sm_runner::VulkanDevice::Timing timing;
    if (!executor.time(repeat, timing, error))
      return fail(error);
    timings->runs = repeat;
    timings->steps.clear();
    timings->totalMicroseconds = timing.totalNanoseconds / 1000;
    timings->hostMicroseconds = timing.hostNanoseconds / 1000;
    for (auto [step, nanoseconds] :
         llvm::zip(executor.getPlan().steps, timing.stepNanoseconds))
      timings->steps.push_back({step.name, nanoseconds / 1000});
  }
  return results;
}

LogicalResult Device::writePlan(CompiledProgram &program,
                                ArrayRef<NpyArray> arguments,
                                StringRef directory) {
  auto host = program.getModule().lookupSymbol<func::FuncOp>(program.entry);
  ExecutionPlan plan;
  FailureOr<sm_runner::DevicePlan> devicePlan =
      planDevice(program, arguments, plan);
  if (failed(devicePlan))
    return failure();
  return writePlanDirectory(*devicePlan, arguments, directory, host.getLoc());
}
