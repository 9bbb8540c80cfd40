//===- ElementwiseKernel.h - a kernel for an element-wise op ----*- C++ -*-===//
//
// What sm-linalg-to-gpu does with an element-wise linalg op it cannot fuse
// into a contraction: a kernel of its own, one invocation per element, so
// that no computation stays on the host.
//
//===----------------------------------------------------------------------===//

#ifndef SUBGROUPMATRIX_CONVERSION_LINALGTOSUBGROUPMATRIX_ELEMENTWISEKERNEL_H
#define SUBGROUPMATRIX_CONVERSION_LINALGTOSUBGROUPMATRIX_ELEMENTWISEKERNEL_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace subgroup_matrix {

/// Invocations per workgroup of element-wise kernels: a multiple of every
/// target's subgroup size.
constexpr int64_t kElementwiseWorkgroupSize = 256;

/// Whether `op` can become an element-wise kernel; otherwise reports why on
/// `op` (with `report`) and returns false.
bool canEmitElementwiseKernel(linalg::GenericOp op, bool report);

/// Replaces `op` (element-wise, on statically shaped row-major memrefs) by
/// the launch of kernel `name`, added to `into`.
FailureOr<gpu::LaunchFuncOp> emitElementwiseKernel(RewriterBase &rewriter,
                                                   linalg::GenericOp op,
                                                   gpu::GPUModuleOp into,
                                                   StringRef name);

} // namespace subgroup_matrix
} // namespace mlir

#endif // SUBGROUPMATRIX_CONVERSION_LINALGTOSUBGROUPMATRIX_ELEMENTWISEKERNEL_H
