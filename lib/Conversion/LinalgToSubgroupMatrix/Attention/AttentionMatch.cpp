//===- AttentionMatch.cpp - finding attention in a program ----------------===//
//
// The first step from linalg to an attention kernel: reading softmax(f(Q
// K^T)) V off the ops front-ends write (two batched products around a
// linalg.softmax, element-wise steps on the scores, casts of P and O).
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Attention/Attention.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Contraction/Contraction.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace mlir::subgroup_matrix;

//===----------------------------------------------------------------------===//
// Matching
//===----------------------------------------------------------------------===//

/// The ops that write `buffer` (have it as an output).
static SmallVector<Operation *> getWriters(Value buffer) {
  SmallVector<Operation *> writers;
  for (Operation *user : buffer.getUsers())
    if (auto dps = dyn_cast<DestinationStyleOpInterface>(user))
      if (llvm::is_contained(dps.getDpsInits(), buffer))
        writers.push_back(user);
  return writers;
}

/// The one user of `buffer` besides `writers` (and deallocations).
static Operation *getOnlyReader(Value buffer, ArrayRef<Operation *> writers) {
  Operation *reader = nullptr;
  for (Operation *user : buffer.getUsers()) {
    if (llvm::is_contained(writers, user) || isa<memref::DeallocOp>(user))
      continue;
    if (reader && reader != user)
      return nullptr;
    reader = user;
  }
  return reader;
}

/// The input of `op` that is the scores (`scores`, the buffer of type
/// `scoresType` the chain before it writes), if `op` is an element-wise
/// step on them: parallel loops, identity maps for the scores and the
/// output, other inputs (f32 or f16, static) indexed by a projection of
/// (batch, query, key), a body of arith and math reading its position
/// through linalg.index only.
static std::optional<unsigned> getScoreInput(linalg::GenericOp op,
                                             MemRefType scoresType) {
  if (op.getNumDpsInits() != 1 ||
      op.getNumLoops() != op.getNumParallelLoops() || op.getNumLoops() != 3 ||
      !op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity())
    return std::nullopt;
  std::optional<unsigned> scoreInput;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    auto type = dyn_cast<MemRefType>(input->get().getType());
    if (!type)
      return std::nullopt;
    if (!scoreInput && type == scoresType && map.isIdentity() &&
        input->get().getDefiningOp<memref::AllocOp>()) {
      scoreInput = input->getOperandNumber();
      continue;
    }
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/true) ||
        !type.hasStaticShape() || !type.getLayout().isIdentity() ||
        !isa<Float32Type, Float16Type>(type.getElementType()))
      return std::nullopt;
    // The loops in order, so that the address is row-major; a zero only
    // where the dimension has one element (broadcast over the loops).
    std::optional<unsigned> previous;
    for (unsigned i = 0; i < map.getNumResults(); ++i) {
      std::optional<unsigned> loop = getScoreOperandLoop(map, i);
      if (!loop) {
        if (type.getShape()[i] != 1)
          return std::nullopt;
        continue;
      }
      if (previous && *loop <= *previous)
        return std::nullopt;
      previous = loop;
    }
  }
  Block &body = op.getRegion().front();
  if (!scoreInput || !body.getArguments().back().use_empty())
    return std::nullopt;
  if (!llvm::all_of(body.without_terminator(), [&](Operation &inner) {
        return isa<linalg::IndexOp>(inner) ||
               (isa<arith::ArithDialect, math::MathDialect>(
                    inner.getDialect()) &&
                isPure(&inner) && inner.getNumRegions() == 0);
      }))
    return std::nullopt;
  return scoreInput;
}

/// Whether `step` yields -inf wherever the key (loop 2) is past the query
/// (loop 1): `select(key > query, -inf, x)`.
static bool isCausalMask(linalg::GenericOp step) {
  Block &body = step.getRegion().front();
  auto select =
      body.getTerminator()->getOperand(0).getDefiningOp<arith::SelectOp>();
  if (!select)
    return false;
  FloatAttr value;
  if (!matchPattern(select.getTrueValue(), m_Constant(&value)) ||
      !value.getValue().isInfinity() || !value.getValue().isNegative())
    return false;
  auto compare = select.getCondition().getDefiningOp<arith::CmpIOp>();
  if (!compare)
    return false;
  auto dimOf = [](Value v) -> int64_t {
    auto index = v.getDefiningOp<linalg::IndexOp>();
    return index ? int64_t(index.getDim()) : -1;
  };
  int64_t lhs = dimOf(compare.getLhs()), rhs = dimOf(compare.getRhs());
  switch (compare.getPredicate()) {
  case arith::CmpIPredicate::ugt:
  case arith::CmpIPredicate::sgt:
    return lhs == 2 && rhs == 1;
  case arith::CmpIPredicate::ult:
  case arith::CmpIPredicate::slt:
    return lhs == 1 && rhs == 2;
  default:
    return false;
  }
}

/// A linalg.generic that only casts its one input to `to` (truncf).
static bool isCastTo(linalg::GenericOp op, Type to) {
  if (!isUnaryElementwise(op))
    return false;
  Block &body = op.getRegion().front();
  if (body.getOperations().size() != 2)
    return false;
  auto truncate = dyn_cast<arith::TruncFOp>(body.front());
  return truncate && truncate.getIn() == body.getArgument(0) &&
         truncate.getType() == to &&
         body.getTerminator()->getOperand(0) == truncate.getResult();
}

/// A product C = A B of buffers the kernel reads directly: batched, static,
/// C filled with zero right before, f16/bf16/f32 inputs into f32.
static std::optional<Contraction> matchProduct(Operation *op,
                                               bool transposedB) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || !isMatrixContraction(linalgOp))
    return std::nullopt;
  FailureOr<Contraction> product = matchContraction(linalgOp);
  if (failed(product) || product->batch < 1 || !product->a.batched ||
      !product->b.batched || product->a.transposed ||
      product->b.transposed != transposedB || product->reducesBatch ||
      !product->fillValue ||
      !matchPattern(product->fillValue, m_AnyZeroFloat()) ||
      !product->resultComponent.isF32() ||
      !isa<Float16Type, BFloat16Type, Float32Type>(product->inputComponent))
    return std::nullopt;
  return *product;
}

//===----------------------------------------------------------------------===//
// Reading Q, K, V and the output through the program's copies of them
//===----------------------------------------------------------------------===//

AttentionOperand AttentionOperand::getContiguous(Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  AttentionOperand operand;
  operand.buffer = buffer;
  operand.rowStride = type.getDimSize(2);
  bool dynamicRows = type.isDynamicDim(1);
  operand.batchTerms.push_back({1, type.getDimSize(0),
                                dynamicRows
                                    ? type.getDimSize(2)
                                    : type.getDimSize(1) * type.getDimSize(2),
                                dynamicRows});
  return operand;
}

Value AttentionOperand::getBatchBase(OpBuilder &builder, Location loc,
                                     Value batch, int64_t batchCount,
                                     Value rows) const {
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(builder, loc, value);
  };
  Value base;
  for (const BatchTerm &term : batchTerms) {
    Value position = batch;
    if (term.divisor != 1)
      position = arith::DivUIOp::create(builder, loc, position,
                                        constant(term.divisor));
    // The outermost term needs no remainder: the grid ends there.
    if (term.divisor * term.modulus != batchCount)
      position = arith::RemUIOp::create(builder, loc, position,
                                        constant(term.modulus));
    Value stride = constant(term.stride);
    if (term.timesRows)
      stride = arith::MulIOp::create(builder, loc, rows, stride);
    Value offset = arith::MulIOp::create(builder, loc, position, stride);
    base = base ? arith::AddIOp::create(builder, loc, base, offset) : offset;
  }
  return base ? base : constant(0);
}

Value AttentionOperand::getRowCount(OpBuilder &builder, Location loc) const {
  auto type = cast<MemRefType>(buffer.getType());
  for (int64_t dim = 0; dim < type.getRank(); ++dim)
    if (type.isDynamicDim(dim))
      return memref::DimOp::create(builder, loc, buffer, dim);
  return arith::ConstantIndexOp::create(builder, loc, 0);
}

namespace {
/// Where an operand's elements are, as the copies of it are followed: the
/// attention's (batch, row, column) spread over a buffer's flat positions.
/// Each part contributes ((its position / divisor) % modulus) * stride,
/// where a row's or column's position is the row or column itself.
struct Spread {
  enum Kind { Batch, Row, Column };
  struct Part {
    Kind kind = Batch;
    int64_t divisor = 1, modulus = 1, stride = 0;
  };
  SmallVector<Part, 6> parts;
};
/// What indexes one dimension of a buffer: (position / divisor) % modulus
/// of the batch, the row or the column.
using DimensionIndex = Spread::Part;
} // namespace

/// The row-major strides of a static shape.
static SmallVector<int64_t> getRowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t dim = int64_t(shape.size()) - 2; dim >= 0; --dim)
    strides[dim] = strides[dim + 1] * shape[dim + 1];
  return strides;
}

/// A contiguous buffer of static shape, or with one dynamic dimension (the
/// rows: a KV cache's length, a prompt's): what the kernel can address.
static bool isAddressable(Value buffer) {
  auto type = dyn_cast<MemRefType>(buffer.getType());
  return type && type.getNumDynamicDims() <= 1 && type.getLayout().isIdentity();
}

/// The extent that spreads give a dynamic dimension: a prime larger than
/// any static extent, so that a stride beyond it is a multiple of it and
/// no product of static extents (AttentionOperand::BatchTerm::timesRows).
static constexpr int64_t kDynamicExtent = 2147483647;

/// The shape of an addressable buffer, its dynamic dimension
/// kDynamicExtent.
static SmallVector<int64_t> getSpreadShape(Value buffer) {
  SmallVector<int64_t> shape(cast<MemRefType>(buffer.getType()).getShape());
  for (int64_t &size : shape)
    if (ShapedType::isDynamic(size))
      size = kDynamicExtent;
  return shape;
}

/// The spread of a buffer whose dimensions `indices` index; parts of one
/// kind that continue each other are merged, so that spreads compare.
static Spread spreadOf(ArrayRef<DimensionIndex> indices,
                       ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides = getRowMajorStrides(shape);
  Spread spread;
  for (auto [index, stride] : llvm::zip_equal(indices, strides)) {
    if (index.modulus == 1)
      continue;
    DimensionIndex part = index;
    part.stride = stride;
    spread.parts.push_back(part);
  }
  // Innermost first, then merge a part into the one below it where it
  // continues it in both position and memory.
  llvm::sort(spread.parts, [](const Spread::Part &x, const Spread::Part &y) {
    return x.stride < y.stride;
  });
  SmallVector<Spread::Part, 6> merged;
  for (const Spread::Part &part : spread.parts) {
    if (!merged.empty()) {
      Spread::Part &below = merged.back();
      if (below.kind == part.kind &&
          part.divisor == below.divisor * below.modulus &&
          part.stride == below.stride * below.modulus) {
        below.modulus *= part.modulus;
        continue;
      }
    }
    merged.push_back(part);
  }
  spread.parts = std::move(merged);
  return spread;
}

static bool operator==(const Spread::Part &x, const Spread::Part &y) {
  return x.kind == y.kind && x.divisor == y.divisor && x.modulus == y.modulus &&
         x.stride == y.stride;
}

/// What indexes each dimension of a buffer of `shape` holding `spread`,
/// where each dimension takes one part, or a piece of a batch part; none
/// where the dimensions cut the spread otherwise.
static std::optional<SmallVector<DimensionIndex>>
getDimensionIndices(const Spread &spread, ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides = getRowMajorStrides(shape);
  SmallVector<DimensionIndex> indices;
  for (auto [size, stride] : llvm::zip_equal(shape, strides)) {
    DimensionIndex index;
    if (size != 1) {
      // The part this dimension's stride falls in.
      const Spread::Part *owner = nullptr;
      for (const Spread::Part &part : spread.parts)
        if (part.stride <= stride && stride % part.stride == 0 &&
            stride / part.stride < part.modulus)
          owner = &part;
      if (!owner)
        return std::nullopt;
      int64_t within = stride / owner->stride;
      if (owner->kind != Spread::Batch &&
          (within != 1 || size != owner->modulus))
        return std::nullopt;
      index = {owner->kind, owner->divisor * within, size, 0};
    }
    indices.push_back(index);
  }
  // Every position in its place: the dimensions rebuild the spread.
  Spread rebuilt = spreadOf(indices, shape);
  if (rebuilt.parts.size() != spread.parts.size() ||
      !llvm::all_of(
          llvm::zip_equal(rebuilt.parts, spread.parts),
          [](auto pair) { return std::get<0>(pair) == std::get<1>(pair); }))
    return std::nullopt;
  return indices;
}

/// The spread of a contiguous batch x rows x columns buffer of `shape`.
static Spread getFoldedSpread(ArrayRef<int64_t> shape) {
  return spreadOf({{Spread::Batch, 1, shape[0], 0},
                   {Spread::Row, 1, shape[1], 0},
                   {Spread::Column, 1, shape[2], 0}},
                  shape);
}

/// The operand of the kernel that `spread` places in `buffer`; none (no
/// buffer) where a dynamic extent is not the rows'.
static AttentionOperand getOperand(Value buffer, const Spread &spread) {
  AttentionOperand operand;
  operand.buffer = buffer;
  for (const Spread::Part &part : llvm::reverse(spread.parts)) {
    bool timesRows = part.stride % kDynamicExtent == 0;
    int64_t stride = timesRows ? part.stride / kDynamicExtent : part.stride;
    if (part.kind == Spread::Row) {
      operand.rowStride = stride;
      if (timesRows)
        operand.buffer = nullptr;
    } else if (part.kind == Spread::Batch) {
      operand.batchTerms.push_back(
          {part.divisor, part.modulus, stride, timesRows});
      if (part.modulus % kDynamicExtent == 0)
        operand.buffer = nullptr;
    } else if (timesRows || part.modulus % kDynamicExtent == 0) {
      operand.buffer = nullptr;
    }
  }
  return operand;
}

/// Whether `op` only copies its one input into its one output, possibly
/// permuted or repeated (linalg.copy, linalg.transpose, linalg.broadcast, or
/// a generic yielding its input): every loop parallel, the output map a
/// permutation, the input map a projected permutation; with `castTo`, a
/// truncf to it is also a copy.
static bool isCopy(linalg::LinalgOp op, Type castTo = {}) {
  if (!op || op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
      op.getNumLoops() != op.getNumParallelLoops() ||
      !op.hasPureBufferSemantics())
    return false;
  AffineMap in = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
  AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (!out.isPermutation())
    return false;
  // Each of the input's dimensions is a loop of its own, or a zero that
  // reads a dimension of one element (a batch of one; upstream's projected
  // permutations take no more results than loops).
  auto inType = dyn_cast<MemRefType>(op.getDpsInputOperand(0)->get().getType());
  llvm::SmallBitVector seen(in.getNumDims());
  for (unsigned i = 0; i < in.getNumResults(); ++i) {
    AffineExpr result = in.getResult(i);
    if (auto loop = dyn_cast<AffineDimExpr>(result)) {
      if (seen.test(loop.getPosition()))
        return false;
      seen.set(loop.getPosition());
      continue;
    }
    auto constant = dyn_cast<AffineConstantExpr>(result);
    if (!constant || constant.getValue() != 0 || !inType ||
        inType.getDimSize(i) != 1)
      return false;
  }
  Block *body = op.getBlock();
  Value yielded = body->getTerminator()->getOperand(0);
  if (yielded == body->getArgument(0))
    return true;
  auto truncate = yielded.getDefiningOp<arith::TruncFOp>();
  return castTo && truncate && truncate.getType() == castTo &&
         truncate.getIn() == body->getArgument(0) &&
         body->getOperations().size() == 2;
}

/// The spread of one side of `copy` given the other's: of its input from
/// its output's (`forward` false), or of its output from its input's.
static std::optional<Spread>
spreadThroughCopy(linalg::LinalgOp copy, const Spread &spread, bool forward) {
  OpOperand *input = copy.getDpsInputOperand(0);
  OpOperand *output = copy.getDpsInitOperand(0);
  auto inType = cast<MemRefType>(input->get().getType());
  auto outType = cast<MemRefType>(output->get().getType());
  AffineMap in = copy.getMatchingIndexingMap(input);
  AffineMap out = copy.getMatchingIndexingMap(output);
  // Element by element in the same order: the same positions.
  if (in == out && inType.getShape() == outType.getShape())
    return spread;
  // (Two dynamic extents would overflow the spread's strides.)
  if (!isAddressable(input->get()) || !isAddressable(output->get()))
    return std::nullopt;
  SmallVector<int64_t> inShape = getSpreadShape(input->get()),
                       outShape = getSpreadShape(output->get());
  OpOperand *from = forward ? input : output;
  AffineMap fromMap = forward ? in : out, toMap = forward ? out : in;
  std::optional<SmallVector<DimensionIndex>> fromIndices =
      getDimensionIndices(spread, forward ? inShape : outShape);
  if (!fromIndices)
    return std::nullopt;
  // (A zero in the input's map reads a dimension of one element: it
  // indexes nothing.)
  SmallVector<DimensionIndex> loops(copy.getNumLoops());
  for (unsigned i = 0; i < fromMap.getNumResults(); ++i)
    if (auto loop = dyn_cast<AffineDimExpr>(fromMap.getResult(i)))
      loops[loop.getPosition()] = (*fromIndices)[i];
  SmallVector<DimensionIndex> toIndices;
  for (unsigned i = 0; i < toMap.getNumResults(); ++i) {
    auto loop = dyn_cast<AffineDimExpr>(toMap.getResult(i));
    toIndices.push_back(loop ? loops[loop.getPosition()] : DimensionIndex());
  }
  Spread result = spreadOf(toIndices, forward ? outShape : inShape);
  // A copy that drops the row or the column (a reduction in disguise) is
  // no copy of the operand. (A single row, or column, has no part: one
  // query per head in a decode step.)
  for (Spread::Kind kind : {Spread::Row, Spread::Column}) {
    auto isOfKind = [&](const Spread::Part &part) { return part.kind == kind; };
    int64_t count = llvm::count_if(result.parts, isOfKind);
    if (count > 1 || count != llvm::count_if(spread.parts, isOfKind))
      return std::nullopt;
  }
  return result;
}

/// A view that changes the shape of a contiguous buffer (expand_shape,
/// collapse_shape): the elements stay where they are. A dynamic dimension
/// may only join dimensions of one element (a dimension of its product
/// with others would not be the rows).
static bool isReshape(Operation *op) {
  if (!isa_and_nonnull<memref::ExpandShapeOp, memref::CollapseShapeOp>(op) ||
      !isAddressable(op->getResult(0)) || !isAddressable(op->getOperand(0)))
    return false;
  auto reshape = cast<ViewLikeOpInterface>(op);
  auto wide = cast<MemRefType>(isa<memref::ExpandShapeOp>(op)
                                   ? op->getResult(0).getType()
                                   : reshape.getViewSource().getType());
  SmallVector<ReassociationIndices> groups =
      isa<memref::ExpandShapeOp>(op)
          ? cast<memref::ExpandShapeOp>(op).getReassociationIndices()
          : cast<memref::CollapseShapeOp>(op).getReassociationIndices();
  return llvm::all_of(groups, [&](const ReassociationIndices &group) {
    return llvm::none_of(group,
                         [&](int64_t dim) { return wide.isDynamicDim(dim); }) ||
           llvm::all_of(group, [&](int64_t dim) {
             return wide.isDynamicDim(dim) || wide.getDimSize(dim) == 1;
           });
  });
}

/// Q, K or V, read by `product` from the batch x rows x columns `buffer`:
/// where the program's copy of another buffer writes it (heads transposed
/// out of a [batch, seq, heads, dim] tensor, the key-value heads repeated),
/// the source; the copies join the attention's ops and the buffers they
/// wrote its dead allocations. With `transposed`, `buffer` holds batch x
/// columns x rows (K^T, as TOSA's matmul takes it): it must be a copy of a
/// buffer whose columns are contiguous, else the operand has no buffer.
static AttentionOperand readThroughCopies(Value buffer, Operation *product,
                                          Attention &attention,
                                          bool transposed = false) {
  AttentionOperand operand = AttentionOperand::getContiguous(buffer);
  if (transposed)
    operand.buffer = nullptr;
  if (!isAddressable(buffer))
    return operand;
  SmallVector<int64_t> shape = getSpreadShape(buffer);
  Spread spread = transposed ? spreadOf({{Spread::Batch, 1, shape[0], 0},
                                         {Spread::Column, 1, shape[1], 0},
                                         {Spread::Row, 1, shape[2], 0}},
                                        shape)
                             : getFoldedSpread(shape);
  Value current = buffer;
  Operation *reader = product;
  while (true) {
    // Through reshapes to the buffer a copy wrote.
    Value copied = current;
    Operation *copiedReader = reader;
    SmallVector<Operation *> views;
    while (isReshape(copied.getDefiningOp()) && copied.hasOneUse()) {
      views.push_back(copied.getDefiningOp());
      copiedReader = copied.getDefiningOp();
      copied = copied.getDefiningOp()->getOperand(0);
    }
    SmallVector<Operation *> writers = getWriters(copied);
    auto copy = writers.size() == 1
                    ? dyn_cast<linalg::LinalgOp>(writers.front())
                    : linalg::LinalgOp();
    if (!copy || !isCopy(copy) ||
        !isPrivateTemporary(copied, {copy, copiedReader}))
      break;
    std::optional<Spread> source =
        spreadThroughCopy(copy, spread, /*forward=*/false);
    Value input = copy.getDpsInputOperand(0)->get();
    if (!source || !isAddressable(input))
      break;
    AttentionOperand read = getOperand(input, *source);
    if (!read.buffer)
      break;
    llvm::append_range(attention.ops, views);
    attention.ops.push_back(copy);
    attention.deadAllocations.push_back(copied.getDefiningOp());
    spread = *source;
    current = input;
    reader = copy;
    operand = read;
  }
  if (transposed && !llvm::any_of(spread.parts, [](const Spread::Part &part) {
        return part.kind == Spread::Column && part.stride == 1;
      }))
    operand.buffer = nullptr;
  return operand;
}

/// The output that the last product (or the cast after it) writes into the
/// batch x rows x columns `buffer`: where the program copies it on (the
/// heads merged back into [batch, seq, heads, dim] through reshapes,
/// perhaps narrowed in the same copy), the copy's destination; the copies
/// join the attention's ops and the buffers between its dead allocations.
/// Sets the output type where a copy narrows.
static AttentionOperand writeThroughCopies(Value buffer, Attention &attention) {
  AttentionOperand operand = AttentionOperand::getContiguous(buffer);
  if (!isAddressable(buffer))
    return operand;
  Spread spread = getFoldedSpread(getSpreadShape(buffer));
  Value current = buffer;
  while (true) {
    SmallVector<Operation *> uses = getWriters(current);
    Operation *reader = getOnlyReader(current, uses);
    if (!reader)
      break;
    uses.push_back(reader);
    // Through reshapes to the copy that reads them.
    SmallVector<Operation *> views;
    Value read = current;
    while (isReshape(reader) && reader->getResult(0).hasOneUse()) {
      views.push_back(reader);
      read = reader->getResult(0);
      reader = *read.getUsers().begin();
    }
    auto copy = dyn_cast<linalg::LinalgOp>(reader);
    if (!copy || copy.getDpsInputOperand(0)->get() != read ||
        !isPrivateTemporary(current, uses))
      break;
    // A copy may narrow an f32 output to f16 or bf16.
    Type castTo;
    Type destinationType =
        cast<MemRefType>(copy.getDpsInits()[0].getType()).getElementType();
    if (attention.outputType.isF32() &&
        (destinationType.isF16() || destinationType.isBF16()))
      castTo = destinationType;
    Value destination = copy.getDpsInitOperand(0)->get();
    if (!isCopy(copy, castTo) ||
        !copy.getMatchingIndexingMap(copy.getDpsInputOperand(0))
             .isPermutation() ||
        !isAddressable(destination))
      break;
    std::optional<Spread> moved =
        spreadThroughCopy(copy, spread, /*forward=*/true);
    if (!moved)
      break;
    AttentionOperand written = getOperand(destination, *moved);
    if (!written.buffer)
      break;
    llvm::append_range(attention.ops, views);
    attention.ops.push_back(copy);
    attention.deadAllocations.push_back(current.getDefiningOp());
    if (!isCopy(copy))
      attention.outputType = destinationType;
    spread = *moved;
    current = destination;
    operand = written;
  }
  return operand;
}

/// The buffer that `value` views (through view-like ops).
static Value getViewedBuffer(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

/// Whether `op` may write `buffer` (or a view of it); ops with regions
/// (loops) by what they hold.
static bool mayWrite(Operation *op, Value buffer) {
  if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>()) {
    WalkResult nested = op->walk([&](Operation *inner) {
      if (inner != op && mayWrite(inner, buffer))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (nested.wasInterrupted())
      return true;
  }
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return !isPure(op) && !op->hasTrait<OpTrait::HasRecursiveMemoryEffects>();
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffects(instances);
  return llvm::any_of(instances, [&](const MemoryEffects::EffectInstance &e) {
    return isa<MemoryEffects::Write>(e.getEffect()) &&
           (!e.getValue() || getViewedBuffer(e.getValue()) == buffer);
  });
}

/// Whether the kernel, which runs where the attention's last op was, reads
/// what the ops it replaces read: nothing else writes Q, K, V or the score
/// operands between the first of those ops that reads them and the last
/// op. The output must not be one of them (its workgroups would overwrite
/// what others still read).
static bool isUndisturbed(const Attention &attention) {
  SmallVector<Value> read = {getViewedBuffer(attention.queries.buffer),
                             getViewedBuffer(attention.keys.buffer),
                             getViewedBuffer(attention.values.buffer)};
  for (Value operand : attention.scoreOperands)
    read.push_back(getViewedBuffer(operand));
  if (llvm::is_contained(read, getViewedBuffer(attention.output.buffer)))
    return false;
  Operation *last = attention.ops.back();
  for (Value buffer : read) {
    auto readsBuffer = [&](Operation *op) {
      return llvm::any_of(op->getOperands(), [&](Value operand) {
        return isa<MemRefType>(operand.getType()) &&
               getViewedBuffer(operand) == buffer;
      });
    };
    Operation *const *firstRead = llvm::find_if(attention.ops, readsBuffer);
    if (firstRead == attention.ops.end())
      continue;
    for (Operation *op = (*firstRead)->getNextNode(); op && op != last;
         op = op->getNextNode())
      if (!llvm::is_contained(attention.ops, op) && mayWrite(op, buffer))
        return false;
  }
  return true;
}

std::optional<Attention>
mlir::subgroup_matrix::matchAttention(linalg::SoftmaxOp softmax) {
  Attention attention;
  auto scoresType = dyn_cast<MemRefType>(softmax.getInput().getType());
  if (!scoresType || scoresType.getRank() != 3 || scoresType.isDynamicDim(0) ||
      !scoresType.getElementType().isF32() || softmax.getDimension() != 2)
    return std::nullopt;

  // Back from the softmax: element-wise steps, then the product Q K^T.
  Value current = softmax.getInput();
  Operation *consumer = softmax;
  SmallVector<Operation *> before;
  std::optional<Contraction> scores;
  Operation *scoreProduct = nullptr;
  bool keysTransposed = false;
  while (!scores) {
    SmallVector<Operation *> writers = getWriters(current);
    Operation *writer = nullptr;
    for (Operation *candidate : writers)
      if (!isa<linalg::FillOp>(candidate))
        writer = writer ? nullptr : candidate;
    if (!writer)
      return std::nullopt;
    std::optional<unsigned> scoreInput;
    if (auto step = dyn_cast<linalg::GenericOp>(writer))
      scoreInput = getScoreInput(step, scoresType);
    if (scoreInput) {
      auto step = cast<linalg::GenericOp>(writer);
      if (!isPrivateTemporary(current, {step, consumer}))
        return std::nullopt;
      attention.deadAllocations.push_back(current.getDefiningOp());
      attention.scoreSteps.insert(attention.scoreSteps.begin(), step);
      attention.scoreInputs.insert(attention.scoreInputs.begin(), *scoreInput);
      for (OpOperand *input : step.getDpsInputOperands())
        if (input->getOperandNumber() != *scoreInput &&
            !llvm::is_contained(attention.scoreOperands, input->get()))
          attention.scoreOperands.push_back(input->get());
      before.insert(before.begin(), step);
      consumer = step;
      current = step->getOperand(*scoreInput);
      continue;
    }
    scores = matchProduct(writer, /*transposedB=*/true);
    // K^T written out by a copy of K (TOSA's tosa.transpose before
    // tosa.matmul): the kernel reads K through the copy.
    if (!scores) {
      scores = matchProduct(writer, /*transposedB=*/false);
      keysTransposed = scores.has_value();
    }
    if (!scores || !isPrivateTemporary(current, {scores->fill.getOperation(),
                                                 writer, consumer}))
      return std::nullopt;
    attention.deadAllocations.push_back(current.getDefiningOp());
    before.insert(before.begin(), writer);
    before.insert(before.begin(), scores->fill.getOperation());
    scoreProduct = writer;
  }

  // Forward: the cast of P to the input type (unless it is f32), then the
  // product P V.
  Type inputType = scores->inputComponent;
  Value probabilities = softmax.getOutput();
  Operation *probabilityCast = nullptr;
  Value narrow = probabilities;
  if (!inputType.isF32()) {
    auto castOp = dyn_cast_or_null<linalg::GenericOp>(
        getOnlyReader(probabilities, {softmax.getOperation()}));
    if (!castOp || !isCastTo(castOp, inputType) ||
        !isPrivateTemporary(probabilities, {softmax.getOperation(), castOp}))
      return std::nullopt;
    probabilityCast = castOp;
    narrow = castOp.getDpsInits()[0];
    attention.deadAllocations.push_back(probabilities.getDefiningOp());
  }
  Operation *narrowWriter = probabilityCast ? probabilityCast : softmax;
  Operation *productWriter = getOnlyReader(narrow, {narrowWriter});
  std::optional<Contraction> output =
      productWriter ? matchProduct(productWriter, /*transposedB=*/false)
                    : std::nullopt;
  if (!output || output->a.buffer != narrow ||
      !isPrivateTemporary(narrow, {narrowWriter, productWriter}))
    return std::nullopt;
  attention.deadAllocations.push_back(narrow.getDefiningOp());

  // Shapes: Q batch x Sq x D, K batch x Sk x D, V batch x Sk x D.
  if (output->batch != scores->batch || output->m != scores->m ||
      output->k != scores->n || output->n != scores->k ||
      output->inputComponent != inputType || ShapedType::isDynamic(scores->k))
    return std::nullopt;
  attention.ops = before;
  attention.ops.push_back(softmax);
  if (probabilityCast)
    attention.ops.push_back(probabilityCast);
  attention.ops.append({output->fill.getOperation(), productWriter});
  attention.batch = scores->batch;
  attention.outputType = Float32Type::get(softmax.getContext());
  Value outputBuffer = output->c;
  // An optional cast of O (to f16, bf16) is written by the kernel directly.
  if (auto outputCast = dyn_cast_or_null<linalg::GenericOp>(getOnlyReader(
          output->c, {output->fill.getOperation(), productWriter}))) {
    Type to = cast<MemRefType>(outputCast.getDpsInits()[0].getType())
                  .getElementType();
    if ((to.isF16() || to.isBF16()) && isCastTo(outputCast, to) &&
        isPrivateTemporary(output->c, {output->fill.getOperation(),
                                       productWriter, outputCast})) {
      attention.deadAllocations.push_back(output->c.getDefiningOp());
      attention.ops.push_back(outputCast);
      outputBuffer = outputCast.getDpsInits()[0];
      attention.outputType = to;
    }
  }
  // Q, K, V and the output where the program's copies of them lead (the
  // kernel then replaces the copies too), unless that moves a read past a
  // write; else the buffers the products read and write.
  for (bool throughCopies : {true, false}) {
    Attention placed = attention;
    if (throughCopies) {
      placed.queries =
          readThroughCopies(scores->a.buffer, scoreProduct, placed);
      placed.keys = readThroughCopies(scores->b.buffer, scoreProduct, placed,
                                      keysTransposed);
      if (!placed.keys.buffer)
        return std::nullopt;
      placed.values =
          readThroughCopies(output->b.buffer, productWriter, placed);
      placed.output = writeThroughCopies(outputBuffer, placed);
    } else {
      if (keysTransposed)
        return std::nullopt;
      placed.queries = AttentionOperand::getContiguous(scores->a.buffer);
      placed.keys = AttentionOperand::getContiguous(scores->b.buffer);
      placed.values = AttentionOperand::getContiguous(output->b.buffer);
      placed.output = AttentionOperand::getContiguous(outputBuffer);
    }
    bool oneBlock = llvm::all_of(placed.ops, [&](Operation *op) {
      return op->getBlock() == softmax->getBlock();
    });
    if (oneBlock)
      llvm::sort(placed.ops, [](Operation *x, Operation *y) {
        return x->isBeforeInBlock(y);
      });
    if (oneBlock && isUndisturbed(placed)) {
      attention = std::move(placed);
      break;
    }
    if (!throughCopies)
      return std::nullopt;
  }
  attention.queryCount = scores->m;
  attention.keyCount = scores->n;
  attention.headDim = scores->k;
  attention.inputType = inputType;
  attention.causal = !attention.scoreSteps.empty() &&
                     isCausalMask(attention.scoreSteps.back());
  return attention;
}
