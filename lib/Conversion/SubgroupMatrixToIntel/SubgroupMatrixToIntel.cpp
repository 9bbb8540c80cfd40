//===- SubgroupMatrixToIntel.cpp - per-invocation Intel matrices ----------===//
//
// Lowers subgroup matrices to the form SPV_INTEL_subgroup_matrix_multiply_
// accumulate works on: every invocation holds its own slice of each matrix
// (IntelLayout says which), loads and stores move each invocation's elements
// with the op's stride and layout, and `mma` becomes calls of
// __spirv_SubgroupMatrixMultiplyAccumulateINTEL, one per 8-row chunk and
// per subgroup-wide column tile.
//
// The same patterns build the emulated form for devices without matrix units
// (IntelLayout::getEmulated): every matrix is a list of scalars per
// invocation (a 1:N type conversion, since Vulkan shaders have no vectors
// longer than four) and `mma` is a sequence of multiply-adds whose operands
// come from other invocations by subgroup shuffles.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/Conversion/SubgroupMatrixToIntel/SubgroupMatrixToIntel.h"

#include "SubgroupMatrix/Conversion/SubgroupMatrixToIntel/IntelLayout.h"
#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/DialectConversion.h"

#include <map>

using namespace mlir;
using namespace mlir::subgroup_matrix;

//===----------------------------------------------------------------------===//
// Builtin names
//===----------------------------------------------------------------------===//

/// Itanium mangling of a builtin argument type, with the substitutions that
/// repeated vector types take.
static std::string mangleType(Type type,
                              SmallVectorImpl<std::string> &substitutable) {
  auto scalar = [](Type element) -> std::string {
    if (element.isF32())
      return "f";
    if (element.isF16())
      return "Dh";
    switch (element.getIntOrFloatBitWidth()) {
    case 8:
      return "c";
    case 16:
      return "s";
    case 64:
      return "l";
    default:
      return "i";
    }
  };
  auto vector = dyn_cast<VectorType>(type);
  if (!vector)
    return scalar(type);
  std::string text = "Dv" + std::to_string(vector.getNumElements()) + "_" +
                     scalar(vector.getElementType());
  for (auto [index, seen] : llvm::enumerate(substitutable))
    if (seen == text)
      return index == 0 ? "S_" : "S" + std::to_string(index - 1) + "_";
  substitutable.push_back(text);
  return text;
}

std::string mlir::subgroup_matrix::getIntelMultiplyBuiltinName(Type a, Type b,
                                                               Type c) {
  SmallVector<std::string> substitutable;
  std::string name = "__spirv_SubgroupMatrixMultiplyAccumulateINTEL";
  std::string mangled = "_Z" + std::to_string(name.size()) + name + "i";
  mangled += mangleType(a, substitutable);
  mangled += mangleType(b, substitutable);
  mangled += mangleType(c, substitutable);
  return mangled + "i";
}

uint32_t mlir::subgroup_matrix::getIntelMultiplyOperands(Type component) {
  if (component.isF16())
    return 0x400 | 0x800; // MatrixA/BPackedFloat16INTEL
  if (component.isBF16())
    return 0x1000 | 0x2000; // MatrixA/BPackedBFloat16INTEL
  if (component.isF32())
    return 0x100 | 0x200; // MatrixA/BTF32INTEL
  auto integer = cast<IntegerType>(component);
  uint32_t operands = 0x10 | 0x20; // MatrixA/BPackedInt8INTEL
  if (integer.isSigned())
    operands |= 0x1 | 0x2; // MatrixA/BSignedComponentsINTEL
  return operands;
}

//===----------------------------------------------------------------------===//
// Element positions and packing
//===----------------------------------------------------------------------===//

namespace {
/// Builds the per-invocation code of one op.
class InvocationBuilder {
public:
  /// `scalarOnly`: build no vectors (the emulated form).
  InvocationBuilder(OpBuilder &builder, Location loc, bool scalarOnly = false)
      : builder(builder), loc(loc), scalarOnly(scalarOnly) {}

  Value index(int64_t value) {
    return arith::ConstantIndexOp::create(builder, loc, value);
  }
  Value lane() {
    if (!laneId)
      laneId = gpu::LaneIdOp::create(builder, loc, /*upperBound=*/nullptr);
    return laneId;
  }

  /// Where logical element `sub` of packed element `packed` sits in the
  /// matrix for this invocation: (row, column, valid); `valid` is null when
  /// every invocation's element is real.
  std::tuple<Value, Value, Value> locate(const IntelLayout &layout,
                                         unsigned packed, unsigned sub) {
    unsigned s = layout.subgroupSize;
    auto mul = [&](Value a, int64_t b) {
      return arith::MulIOp::create(builder, loc, a, index(b)).getResult();
    };
    auto add = [&](Value a, Value b) {
      return arith::AddIOp::create(builder, loc, a, b).getResult();
    };
    if (layout.emulated) {
      unsigned width = std::min(layout.columns, s);
      unsigned perTile = layout.getSlotsPerTile();
      unsigned tile = packed / perTile, j = packed % perTile;
      if (width == s)
        return {index(j), add(index(tile * s), lane()), Value()};
      // Narrow matrices: invocation i holds column i % width, rows
      // i / width + j * spread.
      Value column = arith::RemUIOp::create(builder, loc, lane(), index(width));
      Value row =
          add(arith::DivUIOp::create(builder, loc, lane(), index(width)),
              index(j * layout.spread));
      if (layout.rows % layout.spread == 0)
        return {row, column, Value()};
      Value valid = arith::CmpIOp::create(
          builder, loc, arith::CmpIPredicate::ult, row, index(layout.rows));
      return {arith::SelectOp::create(builder, loc, valid, row, index(0)),
              column, valid};
    }
    switch (layout.kind) {
    case MatrixKind::Result: {
      unsigned tile = packed / layout.rows, row = packed % layout.rows;
      return {index(row), add(index(tile * s), lane()), Value()};
    }
    case MatrixKind::Right: {
      unsigned perTile = layout.packedCount / layout.tiles;
      unsigned tile = packed / perTile, group = packed % perTile;
      return {index(group * layout.elementsPerPacked + sub),
              add(index(tile * s), lane()), Value()};
    }
    case MatrixKind::Left: {
      unsigned chunk = packed / layout.leftPerChunk;
      unsigned j = packed % layout.leftPerChunk;
      unsigned k = layout.columns;
      if (k >= s) {
        Value column = add(mul(lane(), layout.elementsPerPacked), index(sub));
        return {index(chunk * kIntelMaxRowsPerInstruction + j), column,
                Value()};
      }
      // The rows of one column are spread over subgroupSize / K
      // invocations: invocation i holds rows i / K + j * (S / K).
      unsigned spread = s / k;
      Value rowInChunk =
          add(arith::DivUIOp::create(builder, loc, lane(), index(k)),
              index(j * spread));
      Value column = arith::RemUIOp::create(builder, loc, lane(), index(k));
      Value valid =
          arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ult,
                                rowInChunk, index(layout.chunkRows));
      // Invalid invocations read row 0, which exists, and drop the value.
      Value safeRow =
          arith::SelectOp::create(builder, loc, valid, rowInChunk, index(0));
      return {add(index(chunk * kIntelMaxRowsPerInstruction), safeRow), column,
              valid};
    }
    }
    llvm_unreachable("unknown matrix kind");
  }

  /// The integer of the component's width holding `value`'s bits.
  Value toBits(Value value, unsigned bits) {
    Type type = value.getType();
    if (isa<FloatType>(type))
      return arith::BitcastOp::create(builder, loc,
                                      builder.getIntegerType(bits), value);
    return value;
  }
  /// Back from bits to the storage type of the component.
  Value fromBits(Value bitsValue, Type storage) {
    if (isa<FloatType>(storage))
      return arith::BitcastOp::create(builder, loc, storage, bitsValue);
    return bitsValue;
  }

  /// Packs logical elements (storage-typed) into one packed element.
  Value pack(const IntelLayout &layout, ArrayRef<Value> elements) {
    if (layout.elementsPerPacked == 1) {
      Value element = elements.front();
      if (element.getType() == layout.packedElement)
        return element;
      return toBits(element, layout.packedElement.getIntOrFloatBitWidth());
    }
    unsigned bits = layout.component.getIntOrFloatBitWidth();
    Type wide = layout.packedElement;
    Value packed;
    for (auto [sub, element] : llvm::enumerate(elements)) {
      Value part =
          arith::ExtUIOp::create(builder, loc, wide, toBits(element, bits));
      if (sub)
        part = arith::ShLIOp::create(
            builder, loc, part,
            arith::ConstantIntOp::create(builder, loc, wide, sub * bits));
      packed =
          packed ? arith::OrIOp::create(builder, loc, packed, part).getResult()
                 : part;
    }
    return packed;
  }

  /// Unpacks logical element `sub` of a packed element (storage-typed).
  Value unpack(const IntelLayout &layout, Value packed, unsigned sub) {
    Type storage = getStorageType(layout.component);
    if (layout.elementsPerPacked == 1) {
      if (packed.getType() == storage)
        return packed;
      return fromBits(packed, storage);
    }
    unsigned bits = layout.component.getIntOrFloatBitWidth();
    Value shifted = packed;
    if (sub)
      shifted = arith::ShRUIOp::create(
          builder, loc, packed,
          arith::ConstantIntOp::create(builder, loc, packed.getType(),
                                       sub * bits));
    Value narrow = arith::TruncIOp::create(
        builder, loc, builder.getIntegerType(bits), shifted);
    return fromBits(narrow, storage);
  }

  /// A value per invocation of the subgroup: `values[lane]`, as `type`.
  /// Each table is built once per builder (an emulated mma reads many
  /// elements through the same few).
  Value perLane(ArrayRef<int64_t> values, Type type) {
    if (llvm::all_equal(values))
      return constant(values.front(), type);
    Value &table = tables[{type.getAsOpaquePointer(),
                           std::vector<int64_t>(values.begin(), values.end())}];
    if (!table)
      table = buildPerLane(values, type);
    return table;
  }

  /// `values[position]` for a position known only at run time.
  Value pick(ArrayRef<Value> values, Value position) {
    if (values.size() == 1)
      return values.front();
    if (!scalarOnly) {
      Value vector = vector::FromElementsOp::create(
          builder, loc,
          VectorType::get({int64_t(values.size())}, values.front().getType()),
          values);
      return vector::ExtractOp::create(builder, loc, vector,
                                       OpFoldResult(position));
    }
    Value result = values.front();
    for (auto [i, value] : llvm::enumerate(values.drop_front())) {
      Value isPosition = arith::CmpIOp::create(
          builder, loc, arith::CmpIPredicate::eq, position, index(i + 1));
      result = arith::SelectOp::create(builder, loc, isPosition, value, result);
    }
    return result;
  }

  OpBuilder &builder;
  Location loc;
  bool scalarOnly;
  Value laneId;

private:
  Value constant(int64_t value, Type type) {
    if (type.isIndex())
      return index(value);
    return arith::ConstantOp::create(builder, loc,
                                     builder.getIntegerAttr(type, value));
  }

  Value buildPerLane(ArrayRef<int64_t> values, Type type) {
    auto constant = [&](int64_t value) { return this->constant(value, type); };
    if (!scalarOnly) {
      SmallVector<APInt> words;
      for (int64_t value : values)
        words.push_back(APInt(type.getIntOrFloatBitWidth(), value));
      Value table = arith::ConstantOp::create(
          builder, loc,
          DenseIntElementsAttr::get(
              VectorType::get({int64_t(values.size())}, type), words));
      return vector::ExtractOp::create(builder, loc, table,
                                       OpFoldResult(lane()));
    }
    // Without vectors: one select per invocation that differs from the
    // first.
    Value result = constant(values.front());
    for (auto [i, value] : llvm::enumerate(values)) {
      if (value == values.front())
        continue;
      Value isLane = arith::CmpIOp::create(
          builder, loc, arith::CmpIPredicate::eq, lane(), index(i));
      result = arith::SelectOp::create(builder, loc, isLane, constant(value),
                                       result);
    }
    return result;
  }

  std::map<std::pair<const void *, std::vector<int64_t>>, Value> tables;
};

/// A 1-D view of a memref and the linear index of an element of it.
static FailureOr<std::pair<Value, Value>>
flatten(Operation *op, OpBuilder &builder, Value memref, ValueRange indices) {
  Location loc = op->getLoc();
  auto type = cast<MemRefType>(memref.getType());
  if (type.getRank() == 1)
    return std::make_pair(memref, Value(indices.front()));
  if (!type.getLayout().isIdentity())
    return op->emitOpError("the Intel lowering needs a 1-D memref or an "
                           "identity layout, got ")
           << type;
  // Collapse to one dimension and linearize the indices over the sizes.
  SmallVector<ReassociationIndices> all(1);
  for (int64_t i = 0; i < type.getRank(); ++i)
    all[0].push_back(i);
  Value flat = memref::CollapseShapeOp::create(builder, loc, memref, all);
  Value linear = indices.front();
  for (int64_t i = 1; i < type.getRank(); ++i) {
    Value size = memref::DimOp::create(builder, loc, memref, i);
    linear = arith::AddIOp::create(
        builder, loc, arith::MulIOp::create(builder, loc, linear, size),
        indices[i]);
  }
  return std::make_pair(flat, linear);
}

/// The layout of `type` for the subgroup size of the pattern set; reports
/// at `op` what the extension cannot express.
static FailureOr<IntelLayout> getLayout(Operation *op, Type type,
                                        unsigned subgroupSize, bool emulated) {
  std::string error;
  FailureOr<IntelLayout> layout = IntelLayout::get(
      cast<SubgroupMatrixTypeInterface>(type), subgroupSize, emulated, error);
  if (failed(layout))
    return op->emitOpError(error);
  return layout;
}

/// The slots of a converted matrix: the elements of the Intel form's
/// vector, or the emulated form's scalars themselves.
static SmallVector<Value> getSlots(OpBuilder &builder, Location loc,
                                   ValueRange converted) {
  if (converted.size() == 1 && isa<VectorType>(converted.front().getType())) {
    Value vector = converted.front();
    SmallVector<Value> slots;
    for (int64_t i = 0, e = cast<VectorType>(vector.getType()).getNumElements();
         i < e; ++i)
      slots.push_back(vector::ExtractOp::create(builder, loc, vector, i));
    return slots;
  }
  return llvm::to_vector(converted);
}

/// Replaces `op` by a matrix made of `slots` in `layout`'s form.
static void replaceWithSlots(ConversionPatternRewriter &rewriter, Operation *op,
                             const IntelLayout &layout, ValueRange slots) {
  if (layout.emulated) {
    rewriter.replaceOpWithMultiple(op, {slots});
    return;
  }
  rewriter.replaceOp(op, vector::FromElementsOp::create(rewriter, op->getLoc(),
                                                        layout.getVectorType(),
                                                        slots));
}

/// The one value each operand that is not a matrix converts to.
static SmallVector<Value> getSingleValues(ArrayRef<ValueRange> operands) {
  return llvm::map_to_vector(operands,
                             [](ValueRange range) { return range.front(); });
}

template <typename OpTy> struct IntelPattern : OpConversionPattern<OpTy> {
  IntelPattern(const TypeConverter &converter, MLIRContext *context,
               unsigned subgroupSize, bool emulated)
      : OpConversionPattern<OpTy>(converter, context),
        subgroupSize(subgroupSize), emulated(emulated) {}
  using OneToNOpAdaptor = typename OpConversionPattern<OpTy>::OneToNOpAdaptor;

  FailureOr<IntelLayout> getLayout(Operation *op, Type type) const {
    return ::getLayout(op, type, subgroupSize, emulated);
  }

  unsigned subgroupSize;
  bool emulated;
};

/// Elements per vector access of an emulated matrix whose invocations each
/// hold whole columns of column-major memory, which lie contiguously: four,
/// so that every access is 32, 64 or 128 bits wide and its vector is one
/// that SPIR-V holds without the Vector16 capability.
static constexpr unsigned kEmulatedAccessWidth = 4;

/// Whether each invocation's elements of `layout` are runs of contiguous
/// memory when the matrix is `colMajor`: whole columns per invocation.
static bool hasContiguousColumns(const IntelLayout &layout, bool colMajor) {
  return layout.emulated && colMajor && layout.spread == 1 &&
         layout.rows % kEmulatedAccessWidth == 0;
}

/// Calls `access(address, firstSlot)` for each run of
/// `kEmulatedAccessWidth` rows of each column an invocation of `layout`
/// holds (see hasContiguousColumns): `address` is the run's first element,
/// `firstSlot` the slot holding it.
static void forEachColumnRun(InvocationBuilder &b, const IntelLayout &layout,
                             Value base, Value stride,
                             llvm::function_ref<void(Value, unsigned)> access) {
  OpBuilder &builder = b.builder;
  Location loc = b.loc;
  unsigned perTile = layout.getSlotsPerTile();
  for (unsigned tile = 0; tile < layout.tiles; ++tile) {
    Value column = std::get<1>(b.locate(layout, tile * perTile, 0));
    Value start = arith::AddIOp::create(
        builder, loc, base,
        arith::MulIOp::create(builder, loc, column, stride));
    for (unsigned row = 0; row < layout.rows; row += kEmulatedAccessWidth)
      access(arith::AddIOp::create(builder, loc, start, b.index(row)),
             tile * perTile + row);
  }
}

struct LoadLowering : IntelPattern<LoadOp> {
  using IntelPattern::IntelPattern;

  LogicalResult
  matchAndRewrite(LoadOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<IntelLayout> layout = getLayout(op, op.getType());
    if (failed(layout))
      return failure();
    FailureOr<std::pair<Value, Value>> flat =
        flatten(op, rewriter, adaptor.getSource().front(),
                getSingleValues(adaptor.getIndices()));
    if (failed(flat))
      return failure();
    auto [memref, base] = *flat;
    Value stride = adaptor.getStride().front();
    InvocationBuilder b(rewriter, op.getLoc(), emulated);
    SmallVector<Value> packedElements;
    if (hasContiguousColumns(*layout, op.getColMajor())) {
      // One vector load per run of rows. Whether the buffer can be
      // addressed with vectors is decided later, for the whole kernel
      // (packWideAccesses); where it cannot, they become scalars again.
      auto vectorType =
          VectorType::get({kEmulatedAccessWidth}, layout->packedElement);
      forEachColumnRun(b, *layout, base, stride, [&](Value address, unsigned) {
        Value run = vector::LoadOp::create(rewriter, op.getLoc(), vectorType,
                                           memref, address);
        for (unsigned i = 0; i < kEmulatedAccessWidth; ++i)
          packedElements.push_back(
              vector::ExtractOp::create(rewriter, op.getLoc(), run, i));
      });
      replaceWithSlots(rewriter, op, *layout, packedElements);
      return success();
    }
    Type storage = getStorageType(layout->component);
    for (unsigned p = 0; p < layout->packedCount; ++p) {
      SmallVector<Value> elements;
      for (unsigned s = 0; s < layout->elementsPerPacked; ++s) {
        auto [row, column, valid] = b.locate(*layout, p, s);
        Value major = op.getColMajor() ? column : row;
        Value minor = op.getColMajor() ? row : column;
        Value address = arith::AddIOp::create(
            rewriter, op.getLoc(), base,
            arith::AddIOp::create(
                rewriter, op.getLoc(),
                arith::MulIOp::create(rewriter, op.getLoc(), major, stride),
                minor));
        Value element = memref::LoadOp::create(rewriter, op.getLoc(), memref,
                                               ValueRange{address});
        if (valid) {
          Value zero = arith::ConstantOp::create(rewriter, op.getLoc(),
                                                 rewriter.getZeroAttr(storage));
          element = arith::SelectOp::create(rewriter, op.getLoc(), valid,
                                            element, zero);
        }
        elements.push_back(element);
      }
      packedElements.push_back(b.pack(*layout, elements));
    }
    replaceWithSlots(rewriter, op, *layout, packedElements);
    return success();
  }
};

struct StoreLowering : IntelPattern<StoreOp> {
  using IntelPattern::IntelPattern;

  LogicalResult
  matchAndRewrite(StoreOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<IntelLayout> layout = getLayout(op, op.getValue().getType());
    if (failed(layout))
      return failure();
    FailureOr<std::pair<Value, Value>> flat =
        flatten(op, rewriter, adaptor.getTarget().front(),
                getSingleValues(adaptor.getIndices()));
    if (failed(flat))
      return failure();
    auto [memref, base] = *flat;
    Value stride = adaptor.getStride().front();
    InvocationBuilder b(rewriter, op.getLoc(), emulated);
    Location loc = op.getLoc();
    SmallVector<Value> slots = getSlots(rewriter, loc, adaptor.getValue());
    if (hasContiguousColumns(*layout, op.getColMajor())) {
      // As in LoadLowering: a vector store per run of rows.
      auto vectorType =
          VectorType::get({kEmulatedAccessWidth}, layout->packedElement);
      forEachColumnRun(
          b, *layout, base, stride, [&](Value address, unsigned firstSlot) {
            Value run = vector::FromElementsOp::create(
                rewriter, loc, vectorType,
                ArrayRef(slots).slice(firstSlot, kEmulatedAccessWidth));
            vector::StoreOp::create(rewriter, loc, run, memref, address);
          });
      rewriter.eraseOp(op);
      return success();
    }
    for (unsigned p = 0; p < layout->packedCount; ++p) {
      Value packed = slots[p];
      for (unsigned s = 0; s < layout->elementsPerPacked; ++s) {
        auto [row, column, valid] = b.locate(*layout, p, s);
        Value major = op.getColMajor() ? column : row;
        Value minor = op.getColMajor() ? row : column;
        Value address = arith::AddIOp::create(
            rewriter, loc, base,
            arith::AddIOp::create(
                rewriter, loc,
                arith::MulIOp::create(rewriter, loc, major, stride), minor));
        Value element = b.unpack(*layout, packed, s);
        if (!valid) {
          memref::StoreOp::create(rewriter, loc, element, memref,
                                  ValueRange{address});
          continue;
        }
        auto guard = scf::IfOp::create(rewriter, loc, valid,
                                       /*withElseRegion=*/false);
        OpBuilder::InsertionGuard insertion(rewriter);
        rewriter.setInsertionPoint(guard.thenBlock()->getTerminator());
        memref::StoreOp::create(rewriter, loc, element, memref,
                                ValueRange{address});
      }
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// The component value of a scalar operand: floats as they are, integers
/// clamped to an 8-bit component's range (read as signed or unsigned like
/// the component) and narrowed.
static Value scalarToComponent(OpBuilder &builder, Location loc, Value scalar,
                               Type component) {
  auto integer = dyn_cast<IntegerType>(component);
  if (!integer || integer.getWidth() == 32)
    return scalar;
  unsigned width = integer.getWidth();
  Type i32 = builder.getI32Type();
  auto constant = [&](int64_t value) {
    return arith::ConstantIntOp::create(builder, loc, i32, value);
  };
  Value clamped;
  if (integer.isSigned())
    clamped = arith::MinSIOp::create(
        builder, loc,
        arith::MaxSIOp::create(builder, loc, scalar,
                               constant(-(int64_t(1) << (width - 1)))),
        constant((int64_t(1) << (width - 1)) - 1));
  else
    clamped = arith::MinUIOp::create(builder, loc, scalar,
                                     constant((int64_t(1) << width) - 1));
  return arith::TruncIOp::create(builder, loc, builder.getIntegerType(width),
                                 clamped);
}

struct SplatLowering : IntelPattern<SplatOp> {
  using IntelPattern::IntelPattern;

  LogicalResult
  matchAndRewrite(SplatOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<IntelLayout> layout = getLayout(op, op.getType());
    if (failed(layout))
      return failure();
    InvocationBuilder b(rewriter, op.getLoc(), emulated);
    Value element = scalarToComponent(
        rewriter, op.getLoc(), adaptor.getValue().front(), layout->component);
    SmallVector<Value> copies(layout->elementsPerPacked, element);
    Value packed = b.pack(*layout, copies);
    if (emulated) {
      replaceWithSlots(rewriter, op, *layout,
                       SmallVector<Value>(layout->packedCount, packed));
      return success();
    }
    rewriter.replaceOpWithNewOp<vector::BroadcastOp>(
        op, layout->getVectorType(), packed);
    return success();
  }
};

/// Extracts `count` consecutive elements at `offset` (a scalar when count is
/// 1, as the instruction takes for M = 1). Shuffles, unlike strided slices,
/// lower directly to LLVM.
static Value slice(OpBuilder &builder, Location loc, Value vector,
                   unsigned offset, unsigned count) {
  if (count == 1)
    return vector::ExtractOp::create(builder, loc, vector, offset);
  SmallVector<int64_t> mask;
  for (unsigned i = 0; i < count; ++i)
    mask.push_back(offset + i);
  return vector::ShuffleOp::create(builder, loc, vector, vector, mask);
}

/// Writes `part` (a scalar or a vector) into `vector` at `offset`.
static Value insert(OpBuilder &builder, Location loc, Value part, Value vector,
                    unsigned offset) {
  auto partType = dyn_cast<VectorType>(part.getType());
  if (!partType)
    return vector::InsertOp::create(builder, loc, part, vector, offset);
  int64_t length = cast<VectorType>(vector.getType()).getNumElements();
  int64_t count = partType.getNumElements();
  SmallVector<int64_t> mask;
  for (int64_t i = 0; i < length; ++i)
    mask.push_back(i >= offset && i < offset + count ? length + (i - offset)
                                                     : i);
  return vector::ShuffleOp::create(builder, loc, vector, part, mask);
}

/// Lowers `mma` (with an accumulator) and `multiply` (with zeros).
template <typename OpTy> struct MultiplyLowering : IntelPattern<OpTy> {
  using IntelPattern<OpTy>::IntelPattern;
  using OneToNOpAdaptor = typename IntelPattern<OpTy>::OneToNOpAdaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    FailureOr<IntelLayout> left = this->getLayout(op, op.getLeft().getType());
    FailureOr<IntelLayout> right = this->getLayout(op, op.getRight().getType());
    FailureOr<IntelLayout> result =
        this->getLayout(op, op.getResult().getType());
    if (failed(left) || failed(right) || failed(result))
      return failure();
    Value accumulator;
    if constexpr (std::is_same_v<OpTy, MmaOp>)
      accumulator = adaptor.getAcc().front();
    else
      accumulator = arith::ConstantOp::create(
          rewriter, loc, rewriter.getZeroAttr(result->getVectorType()));

    auto module = op->template getParentOfType<gpu::GPUModuleOp>();
    if (!module)
      return rewriter.notifyMatchFailure(op, "not in a gpu.module");
    Type component = left->component;
    Value k = arith::ConstantIntOp::create(rewriter, loc, rewriter.getI32Type(),
                                           getIntelK(component));
    Value operands =
        arith::ConstantIntOp::create(rewriter, loc, rewriter.getI32Type(),
                                     getIntelMultiplyOperands(component));
    unsigned rightPerTile = right->packedCount / right->tiles;
    Value output = accumulator;
    for (unsigned chunk = 0; chunk < left->chunks; ++chunk) {
      Value a = slice(rewriter, loc, adaptor.getLeft().front(),
                      chunk * left->leftPerChunk, left->leftPerChunk);
      for (unsigned tile = 0; tile < right->tiles; ++tile) {
        Value bTile = slice(rewriter, loc, adaptor.getRight().front(),
                            tile * rightPerTile, rightPerTile);
        unsigned offset = tile * result->rows + chunk * result->chunkRows;
        Value c = slice(rewriter, loc, accumulator, offset, result->chunkRows);
        std::string name = getIntelMultiplyBuiltinName(
            a.getType(), bTile.getType(), c.getType());
        auto function = getOrDeclare(rewriter, module, name,
                                     {k.getType(), a.getType(), bTile.getType(),
                                      c.getType(), operands.getType()},
                                     c.getType());
        Value d = func::CallOp::create(rewriter, loc, function,
                                       ValueRange{k, a, bTile, c, operands})
                      .getResult(0);
        output = insert(rewriter, loc, d, output, offset);
      }
    }
    rewriter.replaceOp(op, output);
    return success();
  }

  static func::FuncOp getOrDeclare(OpBuilder &builder, gpu::GPUModuleOp module,
                                   StringRef name, ArrayRef<Type> inputs,
                                   Type result) {
    if (auto existing = module.lookupSymbol<func::FuncOp>(name))
      return existing;
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(module.getBody());
    auto function =
        func::FuncOp::create(builder, module.getLoc(), name,
                             builder.getFunctionType(inputs, result));
    function.setPrivate();
    return function;
  }
};

/// Scalar ops work element by element on the invocation's slice: unpack,
/// apply the component-typed operation, pack again.
template <typename OpTy> struct ScalarOpLowering : IntelPattern<OpTy> {
  using IntelPattern<OpTy>::IntelPattern;
  using OneToNOpAdaptor = typename IntelPattern<OpTy>::OneToNOpAdaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    FailureOr<IntelLayout> layout = this->getLayout(op, op.getType());
    if (failed(layout))
      return failure();
    InvocationBuilder b(rewriter, loc, this->emulated);
    Type component = layout->component;
    Value scalar = scalarToComponent(rewriter, loc, adaptor.getScalar().front(),
                                     component);
    bool isFloat = isa<FloatType>(component);
    // 16-bit floats compute in f32 and round once, which is exact for one
    // operation.
    Type f32 = rewriter.getF32Type();
    if (isFloat && !component.isF32())
      scalar = arith::ExtFOp::create(rewriter, loc, f32, scalar);
    SmallVector<Value> packedElements;
    SmallVector<Value> slots = getSlots(rewriter, loc, adaptor.getMatrix());
    for (unsigned p = 0; p < layout->packedCount; ++p) {
      Value packed = slots[p];
      SmallVector<Value> elements;
      for (unsigned s = 0; s < layout->elementsPerPacked; ++s) {
        Value element = b.unpack(*layout, packed, s);
        if (isFloat && !component.isF32())
          element = arith::ExtFOp::create(rewriter, loc, f32, element);
        Value computed = compute(rewriter, loc, isFloat, element, scalar);
        if (isFloat && !component.isF32())
          computed =
              arith::TruncFOp::create(rewriter, loc, component, computed);
        elements.push_back(computed);
      }
      packedElements.push_back(b.pack(*layout, elements));
    }
    replaceWithSlots(rewriter, op, *layout, packedElements);
    return success();
  }

  static Value compute(OpBuilder &builder, Location loc, bool isFloat, Value a,
                       Value b) {
    if constexpr (std::is_same_v<OpTy, ScalarAddOp>)
      return isFloat ? arith::AddFOp::create(builder, loc, a, b).getResult()
                     : arith::AddIOp::create(builder, loc, a, b).getResult();
    if constexpr (std::is_same_v<OpTy, ScalarSubOp>)
      return isFloat ? arith::SubFOp::create(builder, loc, a, b).getResult()
                     : arith::SubIOp::create(builder, loc, a, b).getResult();
    if constexpr (std::is_same_v<OpTy, ScalarMulOp>)
      return isFloat ? arith::MulFOp::create(builder, loc, a, b).getResult()
                     : arith::MulIOp::create(builder, loc, a, b).getResult();
    return arith::DivFOp::create(builder, loc, a, b);
  }
};

//===----------------------------------------------------------------------===//
// Conversion, element-wise functions and reductions, in registers
//===----------------------------------------------------------------------===//

/// bf16 <-> f32. LLVM's SPIR-V backend declares no bf16 arithmetic type
/// without SPV_KHR_bfloat16, which Intel's compiler does not take, so bf16
/// values only move as bits: these conversions become integer arithmetic
/// (round to nearest even, NaNs kept quiet) when sm-lower-to-intel expands
/// them with upstream's arith::populateExpandBFloat16Patterns.
static Value bfloat16ToF32(OpBuilder &builder, Location loc, Value element) {
  return arith::ExtFOp::create(builder, loc, builder.getF32Type(), element);
}
static Value f32ToBFloat16(OpBuilder &builder, Location loc, Value element) {
  return arith::TruncFOp::create(builder, loc, builder.getBF16Type(), element);
}

/// Converts one element, held in `from`'s storage type, to `to`'s storage
/// type with the semantics of subgroup_matrix.convert.
static Value convertElement(OpBuilder &builder, Location loc, Value element,
                            Type from, Type to) {
  if (from == to)
    return element;
  Type storage = getStorageType(to);
  if (from.isBF16()) {
    element = bfloat16ToF32(builder, loc, element);
    from = builder.getF32Type();
    if (to.isF32())
      return element;
  }
  if (to.isBF16()) {
    Value wide =
        convertElement(builder, loc, element, from, builder.getF32Type());
    return f32ToBFloat16(builder, loc, wide);
  }
  if (isa<FloatType>(to)) {
    if (isa<FloatType>(from)) {
      if (from.getIntOrFloatBitWidth() == to.getIntOrFloatBitWidth())
        element =
            arith::ExtFOp::create(builder, loc, builder.getF32Type(), element);
      if (element.getType().getIntOrFloatBitWidth() <
          to.getIntOrFloatBitWidth())
        return arith::ExtFOp::create(builder, loc, storage, element);
      return arith::TruncFOp::create(builder, loc, storage, element);
    }
    if (cast<IntegerType>(from).isSigned())
      return arith::SIToFPOp::create(builder, loc, storage, element);
    return arith::UIToFPOp::create(builder, loc, storage, element);
  }
  unsigned fromBits = from.getIntOrFloatBitWidth(),
           toBits = to.getIntOrFloatBitWidth();
  if (fromBits == toBits)
    return element;
  if (toBits < fromBits)
    return arith::TruncIOp::create(builder, loc, storage, element);
  if (cast<IntegerType>(from).isSigned())
    return arith::ExtSIOp::create(builder, loc, storage, element);
  return arith::ExtUIOp::create(builder, loc, storage, element);
}

/// `value` from another invocation of the subgroup, through a 32-bit
/// shuffle: invocation `lane` (IDX), or this invocation's lane XOR `lane`
/// (XOR).
static Value shuffleFrom(OpBuilder &builder, Location loc, Value value,
                         Value lane, unsigned subgroupSize,
                         gpu::ShuffleMode mode = gpu::ShuffleMode::IDX,
                         bool broadcast = false) {
  Type type = value.getType();
  Type i32 = builder.getI32Type();
  unsigned bits = type.getIntOrFloatBitWidth();
  Value word = value;
  if (isa<FloatType>(type))
    word = arith::BitcastOp::create(builder, loc, builder.getIntegerType(bits),
                                    word);
  if (bits < 32)
    word = arith::ExtUIOp::create(builder, loc, i32, word);
  Value shuffled;
  if (broadcast) {
    shuffled = gpu::SubgroupBroadcastOp::create(
        builder, loc, word, lane,
        gpu::BroadcastTypeAttr::get(builder.getContext(),
                                    gpu::BroadcastType::specific_lane));
  } else {
    Value width = arith::ConstantIntOp::create(builder, loc, i32, subgroupSize);
    shuffled = gpu::ShuffleOp::create(builder, loc, word, lane, width, mode)
                   .getShuffleResult();
  }
  if (bits < 32)
    shuffled = arith::TruncIOp::create(builder, loc,
                                       builder.getIntegerType(bits), shuffled);
  if (isa<FloatType>(type))
    shuffled = arith::BitcastOp::create(builder, loc, type, shuffled);
  return shuffled;
}

/// Where each element slot of a destination layout gets its value in a
/// source layout, per destination invocation: the source invocation and
/// slot. Slots that hold nothing (padding) take slot 0 of their own
/// invocation.
struct ElementSource {
  unsigned lane, packed, sub;
};
using MovePlan = SmallVector<SmallVector<ElementSource>>; // [slot][lane]

/// Where each element of a layout lives: {row, column} -> {lane, slot}.
static DenseMap<std::pair<unsigned, unsigned>, ElementSource>
getHolders(const IntelLayout &layout) {
  DenseMap<std::pair<unsigned, unsigned>, ElementSource> holders;
  for (unsigned lane = 0; lane < layout.subgroupSize; ++lane)
    for (unsigned p = 0; p < layout.packedCount; ++p)
      for (unsigned s = 0; s < layout.elementsPerPacked; ++s) {
        IntelLayout::Position position = layout.getPosition(lane, p, s);
        if (position.valid)
          holders.try_emplace({position.row, position.column},
                              ElementSource{lane, p, s});
      }
  return holders;
}

static FailureOr<MovePlan> planMoves(const IntelLayout &from,
                                     const IntelLayout &to) {
  DenseMap<std::pair<unsigned, unsigned>, ElementSource> holder =
      getHolders(from);
  MovePlan plan;
  for (unsigned p = 0; p < to.packedCount; ++p)
    for (unsigned s = 0; s < to.elementsPerPacked; ++s) {
      SmallVector<ElementSource> sources;
      for (unsigned lane = 0; lane < to.subgroupSize; ++lane) {
        IntelLayout::Position position = to.getPosition(lane, p, s);
        if (!position.valid) {
          sources.push_back({lane, 0, 0});
          continue;
        }
        auto found = holder.find({position.row, position.column});
        if (found == holder.end())
          return failure();
        sources.push_back(found->second);
      }
      plan.push_back(std::move(sources));
    }
  return plan;
}

/// The element that each invocation `lane` needs from `sources[lane]` of a
/// matrix in layout `from` (slots `source`), in the component's storage
/// type. An element another invocation holds comes by shuffle: one per
/// distinct source slot, each invocation then picking its own.
static Value gatherElement(InvocationBuilder &b, ArrayRef<Value> source,
                           const IntelLayout &from,
                           ArrayRef<ElementSource> sources) {
  OpBuilder &builder = b.builder;
  Location loc = b.loc;
  // The distinct source slots, in order of first use.
  SmallVector<std::pair<unsigned, unsigned>> slots;
  for (const ElementSource &element : sources)
    if (!llvm::is_contained(slots, std::make_pair(element.packed, element.sub)))
      slots.push_back({element.packed, element.sub});
  Value element;
  for (auto [packedIndex, sub] : slots) {
    Value value = b.unpack(from, source[packedIndex], sub);
    // bf16 moves as bits (see bfloat16ToF32).
    if (value.getType().isBF16())
      value =
          arith::BitcastOp::create(builder, loc, builder.getI16Type(), value);
    SmallVector<int64_t> sourceLanes;
    SmallVector<int64_t> wanted;
    bool local = true;
    for (auto [lane, candidate] : llvm::enumerate(sources)) {
      bool uses = candidate.packed == packedIndex && candidate.sub == sub;
      sourceLanes.push_back(uses ? candidate.lane : lane);
      wanted.push_back(uses);
      local &= !uses || candidate.lane == lane;
    }
    // Every invocation reading one invocation's value is a broadcast, which
    // the emulated form (Vulkan) expresses as such.
    bool fromOneLane = llvm::all_equal(sourceLanes) &&
                       llvm::all_of(wanted, [](int64_t use) { return use; });
    if (!local)
      value = shuffleFrom(builder, loc, value,
                          b.perLane(sourceLanes, builder.getI32Type()),
                          from.subgroupSize, gpu::ShuffleMode::IDX,
                          /*broadcast=*/b.scalarOnly && fromOneLane);
    element = element
                  ? Value(arith::SelectOp::create(
                        builder, loc, b.perLane(wanted, builder.getI1Type()),
                        value, element))
                  : value;
  }
  if (from.component.isBF16())
    element =
        arith::BitcastOp::create(builder, loc, builder.getBF16Type(), element);
  return element;
}

/// Gathers the elements of `source` (in layout `from`) into the slots of
/// layout `to`, converting each with `convert`; returns the slots.
static SmallVector<Value>
moveElements(OpBuilder &builder, Location loc, ArrayRef<Value> source,
             const IntelLayout &from, const IntelLayout &to,
             const MovePlan &plan, function_ref<Value(Value)> convert) {
  InvocationBuilder b(builder, loc, to.emulated);
  SmallVector<Value> packedElements, elements;
  for (const SmallVector<ElementSource> &sources : plan) {
    elements.push_back(convert(gatherElement(b, source, from, sources)));
    if (elements.size() == to.elementsPerPacked) {
      packedElements.push_back(b.pack(to, elements));
      elements.clear();
    }
  }
  return packedElements;
}

/// Whether an invocation of `layout` holds every element of the columns it
/// multiplies with (no exchange needed for a right operand).
static bool holdsWholeColumns(const IntelLayout &layout) {
  return layout.spread == 1;
}

/// The scratch words one multiplication needs per subgroup: its left
/// operand, and its right operand where invocations do not hold whole
/// columns.
static int64_t getExchangeWords(const IntelLayout &left,
                                const IntelLayout &right) {
  return int64_t(left.rows) * left.columns +
         (holdsWholeColumns(right) ? 0 : int64_t(right.rows) * right.columns);
}

/// Lowers `mma` and `multiply` of the emulated form: every invocation sums,
/// for each of its result slots, the K products of its row of the left and
/// its column of the right matrix, in f32 (floats) or 32-bit integers, and
/// rounds once. Operand elements held by other invocations come by shuffle
/// (each distinct fetch once per op; the emulated layout keeps the right
/// matrix's column local and broadcasts each left element) or, with an
/// exchange scratch buffer, through workgroup memory.
template <typename OpTy> struct EmulatedMultiplyLowering : IntelPattern<OpTy> {
  EmulatedMultiplyLowering(const TypeConverter &converter, MLIRContext *context,
                           unsigned subgroupSize,
                           const EmulatedOperandExchange &exchange)
      : IntelPattern<OpTy>(converter, context, subgroupSize,
                           /*emulated=*/true),
        exchange(exchange) {}
  using OneToNOpAdaptor = typename IntelPattern<OpTy>::OneToNOpAdaptor;

  EmulatedOperandExchange exchange;

  /// Writes `slots` (widened to `computeType`) into this subgroup's scratch
  /// at `offset`, row-major, and returns the address of element (0, 0).
  Value writeToScratch(InvocationBuilder &b, const IntelLayout &layout,
                       ArrayRef<Value> slots, Value subgroupBase,
                       int64_t offset,
                       llvm::function_ref<Value(Value)> toWord) const {
    OpBuilder &builder = b.builder;
    Location loc = b.loc;
    Value start =
        arith::AddIOp::create(builder, loc, subgroupBase, b.index(offset));
    for (unsigned p = 0; p < layout.packedCount; ++p) {
      auto [row, column, valid] = b.locate(layout, p, 0);
      Value address = arith::AddIOp::create(
          builder, loc, start,
          arith::AddIOp::create(
              builder, loc,
              arith::MulIOp::create(builder, loc, row, b.index(layout.columns)),
              column));
      Value word = toWord(slots[p]);
      if (!valid) {
        memref::StoreOp::create(builder, loc, word, exchange.scratch, address);
        continue;
      }
      auto guard = scf::IfOp::create(builder, loc, valid,
                                     /*withElseRegion=*/false);
      OpBuilder::InsertionGuard insertion(builder);
      builder.setInsertionPoint(guard.thenBlock()->getTerminator());
      memref::StoreOp::create(builder, loc, word, exchange.scratch, address);
    }
    return start;
  }

  LogicalResult
  matchAndRewrite(OpTy op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    FailureOr<IntelLayout> left = this->getLayout(op, op.getLeft().getType());
    FailureOr<IntelLayout> right = this->getLayout(op, op.getRight().getType());
    FailureOr<IntelLayout> result =
        this->getLayout(op, op.getResult().getType());
    if (failed(left) || failed(right) || failed(result))
      return failure();
    InvocationBuilder b(rewriter, loc, /*scalarOnly=*/true);
    SmallVector<Value> leftSlots = getSlots(rewriter, loc, adaptor.getLeft());
    SmallVector<Value> rightSlots = getSlots(rewriter, loc, adaptor.getRight());
    SmallVector<Value> accumulators;
    if constexpr (std::is_same_v<OpTy, MmaOp>)
      accumulators = getSlots(rewriter, loc, adaptor.getAcc());
    auto leftHolders = getHolders(*left), rightHolders = getHolders(*right);

    Type resultComponent = result->component;
    bool isFloat = isa<FloatType>(resultComponent);
    Type computeType =
        isFloat ? Type(rewriter.getF32Type()) : Type(rewriter.getI32Type());
    auto widen = [&](Value value, Type component) -> Value {
      if (component.isBF16())
        return bfloat16ToF32(rewriter, loc, value);
      if (value.getType() == computeType)
        return value;
      if (isFloat)
        return arith::ExtFOp::create(rewriter, loc, computeType, value);
      if (cast<IntegerType>(component).isSigned())
        return arith::ExtSIOp::create(rewriter, loc, computeType, value);
      return arith::ExtUIOp::create(rewriter, loc, computeType, value);
    };
    // One fetch per operand and per distinct set of sources.
    std::map<std::pair<bool, std::vector<unsigned>>, Value> fetched;
    auto fetch = [&](bool fromLeft, ArrayRef<ElementSource> sources) {
      std::vector<unsigned> key;
      for (const ElementSource &source : sources)
        key.insert(key.end(), {source.lane, source.packed, source.sub});
      Value &value = fetched[{fromLeft, key}];
      if (!value) {
        const IntelLayout &layout = fromLeft ? *left : *right;
        value = widen(gatherElement(b, fromLeft ? leftSlots : rightSlots,
                                    layout, sources),
                      layout.component);
      }
      return value;
    };

    unsigned lanes = result->subgroupSize, depth = left->columns;
    // Through workgroup memory: the operands go there as 32-bit words of the
    // compute type, between barriers (the first keeps the previous
    // multiplication's reads before these writes).
    Value leftStart, rightStart;
    auto toWord = [&](Value slot, Type component) -> Value {
      Value wide = widen(slot, component);
      return isFloat ? arith::BitcastOp::create(rewriter, loc,
                                                rewriter.getI32Type(), wide)
                           .getResult()
                     : wide;
    };
    auto fromWord = [&](Value word) -> Value {
      return isFloat
                 ? arith::BitcastOp::create(rewriter, loc, computeType, word)
                       .getResult()
                 : word;
    };
    if (exchange.scratch) {
      Value subgroupBase = arith::MulIOp::create(
          rewriter, loc, gpu::SubgroupIdOp::create(rewriter, loc, nullptr),
          b.index(exchange.wordsPerSubgroup));
      exchange.buildSubgroupBarrier(rewriter, loc);
      leftStart =
          writeToScratch(b, *left, leftSlots, subgroupBase, 0, [&](Value slot) {
            return toWord(slot, left->component);
          });
      if (!holdsWholeColumns(*right))
        rightStart = writeToScratch(
            b, *right, rightSlots, subgroupBase,
            int64_t(left->rows) * left->columns,
            [&](Value slot) { return toWord(slot, right->component); });
      exchange.buildSubgroupBarrier(rewriter, loc);
    }
    auto readScratch = [&](Value address) {
      return fromWord(
          memref::LoadOp::create(rewriter, loc, exchange.scratch, address));
    };
    SmallVector<Value> outputs;
    for (unsigned p = 0; p < result->packedCount; ++p) {
      SmallVector<IntelLayout::Position> positions;
      for (unsigned lane = 0; lane < lanes; ++lane)
        positions.push_back(result->getPosition(lane, p, 0));
      // Through workgroup memory: where this slot's row of the left operand
      // starts, and its column of the right one.
      Value leftRow, rightColumn;
      if (leftStart) {
        auto [row, column, valid] = b.locate(*result, p, 0);
        leftRow = arith::AddIOp::create(
            rewriter, loc, leftStart,
            arith::MulIOp::create(rewriter, loc, row, b.index(depth)));
        if (rightStart)
          rightColumn =
              arith::AddIOp::create(rewriter, loc, rightStart, column);
      }
      Value total = accumulators.empty()
                        ? arith::ConstantOp::create(
                              rewriter, loc, rewriter.getZeroAttr(computeType))
                              .getResult()
                        : widen(accumulators[p], resultComponent);
      for (unsigned k = 0; k < depth; ++k) {
        // Padding slots (rows past the matrix) compute anything; their
        // lanes read their own first slot.
        SmallVector<ElementSource> leftSources, rightSources;
        for (auto [lane, position] : llvm::enumerate(positions)) {
          if (!position.valid) {
            leftSources.push_back({unsigned(lane), 0, 0});
            rightSources.push_back({unsigned(lane), 0, 0});
            continue;
          }
          leftSources.push_back(leftHolders.lookup({position.row, k}));
          rightSources.push_back(rightHolders.lookup({k, position.column}));
        }
        Value product, x, y;
        if (leftRow) {
          x = readScratch(
              arith::AddIOp::create(rewriter, loc, leftRow, b.index(k)));
          y = rightColumn ? readScratch(arith::AddIOp::create(
                                rewriter, loc, rightColumn,
                                b.index(k * right->columns)))
                          : fetch(false, rightSources);
        } else {
          x = fetch(true, leftSources);
          y = fetch(false, rightSources);
        }
        if (isFloat)
          product = arith::MulFOp::create(rewriter, loc, x, y);
        else
          product = arith::MulIOp::create(rewriter, loc, x, y);
        total = isFloat ? arith::AddFOp::create(rewriter, loc, total, product)
                              .getResult()
                        : arith::AddIOp::create(rewriter, loc, total, product)
                              .getResult();
      }
      if (resultComponent.isBF16())
        total = f32ToBFloat16(rewriter, loc, total);
      else if (isFloat && !resultComponent.isF32())
        total = arith::TruncFOp::create(rewriter, loc, resultComponent, total);
      outputs.push_back(total);
    }
    replaceWithSlots(rewriter, op, *result, outputs);
    return success();
  }
};

struct ConvertLowering : IntelPattern<ConvertOp> {
  using IntelPattern::IntelPattern;

  LogicalResult
  matchAndRewrite(ConvertOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<IntelLayout> from = getLayout(op, op.getSource().getType());
    FailureOr<IntelLayout> to = getLayout(op, op.getType());
    if (failed(from) || failed(to))
      return failure();
    FailureOr<MovePlan> moves = planMoves(*from, *to);
    if (failed(moves))
      return op.emitOpError("cannot find every element of ")
             << op.getType() << " in " << op.getSource().getType();
    Location loc = op.getLoc();
    Type fromComponent = from->component, toComponent = to->component;
    SmallVector<Value> moved = moveElements(
        rewriter, loc, getSlots(rewriter, loc, adaptor.getSource()), *from, *to,
        *moves, [&](Value element) {
          return convertElement(rewriter, loc, element, fromComponent,
                                toComponent);
        });
    replaceWithSlots(rewriter, op, *to, moved);
    return success();
  }
};

/// Each invocation computes its own elements: the body runs once per slot,
/// with the slot's row and column.
struct MapLowering : IntelPattern<MapOp> {
  using IntelPattern::IntelPattern;

  LogicalResult
  matchAndRewrite(MapOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    FailureOr<IntelLayout> result = getLayout(op, op.getType());
    if (failed(result))
      return failure();
    SmallVector<IntelLayout> inputs;
    for (Value input : op.getInputs()) {
      FailureOr<IntelLayout> layout = getLayout(op, input.getType());
      if (failed(layout))
        return failure();
      // Inputs of another layout (a component type of another width) move
      // into the result's slots first.
      inputs.push_back(*layout);
    }
    SmallVector<SmallVector<Value>> aligned;
    for (auto [layout, input] : llvm::zip(inputs, adaptor.getInputs())) {
      if (layout.packedCount == result->packedCount &&
          layout.elementsPerPacked == result->elementsPerPacked) {
        aligned.push_back(getSlots(rewriter, loc, input));
        continue;
      }
      return op.emitOpError("cannot be done in registers on the Intel path: "
                            "an input's slots differ from the result's");
    }
    InvocationBuilder b(rewriter, loc, emulated);
    SmallVector<Value> packedElements;
    for (unsigned p = 0; p < result->packedCount; ++p) {
      SmallVector<Value> packedInputs;
      for (ArrayRef<Value> input : aligned)
        packedInputs.push_back(input[p]);
      SmallVector<Value> elements;
      for (unsigned s = 0; s < result->elementsPerPacked; ++s) {
        auto [row, column, valid] = b.locate(*result, p, s);
        IRMapping mapping;
        mapping.map(op.getRow(), row);
        mapping.map(op.getColumn(), column);
        for (auto [k, packed] : llvm::enumerate(packedInputs))
          mapping.map(op.getInputElement(k), b.unpack(inputs[k], packed, s));
        for (Operation &inner : op.getBodyBlock().without_terminator())
          rewriter.clone(inner, mapping);
        elements.push_back(mapping.lookupOrDefault(op.getYieldedValue()));
      }
      packedElements.push_back(b.pack(*result, elements));
    }
    replaceWithSlots(rewriter, op, *result, packedElements);
    return success();
  }
};

/// Reductions of result matrices: each invocation holds whole columns (one
/// per tile), so a column reduces in its registers and a row across the
/// subgroup, by butterfly shuffles.
/// The value `kind` combines with to leave the other operand unchanged, in
/// `type` (the computation type of `component`).
static Value buildIdentity(OpBuilder &builder, Location loc, ReductionKind kind,
                           Type component, Type type) {
  if (auto floatType = dyn_cast<FloatType>(type)) {
    const llvm::fltSemantics &semantics = floatType.getFloatSemantics();
    APFloat value =
        kind == ReductionKind::Add ? APFloat::getZero(semantics)
        : kind == ReductionKind::Mul
            ? APFloat::getOne(semantics)
            : APFloat::getInf(semantics,
                              /*Negative=*/kind == ReductionKind::Max);
    return arith::ConstantFloatOp::create(builder, loc, floatType, value);
  }
  unsigned bits = type.getIntOrFloatBitWidth();
  bool isSigned = cast<IntegerType>(component).isSigned();
  APInt value;
  switch (kind) {
  case ReductionKind::Add:
    value = APInt::getZero(bits);
    break;
  case ReductionKind::Mul:
    value = APInt(bits, 1);
    break;
  case ReductionKind::Max:
    value = isSigned ? APInt::getSignedMinValue(bits) : APInt::getZero(bits);
    break;
  case ReductionKind::Min:
    value =
        isSigned ? APInt::getSignedMaxValue(bits) : APInt::getMaxValue(bits);
    break;
  }
  return arith::ConstantOp::create(builder, loc,
                                   builder.getIntegerAttr(type, value));
}

/// Reduces a matrix of any layout. For every line (row, column, or the
/// whole matrix) each invocation combines its elements on that line, the
/// subgroup combines the partial results (a butterfly of shuffles), and
/// each element then takes the total of its line. Where an element lies
/// depends on the invocation, so elements off the line contribute the
/// identity: lines x elements selects, lines x log2(subgroup) shuffles.
/// bf16 is combined in f32 and rounded once.
static SmallVector<Value> reduceByLines(OpBuilder &builder, Location loc,
                                        ReduceOp op, const IntelLayout &layout,
                                        ArrayRef<Value> matrix,
                                        unsigned subgroupSize) {
  InvocationBuilder b(builder, loc, layout.emulated);
  Type component = layout.component;
  Type computeType =
      component.isBF16() ? builder.getF32Type() : getStorageType(component);
  auto combine = [&](Value x, Value y) {
    return ReduceOp::buildCombine(builder, loc, op.getKind(),
                                  component.isBF16() ? computeType : component,
                                  x, y);
  };
  struct Slot {
    Value element, row, column, valid;
  };
  SmallVector<Slot> slots;
  for (unsigned p = 0; p < layout.packedCount; ++p) {
    Value packed = matrix[p];
    for (unsigned sub = 0; sub < layout.elementsPerPacked; ++sub) {
      Value element = b.unpack(layout, packed, sub);
      if (component.isBF16())
        element = bfloat16ToF32(builder, loc, element);
      auto [row, column, valid] = b.locate(layout, p, sub);
      slots.push_back({element, row, column, valid});
    }
  }
  Value identity =
      buildIdentity(builder, loc, op.getKind(), component, computeType);
  ReductionDimensions dimensions = op.getDimensions();
  unsigned lines = dimensions == ReductionDimensions::Rows      ? layout.rows
                   : dimensions == ReductionDimensions::Columns ? layout.columns
                                                                : 1;
  auto lineOf = [&](const Slot &slot) {
    return dimensions == ReductionDimensions::Rows ? slot.row : slot.column;
  };
  // Where the lines lie decides what the reduction needs: shuffles only for
  // lines that span invocations, selects only where an invocation holds
  // more than one line (a left matrix's columns need neither).
  bool crossesLanes = false, oneLinePerLane = true;
  {
    DenseMap<unsigned, unsigned> laneOfLine;
    for (unsigned lane = 0; lane < subgroupSize; ++lane) {
      std::optional<unsigned> laneLine;
      for (unsigned p = 0; p < layout.packedCount; ++p)
        for (unsigned sub = 0; sub < layout.elementsPerPacked; ++sub) {
          IntelLayout::Position position = layout.getPosition(lane, p, sub);
          if (!position.valid)
            continue;
          unsigned line = dimensions == ReductionDimensions::Rows ? position.row
                          : dimensions == ReductionDimensions::Columns
                              ? position.column
                              : 0;
          auto [it, inserted] = laneOfLine.try_emplace(line, lane);
          crossesLanes |= it->second != lane;
          oneLinePerLane &= !laneLine || *laneLine == line;
          laneLine = line;
        }
    }
  }
  if (!crossesLanes && oneLinePerLane) {
    Value total;
    for (const Slot &slot : slots) {
      Value element = slot.valid
                          ? arith::SelectOp::create(builder, loc, slot.valid,
                                                    slot.element, identity)
                                .getResult()
                          : slot.element;
      total = total ? combine(total, element) : element;
    }
    if (component.isBF16())
      total = f32ToBFloat16(builder, loc, total);
    SmallVector<Value> packedElements;
    for (unsigned p = 0; p < layout.packedCount; ++p)
      packedElements.push_back(
          b.pack(layout, SmallVector<Value>(layout.elementsPerPacked, total)));
    return packedElements;
  }
  SmallVector<Value> totals;
  for (unsigned line = 0; line < lines; ++line) {
    Value partial = identity;
    for (const Slot &slot : slots) {
      Value onLine = slot.valid;
      if (dimensions != ReductionDimensions::All) {
        Value same =
            arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq,
                                  lineOf(slot), b.index(line));
        onLine =
            onLine
                ? arith::AndIOp::create(builder, loc, onLine, same).getResult()
                : same;
      }
      Value contribution = onLine
                               ? arith::SelectOp::create(builder, loc, onLine,
                                                         slot.element, identity)
                                     .getResult()
                               : slot.element;
      partial = combine(partial, contribution);
    }
    for (unsigned mask = 1; crossesLanes && mask < subgroupSize; mask *= 2) {
      Value offset = arith::ConstantIntOp::create(builder, loc,
                                                  builder.getI32Type(), mask);
      partial =
          combine(partial, shuffleFrom(builder, loc, partial, offset,
                                       subgroupSize, gpu::ShuffleMode::XOR));
    }
    totals.push_back(partial);
  }
  SmallVector<Value> packedElements, elements;
  for (const Slot &slot : slots) {
    Value total = dimensions == ReductionDimensions::All
                      ? totals.front()
                      : b.pick(totals, lineOf(slot));
    if (component.isBF16())
      total = f32ToBFloat16(builder, loc, total);
    elements.push_back(total);
    if (elements.size() == layout.elementsPerPacked) {
      packedElements.push_back(b.pack(layout, elements));
      elements.clear();
    }
  }
  return packedElements;
}

struct ReduceLowering : IntelPattern<ReduceOp> {
  using IntelPattern::IntelPattern;

  LogicalResult
  matchAndRewrite(ReduceOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    FailureOr<IntelLayout> layout = getLayout(op, op.getType());
    if (failed(layout))
      return failure();
    SmallVector<Value> elements = getSlots(rewriter, loc, adaptor.getMatrix());
    // Whole columns per invocation (result matrices, and the emulated form
    // of every kind that is at least as wide as the subgroup) reduce with
    // the fast paths below; other layouts line by line.
    bool wholeColumns = layout->emulated ? layout->spread == 1
                                         : layout->kind == MatrixKind::Result;
    if (!wholeColumns) {
      replaceWithSlots(
          rewriter, op, *layout,
          reduceByLines(rewriter, loc, op, *layout, elements, subgroupSize));
      return success();
    }
    Type component = layout->component;
    unsigned rows = layout->rows, tiles = layout->tiles;
    // bf16 combines in f32 and rounds once (as reduceByLines does).
    bool isBFloat16 = component.isBF16();
    if (isBFloat16) {
      for (Value &element : elements)
        element = bfloat16ToF32(rewriter, loc, element);
      component = rewriter.getF32Type();
    }
    auto combine = [&](Value x, Value y) {
      return ReduceOp::buildCombine(rewriter, loc, op.getKind(), component, x,
                                    y);
    };
    auto acrossSubgroup = [&](Value value) {
      for (unsigned mask = 1; mask < subgroupSize; mask *= 2) {
        Value offset = arith::ConstantIntOp::create(
            rewriter, loc, rewriter.getI32Type(), mask);
        Value other = shuffleFrom(rewriter, loc, value, offset, subgroupSize,
                                  gpu::ShuffleMode::XOR);
        value = combine(value, other);
      }
      return value;
    };
    SmallVector<Value> reduced(elements.size());
    switch (op.getDimensions()) {
    case ReductionDimensions::Columns:
      for (unsigned t = 0; t < tiles; ++t) {
        Value total = elements[t * rows];
        for (unsigned r = 1; r < rows; ++r)
          total = combine(total, elements[t * rows + r]);
        for (unsigned r = 0; r < rows; ++r)
          reduced[t * rows + r] = total;
      }
      break;
    case ReductionDimensions::Rows:
      for (unsigned r = 0; r < rows; ++r) {
        Value total = elements[r];
        for (unsigned t = 1; t < tiles; ++t)
          total = combine(total, elements[t * rows + r]);
        total = acrossSubgroup(total);
        for (unsigned t = 0; t < tiles; ++t)
          reduced[t * rows + r] = total;
      }
      break;
    case ReductionDimensions::All: {
      Value total = elements.front();
      for (Value element : ArrayRef(elements).drop_front())
        total = combine(total, element);
      total = acrossSubgroup(total);
      reduced.assign(elements.size(), total);
      break;
    }
    }
    if (isBFloat16)
      for (Value &element : reduced)
        element = f32ToBFloat16(rewriter, loc, element);
    replaceWithSlots(rewriter, op, *layout, reduced);
    return success();
  }
};
} // namespace

LogicalResult mlir::subgroup_matrix::checkPerInvocationForm(
    Operation *root, unsigned subgroupSize, bool emulated) {
  StringRef cannot = emulated ? "cannot be emulated: "
                              : "cannot be lowered to the Intel form: ";
  bool expressible = true;
  root->walk([&](Operation *op) {
    if (!isa<SubgroupMatrixDialect>(op->getDialect()))
      return;
    // Packed memrefs (i32 words holding several components) are a Vulkan
    // lowering detail; per-invocation accesses address components.
    MemRefType memref;
    if (auto load = dyn_cast<LoadOp>(op))
      memref = load.getMemRefType();
    else if (auto store = dyn_cast<StoreOp>(op))
      memref = store.getMemRefType();
    if (memref && isa<VectorType>(memref.getElementType())) {
      op->emitOpError(cannot)
          << memref
          << " packs components into words; use a memref of the storage "
             "type";
      expressible = false;
      return;
    }
    SmallVector<Type> types(op->getOperandTypes());
    llvm::append_range(types, op->getResultTypes());
    for (Type type : types) {
      auto matrix = dyn_cast<SubgroupMatrixTypeInterface>(type);
      std::string error;
      if (matrix &&
          failed(IntelLayout::get(matrix, subgroupSize, emulated, error))) {
        // The Intel form's messages name the instruction's rule already.
        op->emitOpError(emulated ? cannot : StringRef()) << error;
        expressible = false;
        return;
      }
    }
  });
  return success(expressible);
}

void mlir::subgroup_matrix::populateEmulatedSubgroupMatrixTypeConversion(
    TypeConverter &converter, unsigned subgroupSize) {
  converter.addConversion([subgroupSize](SubgroupMatrixTypeInterface type,
                                         SmallVectorImpl<Type> &results)
                              -> std::optional<LogicalResult> {
    std::string error;
    FailureOr<IntelLayout> layout =
        IntelLayout::getEmulated(type, subgroupSize, error);
    if (failed(layout))
      return std::nullopt;
    results.append(layout->packedCount, layout->packedElement);
    return success();
  });
}

int64_t mlir::subgroup_matrix::getEmulatedExchangeWords(Operation *root,
                                                        unsigned subgroupSize) {
  int64_t words = 0;
  root->walk([&](Operation *op) {
    Value left, right;
    if (auto mma = dyn_cast<MmaOp>(op))
      left = mma.getLeft(), right = mma.getRight();
    else if (auto multiply = dyn_cast<MultiplyOp>(op))
      left = multiply.getLeft(), right = multiply.getRight();
    else
      return;
    std::string error;
    FailureOr<IntelLayout> leftLayout = IntelLayout::getEmulated(
        cast<SubgroupMatrixTypeInterface>(left.getType()), subgroupSize, error);
    FailureOr<IntelLayout> rightLayout = IntelLayout::getEmulated(
        cast<SubgroupMatrixTypeInterface>(right.getType()), subgroupSize,
        error);
    if (succeeded(leftLayout) && succeeded(rightLayout))
      words = std::max(words, getExchangeWords(*leftLayout, *rightLayout));
  });
  return words;
}

void mlir::subgroup_matrix::populateEmulatedSubgroupMatrixPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns,
    unsigned subgroupSize, const EmulatedOperandExchange &exchange) {
  MLIRContext *context = patterns.getContext();
  patterns.add<LoadLowering, StoreLowering, SplatLowering,
               ScalarOpLowering<ScalarAddOp>, ScalarOpLowering<ScalarSubOp>,
               ScalarOpLowering<ScalarMulOp>, ScalarOpLowering<ScalarDivOp>,
               ConvertLowering, MapLowering, ReduceLowering>(
      converter, context, subgroupSize, /*emulated=*/true);
  patterns.add<EmulatedMultiplyLowering<MmaOp>,
               EmulatedMultiplyLowering<MultiplyOp>>(converter, context,
                                                     subgroupSize, exchange);
}

void mlir::subgroup_matrix::populateSubgroupMatrixToIntelTypeConversion(
    TypeConverter &converter, unsigned subgroupSize) {
  converter.addConversion(
      [subgroupSize](SubgroupMatrixTypeInterface type) -> std::optional<Type> {
        std::string error;
        FailureOr<IntelLayout> layout =
            IntelLayout::get(type, subgroupSize, error);
        if (failed(layout))
          return std::nullopt;
        return layout->getVectorType();
      });
}

void mlir::subgroup_matrix::populateSubgroupMatrixToIntelPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns,
    unsigned subgroupSize) {
  MLIRContext *context = patterns.getContext();
  patterns.add<LoadLowering, StoreLowering, SplatLowering,
               MultiplyLowering<MmaOp>, MultiplyLowering<MultiplyOp>,
               ScalarOpLowering<ScalarAddOp>, ScalarOpLowering<ScalarSubOp>,
               ScalarOpLowering<ScalarMulOp>, ScalarOpLowering<ScalarDivOp>,
               ConvertLowering, MapLowering, ReduceLowering>(
      converter, context, subgroupSize, /*emulated=*/false);
}
