//===- SubgroupMatrixDialect.h - subgroup_matrix dialect --------*- C++ -*-===//
//
// The dialect, its types, attributes and operations.
//
//===----------------------------------------------------------------------===//

#ifndef SUBGROUPMATRIX_IR_SUBGROUPMATRIXDIALECT_H
#define SUBGROUPMATRIX_IR_SUBGROUPMATRIXDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir {
namespace subgroup_matrix {

/// The role a matrix plays in a multiplication.
enum class MatrixKind { Left, Right, Result };

/// Returns the mnemonic of a matrix kind: "left", "right" or "result".
llvm::StringRef stringifyMatrixKind(MatrixKind kind);

/// Whether `type` may be the component type of a subgroup matrix: f16, bf16,
/// f32, si8, ui8, si32 or ui32.
bool isValidComponentType(Type type);

/// Whether a multiplication of `component` matrices may accumulate into
/// `result` (f16 -> f16|f32, bf16 -> f32, f32 -> f32, si8 -> si32,
/// ui8 -> ui32, si32 -> si32, ui32 -> ui32).
bool isValidAccumulatorType(Type component, Type result);

/// The memref element type that stores `component`: the float type itself,
/// or the signless integer of the same width.
Type getStorageType(Type component);

/// The scalar type that `splat` and the scalar ops take for `component`: the
/// float type itself, or i32 for every integer component.
Type getScalarType(Type component);

} // namespace subgroup_matrix
} // namespace mlir

#include "SubgroupMatrix/IR/SubgroupMatrixEnums.h.inc"
#include "SubgroupMatrix/IR/SubgroupMatrixOpsDialect.h.inc"
#include "SubgroupMatrix/IR/SubgroupMatrixTypeInterfaces.h.inc"

#define GET_TYPEDEF_CLASSES
#include "SubgroupMatrix/IR/SubgroupMatrixOpsTypes.h.inc"

namespace mlir {
namespace subgroup_matrix {

/// The matrix of `kind` with the given shape, component type and scope.
SubgroupMatrixTypeInterface
getMatrixType(MatrixKind kind, unsigned rows, unsigned columns, Type component,
              MatrixScope scope = MatrixScope::Subgroup);

/// Whether `subgroup_matrix.convert` can turn `from` components into `to`
/// components: between float types, from integer to float types, and
/// between integer types (widening extends by the source's signedness,
/// narrowing wraps, equal widths reinterpret the bits).
bool isValidComponentConversion(Type from, Type to);

/// Whether a reduction of `kind` is defined on `component` matrices: every
/// kind on floats; add, max and min on integers, and mul only on 32-bit
/// integers (products of 8-bit values overflow after two factors).
bool isValidReduction(ReductionKind kind, Type component);

} // namespace subgroup_matrix
} // namespace mlir

#define GET_ATTRDEF_CLASSES
#include "SubgroupMatrix/IR/SubgroupMatrixAttrs.h.inc"

#define GET_OP_CLASSES
#include "SubgroupMatrix/IR/SubgroupMatrixOps.h.inc"

#endif // SUBGROUPMATRIX_IR_SUBGROUPMATRIXDIALECT_H
