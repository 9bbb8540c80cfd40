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
  /// OpCooperativeMatrixReduceNV over 2x2 blocks (Reduce = 2x2): its result
  /// has half the rows and half the columns of its operand.
  ReduceBlocks2x2,
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
  /// OpCooperativeMatrixLoadTensorNV of a decode load: a two-dimensional
  /// tensor layout of the decoded tensor's bounds, clamped to zeros, and
  /// the stand-in's callback as the DecodeFunc. The stand-in's operands
  /// are those of DecodeAccessOperand, then the kernel's arguments the
  /// callback uses (buffers, and scalars as the kernel loads them), which
  /// are its parameters after the element's row and column.
  DecodeLoadTensor,
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

/// The operands of a DecodeLoadTensor stand-in, by position, before the
/// buffers its callback reads.
enum DecodeAccessOperand : unsigned {
  /// A buffer the decode function reads (a whole variable), the pointer
  /// that the load passes it, unused; and a matrix of zeros.
  DecodeAccessBuffer,
  DecodeAccessMatrix,
  /// The first element's position in the tensor, the tensor's rows and
  /// columns, and the matrix's rows and columns (the slice's spans).
  DecodeAccessRow,
  DecodeAccessColumn,
  DecodeAccessRows,
  DecodeAccessColumns,
  DecodeAccessMatrixRows,
  DecodeAccessMatrixColumns,
  /// The 32-bit integer constants 0, 1 and 2.
  DecodeAccessZero,
  DecodeAccessOne,
  DecodeAccessTwo,
  DecodeAccessOperandCount,
};

/// What the name of every stand-in starts with.
inline llvm::StringLiteral getCooperativeMatrix2StandInPrefix() {
  return "__sm_nv_coopmat2__";
}

/// What the name of a decode load's decode function starts with: a
/// function whose parameters after the position the serializer replaces by
/// the kernel's variables, or loads from them, that the load's call passes
/// (CooperativeMatrix2Instructions.cpp).
inline llvm::StringLiteral getCooperativeMatrix2DecodeFunctionPrefix() {
  return "sm_nv_coopmat2_decode";
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
  case CooperativeMatrix2Instruction::ReduceBlocks2x2:
    return "reduce_blocks2x2";
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
  case CooperativeMatrix2Instruction::DecodeLoadTensor:
    return "decode_load_tensor";
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
       i <= unsigned(CooperativeMatrix2Instruction::DecodeLoadTensor); ++i) {
    auto instruction = CooperativeMatrix2Instruction(i);
    if (keyword == stringifyCooperativeMatrix2Instruction(instruction))
      return instruction;
  }
  return std::nullopt;
}

} // namespace subgroup_matrix
} // namespace mlir

#endif // SUBGROUPMATRIX_CONVERSION_SUBGROUPMATRIXTOSPIRV_COOPERATIVEMATRIX2STANDINS_H
