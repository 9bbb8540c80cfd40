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
// The global reads of each key block (K, V and the mask matrices) are
// issued one step ahead and carried into the next, so that they overlap
// the step's products.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Attention/Attention.h"
#include "KernelBuilder.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Contraction/Contraction.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Contraction/KernelEmitter.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Planning/TilingPlan.h"

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
// The kernel
//===----------------------------------------------------------------------===//

namespace {
/// Builds the flash-attention kernel of one attention.
class AttentionKernelEmitter : KernelBuilder {
public:
  AttentionKernelEmitter(const Attention &attention, TargetAttr target,
                         const AttentionPlan &plan, Location loc)
      : KernelBuilder(loc), attention(attention), target(target),
        config(plan.config), subgroups(plan.subgroups), keyBlock(plan.keyBlock),
        softmaxInWorkgroupMemory(plan.softmaxInWorkgroupMemory),
        stride(getAttentionRowStride(attention)) {
    // Vulkan devices copy 16 bytes at once (128-bit accesses); elsewhere
    // elements.
    int64_t vectorElements =
        16 * 8 / getStorageType(attention.inputType).getIntOrFloatBitWidth();
    width = isVulkanDevice(target) && attention.headDim % vectorElements == 0
                ? vectorElements
                : 1;
  }

  FailureOr<gpu::GPUFuncOp> emit(OpBuilder &moduleBuilder, StringRef name);

private:
  Value floatConstant(double value) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
  }
  /// The larger of two scores or maxima, assuming neither is NaN (as the
  /// row maxima's `reduce` does): a NaN score reaches its row's output
  /// through its probability exp(NaN - m) whatever the maximum is, so the
  /// maximum need not carry it. Without the assumption Vulkan's FMax
  /// (undefined for NaN) becomes six instructions per element (NaN tests
  /// and a select).
  Value maximum(Value x, Value y) {
    return arith::MaximumFOp::create(b, loc, x, y, arith::FastMathFlags::nnan);
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
  /// Where this workgroup's batch starts in `operand`, which has `rows`
  /// rows per batch.
  Value getBatchBase(const AttentionOperand &operand, Value rows);
  /// The copy of blocks of `rows` rows of Q, K or V (`count` rows of
  /// headDim per batch, where `operand` keeps them) into workgroup memory,
  /// rows `stride` apart.
  WorkgroupTileCopy planRowCopy(const AttentionOperand &operand, Value global,
                                Value count, Value shared, int64_t rows);
  /// Reads this invocation's share of the block of rows from row `first`:
  /// rows at or past the copy's row count read as zeros. A separate step
  /// from `storeRows` so that the reads can be issued before work that
  /// hides their latency.
  SmallVector<Value> loadRows(const WorkgroupTileCopy &copy, Value first);
  /// Writes what `loadRows` read to the copy's workgroup buffer.
  void storeRows(const WorkgroupTileCopy &copy, ArrayRef<Value> values) {
    storeCopies(copy, /*stageOffset=*/nullptr,
                [&](size_t i) { return values[i]; });
  }
  void stageRows(const WorkgroupTileCopy &copy, Value first) {
    storeRows(copy, loadRows(copy, first));
  }
  /// One score through the program's score steps, -inf for keys past the
  /// end.
  /// Without `causalMask`, a causal attention's last step keeps the score
  /// its mask would select (the scores are known to be at or below the
  /// diagonal).
  /// `operandElements`, where given, are the elements of the score
  /// operands at this position (matrices loaded by applyScoreSteps), in
  /// the order of attention.scoreOperands; else the steps load them.
  Value scoreAt(Value value, Value query, Value key, bool causalMask = true,
                ValueRange operandElements = {});
  /// The address of score operand `input` of `step` at (batch, query, key).
  Value getScoreOperandAddress(linalg::GenericOp step, OpOperand *input,
                               Value query, Value key);
  /// Whether the key loop being emitted applies a causal attention's mask:
  /// not in the blocks whose keys all come at or before the workgroup's
  /// first query.
  bool causalMaskInLoop = true;
  /// Whether keys past the end need masking: the key count is dynamic or
  /// not a multiple of the key block.
  bool masksPastEnd() const {
    return ShapedType::isDynamic(attention.keyCount) ||
           attention.keyCount % keyBlock != 0;
  }
  /// The scores of one key block column of matrices, through the program's
  /// score steps, with keys past the end masked; `operandMatrices` are the
  /// steps' other inputs at the same position, on result matrices.
  Value applyScoreSteps(Value scores, Value rowOffset, Value keyOffset,
                        ValueRange operandMatrices = {});
  /// The score steps' other inputs as matrices of the subgroup's scores at
  /// the keys from `keyOffset` (readsScoreOperandsAsMatrices), in the
  /// order of attention.scoreOperands.
  SmallVector<Value> loadScoreOperandMatrices(Value keyOffset);
  SplatOp splat(double value) {
    return SplatOp::create(b, loc, resultType(b.getF32Type()),
                           floatConstant(value));
  }

  /// The loop over key blocks `lower` to `upper` from the carried
  /// (maximum, sum, outputs...); returns their final values.
  SmallVector<Value> emitKeyLoop(Value lower, Value upper, ValueRange carried);
  /// The global reads of the key block from `firstKey` for the softmax in
  /// registers: this invocation's share of K's and V's rows, then for each
  /// column of matrices of the block its score operand matrices.
  SmallVector<Value> loadKeyBlock(Value firstKey);
  /// The online-softmax step of one key block, from its raw scores and the
  /// loop-carried (maximum, sum, outputs...); returns their new values.
  /// With result matrices only: maps, row reductions, a conversion of P.
  /// `operandMatrices` holds, for each column of matrices of the block,
  /// the score steps' other inputs (loadScoreOperandMatrices).
  SmallVector<Value>
  emitBlockInRegisters(Value firstKey, ArrayRef<Value> scores,
                       ValueRange carried,
                       ArrayRef<SmallVector<Value>> operandMatrices);
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

  int64_t getScoreStride(int64_t keyBlock) const {
    return getAttentionScoreStride(keyBlock);
  }
  int64_t getProbabilityStride(int64_t keyBlock) const {
    return getAttentionProbabilityStride(attention, keyBlock);
  }
  int64_t getQueryBlock() const { return subgroups * config.getM(); }
  int64_t getThreads() const { return subgroups * target.getSubgroupSize(); }

  const Attention &attention;
  TargetAttr target;
  MatrixConfigAttr config;
  /// The plan's subgroups (each a matrix height of queries), keys per step
  /// and form of the softmax.
  int64_t subgroups, keyBlock;
  bool softmaxInWorkgroupMemory;
  /// Elements an invocation copies at once; Q, K and V's row stride in
  /// workgroup memory.
  int64_t width = 1, stride;
  LeftMatrixType leftType;
  RightMatrixType rightType;
  Value threadId, subgroupId, laneId, batchIndex, rowOffset;
  /// Where this workgroup's batch starts in the output.
  Value outputBase;
  Value output, keyShared, valueShared;
  /// The copies of K's and V's key blocks (V's from K's, into V's buffer).
  WorkgroupTileCopy keyCopy, valueCopy;
  /// The subgroup's rows of Q, left matrices held for the whole loop.
  SmallVector<Value> queries;
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

Value AttentionKernelEmitter::getBatchBase(const AttentionOperand &operand,
                                           Value rows) {
  return operand.getBatchBase(b, loc, batchIndex, attention.batch, rows);
}

WorkgroupTileCopy
AttentionKernelEmitter::planRowCopy(const AttentionOperand &operand,
                                    Value global, Value count, Value shared,
                                    int64_t rows) {
  WorkgroupTileCopy copy;
  copy.global = global;
  copy.shared = shared;
  copy.storage = getStorageType(attention.inputType);
  copy.rowsValue = count;
  copy.colsValue = index(attention.headDim);
  copy.globalStride = index(operand.rowStride);
  copy.batchBase = getBatchBase(operand, count);
  copy.tileRows = rows;
  copy.tileCols = attention.headDim;
  copy.width = width;
  copy.sharedStride = stride;
  computeRowMajorCopyPositions(copy, threadId, getThreads());
  return copy;
}

SmallVector<Value>
AttentionKernelEmitter::loadRows(const WorkgroupTileCopy &copy, Value first) {
  SmallVector<Value> values;
  for (auto [row, column, active] :
       llvm::zip(copy.rows, copy.columns, copy.active)) {
    Value globalRow = add(first, row);
    // Rows past the end, and copies past the last in a short last round,
    // become zeros.
    Value inBounds = both(lessThan(globalRow, copy.rowsValue), active);
    values.push_back(loadCopy(copy, globalRow, column, inBounds));
  }
  return values;
}

Value AttentionKernelEmitter::getScoreOperandAddress(linalg::GenericOp step,
                                                     OpOperand *input,
                                                     Value query, Value key) {
  return getScoreOperandOffset(b, loc, step, input, {batchIndex, query, key});
}

Value mlir::subgroup_matrix::getScoreOperandOffset(OpBuilder &b, Location loc,
                                                   linalg::GenericOp step,
                                                   OpOperand *input,
                                                   ArrayRef<Value> position) {
  AffineMap map = step.getMatchingIndexingMap(input);
  ArrayRef<int64_t> shape = cast<MemRefType>(input->get().getType()).getShape();
  Value address = arith::ConstantIndexOp::create(b, loc, 0);
  for (unsigned i = 0; i < map.getNumResults(); ++i) {
    // A broadcast size-1 dimension adds nothing.
    std::optional<unsigned> loop = getScoreOperandLoop(map, i);
    if (loop)
      address = arith::AddIOp::create(
          b, loc,
          arith::MulIOp::create(
              b, loc, address,
              arith::ConstantIndexOp::create(b, loc, shape[i])),
          position[*loop]);
  }
  return address;
}

Value mlir::subgroup_matrix::applyScoreStepsAt(
    OpBuilder &builder, Location loc, const Attention &attention, Value score,
    ArrayRef<Value> position,
    function_ref<Value(linalg::GenericOp step, OpOperand *input,
                       int64_t operandIndex)>
        readOperand,
    bool keepCausalSelect) {
  for (auto [stepIndex, scoreInput] : llvm::enumerate(attention.scoreInputs)) {
    linalg::GenericOp step = attention.scoreSteps[stepIndex];
    Block &body = step.getRegion().front();
    IRMapping mapping;
    for (OpOperand *input : step.getDpsInputOperands()) {
      BlockArgument argument = body.getArgument(input->getOperandNumber());
      if (input->getOperandNumber() == scoreInput) {
        mapping.map(argument, score);
        continue;
      }
      int64_t operandIndex = llvm::find(attention.scoreOperands, input->get()) -
                             attention.scoreOperands.begin();
      mapping.map(argument, readOperand(step, input, operandIndex));
    }
    for (auto indexOp : body.getOps<linalg::IndexOp>())
      mapping.map(indexOp.getResult(), position[indexOp.getDim()]);
    score = cloneScalarBody(builder, body, mapping);
    // Below the diagonal the mask's select keeps the score: what the step
    // computes besides (a scale) stays, the select goes.
    if (!keepCausalSelect && attention.causal &&
        stepIndex + 1 == attention.scoreSteps.size())
      score = mapping.lookupOrDefault(
          cast<arith::SelectOp>(
              body.getTerminator()->getOperand(0).getDefiningOp())
              .getFalseValue());
  }
  return score;
}

Value AttentionKernelEmitter::scoreAt(Value value, Value query, Value key,
                                      bool causalMask,
                                      ValueRange operandElements) {
  // Padding rows and keys read the operands' first element (and are
  // discarded or masked later).
  Value positionInside;
  auto readOperand = [&](linalg::GenericOp step, OpOperand *input,
                         int64_t operandIndex) -> Value {
    Type type = step.getRegion()
                    .front()
                    .getArgument(input->getOperandNumber())
                    .getType();
    if (!operandElements.empty()) {
      // Loaded as f32 matrices: narrowing back is exact.
      Value element = operandElements[operandIndex];
      if (element.getType() != type)
        element = arith::TruncFOp::create(b, loc, type, element);
      return element;
    }
    if (!positionInside)
      positionInside = arith::AndIOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, query,
                                queryCount),
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, key,
                                keyCount));
    Value address = arith::SelectOp::create(
        b, loc, positionInside, getScoreOperandAddress(step, input, query, key),
        index(0));
    return memref::LoadOp::create(b, loc, scoreOperandArguments[operandIndex],
                                  address);
  };
  // The program's position: (batch, query, key).
  value = applyScoreStepsAt(b, loc, attention, value, {batchIndex, query, key},
                            readOperand, causalMask);
  if (!masksPastEnd())
    return value;
  // Keys past the end were staged as zeros: they weigh nothing.
  Value inside =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, key, keyCount);
  Value minusInfinity = arith::ConstantOp::create(
      b, loc, b.getF32FloatAttr(-std::numeric_limits<float>::infinity()));
  return arith::SelectOp::create(b, loc, inside, value, minusInfinity);
}

SmallVector<Value>
AttentionKernelEmitter::loadScoreOperandMatrices(Value keyOffset) {
  SmallVector<Value> matrices;
  for (auto [operandIndex, operand] :
       llvm::enumerate(attention.scoreOperands)) {
    // Every step reads it through one map (readsScoreOperandsAsMatrices):
    // the first tells where.
    linalg::GenericOp reader;
    OpOperand *input = nullptr;
    for (linalg::GenericOp step : attention.scoreSteps)
      for (OpOperand *candidate : step.getDpsInputOperands())
        if (!input && candidate->get() == operand)
          reader = step, input = candidate;
    Type element = cast<MemRefType>(operand.getType()).getElementType();
    matrices.push_back(LoadOp::create(
        b, loc, resultType(element), scoreOperandArguments[operandIndex],
        ValueRange{getScoreOperandAddress(reader, input, rowOffset, keyOffset)},
        index(*getScoreOperandTileStride(reader, input)),
        /*col_major=*/false));
  }
  return matrices;
}

Value AttentionKernelEmitter::applyScoreSteps(Value scores, Value rowOffset,
                                              Value keyOffset,
                                              ValueRange operandMatrices) {
  if (attention.scoreSteps.empty() && !masksPastEnd())
    return scores;
  // On result matrices the steps' other inputs (a mask) are matrices of
  // the scores' shape (loadScoreOperandMatrices), widened to f32 here, so
  // that the map stays one of f32 matrices.
  SmallVector<Value> inputs = {scores};
  for (Value matrix : operandMatrices) {
    auto type = cast<ResultMatrixType>(matrix.getType());
    if (!type.getElementType().isF32())
      matrix = ConvertOp::create(b, loc, resultType(b.getF32Type()), matrix);
    inputs.push_back(matrix);
  }
  Value mapped = map(
      b.getF32Type(), inputs,
      [&](Value row, Value column, ValueRange elements) -> Value {
        return scoreAt(elements[0], add(rowOffset, row), add(keyOffset, column),
                       causalMaskInLoop, elements.drop_front());
      });
  // What the body no longer uses (the positions of a mask left out) goes,
  // so that a map that only scales stays the matrices' own arithmetic. A
  // mask element narrowed back and widened again is the widened element
  // itself (it came from the narrow type).
  if (auto mapOp = mapped.getDefiningOp<MapOp>()) {
    Block &body = mapOp.getBodyBlock();
    for (auto widen : llvm::make_early_inc_range(body.getOps<arith::ExtFOp>()))
      if (auto narrow = widen.getIn().getDefiningOp<arith::TruncFOp>())
        if (auto element = dyn_cast<BlockArgument>(narrow.getIn()))
          if (element.getOwner() == &body && element.getArgNumber() > 2 &&
              element.getType() == widen.getType()) {
            widen.replaceAllUsesWith(element);
            widen.erase();
          }
    // Adding zero changes at most the sign of a zero, which the softmax
    // does not see (exp(+0 - m) = exp(-0 - m), and +0 and -0 compare
    // equal): a step that adds a zero (a program's "no mask") costs nothing.
    for (auto addition :
         llvm::make_early_inc_range(body.getOps<arith::AddFOp>()))
      for (unsigned i = 0; i < 2; ++i)
        if (matchPattern(addition->getOperand(i), m_AnyZeroFloat())) {
          addition.replaceAllUsesWith(addition->getOperand(1 - i));
          addition.erase();
          break;
        }
    SmallVector<Operation *> ops =
        llvm::map_to_vector(mapOp.getBodyBlock().without_terminator(),
                            [](Operation &op) { return &op; });
    for (Operation *op : llvm::reverse(ops))
      if (isOpTriviallyDead(op))
        op->erase();
  }
  return mapped;
}

FailureOr<gpu::GPUFuncOp> AttentionKernelEmitter::emit(OpBuilder &moduleBuilder,
                                                       StringRef name) {
  MLIRContext *context = moduleBuilder.getContext();
  int64_t fm = config.getM(), fn = config.getN(), fk = config.getK();
  int64_t headDim = attention.headDim;
  Type inputStorage = getStorageType(attention.inputType);
  int64_t queryBlock = getQueryBlock();
  int64_t stagedRows = stagesQueries(attention, queryBlock)
                           ? std::max(queryBlock, keyBlock)
                           : keyBlock;

  auto workgroup =
      gpu::AddressSpaceAttr::get(context, gpu::AddressSpace::Workgroup);
  auto shared = [&](int64_t elements, Type type) {
    return MemRefType::get({elements}, type, MemRefLayoutAttrInterface(),
                           workgroup);
  };
  Type f32 = b.getF32Type();
  SmallVector<Type> arguments = {
      getFlatKernelArgumentType(attention.queries.buffer),
      getFlatKernelArgumentType(attention.keys.buffer),
      getFlatKernelArgumentType(attention.values.buffer),
      getFlatKernelArgumentType(attention.output.buffer)};
  for (Value operand : attention.scoreOperands)
    arguments.push_back(getFlatKernelArgumentType(operand));
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
  outputBase = getBatchBase(attention.output, queryCount);
  keyCopy = planRowCopy(attention.keys, k, keyCount, keyShared, keyBlock);
  // V's block shares K's positions in the tile.
  valueCopy = keyCopy;
  valueCopy.global = v;
  valueCopy.shared = valueShared;
  valueCopy.globalStride = index(attention.values.rowStride);
  valueCopy.batchBase = getBatchBase(attention.values, keyCount);

  // Q into left matrices held for the whole loop: through the key buffer
  // where the workgroup's block runs past the end, else from the buffer.
  leftType = LeftMatrixType::get(context, fm, fk, attention.inputType);
  rightType = RightMatrixType::get(context, fk, fn, attention.inputType);
  if (stagesQueries(attention, queryBlock)) {
    stageRows(
        planRowCopy(attention.queries, q, queryCount, keyShared, queryBlock),
        firstQuery);
    gpu::BarrierOp::create(b, loc);
    for (int64_t d = 0; d < headDim / fk; ++d)
      queries.push_back(LoadOp::create(
          b, loc, leftType, keyShared,
          ValueRange{add(mul(subgroupRow, stride), index(d * fk))},
          index(stride), /*col_major=*/false));
    gpu::BarrierOp::create(b, loc);
  } else {
    Value rows = add(getBatchBase(attention.queries, queryCount),
                     mul(rowOffset, attention.queries.rowStride));
    for (int64_t d = 0; d < headDim / fk; ++d)
      queries.push_back(LoadOp::create(b, loc, leftType, q,
                                       ValueRange{add(rows, index(d * fk))},
                                       index(attention.queries.rowStride),
                                       /*col_major=*/false));
  }

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
  // Keys past a causal attention's last query in the workgroup are masked
  // for all its rows: those blocks are not visited.
  if (attention.causal) {
    Value lastQuery = add(firstQuery, index(queryBlock - 1));
    Value needed = arith::DivUIOp::create(
        b, loc, add(lastQuery, index(keyBlock)), index(keyBlock));
    stepCount = arith::MinUIOp::create(b, loc, stepCount, needed);
  }
  // The blocks whose keys all come at or before the workgroup's first query
  // need no mask: with the softmax on matrices, where the mask is a map
  // with positions, a loop of their own leaves it out and a second loop
  // takes the blocks on the diagonal (NVIDIA's driver: 1578 against 1629 us
  // for the causal attention of docs/performance.md). The scalar softmax
  // applies the mask for little.
  Value unmaskedSteps = index(0);
  if (attention.causal && !softmaxInWorkgroupMemory) {
    unmaskedSteps = arith::MinUIOp::create(
        b, loc, stepCount,
        arith::DivUIOp::create(b, loc, add(firstQuery, index(1)),
                               index(keyBlock)));
    causalMaskInLoop = false;
    carried = emitKeyLoop(index(0), unmaskedSteps, carried);
    causalMaskInLoop = true;
  }
  SmallVector<Value> results = emitKeyLoop(unmaskedSteps, stepCount, carried);

  SmallVector<Value> outputs(ArrayRef<Value>(results).drop_front(2));
  if (softmaxInWorkgroupMemory)
    emitOutputThroughWorkgroupMemory(outputs, results[1]);
  else
    emitOutputFromRegisters(outputs, results[1]);
  gpu::ReturnOp::create(b, loc);
  return kernel;
}

SmallVector<Value> AttentionKernelEmitter::loadKeyBlock(Value firstKey) {
  SmallVector<Value> values = loadRows(keyCopy, firstKey);
  llvm::append_range(values, loadRows(valueCopy, firstKey));
  for (int64_t j = 0; j < keyBlock / config.getN(); ++j)
    llvm::append_range(
        values, loadScoreOperandMatrices(add(firstKey, j * config.getN())));
  return values;
}

SmallVector<Value> AttentionKernelEmitter::emitKeyLoop(Value lower, Value upper,
                                                       ValueRange carried) {
  int64_t fn = config.getN(), fk = config.getK();
  int64_t headDim = attention.headDim;
  // With the softmax in registers each step's global reads are issued in
  // the step before and carried (the driver otherwise keeps a step's loads
  // next to their first use, after the barrier, and the products wait for
  // them: 1411 against 1334 us for the attention of docs/performance.md).
  // A read past the loop's last block reads that block again: a mask read
  // as matrices has nothing past the keys. An empty loop (a causal
  // attention's two loops may meet at any block) reads block `lower` or
  // the one before it, both inside the keys.
  Value lastBlock = arith::SubIOp::create(b, loc, upper, index(1));
  auto keyBlockStart = [&](Value block) {
    return mul(arith::MinUIOp::create(b, loc, block, lastBlock), keyBlock);
  };
  SmallVector<Value> initial(carried);
  if (!softmaxInWorkgroupMemory)
    llvm::append_range(initial, loadKeyBlock(keyBlockStart(lower)));
  auto loop = scf::ForOp::create(b, loc, lower, upper, index(1), initial);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value firstKey = mul(loop.getInductionVar(), keyBlock);
    ValueRange state = loop.getRegionIterArgs().take_front(carried.size());
    SmallVector<Value> valueRows, ahead;
    SmallVector<SmallVector<Value>> operandMatrices;
    if (softmaxInWorkgroupMemory) {
      // V takes K's buffer once the scores are computed; it is read from
      // global memory now, and written then.
      valueRows = loadRows(valueCopy, firstKey);
      stageRows(keyCopy, firstKey);
    } else {
      ValueRange read = loop.getRegionIterArgs().drop_front(carried.size());
      size_t rows = keyCopy.rows.size();
      storeRows(keyCopy, SmallVector<Value>(read.take_front(rows)));
      storeRows(valueCopy, SmallVector<Value>(read.slice(rows, rows)));
      ValueRange matrices = read.drop_front(2 * rows);
      size_t perColumn = attention.scoreOperands.size();
      for (int64_t j = 0; perColumn && j < keyBlock / fn; ++j)
        operandMatrices.emplace_back(matrices.slice(j * perColumn, perColumn));
    }
    gpu::BarrierOp::create(b, loc);
    if (!softmaxInWorkgroupMemory)
      ahead =
          loadKeyBlock(keyBlockStart(add(loop.getInductionVar(), index(1))));

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
                                              state)
            : emitBlockInRegisters(firstKey, scores, state, operandMatrices);
    gpu::BarrierOp::create(b, loc);
    llvm::append_range(yielded, ahead);
    scf::YieldOp::create(b, loc, yielded);
  }
  return SmallVector<Value>(loop.getResults().take_front(carried.size()));
}

SmallVector<Value> AttentionKernelEmitter::emitBlockInRegisters(
    Value firstKey, ArrayRef<Value> rawScores, ValueRange carried,
    ArrayRef<SmallVector<Value>> operandMatrices) {
  int64_t fn = config.getN();
  Type f32 = b.getF32Type();
  Value runningMaximum = carried[0];
  Value sum = carried[1];
  SmallVector<Value> outputs(carried.drop_front(2));
  SmallVector<Value> scores;
  for (auto [j, s] : llvm::enumerate(rawScores))
    scores.push_back(applyScoreSteps(
        s, rowOffset, add(firstKey, index(int64_t(j) * fn)),
        operandMatrices.empty() ? ValueRange()
                                : ValueRange(operandMatrices[j])));
  // The new maximum per row, and the factor that rescales what was
  // accumulated under the old one. The matrices of the block are combined
  // element by element first, so that one reduction covers the block.
  Value widest = scores.front();
  if (scores.size() > 1)
    widest = map(f32, scores, [&](Value, Value, ValueRange x) -> Value {
      Value largest = x[0];
      for (Value other : x.drop_front())
        largest = maximum(largest, other);
      return largest;
    });
  Value blockMaximum = ReduceOp::create(
      b, loc, widest.getType(), ReductionKind::Max, ReductionDimensions::Rows,
      widest, arith::FastMathFlags::nnan);
  Value newMaximum =
      map(f32, {runningMaximum, blockMaximum},
          [&](Value, Value, ValueRange x) { return maximum(x[0], x[1]); });
  Value rescale =
      map(f32, {runningMaximum, newMaximum}, [&](Value, Value, ValueRange x) {
        Value difference = arith::SubFOp::create(b, loc, x[0], x[1]);
        return Value(math::ExpOp::create(b, loc, difference));
      });
  // P = exp(S - m), its row sums, and O = O * rescale + P V.
  SmallVector<Value> probabilities;
  for (Value s : scores)
    probabilities.push_back(
        map(f32, {s, newMaximum}, [&](Value, Value, ValueRange x) {
          Value difference = arith::SubFOp::create(b, loc, x[0], x[1]);
          return Value(math::ExpOp::create(b, loc, difference));
        }));
  // The row sums of P as the product of P's left matrices (those that
  // multiply V) with a matrix of ones, which leaves each row's sum in every
  // column, as `reduce add rows` would: on the matrix units rather than in
  // element-wise additions and shuffles (NVIDIA's H100: 1107 against 1212
  // us, docs/performance.md).
  SmallVector<Value> lefts;
  for (Value p : probabilities)
    lefts.push_back(ConvertOp::create(b, loc, leftType, p));
  Value blockSum = splat(0.0);
  Value ones = SplatOp::create(
      b, loc, rightType,
      arith::ConstantOp::create(
          b, loc, b.getFloatAttr(getScalarType(attention.inputType), 1.0)));
  for (Value left : lefts)
    blockSum = MmaOp::create(b, loc, blockSum.getType(), left, ones, blockSum);
  Value newSum = map(f32, {sum, rescale, blockSum},
                     [&](Value, Value, ValueRange x) -> Value {
                       Value kept = arith::MulFOp::create(b, loc, x[0], x[1]);
                       return arith::AddFOp::create(b, loc, kept, x[2]);
                     });
  rescaleOutputs(outputs, rescale);
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
  storeRows(valueCopy, valueRows);

  // ... where `lanesPerRow` invocations share each row: invocation `part`
  // of the row takes columns part, part + lanesPerRow, ... (neighbouring
  // invocations, neighbouring words).
  Value row = arith::DivUIOp::create(b, loc, laneId, index(lanesPerRow));
  Value part = arith::RemUIOp::create(b, loc, laneId, index(lanesPerRow));
  Value query = add(rowOffset, row);
  auto combineAcrossRow = [&](Value value, bool isMaximum) {
    for (int64_t offset = 1; offset < lanesPerRow; offset *= 2) {
      Value other =
          gpu::ShuffleOp::create(b, loc, value, static_cast<int32_t>(offset),
                                 static_cast<int32_t>(subgroupSize),
                                 gpu::ShuffleMode::XOR)
              .getShuffleResult();
      value = isMaximum ? maximum(value, other)
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
    blockMaximum = maximum(blockMaximum, value);
    values.push_back(value);
    columns.push_back(column);
  }
  blockMaximum = combineAcrossRow(blockMaximum, /*isMaximum=*/true);
  Value runningMaximum = carried[0], sum = carried[1];
  Value newMaximum = maximum(runningMaximum, blockMaximum);
  Value rescale = math::ExpOp::create(
      b, loc, arith::SubFOp::create(b, loc, runningMaximum, newMaximum));
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
  blockSum = combineAcrossRow(blockSum, /*isMaximum=*/false);
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
    Value address = add(outputBase, add(mul(row, attention.output.rowStride),
                                        add(index(columnBlock * fn), c)));
    memref::StoreOp::create(b, loc, element(r, c), output, address);
  }
}

std::optional<unsigned>
mlir::subgroup_matrix::getScoreOperandLoop(AffineMap map, unsigned i) {
  AffineExpr result = map.getResult(i);
  if (auto dim = dyn_cast<AffineDimExpr>(result))
    return dim.getPosition();
  return std::nullopt;
}

std::optional<int64_t>
mlir::subgroup_matrix::getScoreOperandTileStride(linalg::GenericOp step,
                                                 OpOperand *input) {
  auto type = dyn_cast<MemRefType>(input->get().getType());
  AffineMap map = step.getMatchingIndexingMap(input);
  if (!type || !type.hasStaticShape() ||
      !map.isProjectedPermutation(/*allowZeroInResults=*/true) ||
      map.getNumResults() == 0)
    return std::nullopt;
  // The address is the row-major linearization of the map's results over
  // the shape (the kernel's getScoreOperandAddress): the innermost result
  // must be the key, and the stride of a query is the product of the
  // extents after its result.
  unsigned last = map.getNumResults() - 1;
  if (getScoreOperandLoop(map, last) != 2u)
    return std::nullopt;
  int64_t stride = 1;
  for (unsigned i = last; i-- > 0;) {
    stride *= type.getShape()[i + 1];
    if (getScoreOperandLoop(map, i) == 1u)
      return stride;
  }
  return std::nullopt;
}

bool mlir::subgroup_matrix::readsScoreOperandsAsMatrices(
    const Attention &attention, TargetAttr target, MatrixConfigAttr config,
    int64_t queryBlock, int64_t keyBlock) {
  // Every block of queries and keys lies inside the sequences: no load
  // reaches past an operand's rows.
  if (ShapedType::isDynamic(attention.keyCount) || attention.keyCount == 0 ||
      attention.keyCount % keyBlock != 0 ||
      stagesQueries(attention, queryBlock))
    return false;
  for (Value operand : attention.scoreOperands) {
    Type element = cast<MemRefType>(operand.getType()).getElementType();
    auto tileType = ResultMatrixType::get(operand.getContext(), config.getM(),
                                          config.getN(), element);
    if (!target.supportsType(tileType))
      return false;
    std::optional<AffineMap> readBy;
    for (linalg::GenericOp step : attention.scoreSteps)
      for (OpOperand *input : step.getDpsInputOperands()) {
        if (input->get() != operand)
          continue;
        AffineMap map = step.getMatchingIndexingMap(input);
        if (!getScoreOperandTileStride(step, input) ||
            (readBy && *readBy != map))
          return false;
        readBy = map;
      }
  }
  return true;
}

LogicalResult mlir::subgroup_matrix::emitAttentionKernel(
    RewriterBase &rewriter, const Attention &attention, TargetAttr target,
    const AttentionPlan &plan, gpu::GPUModuleOp kernels, StringRef name) {
  Operation *anchor = attention.ops.front();
  Location loc = anchor->getLoc();
  AttentionKernelEmitter emitter(attention, target, plan, loc);
  OpBuilder moduleBuilder = OpBuilder::atBlockEnd(kernels.getBody());
  FailureOr<gpu::GPUFuncOp> kernel = emitter.emit(moduleBuilder, name);
  if (failed(kernel))
    return failure();

  // The launch, where the last replaced op was.
  rewriter.setInsertionPoint(attention.ops.back());
  SmallVector<Value> operands;
  for (const AttentionOperand *operand : {&attention.queries, &attention.keys,
                                          &attention.values, &attention.output})
    operands.push_back(flattenForLaunch(rewriter, loc, operand->buffer));
  for (Value buffer : attention.scoreOperands)
    operands.push_back(flattenForLaunch(rewriter, loc, buffer));
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, value);
  };
  // Dynamic lengths are read off Q and K (dimension 1 of the batched
  // buffers) and passed after the buffers.
  Value queryTiles;
  if (ShapedType::isDynamic(attention.queryCount)) {
    Value queryCount = attention.queries.getRowCount(rewriter, loc);
    operands.push_back(queryCount);
    queryTiles = arith::CeilDivUIOp::create(rewriter, loc, queryCount,
                                            constant(plan.getQueryBlock()));
  } else {
    queryTiles =
        constant(llvm::divideCeil(attention.queryCount, plan.getQueryBlock()));
  }
  if (ShapedType::isDynamic(attention.keyCount))
    operands.push_back(attention.keys.getRowCount(rewriter, loc));
  gpu::LaunchFuncOp::create(
      rewriter, loc, *kernel,
      gpu::KernelDim3{queryTiles, constant(attention.batch), constant(1)},
      gpu::KernelDim3{constant(plan.subgroups * target.getSubgroupSize()),
                      constant(1), constant(1)},
      /*dynamicSharedMemorySize=*/Value(), operands);
  eraseAttentionOps(rewriter, attention);
  return success();
}

void mlir::subgroup_matrix::eraseAttentionOps(RewriterBase &rewriter,
                                              const Attention &attention) {
  for (Operation *op : llvm::reverse(attention.ops))
    rewriter.eraseOp(op);
  for (Operation *allocation : attention.deadAllocations) {
    for (Operation *user : llvm::make_early_inc_range(allocation->getUsers()))
      rewriter.eraseOp(user);
    rewriter.eraseOp(allocation);
  }
}
