//===- TileMatmul.h - linalg.matmul to a subgroup-matrix kernel -*- C++ -*-===//
//-*-===//
//
// Generates, for one linalg.matmul on memrefs, a GPU kernel written with
// subgroup matrices and the gpu.launch_func that runs it.
//
//===----------------------------------------------------------------------===//

#ifndef SUBGROUPMATRIX_CONVERSION_LINALGTOSUBGROUPMATRIX_CONTRACTION_TILEMATMUL_H
#define SUBGROUPMATRIX_CONVERSION_LINALGTOSUBGROUPMATRIX_CONTRACTION_TILEMATMUL_H

#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Contraction/Contraction.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Planning/DotProductPlan.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Planning/TilingPlan.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Planning/TuningTable.h"
#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace subgroup_matrix {

/// Rewrites `contraction` into a `gpu.module`, inserted before the
/// enclosing top-level function, holding its kernel tiled by `plan` (see
/// planContraction and checkPlan) for `target`, and a `gpu.launch_func` of it
/// that replaces the contraction and the ops fused into it. Reports a
/// diagnostic on the contraction's op and returns failure when it cannot (and
/// then changes nothing). With `into`, the kernel goes there instead, named
/// `name`. Where K is split, the parts are added into C by a `linalg.generic`
/// on the host that reads the workspace through maps with constants (`d0 + c`),
/// which only emitElementwiseKernel takes (linalg's verifier does not: it
/// infers the loops from the whole workspace); it is returned in
/// `splitReduction` so that the caller makes its kernel before anything else
/// verifies the IR.
FailureOr<gpu::LaunchFuncOp>
tileContraction(RewriterBase &rewriter, const Contraction &contraction,
                TargetAttr target, const TilingPlan &plan,
                gpu::GPUModuleOp into = {}, StringRef name = "matmul",
                linalg::GenericOp *splitReduction = nullptr);

/// As tileContraction, with the dot-product kernel of `plan`
/// (DotProductKernel.h) instead of a tiled product: one launch, no split.
FailureOr<gpu::LaunchFuncOp> emitDotProductContraction(
    RewriterBase &rewriter, const Contraction &contraction, TargetAttr target,
    const DotProductPlan &plan, gpu::GPUModuleOp into, StringRef name);

/// Rewrites `matmul` (on statically shaped, contiguous row-major memrefs) into
/// a `gpu.module`, inserted before the enclosing top-level function, holding
/// a kernel tiled by `tiling` for `target`, and a `gpu.launch_func` of it
/// that replaces `matmul`. Reports a diagnostic on `matmul` and returns
/// failure for matmuls it cannot tile (and then changes nothing). Where
/// `tiling` asks for nothing, `tuning`'s tiling for the problem applies.
FailureOr<gpu::LaunchFuncOp>
tileMatmul(RewriterBase &rewriter, linalg::MatmulOp matmul, TargetAttr target,
           const MatmulTiling &tiling, const TuningTable *tuning = nullptr);

} // namespace subgroup_matrix
} // namespace mlir

#endif // SUBGROUPMATRIX_CONVERSION_LINALGTOSUBGROUPMATRIX_CONTRACTION_TILEMATMUL_H
