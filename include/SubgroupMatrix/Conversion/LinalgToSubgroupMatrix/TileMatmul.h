//===- TileMatmul.h - linalg.matmul to a subgroup-matrix kernel -*- C++ -*-===//
//-*-===//
//
// Generates, for one linalg.matmul on memrefs, a GPU kernel written with
// subgroup matrices and the gpu.launch_func that runs it.
//
//===----------------------------------------------------------------------===//

#ifndef SUBGROUPMATRIX_CONVERSION_LINALGTOSUBGROUPMATRIX_TILEMATMUL_H
#define SUBGROUPMATRIX_CONVERSION_LINALGTOSUBGROUPMATRIX_TILEMATMUL_H

#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace subgroup_matrix {

/// How a matmul is tiled. Zero (and -1 for `padding`) means "the target's
/// default"; `resolveMatmulTiling` fills those in.
struct MatmulTiling {
  /// The workgroup tile of C and the depth of one K step.
  int64_t tileM = 0, tileN = 0, tileK = 0;
  /// The grid of subgroups in a workgroup.
  int64_t subgroupsM = 0, subgroupsN = 0;
  /// Elements appended to every row of the workgroup copies of A and B.
  int64_t padding = -1;
  /// Workgroup buffers per operand: 1, or 2 for double buffering.
  int64_t stages = 0;
  /// Elements one invocation copies at once from global to workgroup memory.
  int64_t vectorWidth = 0;
  /// Tile rows that consecutive workgroups walk down before the next tile
  /// column (1: row-major launch order).
  int64_t groupM = 0;
};

/// Rewrites `matmul` (on statically shaped, contiguous row-major memrefs) into
/// a `gpu.module`, inserted before the enclosing top-level function, holding
/// a kernel tiled by `tiling` for `target`, and a `gpu.launch_func` of it
/// that replaces `matmul`. Reports a diagnostic on `matmul` and returns
/// failure for matmuls it cannot tile (and then changes nothing).
FailureOr<gpu::LaunchFuncOp> tileMatmul(RewriterBase &rewriter,
                                        linalg::MatmulOp matmul,
                                        TargetAttr target,
                                        const MatmulTiling &tiling);

} // namespace subgroup_matrix
} // namespace mlir

#endif // SUBGROUPMATRIX_CONVERSION_LINALGTOSUBGROUPMATRIX_TILEMATMUL_H
