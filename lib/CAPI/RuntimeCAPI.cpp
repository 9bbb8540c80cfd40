//===- RuntimeCAPI.cpp - the runtime's C API ------------------------------===//

#include "SubgroupMatrix-c/Runtime.h"

#include "DiagnosticCollector.h"

#include "SubgroupMatrix/Runtime/ExecutionPlan.h"
#include "SubgroupMatrix/Runtime/Runtime.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"

using namespace mlir;
using namespace mlir::subgroup_matrix;

struct SmProgramImpl {
  std::unique_ptr<runtime::CompiledProgram> program;
};

struct SmDeviceImpl {
  std::unique_ptr<runtime::Device> device;
};

struct SmRunImpl {
  /// The outputs, and the argument each was written to (-1: a result).
  std::vector<std::pair<intptr_t, runtime::NpyArray>> outputs;
  runtime::RunTimings timings;
};

struct SmPlanImpl {
  runtime::ExecutionPlan plan;
  /// The launches among the plan's steps, and each launch argument's type
  /// code.
  std::vector<const runtime::PlanLaunch *> launches;
  std::vector<std::vector<std::string>> argumentTypeCodes;
};

SmProgram smProgramCompile(MlirModule module, MlirStringRef target,
                           MlirStringRef entry, SmTextCallback diagnostics,
                           void *userData) {
  ModuleOp source = unwrap(module);
  DiagnosticCollector collector(source.getContext(), diagnostics, userData);
  OwningOpRef<ModuleOp> copy(cast<ModuleOp>(source->clone()));
  FailureOr<std::unique_ptr<runtime::CompiledProgram>> program =
      runtime::CompiledProgram::compile(std::move(copy), unwrap(target),
                                        unwrap(entry));
  if (failed(program))
    return nullptr;
  return new SmProgramImpl{std::move(*program)};
}

void smProgramDestroy(SmProgram program) { delete program; }

intptr_t smProgramGetNumArguments(SmProgram program) {
  return program->program->getNumArguments();
}

SmDevice smDeviceOpen(MlirContext context, int index, MlirStringRef target,
                      SmTextCallback diagnostics, void *userData) {
  DiagnosticCollector collector(unwrap(context), diagnostics, userData);
  FailureOr<std::unique_ptr<runtime::Device>> device =
      runtime::Device::open(unwrap(context), index, unwrap(target));
  if (failed(device))
    return nullptr;
  return new SmDeviceImpl{std::move(*device)};
}

void smDeviceDestroy(SmDevice device) { delete device; }

void smDeviceDescribe(SmDevice device, SmTextCallback callback,
                      void *userData) {
  std::string text = device->device->describe();
  callback(mlirStringRefCreate(text.data(), text.size()), userData);
}

SmRun smDeviceRun(SmDevice device, SmProgram program, const SmArray *arguments,
                  intptr_t numArguments, unsigned repeat,
                  SmTextCallback diagnostics, void *userData) {
  ModuleOp module = program->program->getModule();
  DiagnosticCollector collector(module.getContext(), diagnostics, userData);
  SmallVector<runtime::NpyArray> arrays;
  for (intptr_t i = 0; i < numArguments; ++i) {
    const SmArray &argument = arguments[i];
    runtime::NpyArray array;
    array.dtype = argument.dtype ? argument.dtype : "";
    array.shape.assign(argument.shape, argument.shape + argument.rank);
    if (array.getElementSize() <= 0 ||
        array.getNumElements() * array.getElementSize() !=
            argument.sizeInBytes) {
      emitError(module.getLoc())
          << "array " << i << " (" << array.describe() << ") holds "
          << argument.sizeInBytes << " bytes, which does not match its "
          << "shape and type";
      return nullptr;
    }
    const char *data = static_cast<const char *>(argument.data);
    array.data.assign(data, data + argument.sizeInBytes);
    arrays.push_back(std::move(array));
  }
  auto run = std::make_unique<SmRunImpl>();
  FailureOr<runtime::RunResults> results = device->device->run(
      *program->program, arrays, repeat ? &run->timings : nullptr, repeat);
  if (failed(results))
    return nullptr;
  for (runtime::NpyArray &array : results->results)
    run->outputs.push_back({-1, std::move(array)});
  for (auto &[argument, array] : results->writtenArguments)
    run->outputs.push_back({intptr_t(argument), std::move(array)});
  return run.release();
}

void smRunDestroy(SmRun run) { delete run; }

intptr_t smRunGetNumOutputs(SmRun run) { return run->outputs.size(); }

SmArray smRunGetOutput(SmRun run, intptr_t index, intptr_t *argument) {
  const auto &[writtenArgument, array] = run->outputs[index];
  if (argument)
    *argument = writtenArgument;
  return SmArray{array.dtype.c_str(), intptr_t(array.shape.size()),
                 array.shape.data(), array.data.data(),
                 intptr_t(array.data.size())};
}

intptr_t smRunGetNumSteps(SmRun run) { return run->timings.steps.size(); }

double smRunGetStepMicroseconds(SmRun run, intptr_t index,
                                MlirStringRef *name) {
  const auto &[stepName, microseconds] = run->timings.steps[index];
  if (name)
    *name = mlirStringRefCreate(stepName.data(), stepName.size());
  return microseconds;
}

double smRunGetTotalMicroseconds(SmRun run) {
  return run->timings.totalMicroseconds;
}

double smRunGetHostMicroseconds(SmRun run) {
  return run->timings.hostMicroseconds;
}

SmPlan smPlanLaunches(MlirModule module, MlirStringRef entry,
                      const SmArray *arguments, intptr_t numArguments,
                      SmTextCallback diagnostics, void *userData) {
  ModuleOp program = unwrap(module);
  DiagnosticCollector collector(program.getContext(), diagnostics, userData);
  FailureOr<func::FuncOp> host =
      runtime::findHostFunction(program, unwrap(entry));
  if (failed(host))
    return nullptr;
  SmallVector<SmallVector<int64_t>> shapes;
  if (numArguments < 0) {
    for (auto [index, type] : llvm::enumerate(host->getArgumentTypes())) {
      auto shaped = dyn_cast<ShapedType>(type);
      if (shaped && !shaped.hasStaticShape()) {
        emitError(host->getLoc())
            << "argument " << index << " of '" << host->getSymName()
            << "' has dynamic sizes (" << type
            << "): give the shapes to plan for";
        return nullptr;
      }
      shapes.emplace_back(shaped ? shaped.getShape() : ArrayRef<int64_t>());
    }
  } else {
    for (intptr_t i = 0; i < numArguments; ++i)
      shapes.emplace_back(
          ArrayRef<int64_t>(arguments[i].shape, arguments[i].rank));
  }
  FailureOr<runtime::ExecutionPlan> plan =
      runtime::planExecution(*host, shapes);
  if (failed(plan))
    return nullptr;
  auto result = std::make_unique<SmPlanImpl>();
  result->plan = std::move(*plan);
  for (auto &step : result->plan.steps) {
    auto *launch = std::get_if<runtime::PlanLaunch>(&step);
    if (!launch)
      continue;
    result->launches.push_back(launch);
    std::vector<std::string> codes;
    for (const runtime::LaunchArgument &argument : launch->arguments)
      codes.push_back(runtime::getNpyTypeCode(
          argument.isBuffer ? result->plan.buffers[argument.buffer].elementType
                            : argument.scalarType));
    result->argumentTypeCodes.push_back(std::move(codes));
  }
  return result.release();
}

void smPlanDestroy(SmPlan plan) { delete plan; }

intptr_t smPlanGetNumLaunches(SmPlan plan) { return plan->launches.size(); }

SmLaunch smPlanGetLaunch(SmPlan plan, intptr_t index) {
  const runtime::PlanLaunch &launch = *plan->launches[index];
  SmLaunch result;
  result.kernelModule = mlirStringRefCreate(launch.kernelModule.data(),
                                            launch.kernelModule.size());
  result.kernel =
      mlirStringRefCreate(launch.kernel.data(), launch.kernel.size());
  for (int dim = 0; dim < 3; ++dim) {
    result.grid[dim] = launch.grid[dim];
    result.block[dim] = launch.block[dim];
  }
  result.numArguments = launch.arguments.size();
  return result;
}

SmLaunchArgument smPlanGetLaunchArgument(SmPlan plan, intptr_t launch,
                                         intptr_t index) {
  const runtime::LaunchArgument &argument =
      plan->launches[launch]->arguments[index];
  const std::string &code = plan->argumentTypeCodes[launch][index];
  return SmLaunchArgument{argument.isBuffer,
                          intptr_t(argument.buffer),
                          argument.offsetInBytes,
                          argument.sizeInBytes,
                          mlirStringRefCreate(code.data(), code.size()),
                          argument.integerValue,
                          argument.floatValue};
}
