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
    if (!map.isProjectedPermutation() || !type.hasStaticShape() ||
        !type.getLayout().isIdentity() ||
        !isa<Float32Type, Float16Type>(type.getElementType()))
      return std::nullopt;
    // The dimensions in order, so that the address is row-major.
    for (unsigned i = 1; i < map.getNumResults(); ++i)
      if (map.getDimPosition(i) <= map.getDimPosition(i - 1))
        return std::nullopt;
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
    if (!scores || !isPrivateTemporary(current, {scores->fill.getOperation(),
                                                 writer, consumer}))
      return std::nullopt;
    attention.deadAllocations.push_back(current.getDefiningOp());
    before.insert(before.begin(), writer);
    before.insert(before.begin(), scores->fill.getOperation());
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
  attention.queries = scores->a.buffer;
  attention.keys = scores->b.buffer;
  attention.values = output->b.buffer;
  attention.output = output->c;
  attention.outputType = Float32Type::get(softmax.getContext());
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
      attention.output = outputCast.getDpsInits()[0];
      attention.outputType = to;
    }
  }
  attention.batch = scores->batch;
  attention.queryCount = scores->m;
  attention.keyCount = scores->n;
  attention.headDim = scores->k;
  attention.inputType = inputType;
  attention.causal = !attention.scoreSteps.empty() &&
                     isCausalMask(attention.scoreSteps.back());
  return attention;
}
