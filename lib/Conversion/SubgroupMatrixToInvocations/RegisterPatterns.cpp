//===- RegisterPatterns.cpp - convert, map and reduce ---------------------===//
//
// `convert`, `map` and `reduce` in registers: elements change invocation by
// shuffles, element-wise functions run on each slot, reductions combine
// within and across invocations.
//
//===----------------------------------------------------------------------===//

#include "InvocationBuilder.h"

#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::subgroup_matrix;
using namespace mlir::subgroup_matrix::per_invocation;

namespace {
struct ConvertLowering : IntelPattern<ConvertOp> {
  using IntelPattern::IntelPattern;

  LogicalResult
  matchAndRewrite(ConvertOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<InvocationLayout> from = getLayout(op, op.getSource().getType());
    FailureOr<InvocationLayout> to = getLayout(op, op.getType());
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
          return ConvertOp::buildElementConversion(rewriter, loc, element,
                                                   fromComponent, toComponent);
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
    FailureOr<InvocationLayout> result = getLayout(op, op.getType());
    if (failed(result))
      return failure();
    SmallVector<InvocationLayout> inputs;
    for (Value input : op.getInputs()) {
      FailureOr<InvocationLayout> layout = getLayout(op, input.getType());
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

/// Reduces a matrix of any layout. For every line (row, column, 2x2 block,
/// or the whole matrix) each invocation combines its elements on that
/// line, the subgroup combines the partial results (a butterfly of
/// shuffles), and each element of the result (in `resultLayout`) then
/// takes the total of its line. Where an element lies depends on the
/// invocation, so elements off the line contribute the identity: lines x
/// elements selects, lines x log2(subgroup) shuffles. bf16 is combined in
/// f32 and rounded once.
static SmallVector<Value> reduceByLines(OpBuilder &builder, Location loc,
                                        ReduceOp op,
                                        const InvocationLayout &layout,
                                        const InvocationLayout &resultLayout,
                                        ArrayRef<Value> matrix,
                                        unsigned subgroupSize) {
  InvocationBuilder b(builder, loc, layout.emulated);
  Type component = layout.component;
  Type computeType =
      component.isBF16() ? builder.getF32Type() : getStorageType(component);
  auto combine = [&](Value x, Value y) {
    return op.buildCombine(builder, loc,
                           component.isBF16() ? computeType : component, x, y);
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
  bool blocks = dimensions == ReductionDimensions::Blocks2x2;
  unsigned blockColumns = layout.columns / 2;
  unsigned lines = dimensions == ReductionDimensions::Rows      ? layout.rows
                   : dimensions == ReductionDimensions::Columns ? layout.columns
                   : blocks ? layout.rows / 2 * blockColumns
                            : 1;
  // Block [i, j] of 2x2 elements is line i * blockColumns + j, which is
  // also where element [i, j] of the result lies in row-major order.
  auto blockAt = [&](Value row, Value column, unsigned scale) -> Value {
    Value i = arith::DivUIOp::create(builder, loc, row, b.index(scale));
    Value j = arith::DivUIOp::create(builder, loc, column, b.index(scale));
    return arith::AddIOp::create(
        builder, loc,
        arith::MulIOp::create(builder, loc, i, b.index(blockColumns)), j);
  };
  auto lineOf = [&](const Slot &slot) -> Value {
    if (blocks)
      return blockAt(slot.row, slot.column, 2);
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
          InvocationLayout::Position position =
              layout.getPosition(lane, p, sub);
          if (!position.valid)
            continue;
          unsigned line =
              dimensions == ReductionDimensions::Rows      ? position.row
              : dimensions == ReductionDimensions::Columns ? position.column
              : blocks ? position.row / 2 * blockColumns + position.column / 2
                       : 0;
          auto [it, inserted] = laneOfLine.try_emplace(line, lane);
          crossesLanes |= it->second != lane;
          oneLinePerLane &= !laneLine || *laneLine == line;
          laneLine = line;
        }
    }
  }
  // A block's total may be needed by another invocation than the ones
  // that hold its elements: every invocation gets every total.
  crossesLanes |= blocks;
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
  for (unsigned p = 0; p < resultLayout.packedCount; ++p) {
    for (unsigned sub = 0; sub < resultLayout.elementsPerPacked; ++sub) {
      Value total;
      if (dimensions == ReductionDimensions::All) {
        total = totals.front();
      } else {
        // Element [i, j] of a reduction over blocks is block [i, j]'s
        // total; the other reductions keep their operand's layout.
        Value line;
        if (blocks) {
          auto [row, column, valid] = b.locate(resultLayout, p, sub);
          line = blockAt(row, column, 1);
        } else {
          line = lineOf(slots[p * resultLayout.elementsPerPacked + sub]);
        }
        total = b.pick(totals, line);
      }
      if (component.isBF16())
        total = f32ToBFloat16(builder, loc, total);
      elements.push_back(total);
    }
    packedElements.push_back(b.pack(resultLayout, elements));
    elements.clear();
  }
  return packedElements;
}

/// Reduces the 2x2 blocks of a matrix whose invocations hold whole columns
/// (`layout`: invocation l holds column t S + l of tile t, every row) into
/// `resultLayout`, any layout. Rows 2i and 2i + 1 lie in one invocation and
/// columns 2c and 2c + 1 in neighbouring ones, so a combine and one XOR
/// shuffle leave block [i, j]'s total with invocation 2j mod S in its tile
/// 2j / S, row i. Each result element then reads it with one shuffle per
/// row and tile that the invocations holding that element ask for: one
/// where the result is as wide as the subgroup, a few where its columns
/// repeat over the invocations. bf16 is combined in f32 and rounded once.
static SmallVector<Value> reduceBlocks(OpBuilder &builder, Location loc,
                                       ReduceOp op,
                                       const InvocationLayout &layout,
                                       const InvocationLayout &resultLayout,
                                       ArrayRef<Value> matrix,
                                       unsigned subgroupSize) {
  InvocationBuilder b(builder, loc, layout.emulated);
  Type component = layout.component;
  bool isBFloat16 = component.isBF16();
  if (isBFloat16)
    component = builder.getF32Type();
  auto combine = [&](Value x, Value y) {
    return op.buildCombine(builder, loc, component, x, y);
  };
  auto element = [&](unsigned slot) {
    Value value = matrix[slot];
    return isBFloat16 ? bfloat16ToF32(builder, loc, value) : value;
  };
  Type i32 = builder.getI32Type();
  unsigned rows = layout.rows, resultRows = rows / 2;
  Value one = arith::ConstantIntOp::create(builder, loc, i32, 1);
  SmallVector<Value> totals;
  for (unsigned t = 0; t < layout.tiles; ++t)
    for (unsigned r = 0; r < resultRows; ++r) {
      Value pair =
          combine(element(t * rows + 2 * r), element(t * rows + 2 * r + 1));
      totals.push_back(
          combine(pair, shuffleFrom(builder, loc, pair, one, subgroupSize,
                                    gpu::ShuffleMode::XOR)));
    }
  // Block [i, j]'s total: invocation 2j mod S, slot (2j / S) * rows/2 + i.
  auto totalSlot = [&](unsigned row, unsigned column) {
    return 2 * column / subgroupSize * resultRows + row;
  };
  SmallVector<Value> packedElements;
  for (unsigned p = 0; p < resultLayout.packedCount; ++p) {
    SmallVector<Value> elements;
    for (unsigned sub = 0; sub < resultLayout.elementsPerPacked; ++sub) {
      llvm::SetVector<unsigned> slots;
      for (unsigned lane = 0; lane < subgroupSize; ++lane) {
        InvocationLayout::Position position =
            resultLayout.getPosition(lane, p, sub);
        if (position.valid)
          slots.insert(totalSlot(position.row, position.column));
      }
      auto [row, column, valid] = b.locate(resultLayout, p, sub);
      Value doubled = arith::ShLIOp::create(
          builder, loc, arith::IndexCastOp::create(builder, loc, i32, column),
          one);
      Value sourceLane = arith::RemUIOp::create(
          builder, loc, doubled,
          arith::ConstantIntOp::create(builder, loc, i32, subgroupSize));
      Value slot;
      if (slots.size() > 1)
        slot = arith::AddIOp::create(
            builder, loc,
            arith::MulIOp::create(
                builder, loc,
                arith::DivUIOp::create(
                    builder, loc,
                    arith::MulIOp::create(builder, loc, column, b.index(2)),
                    b.index(subgroupSize)),
                b.index(resultRows)),
            row);
      Value total;
      for (unsigned candidate : slots) {
        Value read = shuffleFrom(builder, loc, totals[candidate], sourceLane,
                                 subgroupSize);
        if (!total) {
          total = read;
          continue;
        }
        Value isCandidate = arith::CmpIOp::create(
            builder, loc, arith::CmpIPredicate::eq, slot, b.index(candidate));
        total = arith::SelectOp::create(builder, loc, isCandidate, read, total);
      }
      // A slot that holds no real element in any invocation.
      if (!total)
        total = totals.front();
      if (isBFloat16)
        total = f32ToBFloat16(builder, loc, total);
      elements.push_back(total);
    }
    packedElements.push_back(b.pack(resultLayout, elements));
  }
  return packedElements;
}

struct ReduceLowering : IntelPattern<ReduceOp> {
  using IntelPattern::IntelPattern;

  LogicalResult
  matchAndRewrite(ReduceOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    FailureOr<InvocationLayout> layout =
        getLayout(op, op.getMatrix().getType());
    if (failed(layout))
      return failure();
    FailureOr<InvocationLayout> resultLayout = getLayout(op, op.getType());
    if (failed(resultLayout))
      return failure();
    SmallVector<Value> elements = getSlots(rewriter, loc, adaptor.getMatrix());
    // Whole columns per invocation (result matrices, and the emulated form
    // of every kind that is at least as wide as the subgroup) reduce with
    // reduceBlocks and the fast paths below; other layouts line by line.
    bool wholeColumns = layout->emulated ? layout->spread == 1
                                         : layout->kind == MatrixKind::Result;
    if (wholeColumns && op.getDimensions() == ReductionDimensions::Blocks2x2) {
      replaceWithSlots(rewriter, op, *resultLayout,
                       reduceBlocks(rewriter, loc, op, *layout, *resultLayout,
                                    elements, subgroupSize));
      return success();
    }
    if (!wholeColumns) {
      replaceWithSlots(rewriter, op, *resultLayout,
                       reduceByLines(rewriter, loc, op, *layout, *resultLayout,
                                     elements, subgroupSize));
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
      return op.buildCombine(rewriter, loc, component, x, y);
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
    case ReductionDimensions::Blocks2x2:
      llvm_unreachable("2x2 blocks are reduced by reduceBlocks above");
    }
    if (isBFloat16)
      for (Value &element : reduced)
        element = f32ToBFloat16(rewriter, loc, element);
    replaceWithSlots(rewriter, op, *layout, reduced);
    return success();
  }
};
} // namespace

void mlir::subgroup_matrix::per_invocation::populateRegisterPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns,
    unsigned subgroupSize, bool emulated) {
  patterns.add<ConvertLowering, MapLowering, ReduceLowering>(
      converter, patterns.getContext(), subgroupSize, emulated);
}
