//===- InvocationBuilder.cpp - per-invocation helpers ---------------------===//
//
// The helpers of InvocationBuilder.h: where a matrix element lives, the
// conversions of elements, and moving elements between invocations.
//
//===----------------------------------------------------------------------===//

#include "InvocationBuilder.h"

using namespace mlir;
using namespace mlir::subgroup_matrix;
using namespace mlir::subgroup_matrix::per_invocation;

namespace mlir {
namespace subgroup_matrix {
namespace per_invocation {

FailureOr<std::pair<Value, Value>> flatten(Operation *op, OpBuilder &builder,
                                           Value memref, ValueRange indices) {
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

FailureOr<InvocationLayout> getLayout(Operation *op, Type type,
                                      unsigned subgroupSize, bool emulated) {
  std::string error;
  FailureOr<InvocationLayout> layout = InvocationLayout::get(
      cast<SubgroupMatrixTypeInterface>(type), subgroupSize, emulated, error);
  if (failed(layout))
    return op->emitOpError(error);
  return layout;
}

SmallVector<Value> getSlots(OpBuilder &builder, Location loc,
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

void replaceWithSlots(ConversionPatternRewriter &rewriter, Operation *op,
                      const InvocationLayout &layout, ValueRange slots) {
  if (layout.emulated) {
    rewriter.replaceOpWithMultiple(op, {slots});
    return;
  }
  rewriter.replaceOp(op, vector::FromElementsOp::create(rewriter, op->getLoc(),
                                                        layout.getVectorType(),
                                                        slots));
}

SmallVector<Value> getSingleValues(ArrayRef<ValueRange> operands) {
  return llvm::map_to_vector(operands,
                             [](ValueRange range) { return range.front(); });
}

Value scalarToComponent(OpBuilder &builder, Location loc, Value scalar,
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

Value slice(OpBuilder &builder, Location loc, Value vector, unsigned offset,
            unsigned count) {
  if (count == 1)
    return vector::ExtractOp::create(builder, loc, vector, offset);
  SmallVector<int64_t> mask;
  for (unsigned i = 0; i < count; ++i)
    mask.push_back(offset + i);
  return vector::ShuffleOp::create(builder, loc, vector, vector, mask);
}

Value insert(OpBuilder &builder, Location loc, Value part, Value vector,
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

Value bfloat16ToF32(OpBuilder &builder, Location loc, Value element) {
  return arith::ExtFOp::create(builder, loc, builder.getF32Type(), element);
}
Value f32ToBFloat16(OpBuilder &builder, Location loc, Value element) {
  return arith::TruncFOp::create(builder, loc, builder.getBF16Type(), element);
}

func::FuncOp getOrDeclareBuiltin(OpBuilder &builder, gpu::GPUModuleOp module,
                                 StringRef name, ArrayRef<Type> inputs,
                                 TypeRange results) {
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(module.getBody());
  auto function = func::FuncOp::create(
      builder, module.getLoc(), name, builder.getFunctionType(inputs, results));
  function.setPrivate();
  return function;
}

Value shuffleFrom(OpBuilder &builder, Location loc, Value value, Value lane,
                  unsigned subgroupSize, gpu::ShuffleMode mode,
                  bool broadcast) {
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

DenseMap<std::pair<unsigned, unsigned>, ElementSource>
getHolders(const InvocationLayout &layout) {
  DenseMap<std::pair<unsigned, unsigned>, ElementSource> holders;
  for (unsigned lane = 0; lane < layout.subgroupSize; ++lane)
    for (unsigned p = 0; p < layout.packedCount; ++p)
      for (unsigned s = 0; s < layout.elementsPerPacked; ++s) {
        InvocationLayout::Position position = layout.getPosition(lane, p, s);
        if (position.valid)
          holders.try_emplace({position.row, position.column},
                              ElementSource{lane, p, s});
      }
  return holders;
}

FailureOr<MovePlan> planMoves(const InvocationLayout &from,
                              const InvocationLayout &to) {
  DenseMap<std::pair<unsigned, unsigned>, ElementSource> holder =
      getHolders(from);
  MovePlan plan;
  for (unsigned p = 0; p < to.packedCount; ++p)
    for (unsigned s = 0; s < to.elementsPerPacked; ++s) {
      SmallVector<ElementSource> sources;
      for (unsigned lane = 0; lane < to.subgroupSize; ++lane) {
        InvocationLayout::Position position = to.getPosition(lane, p, s);
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

Value gatherElement(InvocationBuilder &b, ArrayRef<Value> source,
                    const InvocationLayout &from,
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

SmallVector<Value>
moveElements(OpBuilder &builder, Location loc, ArrayRef<Value> source,
             const InvocationLayout &from, const InvocationLayout &to,
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

bool holdsWholeColumns(const InvocationLayout &layout) {
  return layout.spread == 1;
}

bool exchangesRight(const InvocationLayout &right, bool rightInPlace) {
  return !rightInPlace && !holdsWholeColumns(right);
}

int64_t getExchangeWords(const InvocationLayout &left,
                         const InvocationLayout &right, bool leftInPlace,
                         bool rightInPlace) {
  return (!leftInPlace ? int64_t(left.rows) * left.columns : 0) +
         (exchangesRight(right, rightInPlace)
              ? int64_t(right.rows) * right.columns
              : 0);
}

} // namespace per_invocation
} // namespace subgroup_matrix
} // namespace mlir
