//===- AccumulateInF32.h - reductions into f16/bf16 in f32 -----*- C++ -*-===//
//
// The precision policy's rewrite of a reduction into f16 or bf16: it sums
// in f32 and rounds once. Used by sm-accumulate-in-f32 (the reference's
// model of the policy) and by sm-apply-precision-policy (the compiler's
// element-wise reductions).
//
//===----------------------------------------------------------------------===//

#ifndef SUBGROUPMATRIX_TRANSFORMS_ACCUMULATEINF32_H
#define SUBGROUPMATRIX_TRANSFORMS_ACCUMULATEINF32_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir {
namespace subgroup_matrix {

/// Whether `op` reduces into an f16 or bf16 output.
bool reducesIntoNarrowFloat(linalg::LinalgOp op);

/// Rewrites `op` (on tensors or buffers) to accumulate its f16/bf16 outputs
/// in f32, rounding once into them; false where its body cannot compute in
/// f32 (a region, a bitcast of a narrow value), and `op` stays.
bool accumulateInF32(linalg::GenericOp op);

} // namespace subgroup_matrix
} // namespace mlir

#endif // SUBGROUPMATRIX_TRANSFORMS_ACCUMULATEINF32_H
