//===- PromoteBFloat16Maps.h - bf16 map bodies computed in f32 --*- C++ -*-===//

#ifndef SUBGROUPMATRIX_TRANSFORMS_PROMOTEBFLOAT16MAPS_H
#define SUBGROUPMATRIX_TRANSFORMS_PROMOTEBFLOAT16MAPS_H

#include "mlir/IR/Operation.h"

namespace mlir {
namespace subgroup_matrix {

/// Rewrites the body of every `subgroup_matrix.map` under `root`, and the
/// arith and math ops elsewhere in its kernels, so that bf16 values are
/// only converted, held and selected, never computed on: each op that
/// takes or produces bf16 (other than `arith.extf`, `arith.truncf` and
/// `arith.bitcast`) computes in f32 on operands extended from bf16, and its
/// bf16 results are rounded back with `arith.truncf`. Rounding after every
/// op keeps bf16 semantics exactly for the correctly rounded operations
/// (f32 carries more than twice bf16's precision, so the double rounding is
/// innocuous). Paths whose SPIR-V has bf16 conversions but no bf16
/// arithmetic (Vulkan with SPV_KHR_bfloat16, Intel) use it before lowering.
void promoteBFloat16Arithmetic(Operation *root);

} // namespace subgroup_matrix
} // namespace mlir

#endif // SUBGROUPMATRIX_TRANSFORMS_PROMOTEBFLOAT16MAPS_H
