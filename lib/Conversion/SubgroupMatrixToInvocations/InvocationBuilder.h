//===- InvocationBuilder.h - per-invocation code --------------------------===//
//
// What the pattern files of the per-invocation form share: the builder of
// one op's per-invocation code, the base of its patterns, and the helpers
// that address, convert and move the elements each invocation holds.
// Private to this directory.
//
//===----------------------------------------------------------------------===//

#ifndef LIB_CONVERSION_SUBGROUPMATRIXTOINVOCATIONS_INVOCATIONBUILDER_H
#define LIB_CONVERSION_SUBGROUPMATRIXTOINVOCATIONS_INVOCATIONBUILDER_H

#include "SubgroupMatrix/Conversion/SubgroupMatrixToInvocations/InvocationLayout.h"
#include "SubgroupMatrix/Conversion/SubgroupMatrixToInvocations/SubgroupMatrixToInvocations.h"
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

namespace mlir {
namespace subgroup_matrix {
namespace per_invocation {

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
  std::tuple<Value, Value, Value> locate(const InvocationLayout &layout,
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
  Value pack(const InvocationLayout &layout, ArrayRef<Value> elements) {
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
  Value unpack(const InvocationLayout &layout, Value packed, unsigned sub) {
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

/// Where each element slot of a destination layout gets its value in a
/// source layout, per destination invocation: the source invocation and
/// slot. Slots that hold nothing (padding) take slot 0 of their own
/// invocation.
struct ElementSource {
  unsigned lane, packed, sub;
};
using MovePlan = SmallVector<SmallVector<ElementSource>>; // [slot][lane]

/// A 1-D view of a memref and the linear index of an element of it.
FailureOr<std::pair<Value, Value>> flatten(Operation *op, OpBuilder &builder,
                                           Value memref, ValueRange indices);

/// The layout of `type` for the subgroup size of the pattern set; reports
/// at `op` what the extension cannot express.
FailureOr<InvocationLayout> getLayout(Operation *op, Type type,
                                      unsigned subgroupSize, bool emulated);

/// The slots of a converted matrix: the elements of the Intel form's
/// vector, or the emulated form's scalars themselves.
SmallVector<Value> getSlots(OpBuilder &builder, Location loc,
                            ValueRange converted);

/// Replaces `op` by a matrix made of `slots` in `layout`'s form.
void replaceWithSlots(ConversionPatternRewriter &rewriter, Operation *op,
                      const InvocationLayout &layout, ValueRange slots);

/// The one value each operand that is not a matrix converts to.
SmallVector<Value> getSingleValues(ArrayRef<ValueRange> operands);

/// The component value of a scalar operand: floats as they are, integers
/// clamped to an 8-bit component's range (read as signed or unsigned like
/// the component) and narrowed.
Value scalarToComponent(OpBuilder &builder, Location loc, Value scalar,
                        Type component);

/// Extracts `count` consecutive elements at `offset` (a scalar when count is
/// 1, as the instruction takes for M = 1). Shuffles, unlike strided slices,
/// lower directly to LLVM.
Value slice(OpBuilder &builder, Location loc, Value vector, unsigned offset,
            unsigned count);

/// Writes `part` (a scalar or a vector) into `vector` at `offset`.
Value insert(OpBuilder &builder, Location loc, Value part, Value vector,
             unsigned offset);

/// bf16 <-> f32. LLVM's SPIR-V backend declares no bf16 arithmetic type
/// without SPV_KHR_bfloat16, which Intel's compiler does not take, so bf16
/// values only move as bits: these conversions become integer arithmetic
/// (round to nearest even, NaNs kept quiet) when sm-lower-to-intel expands
/// them with upstream's arith::populateExpandBFloat16Patterns.
Value bfloat16ToF32(OpBuilder &builder, Location loc, Value element);

Value f32ToBFloat16(OpBuilder &builder, Location loc, Value element);

/// The declaration of the device builtin `name` (an Itanium-mangled
/// function that LLVM's SPIR-V backend recognises) in `module`, added at
/// its start the first time.
func::FuncOp getOrDeclareBuiltin(OpBuilder &builder, gpu::GPUModuleOp module,
                                 StringRef name, ArrayRef<Type> inputs,
                                 TypeRange results);

/// `value` from another invocation of the subgroup, through a 32-bit
/// shuffle: invocation `lane` (IDX), or this invocation's lane XOR `lane`
/// (XOR).
Value shuffleFrom(OpBuilder &builder, Location loc, Value value, Value lane,
                  unsigned subgroupSize,
                  gpu::ShuffleMode mode = gpu::ShuffleMode::IDX,
                  bool broadcast = false);

/// Where each element of a layout lives: {row, column} -> {lane, slot}.
DenseMap<std::pair<unsigned, unsigned>, ElementSource>
getHolders(const InvocationLayout &layout);

FailureOr<MovePlan> planMoves(const InvocationLayout &from,
                              const InvocationLayout &to);

/// The element that each invocation `lane` needs from `sources[lane]` of a
/// matrix in layout `from` (slots `source`), in the component's storage
/// type. An element another invocation holds comes by shuffle: one per
/// distinct source slot, each invocation then picking its own.
Value gatherElement(InvocationBuilder &b, ArrayRef<Value> source,
                    const InvocationLayout &from,
                    ArrayRef<ElementSource> sources);

/// Gathers the elements of `source` (in layout `from`) into the slots of
/// layout `to`, converting each with `convert`; returns the slots.
SmallVector<Value>
moveElements(OpBuilder &builder, Location loc, ArrayRef<Value> source,
             const InvocationLayout &from, const InvocationLayout &to,
             const MovePlan &plan, function_ref<Value(Value)> convert);

/// Whether an invocation of `layout` holds every element of the columns it
/// multiplies with (no exchange needed for a right operand).
bool holdsWholeColumns(const InvocationLayout &layout);

/// Whether a multiplication exchanges its right operand through scratch:
/// where it does not read it in place and invocations do not hold whole
/// columns. (A left operand is exchanged unless it is read in place.)
bool exchangesRight(const InvocationLayout &right, bool rightInPlace);

/// The scratch words one multiplication needs per subgroup: the operands it
/// exchanges, the left first.
int64_t getExchangeWords(const InvocationLayout &left,
                         const InvocationLayout &right, bool leftInPlace,
                         bool rightInPlace);

template <typename OpTy> struct IntelPattern : OpConversionPattern<OpTy> {
  IntelPattern(const TypeConverter &converter, MLIRContext *context,
               unsigned subgroupSize, bool emulated)
      : OpConversionPattern<OpTy>(converter, context),
        subgroupSize(subgroupSize), emulated(emulated) {}
  using OneToNOpAdaptor = typename OpConversionPattern<OpTy>::OneToNOpAdaptor;

  FailureOr<InvocationLayout> getLayout(Operation *op, Type type) const {
    return per_invocation::getLayout(op, type, subgroupSize, emulated);
  }

  /// The layouts of a product's left, right and result matrices.
  struct ProductLayouts {
    InvocationLayout left, right, result;
  };
  /// getLayout of each matrix of `op` (an mma or a multiply); failure when
  /// one has none (getLayout reported why).
  FailureOr<ProductLayouts> getProductLayouts(OpTy op) const {
    FailureOr<InvocationLayout> left = getLayout(op, op.getLeft().getType());
    FailureOr<InvocationLayout> right = getLayout(op, op.getRight().getType());
    FailureOr<InvocationLayout> result =
        getLayout(op, op.getResult().getType());
    if (failed(left) || failed(right) || failed(result))
      return failure();
    return ProductLayouts{*left, *right, *result};
  }

  unsigned subgroupSize;
  bool emulated;
};

/// The patterns of loads, stores and splats, and of the Intel form's
/// subgroup barrier.
void populateMemoryPatterns(const TypeConverter &converter,
                            RewritePatternSet &patterns, unsigned subgroupSize,
                            bool emulated);
/// The patterns of `mma` and `multiply` of the Intel form, and of the scalar
/// ops.
void populateMultiplyPatterns(const TypeConverter &converter,
                              RewritePatternSet &patterns,
                              unsigned subgroupSize, bool emulated);
/// The patterns of the scalar ops alone (the emulated form's multiplications
/// are populateEmulatedMultiplyPatterns').
void populateScalarOpPatterns(const TypeConverter &converter,
                              RewritePatternSet &patterns,
                              unsigned subgroupSize, bool emulated);
/// The patterns of `mma` and `multiply` of the emulated form.
void populateEmulatedMultiplyPatterns(const TypeConverter &converter,
                                      RewritePatternSet &patterns,
                                      unsigned subgroupSize,
                                      const EmulatedOperandExchange &exchange);
/// The patterns of `convert`, `map` and `reduce`, in registers.
void populateRegisterPatterns(const TypeConverter &converter,
                              RewritePatternSet &patterns,
                              unsigned subgroupSize, bool emulated);

} // namespace per_invocation
} // namespace subgroup_matrix
} // namespace mlir

#endif // LIB_CONVERSION_SUBGROUPMATRIXTOINVOCATIONS_INVOCATIONBUILDER_H
