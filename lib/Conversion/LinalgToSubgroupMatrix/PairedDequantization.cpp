//===- PairedDequantization.cpp - two dequantized elements at once --------===//
//
// A gathering prologue's body runs once per element (GatheredLoads.cpp). Where
// two elements read their narrow integers from bytes 16 bits apart in one
// loaded word (elements k and k + 4 of packed int4, k and k + 2 of int8), the
// body can run on both at once: the integers stay in the word's two 16-bit
// halves (shifts and masks of the whole word), become half floats by placing
// them in the mantissa of 1024.0 (0x6400) and subtracting a constant, and the
// float arithmetic after that runs on vectors of two. Every step is exact
// (integers below 2048 in f16), so the two elements are those the body
// computes one at a time; what the evaluation does not know (other integer
// arithmetic, two elements that read different scales) leaves the pair to the
// element-wise path.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::subgroup_matrix;

namespace {
/// What the evaluation knows of a value of the body, for both elements.
struct PairedValue {
  enum class Kind {
    /// The same constant for both.
    Constant,
    /// The same value for both (a scale, an index both elements share).
    Shared,
    /// The column index, which differs.
    Column,
    /// An integer in both halves of `value` (an i32 word): each element is
    /// `(value >> shift) & mask` of its half, `mask` within 8 bits;
    /// `signExtended` when the type is wider than 8 bits and the 8 bits
    /// were sign-extended into it.
    Halves,
    /// An integer that is `offset` plus the (unsigned) half of `value`,
    /// the halves already shifted, masked and, for signed bytes, flipped;
    /// [low, high] bounds it.
    Biased,
    /// Both elements, as a vector of two.
    Pair,
  };
  Kind kind;
  Attribute constant;
  Value value;
  int64_t shift = 0, mask = 0;
  bool signExtended = false;
  int64_t offset = 0, low = 0, high = 0;
};

/// The word and the byte of it that `value` (an i8 that unpackWord took
/// from a loaded word) is, if it is one.
std::optional<std::pair<Value, int64_t>> getUnpackedByte(Value value) {
  auto extract = value.getDefiningOp<vector::ExtractOp>();
  if (!extract || !value.getType().isInteger(8) ||
      extract.getNumIndices() != 1 || !extract.getDynamicPosition().empty())
    return std::nullopt;
  auto bitcast = extract.getSource().getDefiningOp<vector::BitCastOp>();
  if (!bitcast || bitcast.getResultVectorType().getNumElements() != 4)
    return std::nullopt;
  auto word = bitcast.getSource().getDefiningOp<vector::FromElementsOp>();
  if (!word || word.getElements().size() != 1)
    return std::nullopt;
  return std::make_pair(word.getElements().front(),
                        extract.getStaticPosition().front());
}
} // namespace

bool KernelBuilder::arePairable(const GatheredVector &loaded, int64_t i,
                                int64_t j) {
  bool packed = false;
  for (const SmallVector<Value> &values : loaded.inputs) {
    if (values[i] == values[j])
      continue;
    auto first = getUnpackedByte(values[i]);
    auto second = getUnpackedByte(values[j]);
    if (!first || !second || first->first != second->first ||
        first->second >= 2 || second->second != first->second + 2)
      return false;
    packed = true;
  }
  return packed;
}

std::optional<std::pair<Value, Value>>
KernelBuilder::computeGatheredPair(linalg::GenericOp prologue,
                                   const GatheredVector &loaded, int64_t i,
                                   int64_t j, int64_t width) {
  using Kind = PairedValue::Kind;
  Block &body = prologue.getRegion().front();
  DenseMap<Value, PairedValue> known;
  for (auto [position, values] : llvm::enumerate(loaded.inputs)) {
    Value argument = body.getArgument(position);
    if (values[i] == values[j]) {
      known[argument] = {Kind::Shared, {}, values[i]};
      continue;
    }
    int64_t byte = getUnpackedByte(values[i])->second;
    known[argument] = {
        Kind::Halves, {}, getUnpackedByte(values[i])->first, 8 * byte, 0xff};
  }

  auto i32 = [&](int64_t value) -> Value {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), value);
  };
  // The value both elements share, built here where it is a constant.
  auto sharedValue = [&](const PairedValue &value, Type type) -> Value {
    if (value.kind == Kind::Shared)
      return value.value;
    return arith::ConstantOp::create(b, loc, type,
                                     cast<TypedAttr>(value.constant));
  };
  // The halves of a word holding an integer as an unsigned number plus an
  // offset, as a signed (or unsigned) integer of `bits` bits reads them.
  auto toBiased = [&](const PairedValue &value, unsigned bits,
                      bool isSigned) -> std::optional<PairedValue> {
    if (value.kind == Kind::Biased)
      return value;
    // A byte whose top bit may be set is negative where its type is i8 or
    // it was sign-extended: flipping that bit gives the byte plus 128.
    bool negative =
        (value.mask & 0x80) && isSigned && (bits == 8 || value.signExtended);
    if ((value.mask & 0x80) && value.signExtended && !isSigned)
      return std::nullopt;
    Value word = value.value;
    if (value.shift)
      word = arith::ShRUIOp::create(b, loc, word, i32(value.shift));
    word =
        arith::AndIOp::create(b, loc, word, i32(value.mask | value.mask << 16));
    if (negative)
      word = arith::XOrIOp::create(b, loc, word, i32(0x00800080));
    PairedValue biased{Kind::Biased, {}, word};
    biased.offset = negative ? -128 : 0;
    biased.low = biased.offset;
    biased.high = biased.offset + value.mask;
    return biased;
  };
  auto fitsIn = [](const PairedValue &value, unsigned bits, bool isSigned) {
    int64_t lowest = isSigned ? -(int64_t(1) << (bits - 1)) : 0;
    int64_t highest =
        isSigned ? (int64_t(1) << (bits - 1)) - 1 : (int64_t(1) << bits) - 1;
    return value.low >= lowest && value.high <= highest;
  };
  auto asPair = [&](const PairedValue &value, Type element) -> Value {
    if (value.kind == Kind::Pair)
      return value.value;
    return vector::BroadcastOp::create(b, loc, VectorType::get({2}, element),
                                       sharedValue(value, element));
  };

  // One step of the body on both elements, or nullopt where the
  // evaluation does not know it.
  auto evaluate = [&](Operation &op) -> std::optional<PairedValue> {
    if (auto index = dyn_cast<linalg::IndexOp>(op)) {
      if (index.getDim() == 0)
        return PairedValue{Kind::Shared, {}, loaded.row};
      return PairedValue{Kind::Column};
    }
    if (op.getNumRegions() || op.getNumResults() != 1)
      return std::nullopt;
    SmallVector<PairedValue> operands;
    for (Value operand : op.getOperands()) {
      if (auto it = known.find(operand); it != known.end()) {
        operands.push_back(it->second);
        continue;
      }
      Attribute constant;
      if (!matchPattern(operand, m_Constant(&constant)))
        return std::nullopt;
      operands.push_back({Kind::Constant, constant});
    }
    auto kinds = llvm::map_range(
        operands, [](const PairedValue &value) { return value.kind; });
    Type resultType = op.getResult(0).getType();

    if (llvm::all_of(kinds, [](Kind k) { return k == Kind::Constant; })) {
      SmallVector<Attribute> attributes;
      for (const PairedValue &operand : operands)
        attributes.push_back(operand.constant);
      SmallVector<OpFoldResult> folded;
      if (failed(op.fold(attributes, folded)) || folded.size() != 1 ||
          !isa<Attribute>(folded.front()))
        return std::nullopt;
      return PairedValue{Kind::Constant, cast<Attribute>(folded.front())};
    }
    if (llvm::all_of(kinds, [](Kind k) {
          return k == Kind::Constant || k == Kind::Shared;
        })) {
      IRMapping mapping;
      for (auto [operand, value] : llvm::zip(op.getOperands(), operands))
        mapping.map(operand, sharedValue(value, operand.getType()));
      return PairedValue{Kind::Shared, {}, b.clone(op, mapping)->getResult(0)};
    }

    // The column: the masks, remainders and quotients that both elements
    // share (which nibble of a byte, which group's scale).
    if (operands.size() == 2 && operands[0].kind == Kind::Column &&
        operands[1].kind == Kind::Constant) {
      auto constant = dyn_cast<IntegerAttr>(operands[1].constant);
      if (!constant)
        return std::nullopt;
      int64_t c = constant.getInt();
      std::optional<std::pair<int64_t, int64_t>> ofBoth;
      if (isa<arith::AndIOp>(op) && c >= 0 && llvm::isPowerOf2_64(c + 1) &&
          width % (c + 1) == 0)
        ofBoth = {i & c, j & c};
      else if (isa<arith::RemUIOp, arith::RemSIOp>(op) && c > 0 &&
               width % c == 0)
        ofBoth = {i % c, j % c};
      if (ofBoth && ofBoth->first == ofBoth->second)
        return PairedValue{Kind::Constant, b.getIndexAttr(ofBoth->first)};
      if (isa<arith::DivUIOp, arith::DivSIOp>(op) && c > 0 && width % c == 0 &&
          i / c == j / c)
        return PairedValue{
            Kind::Shared,
            {},
            add(arith::DivUIOp::create(b, loc, loaded.column, index(c)),
                i / c)};
      return std::nullopt;
    }

    // Integers in the halves of a word.
    auto intType = dyn_cast<IntegerType>(op.getOperand(0).getType());
    const PairedValue &first = operands.front();
    auto constantOperand = [&](unsigned position) -> std::optional<int64_t> {
      if (operands.size() <= position ||
          operands[position].kind != Kind::Constant)
        return std::nullopt;
      auto attribute = dyn_cast<IntegerAttr>(operands[position].constant);
      if (!attribute)
        return std::nullopt;
      return attribute.getValue().getSExtValue();
    };
    if (intType && first.kind == Kind::Halves) {
      unsigned bits = intType.getWidth();
      bool topBit = first.mask & 0x80;
      PairedValue result = first;
      if (isa<arith::ShRUIOp, arith::ShRSIOp>(op)) {
        std::optional<int64_t> c = constantOperand(1);
        // An arithmetic shift of a byte that may be negative brings in
        // ones; a logical one of a sign-extended byte too.
        if (!c || *c < 0 || *c >= 8 ||
            (topBit &&
             (first.signExtended || (isa<arith::ShRSIOp>(op) && bits == 8))))
          return std::nullopt;
        result.shift += *c;
        result.mask >>= *c;
        return result;
      }
      if (isa<arith::AndIOp>(op)) {
        std::optional<int64_t> c = constantOperand(1);
        if (!c)
          return std::nullopt;
        // Bits above the byte are zero, or copies of its top bit.
        uint64_t above =
            uint64_t(*c) & ~uint64_t(0xff) &
            (bits == 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1);
        if (above && first.signExtended && topBit)
          return std::nullopt;
        result.mask &= *c & 0xff;
        result.signExtended &= bool(result.mask & 0x80);
        return result;
      }
      if (isa<arith::ExtUIOp>(op)) {
        if (first.signExtended && topBit)
          return std::nullopt;
        return result;
      }
      if (isa<arith::ExtSIOp>(op)) {
        result.signExtended |= bits == 8 && topBit;
        return result;
      }
      if (isa<arith::TruncIOp>(op)) {
        if (resultType.getIntOrFloatBitWidth() < 8)
          return std::nullopt;
        result.signExtended &= resultType.getIntOrFloatBitWidth() > 8;
        return result;
      }
    }
    if (intType && (first.kind == Kind::Halves || first.kind == Kind::Biased)) {
      unsigned bits = intType.getWidth();
      if (isa<arith::AddIOp, arith::SubIOp>(op)) {
        std::optional<int64_t> c = constantOperand(1);
        if (!c)
          return std::nullopt;
        std::optional<PairedValue> biased =
            toBiased(first, bits, /*isSigned=*/true);
        if (!biased)
          return std::nullopt;
        int64_t delta = isa<arith::SubIOp>(op) ? -*c : *c;
        biased->offset += delta;
        biased->low += delta;
        biased->high += delta;
        // The sum must not wrap, whichever way its type is read later.
        if (!fitsIn(*biased, bits, true) && !fitsIn(*biased, bits, false))
          return std::nullopt;
        return biased;
      }
      if (isa<arith::SIToFPOp, arith::UIToFPOp>(op) &&
          (resultType.isF16() || resultType.isF32())) {
        bool isSigned = isa<arith::SIToFPOp>(op);
        std::optional<PairedValue> biased = toBiased(first, bits, isSigned);
        if (!biased || !fitsIn(*biased, bits, isSigned) ||
            biased->offset < -1024 || biased->offset > 1024)
          return std::nullopt;
        // 1024 + h in each half (h below 256), minus 1024 - offset.
        Value word =
            arith::OrIOp::create(b, loc, biased->value, i32(0x64006400));
        Type f16 = b.getF16Type();
        Value halves = vector::BitCastOp::create(
            b, loc, VectorType::get({2}, f16),
            vector::FromElementsOp::create(
                b, loc, VectorType::get({1}, b.getI32Type()), word));
        Value bias = arith::ConstantOp::create(
            b, loc,
            DenseElementsAttr::get(VectorType::get({2}, f16),
                                   ArrayRef<Attribute>{b.getFloatAttr(
                                       f16, 1024.0 - biased->offset)}));
        Value pair = arith::SubFOp::create(b, loc, halves, bias);
        if (resultType.isF32())
          pair = arith::ExtFOp::create(
              b, loc, VectorType::get({2}, b.getF32Type()), pair);
        return PairedValue{Kind::Pair, {}, pair};
      }
      return std::nullopt;
    }

    // Element-wise steps on a pair run on the vector of both.
    if (!OpTrait::hasElementwiseMappableTraits(&op) ||
        !resultType.isIntOrIndexOrFloat() ||
        !llvm::any_of(kinds, [](Kind k) { return k == Kind::Pair; }) ||
        !llvm::all_of(kinds, [](Kind k) {
          return k == Kind::Pair || k == Kind::Shared || k == Kind::Constant;
        }))
      return std::nullopt;
    IRMapping mapping;
    for (auto [operand, value] : llvm::zip(op.getOperands(), operands))
      mapping.map(operand, asPair(value, operand.getType()));
    Operation *pair = b.clone(op, mapping);
    pair->getResult(0).setType(VectorType::get({2}, resultType));
    return PairedValue{Kind::Pair, {}, pair->getResult(0)};
  };

  // Built into a block of its own first, so that a body the evaluation
  // does not know leaves nothing behind.
  Block scratch;
  OpBuilder::InsertionGuard guard(b);
  Block *kernelBlock = b.getInsertionBlock();
  Block::iterator kernelPoint = b.getInsertionPoint();
  b.setInsertionPointToEnd(&scratch);
  auto discard = [&]() -> std::optional<std::pair<Value, Value>> {
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(scratch)))
      op.erase();
    return std::nullopt;
  };
  for (Operation &op : body.without_terminator()) {
    std::optional<PairedValue> value = evaluate(op);
    if (!value)
      return discard();
    known[op.getResult(0)] = *value;
  }
  auto yielded = known.find(body.getTerminator()->getOperand(0));
  if (yielded == known.end() || yielded->second.kind != Kind::Pair)
    return discard();
  Value pair = yielded->second.value;
  b.setInsertionPointToEnd(&scratch);
  Value firstElement = vector::ExtractOp::create(b, loc, pair, 0);
  Value secondElement = vector::ExtractOp::create(b, loc, pair, 1);
  kernelBlock->getOperations().splice(kernelPoint, scratch.getOperations());
  return std::make_pair(firstElement, secondElement);
}
