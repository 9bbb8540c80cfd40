//===- RowGroupKernel.h - one kernel for a row's reductions -----*- C++ -*-===//
//
// Dispatch formation for what front-ends write out op by op: a softmax, a
// layer norm or an RMSNorm is a few reductions along each row and one
// element-wise op over the rows that reads their results. sm-linalg-to-gpu
// makes them one kernel, one workgroup per row, instead of a kernel (and a
// buffer) per op.
//
//===----------------------------------------------------------------------===//

#ifndef SUBGROUPMATRIX_CONVERSION_LINALGTOSUBGROUPMATRIX_ELEMENTWISE_ROWGROUPKERNEL_H
#define SUBGROUPMATRIX_CONVERSION_LINALGTOSUBGROUPMATRIX_ELEMENTWISE_ROWGROUPKERNEL_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace subgroup_matrix {

/// Ops on buffers that one kernel computes row by row: reductions along the
/// same loops of the same rows (each into a temporary that its fill starts
/// and only the group reads), then the element-wise op over the rows that
/// reads them (a softmax's max and sum, then its quotient).
struct RowGroup {
  /// The reductions in program order, each with the fill before it.
  SmallVector<std::pair<linalg::FillOp, linalg::GenericOp>> reductions;
  /// The element-wise op that ends the group and writes its result.
  linalg::GenericOp last;
};

/// The row group that `last` (an element-wise op on buffers) ends, if it
/// reads the result of at least one reduction that can join it.
std::optional<RowGroup> findRowGroup(linalg::GenericOp last);

/// Replaces the ops of `group` (with their temporaries) by the launch of
/// kernel `name`, added to `into`: one workgroup per row, which folds each
/// reduction in turn (its invocations' parts combined in workgroup memory)
/// and then writes the row of the last op.
FailureOr<gpu::LaunchFuncOp> emitRowGroupKernel(RewriterBase &rewriter,
                                                const RowGroup &group,
                                                gpu::GPUModuleOp into,
                                                StringRef name);

} // namespace subgroup_matrix
} // namespace mlir

#endif // SUBGROUPMATRIX_CONVERSION_LINALGTOSUBGROUPMATRIX_ELEMENTWISE_ROWGROUPKERNEL_H
