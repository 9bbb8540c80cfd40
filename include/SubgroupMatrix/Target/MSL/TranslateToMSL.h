//===- TranslateToMSL.h - Metal Shading Language emitter --------*- C++ -*-===//

#ifndef SUBGROUPMATRIX_TARGET_MSL_TRANSLATETOMSL_H
#define SUBGROUPMATRIX_TARGET_MSL_TRANSLATETOMSL_H

#include "mlir/IR/Operation.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir {
namespace subgroup_matrix {

/// Emits Metal Shading Language for every kernel (`gpu.func ... kernel`) of
/// the `gpu.module`s nested in `op`. Subgroup matrices become
/// `simdgroup_matrix` values (arrays of 8x8 fragments for larger shapes);
/// types Metal cannot express are reported as errors at their location.
///
/// The output also holds, under `#ifdef SM_MSL_HOST`, one host entry point
/// per kernel: Metal ignores them, and the host emulation (see
/// `tools/sm-msl-host-runner`) compiles the same file as C++ and calls them.
LogicalResult translateToMSL(Operation *op, llvm::raw_ostream &os);

/// Registers `--emit-msl` with sm-translate.
void registerToMSLTranslation();

} // namespace subgroup_matrix
} // namespace mlir

#endif // SUBGROUPMATRIX_TARGET_MSL_TRANSLATETOMSL_H
