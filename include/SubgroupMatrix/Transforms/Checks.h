//===- Checks.h - the target and uniformity checks --------------*- C++ -*-===//
//
// The checks behind `sm-check-target` and `sm-check-uniformity`, callable by
// pipelines that must reject a program before they emit anything.
//
//===----------------------------------------------------------------------===//

#ifndef SUBGROUPMATRIX_TRANSFORMS_CHECKS_H
#define SUBGROUPMATRIX_TRANSFORMS_CHECKS_H

#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir {
namespace subgroup_matrix {

/// Reports every matrix type, multiplication and kernel workgroup size in
/// `module` that its target cannot run. `overrideTarget`, if set, replaces
/// the targets attached to the module. With `allowEmulation`, what the
/// emulated form of the target takes (TargetAttr::getEmulatedForm) passes
/// too; with `composedShapes`, what is built of several of one
/// configuration's matrices (TargetAttr::supportsComposedType); with
/// `emulationRequests`, kernels marked `subgroup_matrix.emulate` are checked
/// against the target's emulation (getEmulationTarget). Fails if anything
/// was reported.
LogicalResult checkTarget(ModuleOp module, TargetAttr overrideTarget = {},
                          bool allowEmulation = false,
                          bool composedShapes = false,
                          bool emulationRequests = false);

/// How `checkUniformity` reports what it finds.
enum class UniformitySeverity { Error, Warning, Off };

/// Reports every subgroup matrix op of `module` that may run in divergent
/// control flow or with operands that differ within a subgroup. Fails if an
/// error was reported.
LogicalResult
checkUniformity(ModuleOp module,
                UniformitySeverity severity = UniformitySeverity::Error);

/// The gpu.modules a kernel lowering (`passName`, for messages) works on,
/// wherever they sit in `module`: the modules of `sm-opt -split-input-file`
/// output piped into another sm-opt arrive nested in one. When there is none
/// but `module` holds linalg or tensor operations (a program not yet
/// compiled into kernels), reports so at the first of them, naming the pass
/// that makes kernels of it, and fails.
FailureOr<SmallVector<gpu::GPUModuleOp>>
collectKernelModules(ModuleOp module, StringRef passName);

/// The gpu.modules of `module` that a lowering pipeline is turning into
/// device code: those carrying a `spirv.target_env` (the copies
/// sm-attach-vulkan-target makes, next to the originals it keeps for the
/// host), or every gpu.module when none carries one (a stage run alone on
/// kernels).
SmallVector<gpu::GPUModuleOp> getModulesBeingLowered(ModuleOp module);

/// Whether sm-emulate-matrices took the matrices of `function` apart.
bool isEmulated(Operation *function);

} // namespace subgroup_matrix
} // namespace mlir

#endif // SUBGROUPMATRIX_TRANSFORMS_CHECKS_H
