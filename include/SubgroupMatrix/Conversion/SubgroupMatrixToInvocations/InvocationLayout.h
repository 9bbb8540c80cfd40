//===- InvocationLayout.h - which elements each invocation holds -*- C++
//-*-===//
//
// SPV_INTEL_subgroup_matrix_multiply_accumulate gives each invocation of a
// subgroup its own slice of every matrix operand, and Vulkan emulation
// (devices without matrix units) does the same without packing. This says,
// for a subgroup matrix type and a subgroup size, what each invocation
// holds and which matrix element each of its (packed) components is.
//
//===----------------------------------------------------------------------===//

#ifndef SUBGROUPMATRIX_CONVERSION_SUBGROUPMATRIXTOINVOCATIONS_INVOCATIONLAYOUT_H
#define SUBGROUPMATRIX_CONVERSION_SUBGROUPMATRIXTOINVOCATIONS_INVOCATIONLAYOUT_H

#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"

namespace mlir {
namespace subgroup_matrix {

/// The largest M of one OpSubgroupMatrixMultiplyAccumulateINTEL.
constexpr unsigned kIntelMaxRowsPerInstruction = 8;

/// The K of one instruction for a component type: 16 for 16-bit floats, 32
/// for 8-bit integers, 8 for tf32 (f32); 0 if the extension has none.
unsigned getIntelK(Type component);

/// How one invocation holds a matrix.
///
///  - result (M x N): one column per invocation and per group of
///    `subgroupSize` columns (a "tile"); element `t * M + r` is row r of
///    column `t * subgroupSize + lane`.
///  - right (K x N): per tile, the invocation's column, `elementsPerPacked`
///    consecutive rows packed into each 32-bit value (VNNI) for 8- and
///    16-bit components.
///  - left (M x K), per chunk of up to 8 rows: when K >= the subgroup size,
///    each invocation holds K / subgroupSize consecutive columns packed into
///    one value per row; when K is smaller, the rows of one column are
///    spread over subgroupSize / K invocations.
///
/// The emulated form (devices without matrix units, see `getEmulated`) uses
/// the result rule for every kind and no packing: invocation `lane` holds
/// column `t * subgroupSize + lane` of each tile t, every row; a matrix
/// narrower than the subgroup spreads its rows over `subgroupSize / columns`
/// invocations instead (invocation i holds column i % columns, rows
/// i / columns + j * spread).
struct InvocationLayout {
  MatrixKind kind;
  unsigned rows, columns, subgroupSize;
  Type component;             ///< The logical component type.
  Type packedElement;         ///< The vector element each invocation holds.
  unsigned elementsPerPacked; ///< Logical elements per packed element.
  unsigned packedCount;       ///< Length of the invocation's vector.
  unsigned tiles;             ///< N / subgroupSize (result and right).
  unsigned chunks;            ///< Row chunks of at most 8 (left and result).
  unsigned chunkRows;         ///< Rows per chunk.
  unsigned leftPerChunk;      ///< Packed elements per chunk (left).
  bool emulated = false;      ///< The emulated form (columns over lanes).
  unsigned spread = 1; ///< Invocations per column (emulated, narrow matrices).

  /// Computes the layout, or fails with a message naming the rule.
  static FailureOr<InvocationLayout> get(SubgroupMatrixTypeInterface type,
                                         unsigned subgroupSize,
                                         std::string &error);
  /// The emulated form of any matrix whose column count is a multiple or a
  /// divisor of the subgroup size, with its storage type unpacked.
  static FailureOr<InvocationLayout>
  getEmulated(SubgroupMatrixTypeInterface type, unsigned subgroupSize,
              std::string &error);
  /// `getEmulated` when `emulated`, `get` otherwise.
  static FailureOr<InvocationLayout> get(SubgroupMatrixTypeInterface type,
                                         unsigned subgroupSize, bool emulated,
                                         std::string &error) {
    return emulated ? getEmulated(type, subgroupSize, error)
                    : get(type, subgroupSize, error);
  }

  /// The slots each invocation holds per column tile (emulated form).
  unsigned getSlotsPerTile() const { return packedCount / tiles; }

  /// The vector type an invocation holds.
  VectorType getVectorType() const;

  /// The matrix element that invocation `lane` holds as logical element
  /// `sub` of its packed element `packed`: {row, column, valid}; `valid` is
  /// false for the padding slots of left matrices whose rows are spread over
  /// invocations.
  struct Position {
    unsigned row, column;
    bool valid;
  };
  Position getPosition(unsigned lane, unsigned packed, unsigned sub) const;
};

} // namespace subgroup_matrix
} // namespace mlir

#endif // SUBGROUPMATRIX_CONVERSION_SUBGROUPMATRIXTOINVOCATIONS_INVOCATIONLAYOUT_H
