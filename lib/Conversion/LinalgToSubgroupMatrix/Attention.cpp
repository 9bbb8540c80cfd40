//===- Attention.cpp - scaled dot-product attention as one kernel ---------===//
//
// The kernel is FlashAttention's: a workgroup owns a block of queries of
// one batch, each subgroup a matrix height of them; it walks the keys in
// blocks, staging K and V through workgroup memory, and keeps for each query
// row the running maximum m, the running sum l of exp(s - m) and the output
// O, rescaled by exp(m_old - m_new) whenever the maximum grows. The scores
// S = Q K^T of a key block and the probabilities P = exp(S - m) are result
// matrices in registers: `mma`, `map` (the program's scale and mask, exp,
// the rescale), `reduce max rows` and `reduce add rows`, `convert` of P to
// a left matrix and `mma` with V. O is divided by l once, at the end.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Attention.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Contraction.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/KernelEmitter.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/TilingPlan.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/FormatVariadic.h"

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

//===----------------------------------------------------------------------===//
// The kernel
//===----------------------------------------------------------------------===//

namespace {
/// Builds the flash-attention kernel of one attention.
class AttentionKernelEmitter {
public:
  AttentionKernelEmitter(const Attention &attention, TargetAttr target,
                         MatrixConfigAttr config, const AttentionTiling &tiling,
                         Location loc)
      : attention(attention), target(target), config(config), tiling(tiling),
        b(loc.getContext()), loc(loc) {}

  FailureOr<gpu::GPUFuncOp> emit(OpBuilder &moduleBuilder, StringRef name);
  /// Chooses the softmax's form, the subgroups, the key block and the copy
  /// width, as requested where `tiling` says; the reason when they cannot
  /// be honoured or no key block fits the target's workgroup memory.
  std::optional<std::string> planSizes();

  /// Query rows per workgroup: one matrix height per subgroup.
  int64_t getQueryBlock() const { return subgroups * config.getM(); }
  int64_t getThreads() const { return subgroups * target.getSubgroupSize(); }

private:
  /// Subgroups per workgroup, each a matrix height of queries.
  int64_t subgroups = 4;
  /// Keys per step: 64, fewer where workgroup memory is short.
  int64_t keyBlock = 64;

  Value index(int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value mul(Value x, int64_t y) {
    return arith::MulIOp::create(b, loc, x, index(y));
  }
  Value floatConstant(double value) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
  }
  ResultMatrixType resultType(Type component) {
    return ResultMatrixType::get(b.getContext(), config.getM(), config.getN(),
                                 component);
  }
  /// A map over result matrices whose body `body` builds from the row, the
  /// column and the elements.
  Value
  map(Type component, ValueRange inputs,
      function_ref<Value(Value row, Value column, ValueRange elements)> body);
  /// Reads this invocation's share of `rows` rows of a batch x count x
  /// headDim buffer, from row `first` of the batch at `batchBase`: rows at
  /// or past `count` read as zeros. A separate step from `storeRows` so
  /// that the reads can be issued before work that hides their latency.
  SmallVector<Value> loadRows(Value global, Value batchBase, Value first,
                              Value count, int64_t rows);
  /// Writes what `loadRows` read to workgroup memory, rows `stride` apart.
  void storeRows(ArrayRef<Value> values, Value shared, int64_t rows);
  void stageRows(Value global, Value batchBase, Value first, Value count,
                 Value shared, int64_t rows) {
    storeRows(loadRows(global, batchBase, first, count, rows), shared, rows);
  }
  /// One score through the program's score steps, -inf for keys past the
  /// end.
  Value scoreAt(Value value, Value query, Value key);
  /// The scores of one key block column of matrices, through the program's
  /// score steps, with keys past the end masked.
  Value applyScoreSteps(Value scores, Value rowOffset, Value keyOffset);
  SplatOp splat(double value) {
    return SplatOp::create(b, loc, resultType(b.getF32Type()),
                           floatConstant(value));
  }

  /// The online-softmax step of one key block, from its raw scores and the
  /// loop-carried (maximum, sum, outputs...); returns their new values.
  /// With result matrices only: maps, row reductions, a conversion of P.
  SmallVector<Value> emitBlockInRegisters(Value firstKey,
                                          ArrayRef<Value> scores,
                                          ValueRange carried);
  /// The same step where the maximum and the sum are per-invocation
  /// scalars for one row: the scores go to workgroup memory once, the
  /// invocations of a row compute P, its sum and the rescale with ordinary
  /// instructions and shuffles, and P and the rescale come back as
  /// matrices. On Vulkan this replaces about twenty round trips through
  /// workgroup memory (one per map or reduction) by one.
  SmallVector<Value> emitBlockThroughWorkgroupMemory(Value firstKey,
                                                     ArrayRef<Value> scores,
                                                     ArrayRef<Value> valueRows,
                                                     ValueRange carried);
  /// O = O * rescale, for a result matrix of per-row factors.
  void rescaleOutputs(MutableArrayRef<Value> outputs, Value rescale);
  /// O += P V for the left matrices of P of one key block.
  void accumulateValues(MutableArrayRef<Value> outputs,
                        ArrayRef<Value> probabilities);
  /// O / l to the output buffer, for l as a result matrix...
  void emitOutputFromRegisters(ArrayRef<Value> outputs, Value sum);
  /// ... and for l as a per-invocation scalar of the invocation's row.
  void emitOutputThroughWorkgroupMemory(ArrayRef<Value> outputs, Value sum);
  /// Stores the subgroup's rows of the `columnBlock`-th matrix column of O,
  /// rows within the query count only, `element` giving each value from its
  /// row and column within the matrix.
  void storeOutputColumns(int64_t columnBlock,
                          function_ref<Value(Value row, Value column)> element);

  /// Row strides of the per-subgroup scores (f32) and probabilities (input
  /// type) of a key block: padded by 16 bytes against bank conflicts.
  int64_t getScoreStride(int64_t keyBlock) const { return keyBlock + 4; }
  int64_t getProbabilityStride(int64_t keyBlock) const {
    return keyBlock +
           16 * 8 / getStorageType(attention.inputType).getIntOrFloatBitWidth();
  }

  const Attention &attention;
  TargetAttr target;
  MatrixConfigAttr config;
  AttentionTiling tiling;
  OpBuilder b;
  Location loc;
  int64_t width = 1, stride = 0;
  bool softmaxInWorkgroupMemory = false;
  LeftMatrixType leftType;
  RightMatrixType rightType;
  Value threadId, subgroupId, laneId, batchIndex, rowOffset, queryBase;
  Value output, keyShared, valueShared;
  /// The kernel's arguments for the score steps' other inputs.
  SmallVector<Value> scoreOperandArguments;
  /// The sequence lengths: constants, or the kernel's last arguments
  /// (queries, then keys) where the program leaves them dynamic.
  Value queryCount, keyCount;
  /// The workgroup buffers besides K and V: the output scratch, or the
  /// scores, probabilities and factors of the softmax in workgroup memory.
  SmallVector<Value, 3> scratch;
};
} // namespace

Value AttentionKernelEmitter::map(
    Type component, ValueRange inputs,
    function_ref<Value(Value row, Value column, ValueRange elements)> body) {
  return createMap(b, loc, resultType(component), inputs, body);
}

SmallVector<Value> AttentionKernelEmitter::loadRows(Value global,
                                                    Value batchBase,
                                                    Value first, Value count,
                                                    int64_t rows) {
  int64_t headDim = attention.headDim;
  int64_t perRow = headDim / width;
  int64_t copies = rows * perRow;
  Type element = getStorageType(attention.inputType);
  // bf16 moves as bits (some paths have no bf16 scalars), vectors as words.
  Type copyType =
      width == 1
          ? (element.isBF16() ? Type(b.getI16Type()) : element)
          : Type(VectorType::get({width * element.getIntOrFloatBitWidth() / 32},
                                 b.getI32Type()));
  SmallVector<Value> values;
  for (int64_t start = 0; start < copies; start += getThreads()) {
    Value copy = add(threadId, index(start));
    Value row = arith::DivUIOp::create(b, loc, copy, index(perRow));
    Value column =
        mul(arith::RemUIOp::create(b, loc, copy, index(perRow)), width);
    Value globalRow = add(first, row);
    // Rows past the end (and copies past the last, in a short last round)
    // read the batch's first element and become zeros.
    Value inBounds = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           globalRow, count);
    if (start + getThreads() > copies)
      inBounds = arith::AndIOp::create(
          b, loc, inBounds,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, copy,
                                index(copies)));
    Value address = add(batchBase, add(mul(globalRow, headDim), column));
    address = arith::SelectOp::create(b, loc, inBounds, address, batchBase);
    Value value;
    if (width == 1) {
      value = memref::LoadOp::create(b, loc, global, address);
      if (element.isBF16())
        value = arith::BitcastOp::create(b, loc, copyType, value);
    } else {
      value = vector::BitCastOp::create(
          b, loc, copyType,
          vector::LoadOp::create(b, loc, VectorType::get({width}, element),
                                 global, address));
    }
    Value zero = arith::ConstantOp::create(
        b, loc, cast<TypedAttr>(b.getZeroAttr(copyType)));
    values.push_back(arith::SelectOp::create(b, loc, inBounds, value, zero));
  }
  return values;
}

void AttentionKernelEmitter::storeRows(ArrayRef<Value> values, Value shared,
                                       int64_t rows) {
  int64_t perRow = attention.headDim / width;
  int64_t copies = rows * perRow;
  Type element = getStorageType(attention.inputType);
  for (auto [round, value] : llvm::enumerate(values)) {
    int64_t start = int64_t(round) * getThreads();
    Value copy = add(threadId, index(start));
    Value row = arith::DivUIOp::create(b, loc, copy, index(perRow));
    Value column =
        mul(arith::RemUIOp::create(b, loc, copy, index(perRow)), width);
    Value sharedAddress = add(mul(row, stride), column);
    OpBuilder::InsertionGuard guard(b);
    if (start + getThreads() > copies) {
      Value active = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           copy, index(copies));
      auto ifOp = scf::IfOp::create(b, loc, active, /*withElse=*/false);
      b.setInsertionPointToStart(ifOp.thenBlock());
    }
    if (width == 1) {
      Value scalar = value;
      if (scalar.getType() != element)
        scalar = arith::BitcastOp::create(b, loc, element, scalar);
      memref::StoreOp::create(b, loc, scalar, shared, sharedAddress);
      continue;
    }
    vector::StoreOp::create(
        b, loc,
        vector::BitCastOp::create(b, loc, VectorType::get({width}, element),
                                  value),
        shared, sharedAddress);
  }
}

Value AttentionKernelEmitter::scoreAt(Value value, Value query, Value key) {
  // The program's position: (batch, query, key).
  Value position[] = {batchIndex, query, key};
  // Padding rows and keys read the operands' first element (and are
  // discarded or masked later).
  Value positionInside;
  for (auto [stepIndex, scoreInput] : llvm::enumerate(attention.scoreInputs)) {
    linalg::GenericOp step = attention.scoreSteps[stepIndex];
    Block &body = step.getRegion().front();
    IRMapping mapping;
    for (OpOperand *input : step.getDpsInputOperands()) {
      BlockArgument argument = body.getArgument(input->getOperandNumber());
      if (input->getOperandNumber() == scoreInput) {
        mapping.map(argument, value);
        continue;
      }
      if (!positionInside)
        positionInside = arith::AndIOp::create(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, query,
                                  queryCount),
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, key,
                                  keyCount));
      AffineMap map = step.getMatchingIndexingMap(input);
      ArrayRef<int64_t> shape =
          cast<MemRefType>(input->get().getType()).getShape();
      Value address = index(0);
      for (unsigned i = 0; i < map.getNumResults(); ++i)
        address = add(mul(address, shape[i]), position[map.getDimPosition(i)]);
      address =
          arith::SelectOp::create(b, loc, positionInside, address, index(0));
      Value operand = scoreOperandArguments[llvm::find(attention.scoreOperands,
                                                       input->get()) -
                                            attention.scoreOperands.begin()];
      mapping.map(argument, memref::LoadOp::create(b, loc, operand, address));
    }
    for (auto indexOp : body.getOps<linalg::IndexOp>())
      mapping.map(indexOp.getResult(), position[indexOp.getDim()]);
    value = cloneScalarBody(b, body, mapping);
  }
  if (!ShapedType::isDynamic(attention.keyCount) &&
      attention.keyCount % keyBlock == 0)
    return value;
  // Keys past the end were staged as zeros: they weigh nothing.
  Value inside =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, key, keyCount);
  Value minusInfinity = arith::ConstantOp::create(
      b, loc, b.getF32FloatAttr(-std::numeric_limits<float>::infinity()));
  return arith::SelectOp::create(b, loc, inside, value, minusInfinity);
}

Value AttentionKernelEmitter::applyScoreSteps(Value scores, Value rowOffset,
                                              Value keyOffset) {
  return map(b.getF32Type(), {scores},
             [&](Value row, Value column, ValueRange elements) -> Value {
               return scoreAt(elements[0], add(rowOffset, row),
                              add(keyOffset, column));
             });
}

std::optional<std::string> AttentionKernelEmitter::planSizes() {
  int64_t fm = config.getM(), fn = config.getN(), fk = config.getK();
  int64_t headDim = attention.headDim;
  int64_t subgroupSize = target.getSubgroupSize();
  Type inputStorage = getStorageType(attention.inputType);
  bool vulkan = isVulkanDevice(target);
  // Vulkan devices copy 16 bytes at once (128-bit accesses); elsewhere
  // elements.
  int64_t elementBytes = inputStorage.getIntOrFloatBitWidth() / 8;
  width = vulkan && headDim % (16 / elementBytes) == 0 ? 16 / elementBytes : 1;
  // Rows padded by 16 bytes against bank conflicts.
  stride = headDim + 16 / elementBytes;
  int64_t limit = target.getWorkgroupMemoryLimit();

  // The softmax goes through workgroup memory where the matrices are
  // opaque, if the rows of a subgroup's scores split evenly over its
  // invocations.
  bool rowsSplit = subgroupSize % fm == 0 && fn % (subgroupSize / fm) == 0;
  // Score steps that read other tensors (a mask) need the scalar form: a
  // map's body does not read memory.
  bool readsTensors = !attention.scoreOperands.empty();
  switch (tiling.softmax) {
  case AttentionTiling::Softmax::Default:
    if (readsTensors && !rowsSplit)
      return llvm::formatv("its score steps read other tensors, which needs "
                           "the softmax in workgroup memory, and the {0} "
                           "rows of a subgroup's scores do not split over "
                           "its {1} invocations",
                           fm, subgroupSize)
          .str();
    softmaxInWorkgroupMemory = (vulkan || readsTensors) && rowsSplit;
    break;
  case AttentionTiling::Softmax::Registers:
    if (readsTensors)
      return std::string("its score steps read other tensors (a mask): the "
                         "softmax on result matrices cannot (a map does not "
                         "read memory); use attention-softmax="
                         "workgroup-memory");
    softmaxInWorkgroupMemory = false;
    break;
  case AttentionTiling::Softmax::WorkgroupMemory:
    if (!rowsSplit)
      return llvm::formatv("a softmax in workgroup memory splits each of the "
                           "{0} rows of a subgroup's scores over {1} / {0} "
                           "invocations, which does not divide the matrix "
                           "width {2}",
                           fm, subgroupSize, fn)
          .str();
    softmaxInWorkgroupMemory = true;
    break;
  }
  if (tiling.subgroups < 0 || tiling.keyBlock < 0)
    return std::string("attention-subgroups and attention-key-block must not "
                       "be negative");
  subgroups = tiling.subgroups ? tiling.subgroups : 4;
  if (tiling.keyBlock &&
      (tiling.keyBlock % fn != 0 || tiling.keyBlock % fk != 0))
    return llvm::formatv("a key block of {0} is not a multiple of the matrix "
                         "width {1} and depth {2}",
                         tiling.keyBlock, fn, fk)
        .str();

  int64_t queryBlock = getQueryBlock();
  auto sharedBytesFor = [&](int64_t block) {
    int64_t rows = std::max(queryBlock, block);
    if (softmaxInWorkgroupMemory) {
      // V follows K through one buffer. Per subgroup: its scores (f32),
      // its probabilities (input type), and a matrix of per-row factors
      // (f32).
      int64_t perSubgroup =
          fm * (getScoreStride(block) * 4 +
                getProbabilityStride(block) * elementBytes + fn * 4);
      return rows * stride * elementBytes + subgroups * perSubgroup;
    }
    // On Vulkan, maps and reductions of result matrices go through
    // workgroup memory too (sm-lower-to-vulkan adds three f32 tiles and one
    // of the inputs per subgroup here): that is reserved.
    int64_t expansionBytes =
        vulkan ? (3 * 4 + elementBytes) * subgroups * fm * fn : 0;
    return (rows + block) * stride * elementBytes + subgroups * fm * fn * 4 +
           expansionBytes;
  };
  keyBlock = tiling.keyBlock ? tiling.keyBlock : 64;
  while (!tiling.keyBlock && keyBlock > fn && keyBlock / 2 % fn == 0 &&
         sharedBytesFor(keyBlock) > limit)
    keyBlock /= 2;
  if (sharedBytesFor(keyBlock) > limit)
    return llvm::formatv("head dimension {0} with {1} subgroups of {2} "
                         "queries and {3} keys per step needs {4} bytes of "
                         "workgroup memory, more than the {5} a kernel may "
                         "use",
                         headDim, subgroups, fm, keyBlock,
                         sharedBytesFor(keyBlock), limit)
        .str();
  return std::nullopt;
}

FailureOr<gpu::GPUFuncOp> AttentionKernelEmitter::emit(OpBuilder &moduleBuilder,
                                                       StringRef name) {
  MLIRContext *context = moduleBuilder.getContext();
  int64_t fm = config.getM(), fn = config.getN(), fk = config.getK();
  int64_t headDim = attention.headDim;
  Type inputStorage = getStorageType(attention.inputType);
  if (std::optional<std::string> problem = planSizes())
    return attention.ops.front()->emitOpError()
               << "cannot become an attention kernel: " << *problem,
           failure();
  int64_t queryBlock = getQueryBlock();
  int64_t stagedRows = std::max(queryBlock, keyBlock);

  auto flat = [&](Value buffer) {
    auto type = cast<MemRefType>(buffer.getType());
    return MemRefType::get(
        {type.hasStaticShape() ? type.getNumElements() : ShapedType::kDynamic},
        type.getElementType());
  };
  auto workgroup =
      gpu::AddressSpaceAttr::get(context, gpu::AddressSpace::Workgroup);
  auto shared = [&](int64_t elements, Type type) {
    return MemRefType::get({elements}, type, MemRefLayoutAttrInterface(),
                           workgroup);
  };
  Type f32 = b.getF32Type();
  SmallVector<Type> arguments = {flat(attention.queries), flat(attention.keys),
                                 flat(attention.values),
                                 flat(attention.output)};
  for (Value operand : attention.scoreOperands)
    arguments.push_back(flat(operand));
  for (int64_t count : {attention.queryCount, attention.keyCount})
    if (ShapedType::isDynamic(count))
      arguments.push_back(b.getIndexType());
  SmallVector<Type> attributions = {shared(stagedRows * stride, inputStorage)};
  if (!softmaxInWorkgroupMemory)
    attributions.push_back(shared(keyBlock * stride, inputStorage));
  if (softmaxInWorkgroupMemory)
    attributions.append(
        {shared(subgroups * fm * getScoreStride(keyBlock), f32),
         shared(subgroups * fm * getProbabilityStride(keyBlock), inputStorage),
         shared(subgroups * fm * fn, f32)});
  else
    attributions.push_back(shared(subgroups * fm * fn, f32));
  auto kernel = gpu::GPUFuncOp::create(
      moduleBuilder, loc, name, FunctionType::get(context, arguments, {}),
      attributions);
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                  moduleBuilder.getUnitAttr());
  kernel.setKnownBlockSizeAttr(moduleBuilder.getDenseI32ArrayAttr(
      {static_cast<int32_t>(getThreads()), 1, 1}));
  Block *entry = &kernel.getBody().front();
  b.setInsertionPointToEnd(entry);
  Value q = entry->getArgument(0), k = entry->getArgument(1),
        v = entry->getArgument(2);
  output = entry->getArgument(3);
  auto nextArgument = entry->getArguments().begin() + 4;
  scoreOperandArguments.assign(nextArgument,
                               nextArgument + attention.scoreOperands.size());
  nextArgument += attention.scoreOperands.size();
  queryCount = ShapedType::isDynamic(attention.queryCount)
                   ? Value(*nextArgument++)
                   : index(attention.queryCount);
  keyCount = ShapedType::isDynamic(attention.keyCount)
                 ? Value(*nextArgument++)
                 : index(attention.keyCount);
  ArrayRef<BlockArgument> buffers = kernel.getWorkgroupAttributions();
  keyShared = buffers[0];
  valueShared = softmaxInWorkgroupMemory ? keyShared : Value(buffers[1]);
  buffers = buffers.drop_front(softmaxInWorkgroupMemory ? 1 : 2);
  scratch.assign(buffers.begin(), buffers.end());

  threadId = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  subgroupId = gpu::SubgroupIdOp::create(b, loc, nullptr);
  laneId = gpu::LaneIdOp::create(b, loc, nullptr);
  Value queryTile = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  batchIndex = gpu::BlockIdOp::create(b, loc, gpu::Dimension::y);
  Value firstQuery = mul(queryTile, queryBlock);
  Value subgroupRow = mul(subgroupId, fm);
  rowOffset = add(firstQuery, subgroupRow);
  queryBase =
      arith::MulIOp::create(b, loc, batchIndex, mul(queryCount, headDim));
  Value keyBase =
      arith::MulIOp::create(b, loc, batchIndex, mul(keyCount, headDim));

  // Q, through the key buffer, into left matrices held for the whole loop.
  leftType = LeftMatrixType::get(context, fm, fk, attention.inputType);
  rightType = RightMatrixType::get(context, fk, fn, attention.inputType);
  stageRows(q, queryBase, firstQuery, queryCount, keyShared, queryBlock);
  gpu::BarrierOp::create(b, loc);
  SmallVector<Value> queries;
  for (int64_t d = 0; d < headDim / fk; ++d)
    queries.push_back(
        LoadOp::create(b, loc, leftType, keyShared,
                       ValueRange{add(mul(subgroupRow, stride), index(d * fk))},
                       index(stride), /*col_major=*/false));
  gpu::BarrierOp::create(b, loc);

  // The running maximum starts at the lowest finite value, not -inf, so
  // that exp(m_old - m_new) is never exp(-inf + inf).
  double lowest = -double(std::numeric_limits<float>::max());
  SmallVector<Value> carried;
  if (softmaxInWorkgroupMemory)
    carried = {floatConstant(lowest), floatConstant(0.0)};
  else
    carried = {splat(lowest), splat(0.0)};
  for (int64_t i = 0; i < headDim / fn; ++i)
    carried.push_back(splat(0.0));
  Value stepCount =
      arith::CeilDivUIOp::create(b, loc, keyCount, index(keyBlock));
  if (attention.causal) {
    // Keys past this workgroup's last query are masked for all its rows.
    Value lastQuery = add(firstQuery, index(queryBlock - 1));
    Value needed = arith::DivUIOp::create(
        b, loc, add(lastQuery, index(keyBlock)), index(keyBlock));
    stepCount = arith::MinUIOp::create(b, loc, stepCount, needed);
  }
  auto loop =
      scf::ForOp::create(b, loc, index(0), stepCount, index(1), carried);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value firstKey = mul(loop.getInductionVar(), keyBlock);
    // With the softmax in workgroup memory, V takes K's buffer once the
    // scores are computed; it is read from global memory now, and written
    // then.
    SmallVector<Value> valueRows;
    if (softmaxInWorkgroupMemory)
      valueRows = loadRows(v, keyBase, firstKey, keyCount, keyBlock);
    stageRows(k, keyBase, firstKey, keyCount, keyShared, keyBlock);
    if (!softmaxInWorkgroupMemory)
      stageRows(v, keyBase, firstKey, keyCount, valueShared, keyBlock);
    gpu::BarrierOp::create(b, loc);

    // S = Q K^T for each column of matrices of the block.
    SmallVector<Value> scores;
    for (int64_t j = 0; j < keyBlock / fn; ++j) {
      Value acc = splat(0.0);
      for (int64_t d = 0; d < headDim / fk; ++d) {
        // K^T's columns are K's rows: a column-major right matrix.
        Value keysT = LoadOp::create(
            b, loc, rightType, keyShared,
            ValueRange{index(j * fn * stride + d * fk)}, index(stride),
            /*col_major=*/true);
        acc = MmaOp::create(b, loc, acc.getType(), queries[d], keysT, acc);
      }
      scores.push_back(acc);
    }
    SmallVector<Value> yielded =
        softmaxInWorkgroupMemory
            ? emitBlockThroughWorkgroupMemory(firstKey, scores, valueRows,
                                              loop.getRegionIterArgs())
            : emitBlockInRegisters(firstKey, scores, loop.getRegionIterArgs());
    gpu::BarrierOp::create(b, loc);
    scf::YieldOp::create(b, loc, yielded);
  }

  SmallVector<Value> outputs(loop.getResults().drop_front(2));
  if (softmaxInWorkgroupMemory)
    emitOutputThroughWorkgroupMemory(outputs, loop.getResult(1));
  else
    emitOutputFromRegisters(outputs, loop.getResult(1));
  gpu::ReturnOp::create(b, loc);
  return kernel;
}

SmallVector<Value> AttentionKernelEmitter::emitBlockInRegisters(
    Value firstKey, ArrayRef<Value> rawScores, ValueRange carried) {
  int64_t fn = config.getN();
  Type f32 = b.getF32Type();
  Value maximum = carried[0];
  Value sum = carried[1];
  SmallVector<Value> outputs(carried.drop_front(2));
  SmallVector<Value> scores;
  for (auto [j, s] : llvm::enumerate(rawScores))
    scores.push_back(
        applyScoreSteps(s, rowOffset, add(firstKey, index(int64_t(j) * fn))));
  // The new maximum per row, and the factor that rescales what was
  // accumulated under the old one.
  Value blockMaximum;
  for (Value s : scores) {
    Value rowMaximum = ReduceOp::create(b, loc, s.getType(), ReductionKind::Max,
                                        ReductionDimensions::Rows, s);
    blockMaximum =
        !blockMaximum
            ? rowMaximum
            : map(f32, {blockMaximum, rowMaximum},
                  [&](Value, Value, ValueRange x) -> Value {
                    return arith::MaximumFOp::create(b, loc, x[0], x[1]);
                  });
  }
  Value newMaximum =
      map(f32, {maximum, blockMaximum}, [&](Value, Value, ValueRange x) {
        return Value(arith::MaximumFOp::create(b, loc, x[0], x[1]));
      });
  Value rescale =
      map(f32, {maximum, newMaximum}, [&](Value, Value, ValueRange x) {
        Value difference = arith::SubFOp::create(b, loc, x[0], x[1]);
        return Value(math::ExpOp::create(b, loc, difference));
      });
  // P = exp(S - m), its row sums, and O = O * rescale + P V.
  Value blockSum;
  SmallVector<Value> probabilities;
  for (Value s : scores) {
    Value p = map(f32, {s, newMaximum}, [&](Value, Value, ValueRange x) {
      Value difference = arith::SubFOp::create(b, loc, x[0], x[1]);
      return Value(math::ExpOp::create(b, loc, difference));
    });
    probabilities.push_back(p);
    Value rowSum = ReduceOp::create(b, loc, p.getType(), ReductionKind::Add,
                                    ReductionDimensions::Rows, p);
    blockSum = !blockSum
                   ? rowSum
                   : map(f32, {blockSum, rowSum},
                         [&](Value, Value, ValueRange x) -> Value {
                           return arith::AddFOp::create(b, loc, x[0], x[1]);
                         });
  }
  Value newSum = map(f32, {sum, rescale, blockSum},
                     [&](Value, Value, ValueRange x) -> Value {
                       Value kept = arith::MulFOp::create(b, loc, x[0], x[1]);
                       return arith::AddFOp::create(b, loc, kept, x[2]);
                     });
  rescaleOutputs(outputs, rescale);
  SmallVector<Value> lefts;
  for (Value p : probabilities)
    lefts.push_back(ConvertOp::create(b, loc, leftType, p));
  accumulateValues(outputs, lefts);
  SmallVector<Value> yielded = {newMaximum, newSum};
  llvm::append_range(yielded, outputs);
  return yielded;
}

void AttentionKernelEmitter::rescaleOutputs(MutableArrayRef<Value> outputs,
                                            Value rescale) {
  // Both are result matrices of one type: a component-wise product, which
  // every path does on the matrices directly.
  for (Value &out : outputs)
    out = map(b.getF32Type(), {out, rescale}, [&](Value, Value, ValueRange x) {
      return Value(arith::MulFOp::create(b, loc, x[0], x[1]));
    });
}

void AttentionKernelEmitter::accumulateValues(MutableArrayRef<Value> outputs,
                                              ArrayRef<Value> probabilities) {
  int64_t fn = config.getN(), fk = config.getK();
  for (auto [j, left] : llvm::enumerate(probabilities))
    for (auto [i, out] : llvm::enumerate(outputs)) {
      Value values = LoadOp::create(
          b, loc, rightType, valueShared,
          ValueRange{index(int64_t(j) * fk * stride + int64_t(i) * fn)},
          index(stride), /*col_major=*/false);
      out = MmaOp::create(b, loc, out.getType(), left, values, out);
    }
}

SmallVector<Value> AttentionKernelEmitter::emitBlockThroughWorkgroupMemory(
    Value firstKey, ArrayRef<Value> scores, ArrayRef<Value> valueRows,
    ValueRange carried) {
  int64_t fm = config.getM(), fn = config.getN(), fk = config.getK();
  int64_t subgroupSize = target.getSubgroupSize();
  int64_t lanesPerRow = subgroupSize / fm;
  int64_t scoreStride = getScoreStride(keyBlock);
  int64_t probabilityStride = getProbabilityStride(keyBlock);
  Value scoreShared = scratch[0], probabilityShared = scratch[1],
        factorShared = scratch[2];
  Type f32 = b.getF32Type();
  Value scoreBase = mul(subgroupId, fm * scoreStride);
  Value probabilityBase = mul(subgroupId, fm * probabilityStride);
  Value factorBase = mul(subgroupId, fm * fn);

  // The subgroup's scores go to its rows of workgroup memory...
  for (auto [j, s] : llvm::enumerate(scores))
    StoreOp::create(b, loc, s, scoreShared,
                    ValueRange{add(scoreBase, index(int64_t(j) * fn))},
                    index(scoreStride), /*col_major=*/false);
  gpu::BarrierOp::create(b, loc);
  // Every subgroup is done with K: V replaces it.
  storeRows(valueRows, valueShared, keyBlock);

  // ... where `lanesPerRow` invocations share each row: invocation `part`
  // of the row takes columns part, part + lanesPerRow, ... (neighbouring
  // invocations, neighbouring words).
  Value row = arith::DivUIOp::create(b, loc, laneId, index(lanesPerRow));
  Value part = arith::RemUIOp::create(b, loc, laneId, index(lanesPerRow));
  Value query = add(rowOffset, row);
  auto combineAcrossRow = [&](Value value, bool maximum) {
    for (int64_t offset = 1; offset < lanesPerRow; offset *= 2) {
      Value other =
          gpu::ShuffleOp::create(b, loc, value, static_cast<int32_t>(offset),
                                 static_cast<int32_t>(subgroupSize),
                                 gpu::ShuffleMode::XOR)
              .getShuffleResult();
      value = maximum ? Value(arith::MaximumFOp::create(b, loc, value, other))
                      : Value(arith::AddFOp::create(b, loc, value, other));
    }
    return value;
  };
  SmallVector<Value> values, columns;
  Value blockMaximum = floatConstant(-std::numeric_limits<float>::infinity());
  for (int64_t first = 0; first < keyBlock; first += lanesPerRow) {
    Value column = add(part, index(first));
    Value value = memref::LoadOp::create(
        b, loc, scoreShared,
        add(scoreBase, add(mul(row, scoreStride), column)));
    value = scoreAt(value, query, add(firstKey, column));
    blockMaximum = arith::MaximumFOp::create(b, loc, blockMaximum, value);
    values.push_back(value);
    columns.push_back(column);
  }
  blockMaximum = combineAcrossRow(blockMaximum, /*maximum=*/true);
  Value maximum = carried[0], sum = carried[1];
  Value newMaximum = arith::MaximumFOp::create(b, loc, maximum, blockMaximum);
  Value rescale = math::ExpOp::create(
      b, loc, arith::SubFOp::create(b, loc, maximum, newMaximum));
  Value blockSum = floatConstant(0.0);
  Type probabilityType = getStorageType(attention.inputType);
  for (auto [value, column] : llvm::zip(values, columns)) {
    Value p = math::ExpOp::create(
        b, loc, arith::SubFOp::create(b, loc, value, newMaximum));
    blockSum = arith::AddFOp::create(b, loc, blockSum, p);
    if (probabilityType != f32)
      p = arith::TruncFOp::create(b, loc, probabilityType, p);
    memref::StoreOp::create(
        b, loc, p, probabilityShared,
        add(probabilityBase, add(mul(row, probabilityStride), column)));
  }
  blockSum = combineAcrossRow(blockSum, /*maximum=*/false);
  Value newSum = arith::AddFOp::create(
      b, loc, arith::MulFOp::create(b, loc, sum, rescale), blockSum);
  // The rescale of each row, spread along its row of a result matrix.
  for (int64_t first = 0; first < fn; first += lanesPerRow)
    memref::StoreOp::create(
        b, loc, rescale, factorShared,
        add(factorBase, add(mul(row, fn), add(part, index(first)))));
  gpu::BarrierOp::create(b, loc);

  SmallVector<Value> outputs(carried.drop_front(2));
  rescaleOutputs(outputs, LoadOp::create(b, loc, resultType(f32), factorShared,
                                         ValueRange{factorBase}, index(fn),
                                         /*col_major=*/false));
  SmallVector<Value> lefts;
  for (int64_t j = 0; j < keyBlock / fk; ++j)
    lefts.push_back(
        LoadOp::create(b, loc, leftType, probabilityShared,
                       ValueRange{add(probabilityBase, index(j * fk))},
                       index(probabilityStride),
                       /*col_major=*/false));
  accumulateValues(outputs, lefts);
  SmallVector<Value> yielded = {newMaximum, newSum};
  llvm::append_range(yielded, outputs);
  return yielded;
}

void AttentionKernelEmitter::emitOutputFromRegisters(ArrayRef<Value> outputs,
                                                     Value sum) {
  int64_t fm = config.getM(), fn = config.getN();
  Type outputStorage = attention.outputType;
  Value outputScratch = scratch[0];
  Value scratchBase = mul(subgroupId, fm * fn);
  for (auto [i, accumulated] : llvm::enumerate(outputs)) {
    // Divided as f32 matrices, narrowed element by element (a target may
    // have no result matrices of the output type).
    Value out = map(b.getF32Type(), {accumulated, sum},
                    [&](Value, Value, ValueRange x) -> Value {
                      return arith::DivFOp::create(b, loc, x[0], x[1]);
                    });
    StoreOp::create(b, loc, out, outputScratch, ValueRange{scratchBase},
                    index(fn), /*col_major=*/false);
    gpu::BarrierOp::create(b, loc);
    storeOutputColumns(int64_t(i), [&](Value r, Value c) -> Value {
      Value value = memref::LoadOp::create(
          b, loc, outputScratch, add(scratchBase, add(mul(r, fn), c)));
      if (outputStorage.isF32())
        return value;
      return arith::TruncFOp::create(b, loc, outputStorage, value);
    });
    gpu::BarrierOp::create(b, loc);
  }
}

void AttentionKernelEmitter::emitOutputThroughWorkgroupMemory(
    ArrayRef<Value> outputs, Value sum) {
  int64_t fm = config.getM(), fn = config.getN();
  int64_t lanesPerRow = target.getSubgroupSize() / fm;
  int64_t scoreStride = getScoreStride(keyBlock);
  Value scoreShared = scratch[0], factorShared = scratch[2];
  Value scoreBase = mul(subgroupId, fm * scoreStride);
  Value factorBase = mul(subgroupId, fm * fn);
  Type outputStorage = attention.outputType;
  // Each row's sum, in the first column of the factors (the loop's last
  // barrier ended their reads).
  Value row = arith::DivUIOp::create(b, loc, laneId, index(lanesPerRow));
  memref::StoreOp::create(b, loc, sum, factorShared,
                          add(factorBase, mul(row, fn)));
  for (auto [i, accumulated] : llvm::enumerate(outputs)) {
    StoreOp::create(b, loc, accumulated, scoreShared, ValueRange{scoreBase},
                    index(scoreStride), /*col_major=*/false);
    gpu::BarrierOp::create(b, loc);
    storeOutputColumns(int64_t(i), [&](Value r, Value c) -> Value {
      Value value = memref::LoadOp::create(
          b, loc, scoreShared, add(scoreBase, add(mul(r, scoreStride), c)));
      Value rowSum = memref::LoadOp::create(b, loc, factorShared,
                                            add(factorBase, mul(r, fn)));
      Value quotient = arith::DivFOp::create(b, loc, value, rowSum);
      if (outputStorage.isF32())
        return quotient;
      return arith::TruncFOp::create(b, loc, outputStorage, quotient);
    });
    gpu::BarrierOp::create(b, loc);
  }
}

void AttentionKernelEmitter::storeOutputColumns(
    int64_t columnBlock, function_ref<Value(Value row, Value column)> element) {
  int64_t fm = config.getM(), fn = config.getN();
  int64_t subgroupSize = target.getSubgroupSize();
  for (int64_t first = 0; first < fm * fn; first += subgroupSize) {
    Value position = add(laneId, index(first));
    Value r = arith::DivUIOp::create(b, loc, position, index(fn));
    Value c = arith::RemUIOp::create(b, loc, position, index(fn));
    Value row = add(rowOffset, r);
    Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row,
                                         queryCount);
    if (first + subgroupSize > fm * fn)
      inside = arith::AndIOp::create(
          b, loc, inside,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, position,
                                index(fm * fn)));
    auto ifOp = scf::IfOp::create(b, loc, inside, /*withElse=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    Value address = add(queryBase, add(mul(row, attention.headDim),
                                       add(index(columnBlock * fn), c)));
    memref::StoreOp::create(b, loc, element(r, c), output, address);
  }
}

/// A configuration for the products whose result matrices are as wide as a
/// left matrix is deep (P becomes the left operand of P V); null if none.
static MatrixConfigAttr chooseAttentionConfig(const Attention &attention,
                                              TargetAttr target) {
  MatrixConfigAttr config;
  Type f32 = Float32Type::get(target.getContext());
  for (MatrixConfigAttr candidate : target.getConfigs())
    if (candidate.getComponentType() == attention.inputType &&
        candidate.getResultType() == f32 &&
        candidate.getN() == candidate.getK() && candidate.getM() <= 16 &&
        candidate.getN() <= 16 && 64 % candidate.getN() == 0 &&
        attention.headDim % candidate.getN() == 0 &&
        (!config ||
         candidate.getM() * candidate.getN() > config.getM() * config.getN()))
      config = candidate;
  return config;
}

bool mlir::subgroup_matrix::canEmitAttentionKernel(
    const Attention &attention, TargetAttr target,
    const AttentionTiling &tiling) {
  MatrixConfigAttr config = chooseAttentionConfig(attention, target);
  if (!config)
    return false;
  AttentionKernelEmitter emitter(attention, target, config, tiling,
                                 attention.ops.front()->getLoc());
  return !emitter.planSizes();
}

LogicalResult mlir::subgroup_matrix::emitAttentionKernel(
    RewriterBase &rewriter, const Attention &attention, TargetAttr target,
    const AttentionTiling &tiling, gpu::GPUModuleOp kernels, StringRef name) {
  Operation *anchor = attention.ops.front();
  MatrixConfigAttr config = chooseAttentionConfig(attention, target);
  if (!config)
    return anchor->emitOpError()
           << "cannot become an attention kernel for target '"
           << (target.getName() ? target.getName().getValue() : "custom")
           << "': it has no " << attention.inputType
           << " -> f32 configuration with N = K dividing 64 and the head "
              "dimension "
           << attention.headDim << "; it supports " << target.describeConfigs();
  Location loc = anchor->getLoc();
  AttentionKernelEmitter emitter(attention, target, config, tiling, loc);
  OpBuilder moduleBuilder = OpBuilder::atBlockEnd(kernels.getBody());
  FailureOr<gpu::GPUFuncOp> kernel = emitter.emit(moduleBuilder, name);
  if (failed(kernel))
    return failure();

  // The launch, where the last replaced op was.
  rewriter.setInsertionPoint(attention.ops.back());
  SmallVector<Value> operands;
  for (Value buffer :
       {attention.queries, attention.keys, attention.values, attention.output})
    operands.push_back(flattenForLaunch(rewriter, loc, buffer));
  for (Value buffer : attention.scoreOperands)
    operands.push_back(flattenForLaunch(rewriter, loc, buffer));
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, value);
  };
  // Dynamic lengths are read off Q and K (dimension 1 of the batched
  // buffers) and passed after the buffers.
  Value queryTiles;
  if (ShapedType::isDynamic(attention.queryCount)) {
    Value queryCount =
        memref::DimOp::create(rewriter, loc, attention.queries, 1);
    operands.push_back(queryCount);
    queryTiles = arith::CeilDivUIOp::create(rewriter, loc, queryCount,
                                            constant(emitter.getQueryBlock()));
  } else {
    queryTiles = constant(
        llvm::divideCeil(attention.queryCount, emitter.getQueryBlock()));
  }
  if (ShapedType::isDynamic(attention.keyCount))
    operands.push_back(memref::DimOp::create(rewriter, loc, attention.keys, 1));
  gpu::LaunchFuncOp::create(
      rewriter, loc, *kernel,
      gpu::KernelDim3{queryTiles, constant(attention.batch), constant(1)},
      gpu::KernelDim3{constant(emitter.getThreads()), constant(1), constant(1)},
      /*dynamicSharedMemorySize=*/Value(), operands);
  for (Operation *op : llvm::reverse(attention.ops))
    rewriter.eraseOp(op);
  for (Operation *allocation : attention.deadAllocations) {
    for (Operation *user : llvm::make_early_inc_range(allocation->getUsers()))
      rewriter.eraseOp(user);
    rewriter.eraseOp(allocation);
  }
  return success();
}
