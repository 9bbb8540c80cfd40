//===- TileMatmul.h - linalg.matmul to a subgroup-matrix kernel -*- C++ -*-===//
//-*-===//
//
// Generates, for one linalg.matmul on memrefs, a GPU kernel written with
// subgroup matrices and the gpu.launch_func that runs it.
//
//===----------------------------------------------------------------------===//

#ifndef SUBGROUPMATRIX_CONVERSION_LINALGTOSUBGROUPMATRIX_TILEMATMUL_H
#define SUBGROUPMATRIX_CONVERSION_LINALGTOSUBGROUPMATRIX_TILEMATMUL_H

#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Contraction.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/TilingPlan.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/TuningTable.h"
#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace subgroup_matrix {

/// Rewrites `contraction` into a `gpu.module`, inserted before the
/// enclosing top-level function, holding its kernel tiled by `tiling` for
/// `target`, and a `gpu.launch_func` of it that replaces the contraction and
/// the ops fused into it. Reports a diagnostic on the contraction's op and
/// returns failure when it cannot (and then changes nothing).
/// With `into`, the kernel goes there instead, named `name`.
FailureOr<gpu::LaunchFuncOp>
tileContraction(RewriterBase &rewriter, const Contraction &contraction,
                TargetAttr target, const MatmulTiling &tiling,
                gpu::GPUModuleOp into = {}, StringRef name = "matmul");

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

#endif // SUBGROUPMATRIX_CONVERSION_LINALGTOSUBGROUPMATRIX_TILEMATMUL_H
