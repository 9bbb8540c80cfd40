//===- TranslateToMSL.h - Metal Shading Language emitter --------*- C++ -*-===//

#ifndef SUBGROUPMATRIX_TARGET_MSL_TRANSLATETOMSL_H
#define SUBGROUPMATRIX_TARGET_MSL_TRANSLATETOMSL_H

#include "mlir/IR/Operation.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir {
namespace subgroup_matrix {

/// Prints Metal Shading Language for every kernel (`gpu.func ... kernel`) of
/// the `gpu.module`s nested in `op`, as `sm-lower-to-metal` left them.
/// Subgroup matrices become `simdgroup_matrix` values (arrays of 8x8
/// fragments for larger shapes); what Metal cannot express is reported as
/// an error at its location.
///
/// The output also holds, under `#ifdef SM_MSL_HOST`, one host entry point
/// per kernel: Metal ignores them, and the host emulation (see
/// `tools/sm-msl-host-runner`) compiles the same file as C++ and calls them.
LogicalResult translateToMSL(Operation *op, llvm::raw_ostream &os);

/// What `sm-translate --emit-msl` does: runs `sm-lower-to-metal` on `module`
/// (in place, for the preset `targetName` if given, else the target its
/// gpu.modules name, else what Metal Shading Language expresses), then
/// translateToMSL. The lowering changes nothing in a module it already
/// lowered.
LogicalResult lowerAndTranslateToMSL(Operation *module, llvm::raw_ostream &os,
                                     llvm::StringRef targetName = "");

/// Registers `--emit-msl` with sm-translate.
void registerToMSLTranslation();

} // namespace subgroup_matrix
} // namespace mlir

#endif // SUBGROUPMATRIX_TARGET_MSL_TRANSLATETOMSL_H
