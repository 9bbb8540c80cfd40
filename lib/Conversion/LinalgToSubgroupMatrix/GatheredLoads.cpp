//===- GatheredLoads.cpp - the loads of gathering prologues --------------===//
//
// How this library's kernels read an operand that a gathering prologue
// computes (a dequantized weight): each element from the elements of the
// prologue's inputs that its indexing maps select. Index arithmetic keeps
// the position along a vector a constant, so that what does not vary along
// it (a column's scale, a group's) is computed and loaded once, and inputs
// contiguous along it load as one vector (KernelBuilder.h).
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

#include <numeric>

using namespace mlir;
using namespace mlir::subgroup_matrix;

SmallVector<Value> KernelBuilder::loadVectorElements(Value buffer, Type element,
                                                     Value start,
                                                     int64_t count) {
  Value vector = vector::LoadOp::create(
      b, loc, VectorType::get({count}, element), buffer, start);
  int64_t words = count * element.getIntOrFloatBitWidth() / 32;
  Value packed = vector::BitCastOp::create(
      b, loc, VectorType::get({words}, b.getI32Type()), vector);
  SmallVector<Value> elements;
  for (int64_t w = 0; w < words; ++w)
    llvm::append_range(
        elements,
        unpackWord(vector::ExtractOp::create(b, loc, packed, w), element));
  return elements;
}

SmallVector<Value> KernelBuilder::unpackWord(Value word, Type element) {
  int64_t perWord = 32 / element.getIntOrFloatBitWidth();
  Value packed = vector::FromElementsOp::create(
      b, loc, VectorType::get({1}, b.getI32Type()), word);
  Value elements = vector::BitCastOp::create(
      b, loc, VectorType::get({perWord}, element), packed);
  SmallVector<Value> result;
  for (int64_t e = 0; e < perWord; ++e)
    result.push_back(vector::ExtractOp::create(b, loc, elements, e));
  return result;
}

Value KernelBuilder::packWord(ArrayRef<Value> elements) {
  auto elementsType =
      VectorType::get({int64_t(elements.size())}, elements.front().getType());
  Value word = vector::BitCastOp::create(
      b, loc, VectorType::get({1}, b.getI32Type()),
      vector::FromElementsOp::create(b, loc, elementsType, elements));
  return vector::ExtractOp::create(b, loc, word, 0);
}

SplitIndex KernelBuilder::addIndices(SplitIndex x, SplitIndex y) {
  Value base = !x.base   ? y.base
               : !y.base ? x.base
                         : gatherIndexOp<arith::AddIOp>(x.base, y.base);
  return {base, x.offset + y.offset, std::gcd(x.alignment, y.alignment)};
}

Value KernelBuilder::materialize(SplitIndex index) {
  if (!index.base)
    return this->index(index.offset);
  if (!index.offset)
    return index.base;
  return gatherIndexOp<arith::AddIOp>(index.base, this->index(index.offset));
}

SplitIndex KernelBuilder::scaleIndex(SplitIndex index, int64_t factor) {
  return {index.base
              ? gatherIndexOp<arith::MulIOp>(index.base, this->index(factor))
              : Value(),
          index.offset * factor, index.alignment * factor};
}

/// Whether `base + offset` lies in the same block of `c` as `base`: c is a
/// multiple of base's alignment and the offset stays below it.
static bool staysWithinAlignment(SplitIndex index, int64_t c) {
  return index.base && index.alignment > 0 && c % index.alignment == 0 &&
         index.offset >= 0 && index.offset < index.alignment;
}

SplitIndex KernelBuilder::computeIndex(AffineExpr expr,
                                       ArrayRef<SplitIndex> dims) {
  if (auto dim = dyn_cast<AffineDimExpr>(expr))
    return dims[dim.getPosition()];
  if (auto constant = dyn_cast<AffineConstantExpr>(expr))
    return {Value(), constant.getValue(), 0};
  auto binary = cast<AffineBinaryOpExpr>(expr);
  SplitIndex lhs = computeIndex(binary.getLHS(), dims);
  if (binary.getKind() == AffineExprKind::Add)
    return addIndices(lhs, computeIndex(binary.getRHS(), dims));
  // The fusion admits only positive constants on the right of *, floordiv
  // and mod; indices are never negative.
  int64_t c = cast<AffineConstantExpr>(binary.getRHS()).getValue();
  switch (binary.getKind()) {
  case AffineExprKind::Mul:
    return scaleIndex(lhs, c);
  case AffineExprKind::FloorDiv:
    // (base + offset) floordiv c = base / c + offset floordiv c when c
    // divides base: the offset stays a constant.
    if (lhs.alignment % c == 0)
      return {lhs.base ? gatherIndexOp<arith::DivUIOp>(lhs.base, index(c))
                       : Value(),
              lhs.offset / c, lhs.alignment / c};
    // Nor does it when base steps in multiples of c's divisor alignment
    // and the offset stays below it (a group of 128 along a vector of 8).
    if (staysWithinAlignment(lhs, c))
      return {gatherIndexOp<arith::DivUIOp>(lhs.base, index(c)), 0, 1};
    return {gatherIndexOp<arith::DivUIOp>(materialize(lhs), index(c)), 0, 1};
  case AffineExprKind::Mod:
    if (lhs.alignment % c == 0)
      return {Value(), lhs.offset % c, 0};
    if (staysWithinAlignment(lhs, c))
      return {gatherIndexOp<arith::RemUIOp>(lhs.base, index(c)), lhs.offset,
              lhs.alignment};
    return {gatherIndexOp<arith::RemUIOp>(materialize(lhs), index(c)), 0, 1};
  default:
    llvm_unreachable("the fusion admits no other index expression");
  }
}

Value KernelBuilder::isInside(SplitIndex index, int64_t size) {
  if (!index.base)
    return arith::ConstantIntOp::create(
        b, loc, b.getI1Type(), index.offset >= 0 && index.offset < size);
  Value position = materialize(index);
  Value &inside = gatherBoundChecks[{position, size}];
  // A negative index is a large unsigned one.
  if (!inside)
    inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, position,
                                   this->index(size));
  return inside;
}

SmallVector<Value> KernelBuilder::loadGathered(Value buffer, Type element,
                                               ArrayRef<SplitIndex> offsets,
                                               ArrayRef<Value> inside,
                                               TypedAttr padding,
                                               bool vectorLoads) {
  // Where the whole vector is inside or outside together, its start moves
  // to element 0 outside; otherwise each element is loaded on its own.
  bool insideTogether = llvm::all_equal(inside);
  Value paddingValue =
      padding ? arith::ConstantOp::create(b, loc, padding).getResult()
              : Value();
  auto pad = [&](Value value, Value isInside) {
    return isInside
               ? arith::SelectOp::create(b, loc, isInside, value, paddingValue)
                     .getResult()
               : value;
  };
  auto clamp = [&](Value position, Value isInside) {
    return isInside
               ? arith::SelectOp::create(b, loc, isInside, position, index(0))
                     .getResult()
               : position;
  };
  // Offsets share their base; the elements they select are loaded once
  // each, as one vector of words where they are contiguous and aligned.
  int64_t first = offsets.front().offset, last = first;
  bool sharedBase = true;
  for (const SplitIndex &offset : offsets) {
    sharedBase &= offset.base == offsets.front().base;
    first = std::min(first, offset.offset);
    last = std::max(last, offset.offset);
  }
  int64_t length = last - first + 1;
  int64_t bits = element.getIntOrFloatBitWidth();
  int64_t alignment = offsets.front().alignment;
  bool contiguous =
      llvm::all_of(llvm::seq<int64_t>(first, last + 1), [&](int64_t o) {
        return llvm::any_of(offsets, [&](auto x) { return x.offset == o; });
      });
  SmallVector<Value> values;
  // (Not elements narrower than a byte: the SPIR-V lowering emulates those
  // one at a time in 32-bit words, and has no vectors of them.)
  if (vectorLoads && sharedBase && contiguous && insideTogether && length > 1 &&
      bits >= 8 && length * bits % 32 == 0 && length * bits <= 128 &&
      first % length == 0 && (alignment == 0 || alignment % length == 0)) {
    Value vectorInside = inside.empty() ? Value() : inside.front();
    Value start =
        clamp(materialize({offsets.front().base, first, 0}), vectorInside);
    SmallVector<Value> unpacked =
        loadVectorElements(buffer, element, start, length);
    for (const SplitIndex &offset : offsets)
      values.push_back(pad(unpacked[offset.offset - first], vectorInside));
    return values;
  }
  DenseMap<std::tuple<Value, int64_t, Value>, Value> loaded;
  for (auto [i, offset] : llvm::enumerate(offsets)) {
    Value elementInside = inside.empty() ? Value() : inside[i];
    Value &value = loaded[{offset.base, offset.offset, elementInside}];
    if (!value)
      value =
          pad(memref::LoadOp::create(b, loc, buffer,
                                     clamp(materialize(offset), elementInside)),
              elementInside);
    values.push_back(value);
  }
  return values;
}

GatheredVector KernelBuilder::loadGatheredVector(const GatheredOperand &operand,
                                                 Value batchIndex, Value row,
                                                 Value column, int64_t width,
                                                 Value inBounds,
                                                 bool vectorLoads) {
  gatherIndexOps.clear();
  gatherBoundChecks.clear();
  // Outside the matrix, compute the first element instead (always there)
  // and replace it by zero.
  if (inBounds) {
    row = arith::SelectOp::create(b, loc, inBounds, row, index(0));
    column = arith::SelectOp::create(b, loc, inBounds, column, index(0));
  }
  // Element i of the vector is at column `column + i`, and `column` is a
  // multiple of the width: index arithmetic keeps i a constant, so what
  // does not vary along the vector (a column's scale, a group's) is
  // computed and loaded once.
  SmallVector<SmallVector<Value>> inputs;
  for (auto [position, buffer] : llvm::enumerate(operand.buffers)) {
    AffineMap map = operand.maps[position];
    MemRefType type = operand.types[position];
    const std::optional<GatherPadding> &padding = operand.padding[position];
    SmallVector<SplitIndex> offsets;
    SmallVector<Value> inside;
    for (int64_t i = 0; i < width; ++i) {
      SmallVector<SplitIndex, 3> dims = {{row, 0, 1}, {column, i, width}};
      if (map.getNumDims() == 3)
        dims.insert(dims.begin(), {batchIndex, 0, 1});
      // Row-major offset of the selected element; an input of the tile's
      // own shape has the tile's (maybe dynamic) row length.
      SplitIndex offset = {Value(), 0, 0};
      Value elementInside;
      for (auto [dim, expr] : llvm::enumerate(map.getResults())) {
        if (type.hasStaticShape()) {
          offset = scaleIndex(offset, type.getDimSize(dim));
        } else {
          Value length = dim == 0 ? operand.rowsValue : operand.colsValue;
          offset = {gatherIndexOp<arith::MulIOp>(materialize(offset), length),
                    0, 1};
        }
        SplitIndex position = computeIndex(expr, dims);
        if (padding && padding->checked[dim]) {
          Value check = isInside(position, type.getDimSize(dim));
          elementInside =
              elementInside ? gatherIndexOp<arith::AndIOp>(elementInside, check)
                            : check;
        }
        offset = addIndices(offset, position);
      }
      offsets.push_back(offset);
      if (padding)
        inside.push_back(elementInside);
    }
    inputs.push_back(
        loadGathered(buffer, type.getElementType(), offsets, inside,
                     padding ? padding->value : TypedAttr(), vectorLoads));
  }
  return {std::move(inputs), row, column, inBounds};
}

SmallVector<Value>
KernelBuilder::computeGatheredElements(linalg::GenericOp prologue,
                                       const GatheredVector &loaded,
                                       int64_t width, Type staged) {
  Block &body = prologue.getRegion().front();
  Value row = loaded.row, column = loaded.column, inBounds = loaded.inBounds;
  SmallVector<Value> elements(width);
  auto finish = [&](int64_t i, Value element) {
    if (element.getType() != staged)
      element = arith::BitcastOp::create(b, loc, staged, element);
    if (inBounds)
      element =
          arith::SelectOp::create(b, loc, inBounds, element, zeroOf(staged));
    elements[i] = element;
  };
  // Elements whose narrow integers share a word, two at a time.
  for (int64_t i = 0; i < width; ++i)
    for (int64_t j = i + 1; !elements[i] && j < width; ++j) {
      if (elements[j] || !arePairable(loaded, i, j))
        continue;
      std::optional<std::pair<Value, Value>> pair =
          computeGatheredPair(prologue, loaded, i, j, width);
      if (!pair)
        break;
      finish(i, pair->first);
      finish(j, pair->second);
    }
  for (int64_t i = 0; i < width; ++i) {
    if (elements[i])
      continue;
    IRMapping mapping;
    for (auto [position, values] : llvm::enumerate(loaded.inputs))
      mapping.map(body.getArgument(position), values[i]);
    Value elementColumn = add(column, i);
    Value dims[] = {row, elementColumn};
    body.walk([&](linalg::IndexOp indexOp) {
      mapping.map(indexOp.getResult(), dims[indexOp.getDim()]);
    });
    // `column` is a multiple of the width: what the body computes of
    // `column + i` by masks, remainders and quotients that divide the width
    // (which nibble of a byte, which group's scale) is a constant, or a
    // quotient the vector shares, not arithmetic per element.
    auto foldColumnArithmetic = [&](Operation &op) {
      APInt constant;
      if (op.getNumOperands() != 2 ||
          mapping.lookupOrDefault(op.getOperand(0)) != elementColumn ||
          !matchPattern(mapping.lookupOrDefault(op.getOperand(1)),
                        m_ConstantInt(&constant)))
        return false;
      int64_t c = constant.getSExtValue();
      Value folded;
      if (isa<arith::AndIOp>(op) && c >= 0 && width % (c + 1) == 0 &&
          llvm::isPowerOf2_64(c + 1))
        folded = index(i & c);
      else if (isa<arith::RemUIOp, arith::RemSIOp>(op) && c > 0 &&
               width % c == 0)
        folded = index(i % c);
      else if (isa<arith::DivUIOp, arith::DivSIOp>(op) && c > 0 &&
               width % c == 0)
        folded = add(arith::DivUIOp::create(b, loc, column, index(c)), i / c);
      if (!folded)
        return false;
      mapping.map(op.getResult(0), folded);
      return true;
    };
    finish(
        i,
        cloneScalarBodyResults(b, body, mapping, foldColumnArithmetic).front());
  }
  return elements;
}
