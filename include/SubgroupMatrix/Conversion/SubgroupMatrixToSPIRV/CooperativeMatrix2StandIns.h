//===- CooperativeMatrix2StandIns.h - NV coopmat2 through stand-ins -*- C++
//-*-===//
//
// MLIR's SPIR-V dialect has no SPV_NV_cooperative_matrix2 instructions, so
// `sm-use-nv-cooperative-matrix2` calls a stand-in function for each one,
// and the serializer (`serializeSPIRVModule`) replaces every call of a
// stand-in by the instruction it stands for. The two agree on what a
// stand-in is through its name, which the binary keeps in an OpName.
//
//===----------------------------------------------------------------------===//

#ifndef SUBGROUPMATRIX_CONVERSION_SUBGROUPMATRIXTOSPIRV_COOPERATIVEMATRIX2STANDINS_H
#define SUBGROUPMATRIX_CONVERSION_SUBGROUPMATRIXTOSPIRV_COOPERATIVEMATRIX2STANDINS_H

#include "llvm/ADT/StringRef.h"

#include <optional>

namespace mlir {
namespace subgroup_matrix {

/// The SPV_NV_cooperative_matrix2 instructions a stand-in can be.
enum class CooperativeMatrix2Instruction {
  /// OpCooperativeMatrixReduceNV over rows (Reduce = Row).
  ReduceRows,
  /// OpCooperativeMatrixReduceNV over columns (Reduce = Column).
  ReduceColumns,
  /// OpCooperativeMatrixReduceNV over the whole matrix (Row | Column).
  ReduceAll,
  /// OpCooperativeMatrixPerElementOpNV.
  PerElement,
  /// OpCooperativeMatrixConvertNV: an accumulator becomes an A or B matrix
  /// of the same component type.
  ConvertUse,
  /// OpFConvert, OpConvertSToF, OpConvertUToF, OpSConvert and OpUConvert
  /// from an accumulator to an A or B matrix, which
  /// CooperativeMatrixConversionsNV allows.
  ConvertFloat,
  ConvertSignedToFloat,
  ConvertUnsignedToFloat,
  ConvertSigned,
  ConvertUnsigned,
  /// OpCooperativeMatrixLoadTensorNV and OpCooperativeMatrixStoreTensorNV
  /// of a bounded load or store: a one-dimensional tensor layout over the
  /// buffer and a tensor view whose clip is the bounds. The stand-in's
  /// operands are, in order, those of TensorAccessOperand.
  LoadTensor,
  StoreTensor,
};

/// The operands of a LoadTensor or StoreTensor stand-in, by position. The
/// constants are operands so that the binary has them for the types and
/// instructions the serializer writes in the call's place.
enum TensorAccessOperand : unsigned {
  /// The buffer (a whole variable) and the matrix to store, or the one
  /// whose elements a load leaves where it clips (zeros).
  TensorAccessBuffer,
  TensorAccessMatrix,
  /// Element [0, 0]'s offset in the buffer, and the stride.
  TensorAccessOffset,
  TensorAccessStride,
  /// The view's dimensions (the clip's rows and columns, swapped for a
  /// column-major matrix) and its clip.
  TensorAccessViewDimension0,
  TensorAccessViewDimension1,
  TensorAccessClipRows,
  TensorAccessClipColumns,
  /// The view's permutation: 0, 1 (row-major) or 1, 0 (column-major).
  TensorAccessPermutation0,
  TensorAccessPermutation1,
  /// The constants 0, 1 and 2, true, and the extent of the layout.
  TensorAccessZero,
  TensorAccessOne,
  TensorAccessTwo,
  TensorAccessTrue,
  TensorAccessExtent,
  TensorAccessOperandCount,
};

/// What the name of every stand-in starts with.
inline llvm::StringLiteral getCooperativeMatrix2StandInPrefix() {
  return "__sm_nv_coopmat2__";
}

/// The keyword of `instruction` in a stand-in's name.
inline llvm::StringRef stringifyCooperativeMatrix2Instruction(
    CooperativeMatrix2Instruction instruction) {
  switch (instruction) {
  case CooperativeMatrix2Instruction::ReduceRows:
    return "reduce_rows";
  case CooperativeMatrix2Instruction::ReduceColumns:
    return "reduce_columns";
  case CooperativeMatrix2Instruction::ReduceAll:
    return "reduce_all";
  case CooperativeMatrix2Instruction::PerElement:
    return "per_element";
  case CooperativeMatrix2Instruction::ConvertUse:
    return "convert_use";
  case CooperativeMatrix2Instruction::ConvertFloat:
    return "convert_float";
  case CooperativeMatrix2Instruction::ConvertSignedToFloat:
    return "convert_signed_to_float";
  case CooperativeMatrix2Instruction::ConvertUnsignedToFloat:
    return "convert_unsigned_to_float";
  case CooperativeMatrix2Instruction::ConvertSigned:
    return "convert_signed";
  case CooperativeMatrix2Instruction::ConvertUnsigned:
    return "convert_unsigned";
  case CooperativeMatrix2Instruction::LoadTensor:
    return "load_tensor";
  case CooperativeMatrix2Instruction::StoreTensor:
    return "store_tensor";
  }
  return "";
}

/// The instruction a function named `name` stands for, if it is a stand-in:
/// the prefix, the keyword, `__`, then a number that makes the name unique.
inline std::optional<CooperativeMatrix2Instruction>
getCooperativeMatrix2StandIn(llvm::StringRef name) {
  if (!name.consume_front(getCooperativeMatrix2StandInPrefix()))
    return std::nullopt;
  llvm::StringRef keyword = name.split("__").first;
  for (unsigned i = 0;
       i <= unsigned(CooperativeMatrix2Instruction::StoreTensor); ++i) {
    auto instruction = CooperativeMatrix2Instruction(i);
    if (keyword == stringifyCooperativeMatrix2Instruction(instruction))
      return instruction;
  }
  return std::nullopt;
}

} // namespace subgroup_matrix
} // namespace mlir

#endif // SUBGROUPMATRIX_CONVERSION_SUBGROUPMATRIXTOSPIRV_COOPERATIVEMATRIX2STANDINS_H
