//===- KernelModules.cpp - the gpu.modules a kernel lowering takes --------===//

#include "SubgroupMatrix/Transforms/Checks.h"

#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"

using namespace mlir;
using namespace mlir::subgroup_matrix;

FailureOr<SmallVector<gpu::GPUModuleOp>>
mlir::subgroup_matrix::collectKernelModules(ModuleOp module,
                                            StringRef passName) {
  SmallVector<gpu::GPUModuleOp> kernelModules;
  module.walk([&](gpu::GPUModuleOp kernels) {
    kernelModules.push_back(kernels);
    return WalkResult::skip();
  });
  if (!kernelModules.empty())
    return kernelModules;
  // A program of linalg (or tensor) operations is the input of
  // sm-linalg-to-gpu, not of a kernel lowering, which would leave it as it
  // is and let the next tool say that nothing was lowered.
  Operation *program = nullptr;
  module.walk<WalkOrder::PreOrder>([&](Operation *op) {
    StringRef dialect = op->getName().getDialectNamespace();
    if (dialect == "linalg" || dialect == "tensor") {
      program = op;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (!program)
    return kernelModules;
  emitError(program->getLoc())
      << "'" << program->getName() << "' is not in a kernel: --" << passName
      << " lowers the kernels of gpu.modules, and this input has none; "
         "compile the program into kernels first with "
         "--sm-linalg-to-gpu=target=NAME";
  return failure();
}

SmallVector<gpu::GPUModuleOp>
mlir::subgroup_matrix::getModulesBeingLowered(ModuleOp module) {
  SmallVector<gpu::GPUModuleOp> all, withTargetEnvironment;
  module.walk([&](gpu::GPUModuleOp kernels) {
    all.push_back(kernels);
    if (kernels->hasAttr(spirv::getTargetEnvAttrName()))
      withTargetEnvironment.push_back(kernels);
    return WalkResult::skip();
  });
  return withTargetEnvironment.empty() ? all : withTargetEnvironment;
}

bool mlir::subgroup_matrix::isEmulated(Operation *function) {
  return function->hasAttr(SubgroupMatrixDialect::getEmulatedAttrName());
}
