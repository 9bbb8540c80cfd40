//===- SubgroupMatrixToMetal.h - the Metal lowering -------------*- C++ -*-===//
//
// What `sm-lower-to-metal` lowers for: the target its stages read, and the
// description of Metal Shading Language used where a program names none.
//
//===----------------------------------------------------------------------===//

#ifndef SUBGROUPMATRIX_CONVERSION_SUBGROUPMATRIXTOMETAL_SUBGROUPMATRIXTOMETAL_H
#define SUBGROUPMATRIX_CONVERSION_SUBGROUPMATRIXTOMETAL_SUBGROUPMATRIXTOMETAL_H

#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"

namespace mlir {
namespace subgroup_matrix {

/// The threads of a Metal simdgroup on every Apple GPU.
constexpr unsigned kMetalSimdgroupSize = 32;

/// The threadgroup memory one threadgroup may use on Apple GPUs (Metal's
/// feature set tables: 32 KiB from the A13 and M1 on).
constexpr unsigned kMetalThreadgroupMemory = 32 * 1024;

/// What Metal Shading Language itself can express, for programs that name
/// no device: the 8x8 simdgroup matrices of f32, f16 and bf16 (MSL 3.1),
/// multiplied within one type or from f16 or bf16 into f32, in simdgroups of
/// 32 threads, without 64-bit floats, with 32 KiB of threadgroup memory.
TargetAttr getMetalLanguageTarget(MLIRContext *context);

} // namespace subgroup_matrix
} // namespace mlir

#endif // SUBGROUPMATRIX_CONVERSION_SUBGROUPMATRIXTOMETAL_SUBGROUPMATRIXTOMETAL_H
