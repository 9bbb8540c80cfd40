//===- InvocationLayout.cpp - which elements each invocation holds -------===//

#include "SubgroupMatrix/Conversion/SubgroupMatrixToInvocations/InvocationLayout.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::subgroup_matrix;

unsigned mlir::subgroup_matrix::getIntelK(Type component) {
  if (component.isF16() || component.isBF16())
    return 16;
  if (component.isF32())
    return 8;
  if (auto integer = dyn_cast<IntegerType>(component))
    if (integer.getWidth() == 8)
      return 32;
  return 0;
}

/// The layout's fields as they are before any rule applies: one
/// unpacked element per slot, one tile, one chunk of every row.
static InvocationLayout getUnpackedLayout(SubgroupMatrixTypeInterface type,
                                          unsigned subgroupSize) {
  InvocationLayout layout;
  layout.kind = type.getKind();
  layout.rows = type.getRows();
  layout.columns = type.getColumns();
  layout.subgroupSize = subgroupSize;
  layout.component = type.getElementType();
  layout.packedElement = getStorageType(layout.component);
  layout.elementsPerPacked = 1;
  layout.packedCount = 0;
  layout.tiles = 1;
  layout.chunks = 1;
  layout.chunkRows = layout.rows;
  layout.leftPerChunk = 0;
  return layout;
}

FailureOr<InvocationLayout>
InvocationLayout::get(SubgroupMatrixTypeInterface type, unsigned subgroupSize,
                      std::string &error) {
  MLIRContext *context = type.getContext();
  Builder builder(context);
  InvocationLayout layout = getUnpackedLayout(type, subgroupSize);
  unsigned bits = layout.component.getIntOrFloatBitWidth();
  auto describe = [&]() {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << Type(type);
    return text;
  };

  // Rows: one instruction has M of 1, 2, 4 or 8; larger M is split into
  // chunks of 8.
  if (layout.kind != MatrixKind::Right) {
    unsigned m = layout.rows;
    if (m > kIntelMaxRowsPerInstruction) {
      if (m % kIntelMaxRowsPerInstruction) {
        error = describe() + ": M = " + std::to_string(m) +
                " is above 8 and not a multiple of 8, so it cannot be split "
                "into instructions of M = 8";
        return failure();
      }
      layout.chunks = m / kIntelMaxRowsPerInstruction;
      layout.chunkRows = kIntelMaxRowsPerInstruction;
    } else if (m != 1 && m != 2 && m != 4 && m != 8) {
      error = describe() + ": M = " + std::to_string(m) +
              " is not a row count of the instruction (1, 2, 4 or 8)";
      return failure();
    }
  }
  // Columns: N is the subgroup size, or a multiple split into tiles.
  if (layout.kind != MatrixKind::Left) {
    if (layout.columns % subgroupSize) {
      error = describe() + ": N = " + std::to_string(layout.columns) +
              " is not a multiple of the subgroup size " +
              std::to_string(subgroupSize) +
              ", which is the N of the instruction";
      return failure();
    }
    layout.tiles = layout.columns / subgroupSize;
  }

  switch (layout.kind) {
  case MatrixKind::Result: {
    if (!layout.component.isF32() && !layout.component.isF16() &&
        !(isa<IntegerType>(layout.component) && bits == 32)) {
      error = describe() + ": the instruction accumulates into f32, f16 or "
                           "32-bit integers only";
      return failure();
    }
    layout.packedElement = getStorageType(layout.component);
    layout.packedCount = layout.tiles * layout.rows;
    return layout;
  }
  case MatrixKind::Right:
  case MatrixKind::Left: {
    unsigned k = getIntelK(layout.component);
    if (!k) {
      error = describe() +
              ": the extension multiplies f16, bf16, 8-bit "
              "integers and tf32 (f32), not " +
              [&] {
                std::string text;
                llvm::raw_string_ostream os(text);
                os << layout.component;
                return text;
              }();
      return failure();
    }
    unsigned matrixK =
        layout.kind == MatrixKind::Left ? layout.columns : layout.rows;
    if (matrixK != k) {
      error = describe() + ": K = " + std::to_string(matrixK) +
              " but the instruction's K for this component type is " +
              std::to_string(k);
      return failure();
    }
    if (layout.kind == MatrixKind::Right) {
      // VNNI: 8- and 16-bit rows packed into 32-bit values.
      layout.elementsPerPacked = bits >= 32 ? 1 : 32 / bits;
      layout.packedElement =
          bits >= 32 ? layout.component : builder.getIntegerType(32);
      layout.packedCount = layout.tiles * (k / layout.elementsPerPacked);
      return layout;
    }
    if (k >= subgroupSize) {
      layout.elementsPerPacked = k / subgroupSize;
      unsigned width = bits * layout.elementsPerPacked;
      layout.packedElement = layout.component.isF32() && width == 32
                                 ? layout.component
                                 : builder.getIntegerType(width);
      layout.leftPerChunk = layout.chunkRows;
    } else {
      unsigned spread = subgroupSize / k;
      layout.packedElement =
          bits == 32 ? layout.component : builder.getIntegerType(bits);
      layout.leftPerChunk = std::max(1u, layout.chunkRows / spread);
    }
    layout.packedCount = layout.chunks * layout.leftPerChunk;
    return layout;
  }
  }
  llvm_unreachable("unknown matrix kind");
}

FailureOr<InvocationLayout>
InvocationLayout::getEmulated(SubgroupMatrixTypeInterface type,
                              unsigned subgroupSize, std::string &error) {
  InvocationLayout layout = getUnpackedLayout(type, subgroupSize);
  layout.emulated = true;
  if (layout.columns % subgroupSize == 0) {
    layout.tiles = layout.columns / subgroupSize;
  } else if (subgroupSize % layout.columns == 0) {
    layout.tiles = 1;
    layout.spread = subgroupSize / layout.columns;
  } else {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "'" << Type(type) << "': " << layout.columns
       << " columns are neither a multiple nor a divisor of the subgroup "
          "size "
       << subgroupSize << ", so they cannot be spread over its invocations";
    error = text;
    return failure();
  }
  layout.packedCount =
      layout.tiles * llvm::divideCeil(layout.rows, layout.spread);
  return layout;
}

VectorType InvocationLayout::getVectorType() const {
  return VectorType::get({packedCount}, packedElement);
}

InvocationLayout::Position InvocationLayout::getPosition(unsigned lane,
                                                         unsigned packed,
                                                         unsigned sub) const {
  if (emulated) {
    unsigned width = std::min(columns, subgroupSize);
    unsigned tile = packed / getSlotsPerTile(), j = packed % getSlotsPerTile();
    unsigned row = lane / width + j * spread;
    bool valid = row < rows;
    return {valid ? row : 0, tile * subgroupSize + lane % width, valid};
  }
  switch (kind) {
  case MatrixKind::Result:
    return {packed % rows, packed / rows * subgroupSize + lane, true};
  case MatrixKind::Right: {
    unsigned perTile = packedCount / tiles;
    return {packed % perTile * elementsPerPacked + sub,
            packed / perTile * subgroupSize + lane, true};
  }
  case MatrixKind::Left: {
    unsigned chunk = packed / leftPerChunk, j = packed % leftPerChunk;
    unsigned k = columns;
    if (k >= subgroupSize)
      return {chunk * kIntelMaxRowsPerInstruction + j,
              lane * elementsPerPacked + sub, true};
    unsigned rowInChunk = lane / k + j * (subgroupSize / k);
    bool valid = rowInChunk < chunkRows;
    return {chunk * kIntelMaxRowsPerInstruction + (valid ? rowInChunk : 0),
            lane % k, valid};
  }
  }
  llvm_unreachable("unknown matrix kind");
}
