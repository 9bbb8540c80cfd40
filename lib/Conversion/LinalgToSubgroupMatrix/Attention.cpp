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

/// An element-wise op with one input and identity maps, computing with
/// arith/math and its position (linalg.index) only.
static bool isScoreStep(linalg::GenericOp op) {
  if (!isUnaryElementwise(op))
    return false;
  Block &body = op.getRegion().front();
  if (!body.getArguments().back().use_empty())
    return false;
  return llvm::all_of(body.without_terminator(), [&](Operation &inner) {
    return isa<linalg::IndexOp>(inner) ||
           (isa<arith::ArithDialect, math::MathDialect>(inner.getDialect()) &&
            isPure(&inner) && inner.getNumRegions() == 0);
  });
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
      product->b.transposed != transposedB || product->hasDynamicSizes() ||
      product->reducesBatch || !product->fillValue ||
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
  if (!scoresType || scoresType.getRank() != 3 ||
      !scoresType.hasStaticShape() || !scoresType.getElementType().isF32() ||
      softmax.getDimension() != 2)
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
    if (auto step = dyn_cast<linalg::GenericOp>(writer);
        step && isScoreStep(step)) {
      if (!isPrivateTemporary(current, {step, consumer}))
        return std::nullopt;
      attention.deadAllocations.push_back(current.getDefiningOp());
      attention.scoreSteps.insert(attention.scoreSteps.begin(), step);
      before.insert(before.begin(), step);
      consumer = step;
      current = step.getDpsInputs()[0];
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
      output->inputComponent != inputType)
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
                         MatrixConfigAttr config, Location loc)
      : attention(attention), target(target), config(config),
        b(loc.getContext()), loc(loc) {}

  FailureOr<gpu::GPUFuncOp> emit(OpBuilder &moduleBuilder, StringRef name);
  /// Chooses the key block and the copy width; false when no key block
  /// fits the target's workgroup memory.
  bool planSizes();

  /// Query rows per workgroup: one matrix height per subgroup.
  int64_t getQueryBlock() const { return kSubgroups * config.getM(); }
  int64_t getThreads() const { return kSubgroups * target.getSubgroupSize(); }

private:
  static constexpr int64_t kSubgroups = 4;
  /// Keys per step: 64, fewer where workgroup memory is short.
  int64_t kKeyBlock = 64;

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
  /// Copies `rows` rows of a batch x count x headDim buffer, from row
  /// `first` of the batch at `batchBase`, into workgroup memory; rows at or
  /// past `count` become zeros.
  void stageRows(Value global, Value batchBase, Value first, int64_t count,
                 Value shared, int64_t rows);
  /// The scores of one key block column of matrices, through the program's
  /// score steps, with keys past the end masked.
  Value applyScoreSteps(Value scores, Value rowOffset, Value keyOffset);

  const Attention &attention;
  TargetAttr target;
  MatrixConfigAttr config;
  OpBuilder b;
  Location loc;
  int64_t width = 1, stride = 0;
  Value threadId, batchIndex;
};
} // namespace

Value AttentionKernelEmitter::map(
    Type component, ValueRange inputs,
    function_ref<Value(Value row, Value column, ValueRange elements)> body) {
  return createMap(b, loc, resultType(component), inputs, body);
}

void AttentionKernelEmitter::stageRows(Value global, Value batchBase,
                                       Value first, int64_t count, Value shared,
                                       int64_t rows) {
  int64_t headDim = attention.headDim;
  int64_t perRow = headDim / width;
  int64_t copies = rows * perRow;
  Type element = getStorageType(attention.inputType);
  for (int64_t start = 0; start < copies; start += getThreads()) {
    Value copy = add(threadId, index(start));
    // The last round may have fewer copies than invocations.
    Value active;
    if (start + getThreads() > copies)
      active = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, copy,
                                     index(copies));
    Value row = arith::DivUIOp::create(b, loc, copy, index(perRow));
    Value column =
        mul(arith::RemUIOp::create(b, loc, copy, index(perRow)), width);
    Value globalRow = add(first, row);
    Value inBounds = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           globalRow, index(count));
    Value address = add(batchBase, add(mul(globalRow, headDim), column));
    // Out of bounds, read the batch's first element and replace it by zero.
    address = arith::SelectOp::create(b, loc, inBounds, address, batchBase);
    Value sharedAddress = add(mul(row, stride), column);
    auto emitCopy = [&] {
      if (width == 1) {
        Value value = memref::LoadOp::create(b, loc, global, address);
        // bf16 moves as bits (some paths have no bf16 scalars).
        bool asBits = element.isBF16();
        if (asBits)
          value = arith::BitcastOp::create(b, loc, b.getI16Type(), value);
        Value zero =
            arith::ConstantOp::create(b, loc, b.getZeroAttr(value.getType()));
        value = arith::SelectOp::create(b, loc, inBounds, value, zero);
        if (asBits)
          value = arith::BitcastOp::create(b, loc, element, value);
        memref::StoreOp::create(b, loc, value, shared, sharedAddress);
        return;
      }
      auto vectorType = VectorType::get({width}, element);
      auto wordsType = VectorType::get(
          {width * element.getIntOrFloatBitWidth() / 32}, b.getI32Type());
      Value words = vector::BitCastOp::create(
          b, loc, wordsType,
          vector::LoadOp::create(b, loc, vectorType, global, address));
      Value zero = arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(wordsType, b.getI32IntegerAttr(0)));
      words = arith::SelectOp::create(b, loc, inBounds, words, zero);
      vector::StoreOp::create(
          b, loc, vector::BitCastOp::create(b, loc, vectorType, words), shared,
          sharedAddress);
    };
    if (!active) {
      emitCopy();
      continue;
    }
    auto ifOp = scf::IfOp::create(b, loc, active, /*withElse=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    emitCopy();
  }
}

Value AttentionKernelEmitter::applyScoreSteps(Value scores, Value rowOffset,
                                              Value keyOffset) {
  bool raggedKeys = attention.keyCount % kKeyBlock != 0;
  return map(
      b.getF32Type(), {scores},
      [&](Value row, Value column, ValueRange elements) -> Value {
        Value query = add(rowOffset, row);
        Value key = add(keyOffset, column);
        Value value = elements[0];
        for (linalg::GenericOp step : attention.scoreSteps) {
          Block &body = step.getRegion().front();
          IRMapping mapping;
          mapping.map(body.getArgument(0), value);
          // The program's position: (batch, query, key).
          Value position[] = {batchIndex, query, key};
          for (auto indexOp : body.getOps<linalg::IndexOp>())
            mapping.map(indexOp.getResult(), position[indexOp.getDim()]);
          value = cloneScalarBody(b, body, mapping);
        }
        if (!raggedKeys)
          return value;
        // Keys past the end were staged as zeros: they weigh nothing.
        Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                             key, index(attention.keyCount));
        Value minusInfinity = arith::ConstantOp::create(
            b, loc, b.getF32FloatAttr(-std::numeric_limits<float>::infinity()));
        return arith::SelectOp::create(b, loc, inside, value, minusInfinity);
      });
}

bool AttentionKernelEmitter::planSizes() {
  int64_t fm = config.getM(), fn = config.getN();
  int64_t headDim = attention.headDim;
  int64_t queryBlock = getQueryBlock();
  Type inputStorage = getStorageType(attention.inputType);
  StringRef targetName = target.getName() ? target.getName().getValue() : "";
  // Vulkan devices copy 16 bytes at once (128-bit accesses); elsewhere
  // elements.
  bool wide = targetName.starts_with("nvidia") || targetName.starts_with("amd");
  int64_t elementBytes = inputStorage.getIntOrFloatBitWidth() / 8;
  width = wide && headDim % (16 / elementBytes) == 0 ? 16 / elementBytes : 1;
  // Rows padded by 16 bytes against bank conflicts.
  stride = headDim + 16 / elementBytes;
  Type outputStorage = attention.outputType;
  int64_t limit = getWorkgroupMemoryLimit(target);
  // On Vulkan, maps and reductions of result matrices go through
  // workgroup memory too (sm-lower-to-vulkan adds three f32 tiles and one
  // of the inputs per subgroup here): that is reserved.
  int64_t expansionBytes =
      wide ? (3 * 4 + elementBytes) * kSubgroups * fm * fn : 0;
  auto sharedBytesFor = [&](int64_t keyBlock) {
    return (std::max(queryBlock, keyBlock) + keyBlock) * stride * elementBytes +
           kSubgroups * fm * fn * outputStorage.getIntOrFloatBitWidth() / 8 +
           expansionBytes;
  };
  kKeyBlock = 64;
  while (kKeyBlock > fn && kKeyBlock / 2 % fn == 0 &&
         sharedBytesFor(kKeyBlock) > limit)
    kKeyBlock /= 2;
  return sharedBytesFor(kKeyBlock) <= limit;
}

FailureOr<gpu::GPUFuncOp> AttentionKernelEmitter::emit(OpBuilder &moduleBuilder,
                                                       StringRef name) {
  MLIRContext *context = moduleBuilder.getContext();
  int64_t fm = config.getM(), fn = config.getN(), fk = config.getK();
  int64_t headDim = attention.headDim;
  int64_t queryBlock = getQueryBlock();
  Type inputStorage = getStorageType(attention.inputType);
  Type outputStorage = attention.outputType;
  if (!planSizes())
    return attention.ops.front()->emitOpError()
               << "cannot become an attention kernel: head dimension "
               << headDim << " needs more workgroup memory than the "
               << getWorkgroupMemoryLimit(target) << " bytes a kernel may use",
           failure();
  int64_t stagedRows = std::max(queryBlock, kKeyBlock);

  auto flat = [&](Value buffer) {
    auto type = cast<MemRefType>(buffer.getType());
    return MemRefType::get({type.getNumElements()}, type.getElementType());
  };
  auto workgroup =
      gpu::AddressSpaceAttr::get(context, gpu::AddressSpace::Workgroup);
  auto shared = [&](int64_t elements, Type type) {
    return MemRefType::get({elements}, type, MemRefLayoutAttrInterface(),
                           workgroup);
  };
  SmallVector<Type> arguments = {flat(attention.queries), flat(attention.keys),
                                 flat(attention.values),
                                 flat(attention.output)};
  SmallVector<Type> attributions = {
      shared(stagedRows * stride, inputStorage),
      shared(kKeyBlock * stride, inputStorage),
      shared(kSubgroups * fm * fn, outputStorage)};
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
        v = entry->getArgument(2), o = entry->getArgument(3);
  Value keyShared = kernel.getWorkgroupAttributions()[0];
  Value valueShared = kernel.getWorkgroupAttributions()[1];
  Value scratch = kernel.getWorkgroupAttributions()[2];

  threadId = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value subgroupId = gpu::SubgroupIdOp::create(b, loc, nullptr);
  Value laneId = gpu::LaneIdOp::create(b, loc, nullptr);
  Value queryTile = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  batchIndex = gpu::BlockIdOp::create(b, loc, gpu::Dimension::y);
  Value firstQuery = mul(queryTile, queryBlock);
  Value subgroupRow = mul(subgroupId, fm);
  Value rowOffset = add(firstQuery, subgroupRow);
  Value queryBase = mul(batchIndex, attention.queryCount * headDim);
  Value keyBase = mul(batchIndex, attention.keyCount * headDim);

  // Q, through the key buffer, into left matrices held for the whole loop.
  auto leftType = LeftMatrixType::get(context, fm, fk, attention.inputType);
  auto rightType = RightMatrixType::get(context, fk, fn, attention.inputType);
  stageRows(q, queryBase, firstQuery, attention.queryCount, keyShared,
            queryBlock);
  gpu::BarrierOp::create(b, loc);
  SmallVector<Value> queries;
  for (int64_t d = 0; d < headDim / fk; ++d)
    queries.push_back(
        LoadOp::create(b, loc, leftType, keyShared,
                       ValueRange{add(mul(subgroupRow, stride), index(d * fk))},
                       index(stride), /*col_major=*/false));
  gpu::BarrierOp::create(b, loc);

  Type f32 = b.getF32Type();
  auto splat = [&](double value) {
    return SplatOp::create(b, loc, resultType(f32), floatConstant(value));
  };
  // The running maximum starts at the lowest finite value, not -inf, so
  // that exp(m_old - m_new) is never exp(-inf + inf).
  SmallVector<Value> carried = {
      splat(-double(std::numeric_limits<float>::max())), splat(0.0)};
  for (int64_t i = 0; i < headDim / fn; ++i)
    carried.push_back(splat(0.0));
  int64_t keySteps = llvm::divideCeil(attention.keyCount, kKeyBlock);
  Value stepCount = index(keySteps);
  if (attention.causal) {
    // Keys past this workgroup's last query are masked for all its rows.
    Value lastQuery = add(firstQuery, index(queryBlock - 1));
    Value needed = arith::DivUIOp::create(
        b, loc, add(lastQuery, index(kKeyBlock)), index(kKeyBlock));
    stepCount = arith::MinUIOp::create(b, loc, stepCount, needed);
  }
  auto loop =
      scf::ForOp::create(b, loc, index(0), stepCount, index(1), carried);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value firstKey = mul(loop.getInductionVar(), kKeyBlock);
    Value maximum = loop.getRegionIterArgs()[0];
    Value sum = loop.getRegionIterArgs()[1];
    SmallVector<Value> outputs(loop.getRegionIterArgs().drop_front(2));
    stageRows(k, keyBase, firstKey, attention.keyCount, keyShared, kKeyBlock);
    stageRows(v, keyBase, firstKey, attention.keyCount, valueShared, kKeyBlock);
    gpu::BarrierOp::create(b, loc);

    // S = Q K^T for each column of matrices of the block, with the
    // program's scale and mask.
    SmallVector<Value> scores;
    for (int64_t j = 0; j < kKeyBlock / fn; ++j) {
      Value acc = splat(0.0);
      for (int64_t d = 0; d < headDim / fk; ++d) {
        // K^T's columns are K's rows: a column-major right matrix.
        Value keysT = LoadOp::create(
            b, loc, rightType, keyShared,
            ValueRange{index(j * fn * stride + d * fk)}, index(stride),
            /*col_major=*/true);
        acc = MmaOp::create(b, loc, acc.getType(), queries[d], keysT, acc);
      }
      scores.push_back(
          applyScoreSteps(acc, rowOffset, add(firstKey, index(j * fn))));
    }
    // The new maximum per row, and the factor that rescales what was
    // accumulated under the old one.
    Value blockMaximum;
    for (Value s : scores) {
      Value rowMaximum =
          ReduceOp::create(b, loc, s.getType(), ReductionKind::Max,
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
    for (Value &out : outputs)
      out = map(f32, {out, rescale}, [&](Value, Value, ValueRange x) {
        return Value(arith::MulFOp::create(b, loc, x[0], x[1]));
      });
    for (auto [j, p] : llvm::enumerate(probabilities)) {
      Value left = ConvertOp::create(b, loc, leftType, p);
      for (auto [i, out] : llvm::enumerate(outputs)) {
        Value values = LoadOp::create(
            b, loc, rightType, valueShared,
            ValueRange{index(int64_t(j) * fk * stride + int64_t(i) * fn)},
            index(stride), /*col_major=*/false);
        out = MmaOp::create(b, loc, out.getType(), left, values, out);
      }
    }
    gpu::BarrierOp::create(b, loc);
    SmallVector<Value> yielded = {newMaximum, newSum};
    llvm::append_range(yielded, outputs);
    scf::YieldOp::create(b, loc, yielded);
  }

  // O / l, stored row by row within the queries (through this subgroup's
  // scratch: a result matrix cannot be stored partially).
  Value sum = loop.getResult(1);
  Value outputBase = queryBase;
  Value scratchBase = mul(subgroupId, fm * fn);
  for (int64_t i = 0; i < headDim / fn; ++i) {
    Value out =
        map(outputStorage, {loop.getResult(2 + i), sum},
            [&](Value, Value, ValueRange x) -> Value {
              Value quotient = arith::DivFOp::create(b, loc, x[0], x[1]);
              if (outputStorage.isF32())
                return quotient;
              return arith::TruncFOp::create(b, loc, outputStorage, quotient);
            });
    StoreOp::create(b, loc, out, scratch, ValueRange{scratchBase}, index(fn),
                    /*col_major=*/false);
    gpu::BarrierOp::create(b, loc);
    for (int64_t first = 0; first < fm * fn;
         first += target.getSubgroupSize()) {
      Value element = add(laneId, index(first));
      Value r = arith::DivUIOp::create(b, loc, element, index(fn));
      Value c = arith::RemUIOp::create(b, loc, element, index(fn));
      Value row = add(rowOffset, r);
      Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           row, index(attention.queryCount));
      if (first + target.getSubgroupSize() > fm * fn)
        inside = arith::AndIOp::create(
            b, loc, inside,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, element,
                                  index(fm * fn)));
      auto ifOp = scf::IfOp::create(b, loc, inside, /*withElse=*/false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      Value value =
          memref::LoadOp::create(b, loc, scratch, add(scratchBase, element));
      Value address =
          add(outputBase, add(mul(row, headDim), add(index(i * fn), c)));
      memref::StoreOp::create(b, loc, value, o, address);
    }
    gpu::BarrierOp::create(b, loc);
  }
  gpu::ReturnOp::create(b, loc);
  return kernel;
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

bool mlir::subgroup_matrix::canEmitAttentionKernel(const Attention &attention,
                                                   TargetAttr target) {
  MatrixConfigAttr config = chooseAttentionConfig(attention, target);
  if (!config)
    return false;
  AttentionKernelEmitter emitter(attention, target, config,
                                 attention.ops.front()->getLoc());
  return emitter.planSizes();
}

LogicalResult mlir::subgroup_matrix::emitAttentionKernel(
    RewriterBase &rewriter, const Attention &attention, TargetAttr target,
    gpu::GPUModuleOp kernels, StringRef name) {
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
  AttentionKernelEmitter emitter(attention, target, config, loc);
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
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, value);
  };
  gpu::LaunchFuncOp::create(
      rewriter, loc, *kernel,
      gpu::KernelDim3{constant(llvm::divideCeil(attention.queryCount,
                                                emitter.getQueryBlock())),
                      constant(attention.batch), constant(1)},
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
