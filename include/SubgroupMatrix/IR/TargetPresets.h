//===- TargetPresets.h - named device descriptions --------------*- C++ -*-===//
//
// The named targets that `target=NAME` options and the short attribute form
// `#subgroup_matrix.target<"NAME">` refer to.
//
//===----------------------------------------------------------------------===//

#ifndef SUBGROUPMATRIX_IR_TARGETPRESETS_H
#define SUBGROUPMATRIX_IR_TARGETPRESETS_H

#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"

namespace mlir {
namespace subgroup_matrix {

/// Returns the names of all presets, in a stable order.
llvm::ArrayRef<llvm::StringRef> getTargetPresetNames();

/// Returns the preset called `name`, or a null attribute if there is none.
TargetAttr lookupTargetPreset(MLIRContext *context, llvm::StringRef name);

/// Returns the preset called `name`; otherwise reports at `loc` that the
/// target is unknown, listing the known ones, and returns null.
TargetAttr getTargetPresetOrError(Location loc, llvm::StringRef name);

/// Finds the target that governs `op`: the `subgroup_matrix.target`
/// attribute of the closest enclosing op that carries one (a `gpu.module` or
/// the top-level module), or null.
TargetAttr findEnclosingTarget(Operation *op);

/// Resolves a pass's `target=NAME` option: a null attribute when `name` is
/// empty (the targets attached to the IR govern), else the preset. Fails,
/// after reporting at `loc`, when no preset has that name.
FailureOr<TargetAttr> resolveTargetOption(Location loc, llvm::StringRef name);

/// What a kernel that asks for emulation (SubgroupMatrixDialect::
/// getEmulateAttrName) may use on `target`: its emulated form with every
/// type combination the emulation computes (f16, bf16 and f32 into f32;
/// f16 into f16; 8- and 32-bit integers into 32-bit ones), as the
/// `cpu-lavapipe` preset has them.
TargetAttr getEmulationTarget(TargetAttr target);

/// The target `op` is lowered for: `overrideTarget` when set, else the
/// enclosing one. Reports at `op` and returns null when there is neither.
TargetAttr getLoweringTargetOrError(Operation *op, TargetAttr overrideTarget);

} // namespace subgroup_matrix
} // namespace mlir

#endif // SUBGROUPMATRIX_IR_TARGETPRESETS_H
