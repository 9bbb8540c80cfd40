//===- DecodeAttentionKernel.cpp - attention with a few queries -----------===//
//
// Two kernels (split-K flash decoding). The first: a workgroup per run of
// `keys_per_workgroup` keys of one head (batch index), or of the query
// heads that read the same key-value head (grouped-query attention, whose
// K and V rows it then reads once for all of them); each key's row is
// read by `lanesPerKey` invocations, `vectorWidth` elements each, so that
// a subgroup reads several keys at once, `keys_in_flight` of them in flight
// per invocation. Each invocation keeps, for every query row, the running
// maximum m, the sum l of exp(s - m) and its share of the weighted values
// o; the workgroup combines its invocations' states through workgroup
// memory (each rescaled by exp(m_i - max m)) into one partial (m, l, o) per
// query row. The second kernel, a workgroup per head, combines the runs'
// partials the same way and writes o / l. Scores go through the program's
// score steps (scale, mask) one at a time.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Attention/DecodeAttention.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Contraction/KernelEmitter.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Planning/TilingPlan.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <limits>

using namespace mlir;
using namespace mlir::subgroup_matrix;

namespace {
/// Most threads of the combining kernel.
constexpr int64_t kCombineMaxThreads = 512;
/// Runs each combining invocation reads at once.
constexpr int64_t kCombineUnroll = 4;

class DecodeAttentionEmitter : KernelBuilder {
public:
  DecodeAttentionEmitter(const Attention &attention, TargetAttr target,
                         const DecodeAttentionPlan &plan, Location loc)
      : KernelBuilder(loc), attention(attention), target(target), plan(plan),
        layout(getDecodeAttentionLayout(attention, target)),
        splits(plan.runs ? plan.runs
                         : llvm::divideCeil(attention.keyCount,
                                            plan.keysPerWorkgroup)) {}

  /// The partials kernel: Q, K, V, the score operands, then the partial
  /// outputs (f32, batch x splits x queries x head) and their maxima and
  /// sums (f32, batch x splits x queries x 2), then the key count where it
  /// is dynamic.
  gpu::GPUFuncOp emitPartials(OpBuilder &moduleBuilder, StringRef name);
  /// The combining kernel: the partials, then the output.
  gpu::GPUFuncOp emitCombine(OpBuilder &moduleBuilder, StringRef name);
  /// Groups of the combining kernel's invocations that combine runs side
  /// by side, each group an element of the output rows per invocation: as
  /// many as fill kCombineMaxThreads, at most a run each.
  int64_t getCombineGroups() const {
    int64_t elements = attention.queryCount * attention.headDim;
    return std::clamp<int64_t>(kCombineMaxThreads / elements, 1, splits);
  }
  int64_t getCombineThreads() const {
    int64_t elements = attention.queryCount * attention.headDim;
    return std::min(elements * getCombineGroups(), kCombineMaxThreads);
  }

  int64_t getSplits() const { return splits; }
  int64_t getHeadsPerWorkgroup() const { return layout.headsPerWorkgroup; }
  int64_t getPartialThreads() const {
    return plan.subgroups * target.getSubgroupSize();
  }

private:
  /// A softmax's running maximum, sum of exp(s - maximum) and weighted
  /// value (one element of an output row) over some keys.
  struct RunState {
    Value maximum, sum, output;
  };
  /// `state` and `others` as one state: each rescaled to the largest
  /// maximum.
  RunState merge(const RunState &state, ArrayRef<RunState> others);
  /// The state of the output element (row, column) of batch index `batch`
  /// over runs group, group + groups, ... of the partials.
  RunState combineRuns(Value partialOutputs, Value partialStatistics,
                       Value batch, Value row, Value column, Value group,
                       int64_t groups);
  Value f32Constant(double value) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
  }
  /// Where `operand`'s `rows` rows of batch index `batch` start.
  Value getBatchBase(const AttentionOperand &operand, Value batch, Value rows);
  /// `count` consecutive elements of `buffer` from `start`, as f32.
  SmallVector<Value> loadRow(Value buffer, Value start, int64_t count);
  /// One score through the program's score steps at (batch, query, key).
  Value scoreAt(Value score, Value batch, Value query, Value key);
  /// Element-wise maximum that ignores NaN tests (the softmax's; a NaN
  /// score still makes its row NaN through exp(NaN - m)).
  Value maximum(Value x, Value y) {
    return arith::MaximumFOp::create(b, loc, x, y, arith::FastMathFlags::nnan);
  }
  Value exp(Value x) { return math::ExpOp::create(b, loc, x); }
  Value fma(Value accumulator, Value x, Value y) {
    return arith::AddFOp::create(b, loc, accumulator,
                                 arith::MulFOp::create(b, loc, x, y));
  }

  const Attention &attention;
  TargetAttr target;
  const DecodeAttentionPlan &plan;
  DecodeAttentionLayout layout;
  int64_t splits;
  bool vectorLoads = false;
  SmallVector<Value> scoreOperandArguments;
};
} // namespace

Value DecodeAttentionEmitter::getBatchBase(const AttentionOperand &operand,
                                           Value batch, Value rows) {
  return operand.getBatchBase(b, loc, batch, attention.batch, rows);
}

SmallVector<Value> DecodeAttentionEmitter::loadRow(Value buffer, Value start,
                                                   int64_t count) {
  Type element = cast<MemRefType>(buffer.getType()).getElementType();
  SmallVector<Value> elements;
  int64_t bits = element.getIntOrFloatBitWidth();
  // Vectors of up to 128 bits, which every Vulkan path moves.
  int64_t perVector = std::min<int64_t>(count, 128 / bits);
  if (vectorLoads && count > 1 && (perVector * bits) % 32 == 0 &&
      count % perVector == 0)
    for (int64_t first = 0; first < count; first += perVector)
      llvm::append_range(
          elements,
          loadVectorElements(buffer, element, add(start, first), perVector));
  else
    for (int64_t i = 0; i < count; ++i)
      elements.push_back(
          memref::LoadOp::create(b, loc, buffer, ValueRange{add(start, i)}));
  for (Value &value : elements)
    if (!value.getType().isF32())
      value = arith::ExtFOp::create(b, loc, b.getF32Type(), value);
  return elements;
}

Value DecodeAttentionEmitter::scoreAt(Value score, Value batch, Value query,
                                      Value key) {
  Value position[] = {batch, query, key};
  return applyScoreStepsAt(
      b, loc, attention, score, position,
      [&](linalg::GenericOp step, OpOperand *input, int64_t operandIndex) {
        return memref::LoadOp::create(
            b, loc, scoreOperandArguments[operandIndex],
            getScoreOperandOffset(b, loc, step, input, position));
      });
}

gpu::GPUFuncOp DecodeAttentionEmitter::emitPartials(OpBuilder &moduleBuilder,
                                                    StringRef name) {
  vectorLoads = isVulkanDevice(target);
  int64_t queries = attention.queryCount, headDim = attention.headDim;
  int64_t width = layout.vectorWidth, lanesPerKey = layout.lanesPerKey;
  int64_t keysPerSubgroup = layout.keysPerSubgroup;
  int64_t states = plan.subgroups * keysPerSubgroup;
  int64_t threads = getPartialThreads();
  // The query heads that read the same key-value head (grouped-query
  // attention) share a workgroup: rows of the workgroup are (head of the
  // group, query) pairs.
  int64_t heads = layout.headsPerWorkgroup;
  int64_t rows = heads * queries;
  Type f32 = b.getF32Type();
  SmallVector<Type> arguments = {
      getFlatKernelArgumentType(attention.queries.buffer),
      getFlatKernelArgumentType(attention.keys.buffer),
      getFlatKernelArgumentType(attention.values.buffer)};
  for (Value operand : attention.scoreOperands)
    arguments.push_back(getFlatKernelArgumentType(operand));
  int64_t partialRows = attention.batch * splits * queries;
  arguments.push_back(MemRefType::get({partialRows * headDim}, f32));
  arguments.push_back(MemRefType::get({partialRows * 2}, f32));
  bool dynamicKeys = ShapedType::isDynamic(attention.keyCount);
  if (dynamicKeys)
    arguments.push_back(b.getIndexType());
  auto workgroup =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  auto shared = [&](int64_t elements) {
    return MemRefType::get({elements}, f32, MemRefLayoutAttrInterface(),
                           workgroup);
  };
  gpu::GPUFuncOp kernel = createKernelFunction(
      moduleBuilder, name, arguments,
      {shared(states * rows * 2), shared(states * rows * headDim)}, threads);
  Block *entry = &kernel.getBody().front();
  Value q = entry->getArgument(0), k = entry->getArgument(1),
        v = entry->getArgument(2);
  unsigned next = 3;
  scoreOperandArguments.clear();
  for (size_t i = 0; i < attention.scoreOperands.size(); ++i)
    scoreOperandArguments.push_back(entry->getArgument(next++));
  Value partialOutputs = entry->getArgument(next++);
  Value partialStatistics = entry->getArgument(next++);
  Value keyCount = dynamicKeys ? Value(entry->getArgument(next++))
                               : index(attention.keyCount);
  Value sharedStatistics = kernel.getWorkgroupAttributions()[0];
  Value sharedOutputs = kernel.getWorkgroupAttributions()[1];

  Value threadId = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value laneId = gpu::LaneIdOp::create(b, loc, nullptr);
  Value subgroupId = gpu::SubgroupIdOp::create(b, loc, nullptr);
  Value split = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value firstHead =
      mul(gpu::BlockIdOp::create(b, loc, gpu::Dimension::y), heads);
  Value part = arith::RemUIOp::create(b, loc, laneId, index(lanesPerKey));
  Value slot = arith::DivUIOp::create(b, loc, laneId, index(lanesPerKey));
  Value columns = mul(part, width);
  // Row i of the workgroup: query i % queries of head firstHead + i /
  // queries.
  SmallVector<Value> headOfRow;
  for (int64_t i = 0; i < rows; ++i)
    headOfRow.push_back(add(firstHead, i / queries));

  // This invocation's part of each query row, held for the whole loop.
  SmallVector<SmallVector<Value>> queryParts;
  for (int64_t i = 0; i < rows; ++i)
    queryParts.push_back(loadRow(
        q,
        add(add(getBatchBase(attention.queries, headOfRow[i], index(queries)),
                columns),
            (i % queries) * attention.queries.rowStride),
        width));
  Value keyBase =
      add(getBatchBase(attention.keys, firstHead, keyCount), columns);
  Value valueBase =
      add(getBatchBase(attention.values, firstHead, keyCount), columns);

  // This workgroup's run of keys: `keys_per_workgroup` of them, or the
  // runs' equal shares in whole steps. The last run may be short (or, with
  // a plan's runs, empty: then the loop below reads nothing), and the keys
  // of a step past its end weigh nothing.
  int64_t keysPerStep = plan.subgroups * keysPerSubgroup * plan.keysInFlight;
  Value runLength;
  bool ragged, overruns;
  if (dynamicKeys) {
    Value steps = arith::CeilDivUIOp::create(
        b, loc, arith::CeilDivUIOp::create(b, loc, keyCount, index(splits)),
        index(keysPerStep));
    runLength = mul(steps, keysPerStep);
    ragged = overruns = true;
  } else {
    int64_t length = plan.keysPerWorkgroup;
    if (plan.runs)
      length = llvm::alignTo(llvm::divideCeil(attention.keyCount, splits),
                             keysPerStep);
    runLength = index(length);
    overruns = splits * length != attention.keyCount;
    ragged = attention.keyCount % length != 0 || length % keysPerStep != 0;
  }
  Value runStart = mul(split, runLength);
  Value runEnd = add(runStart, runLength);
  if (overruns)
    runEnd = arith::MinUIOp::create(b, loc, runEnd, keyCount);

  // The running maximum starts at the lowest finite value, not -inf, so
  // that exp(m_old - m_new) is never exp(-inf + inf).
  double lowest = -double(std::numeric_limits<float>::max());
  SmallVector<Value> initial;
  for (int64_t i = 0; i < rows; ++i)
    initial.append({f32Constant(lowest), f32Constant(0.0)});
  for (int64_t i = 0; i < rows; ++i)
    initial.append(width, f32Constant(0.0));
  auto loop =
      scf::ForOp::create(b, loc, runStart, runEnd, index(keysPerStep), initial);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value step = loop.getInductionVar();
    SmallVector<Value> carried(loop.getRegionIterArgs());
    // Every read of the step first, then the arithmetic.
    SmallVector<Value> keysOfStep, valid;
    SmallVector<SmallVector<Value>> keyRows, valueRows;
    for (int64_t u = 0; u < plan.keysInFlight; ++u) {
      Value key =
          add(add(step, mul(add(mul(index(u), plan.subgroups), subgroupId),
                            keysPerSubgroup)),
              slot);
      Value inside = ragged ? lessThan(key, runEnd) : Value();
      Value read = inside
                       ? arith::SelectOp::create(b, loc, inside, key, runStart)
                             .getResult()
                       : key;
      keysOfStep.push_back(key);
      valid.push_back(inside);
      keyRows.push_back(
          loadRow(k, add(keyBase, mul(read, attention.keys.rowStride)), width));
      valueRows.push_back(loadRow(
          v, add(valueBase, mul(read, attention.values.rowStride)), width));
    }
    // The step's keys rescale the running state once: one new maximum, one
    // factor, a probability per key.
    Value minusInfinity = f32Constant(-std::numeric_limits<double>::infinity());
    for (int64_t r = 0; r < rows; ++r) {
      SmallVector<Value> scores;
      Value &runningMax = carried[2 * r], &runningSum = carried[2 * r + 1];
      Value newMax = runningMax;
      for (int64_t u = 0; u < plan.keysInFlight; ++u) {
        Value dot = f32Constant(0.0);
        for (int64_t i = 0; i < width; ++i)
          dot = fma(dot, queryParts[r][i], keyRows[u][i]);
        Value score =
            scoreAt(addAcrossLanes(dot, lanesPerKey, target.getSubgroupSize()),
                    headOfRow[r], index(r % queries), keysOfStep[u]);
        if (valid[u])
          score =
              arith::SelectOp::create(b, loc, valid[u], score, minusInfinity);
        scores.push_back(score);
        newMax = maximum(newMax, score);
      }
      Value factor = exp(arith::SubFOp::create(b, loc, runningMax, newMax));
      runningSum = arith::MulFOp::create(b, loc, runningSum, factor);
      for (int64_t i = 0; i < width; ++i) {
        Value &o = carried[2 * rows + r * width + i];
        o = arith::MulFOp::create(b, loc, o, factor);
      }
      for (int64_t u = 0; u < plan.keysInFlight; ++u) {
        Value probability =
            exp(arith::SubFOp::create(b, loc, scores[u], newMax));
        runningSum = arith::AddFOp::create(b, loc, runningSum, probability);
        for (int64_t i = 0; i < width; ++i) {
          Value &o = carried[2 * rows + r * width + i];
          o = fma(o, probability, valueRows[u][i]);
        }
      }
      runningMax = newMax;
    }
    scf::YieldOp::create(b, loc, carried);
  }

  // Each invocation's state into workgroup memory (its key slot's lanes
  // share m and l; the first writes them), then the workgroup's states
  // combined, a head element per invocation.
  Value state = add(mul(subgroupId, keysPerSubgroup), slot);
  Value firstOfKey =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, part, index(0));
  for (int64_t r = 0; r < rows; ++r) {
    Value row = add(mul(state, rows), index(r));
    {
      auto ifOp = scf::IfOp::create(b, loc, firstOfKey, /*withElse=*/false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      memref::StoreOp::create(b, loc, loop.getResult(2 * r), sharedStatistics,
                              ValueRange{mul(row, 2)});
      memref::StoreOp::create(b, loc, loop.getResult(2 * r + 1),
                              sharedStatistics,
                              ValueRange{add(mul(row, 2), 1)});
    }
    for (int64_t i = 0; i < width; ++i)
      memref::StoreOp::create(
          b, loc, loop.getResult(2 * rows + r * width + i), sharedOutputs,
          ValueRange{add(add(mul(row, headDim), columns), i)});
  }
  gpu::BarrierOp::create(b, loc);
  for (int64_t first = 0; first < rows * headDim; first += threads) {
    Value element = add(threadId, first);
    std::optional<scf::IfOp> inside;
    OpBuilder::InsertionGuard guard(b);
    if (first + threads > rows * headDim) {
      inside = scf::IfOp::create(b, loc, lessThan(element, rows * headDim),
                                 /*withElse=*/false);
      b.setInsertionPointToStart(inside->thenBlock());
    }
    Value r = arith::DivUIOp::create(b, loc, element, index(headDim));
    Value d = arith::RemUIOp::create(b, loc, element, index(headDim));
    SmallVector<RunState> stateOf;
    for (int64_t s = 0; s < states; ++s) {
      Value row = add(mul(index(s), rows), r);
      stateOf.push_back(
          {memref::LoadOp::create(b, loc, sharedStatistics,
                                  ValueRange{mul(row, 2)}),
           memref::LoadOp::create(b, loc, sharedStatistics,
                                  ValueRange{add(mul(row, 2), 1)}),
           memref::LoadOp::create(b, loc, sharedOutputs,
                                  ValueRange{add(mul(row, headDim), d)})});
    }
    RunState merged = merge(stateOf.front(), ArrayRef(stateOf).drop_front());
    // Partial row of (head, split, query): (head * splits + split) *
    // queries + query.
    Value head =
        add(firstHead, arith::DivUIOp::create(b, loc, r, index(queries)));
    Value partialRow = add(mul(add(mul(head, splits), split), queries),
                           arith::RemUIOp::create(b, loc, r, index(queries)));
    memref::StoreOp::create(b, loc, merged.output, partialOutputs,
                            ValueRange{add(mul(partialRow, headDim), d)});
    auto firstColumn = scf::IfOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, d, index(0)),
        /*withElse=*/false);
    b.setInsertionPointToStart(firstColumn.thenBlock());
    memref::StoreOp::create(b, loc, merged.maximum, partialStatistics,
                            ValueRange{mul(partialRow, 2)});
    memref::StoreOp::create(b, loc, merged.sum, partialStatistics,
                            ValueRange{add(mul(partialRow, 2), 1)});
  }
  gpu::ReturnOp::create(b, loc);
  return kernel;
}

DecodeAttentionEmitter::RunState
DecodeAttentionEmitter::merge(const RunState &state,
                              ArrayRef<RunState> others) {
  Value largest = state.maximum;
  for (const RunState &other : others)
    largest = maximum(largest, other.maximum);
  Value factor = exp(arith::SubFOp::create(b, loc, state.maximum, largest));
  RunState merged{largest, arith::MulFOp::create(b, loc, state.sum, factor),
                  arith::MulFOp::create(b, loc, state.output, factor)};
  for (const RunState &other : others) {
    Value weight = exp(arith::SubFOp::create(b, loc, other.maximum, largest));
    merged.sum = fma(merged.sum, other.sum, weight);
    merged.output = fma(merged.output, other.output, weight);
  }
  return merged;
}

DecodeAttentionEmitter::RunState DecodeAttentionEmitter::combineRuns(
    Value partialOutputs, Value partialStatistics, Value batch, Value row,
    Value column, Value group, int64_t groups) {
  int64_t queries = attention.queryCount, headDim = attention.headDim;
  int64_t perGroup = llvm::divideCeil(splits, groups);
  int64_t iterations = llvm::divideCeil(perGroup, kCombineUnroll);
  bool ragged = groups * iterations * kCombineUnroll != splits;
  double lowest = -double(std::numeric_limits<float>::max());
  auto loop = scf::ForOp::create(
      b, loc, index(0), index(iterations), index(1),
      ValueRange{f32Constant(lowest), f32Constant(0.0), f32Constant(0.0)});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  // Every read of the iteration first, then the arithmetic.
  SmallVector<RunState> runs;
  for (int64_t u = 0; u < kCombineUnroll; ++u) {
    Value run = add(
        group, mul(add(mul(loop.getInductionVar(), kCombineUnroll), index(u)),
                   groups));
    Value inside = ragged ? lessThan(run, splits) : Value();
    if (inside)
      run = arith::SelectOp::create(b, loc, inside, run, index(0));
    // Partial row of (batch, run, row): (batch * splits + run) * queries +
    // row.
    Value partialRow = add(mul(add(mul(batch, splits), run), queries), row);
    RunState state{
        memref::LoadOp::create(b, loc, partialStatistics,
                               ValueRange{mul(partialRow, 2)}),
        memref::LoadOp::create(b, loc, partialStatistics,
                               ValueRange{add(mul(partialRow, 2), 1)}),
        memref::LoadOp::create(
            b, loc, partialOutputs,
            ValueRange{add(mul(partialRow, headDim), column)})};
    if (inside) {
      state.maximum = arith::SelectOp::create(b, loc, inside, state.maximum,
                                              f32Constant(lowest));
      state.sum =
          arith::SelectOp::create(b, loc, inside, state.sum, f32Constant(0.0));
      state.output = arith::SelectOp::create(b, loc, inside, state.output,
                                             f32Constant(0.0));
    }
    runs.push_back(state);
  }
  Block::BlockArgListType carried = loop.getRegionIterArgs();
  RunState merged = merge({carried[0], carried[1], carried[2]}, runs);
  scf::YieldOp::create(b, loc,
                       ValueRange{merged.maximum, merged.sum, merged.output});
  return {loop.getResult(0), loop.getResult(1), loop.getResult(2)};
}

gpu::GPUFuncOp DecodeAttentionEmitter::emitCombine(OpBuilder &moduleBuilder,
                                                   StringRef name) {
  int64_t queries = attention.queryCount, headDim = attention.headDim;
  int64_t elements = queries * headDim;
  int64_t groups = getCombineGroups(), threads = getCombineThreads();
  Type f32 = b.getF32Type();
  int64_t partialRows = attention.batch * splits * queries;
  SmallVector<Type> arguments = {
      MemRefType::get({partialRows * headDim}, f32),
      MemRefType::get({partialRows * 2}, f32),
      getFlatKernelArgumentType(attention.output.buffer)};
  SmallVector<Type> workgroupBuffers;
  if (groups > 1)
    workgroupBuffers.push_back(MemRefType::get(
        {3 * groups * elements}, f32, MemRefLayoutAttrInterface(),
        gpu::AddressSpaceAttr::get(b.getContext(),
                                   gpu::AddressSpace::Workgroup)));
  gpu::GPUFuncOp kernel = createKernelFunction(moduleBuilder, name, arguments,
                                               workgroupBuffers, threads);
  Block *entry = &kernel.getBody().front();
  Value partialOutputs = entry->getArgument(0);
  Value partialStatistics = entry->getArgument(1);
  Value output = entry->getArgument(2);
  Value threadId = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value batch = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value outputBase = getBatchBase(attention.output, batch, index(queries));
  Type outputType = cast<MemRefType>(output.getType()).getElementType();
  auto store = [&](const RunState &state, Value row, Value column) {
    Value value = arith::DivFOp::create(b, loc, state.output, state.sum);
    if (outputType != f32)
      value = arith::TruncFOp::create(b, loc, outputType, value);
    memref::StoreOp::create(
        b, loc, value, output,
        ValueRange{add(outputBase,
                       add(mul(row, attention.output.rowStride), column))});
  };

  if (groups == 1) {
    // Each invocation combines every run of its elements.
    for (int64_t first = 0; first < elements; first += threads) {
      Value element = add(threadId, first);
      OpBuilder::InsertionGuard guard(b);
      if (first + threads > elements) {
        auto inside = scf::IfOp::create(b, loc, lessThan(element, elements),
                                        /*withElse=*/false);
        b.setInsertionPointToStart(inside.thenBlock());
      }
      Value row = arith::DivUIOp::create(b, loc, element, index(headDim));
      Value column = arith::RemUIOp::create(b, loc, element, index(headDim));
      store(combineRuns(partialOutputs, partialStatistics, batch, row, column,
                        index(0), 1),
            row, column);
    }
    gpu::ReturnOp::create(b, loc);
    return kernel;
  }

  // Groups of invocations combine every groups-th run of an element each,
  // then the first group merges the groups' states from workgroup memory.
  Value shared = kernel.getWorkgroupAttributions()[0];
  Value element = arith::RemUIOp::create(b, loc, threadId, index(elements));
  Value group = arith::DivUIOp::create(b, loc, threadId, index(elements));
  Value row = arith::DivUIOp::create(b, loc, element, index(headDim));
  Value column = arith::RemUIOp::create(b, loc, element, index(headDim));
  RunState state = combineRuns(partialOutputs, partialStatistics, batch, row,
                               column, group, groups);
  auto sharedIndex = [&](int64_t part, Value group) {
    return add(mul(add(mul(group, 3), index(part)), elements), element);
  };
  Value parts[] = {state.maximum, state.sum, state.output};
  for (int64_t part = 0; part < 3; ++part)
    memref::StoreOp::create(b, loc, parts[part], shared,
                            ValueRange{sharedIndex(part, group)});
  gpu::BarrierOp::create(b, loc);
  auto firstGroup = scf::IfOp::create(b, loc, lessThan(threadId, elements),
                                      /*withElse=*/false);
  b.setInsertionPointToStart(firstGroup.thenBlock());
  SmallVector<RunState> others;
  for (int64_t g = 1; g < groups; ++g) {
    RunState other;
    Value *parts[] = {&other.maximum, &other.sum, &other.output};
    for (int64_t part = 0; part < 3; ++part)
      *parts[part] = memref::LoadOp::create(
          b, loc, shared, ValueRange{sharedIndex(part, index(g))});
    others.push_back(other);
  }
  store(merge(state, others), row, column);
  b.setInsertionPointAfter(firstGroup);
  gpu::ReturnOp::create(b, loc);
  return kernel;
}

LogicalResult mlir::subgroup_matrix::emitDecodeAttentionKernels(
    RewriterBase &rewriter, const Attention &attention, TargetAttr target,
    const DecodeAttentionPlan &plan, gpu::GPUModuleOp kernels, StringRef name) {
  if (failed(checkDecodeAttentionPlan(attention, target, plan)))
    return failure();
  Location loc = attention.ops.front()->getLoc();
  // An emitter per kernel: each builds its index constants once, in its
  // kernel's entry block.
  DecodeAttentionEmitter emitter(attention, target, plan, loc);
  OpBuilder moduleBuilder = OpBuilder::atBlockEnd(kernels.getBody());
  gpu::GPUFuncOp partials = emitter.emitPartials(moduleBuilder, name);
  gpu::GPUFuncOp combine =
      DecodeAttentionEmitter(attention, target, plan, loc)
          .emitCombine(moduleBuilder, (name + "_combine").str());

  // The launches where the last replaced op was, the partials in buffers
  // of their own between them.
  rewriter.setInsertionPoint(attention.ops.back());
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, value);
  };
  int64_t partialRows =
      attention.batch * emitter.getSplits() * attention.queryCount;
  Type f32 = rewriter.getF32Type();
  Value partialOutputs = memref::AllocOp::create(
      rewriter, loc, MemRefType::get({partialRows * attention.headDim}, f32));
  Value partialStatistics = memref::AllocOp::create(
      rewriter, loc, MemRefType::get({partialRows * 2}, f32));
  SmallVector<Value> operands;
  for (const AttentionOperand *operand :
       {&attention.queries, &attention.keys, &attention.values})
    operands.push_back(flattenForLaunch(rewriter, loc, operand->buffer));
  for (Value buffer : attention.scoreOperands)
    operands.push_back(flattenForLaunch(rewriter, loc, buffer));
  operands.append({partialOutputs, partialStatistics});
  if (ShapedType::isDynamic(attention.keyCount))
    operands.push_back(attention.keys.getRowCount(rewriter, loc));
  gpu::LaunchFuncOp::create(
      rewriter, loc, partials,
      gpu::KernelDim3{
          constant(emitter.getSplits()),
          constant(attention.batch / emitter.getHeadsPerWorkgroup()),
          constant(1)},
      gpu::KernelDim3{constant(emitter.getPartialThreads()), constant(1),
                      constant(1)},
      /*dynamicSharedMemorySize=*/Value(), operands);
  gpu::LaunchFuncOp::create(
      rewriter, loc, combine,
      gpu::KernelDim3{constant(attention.batch), constant(1), constant(1)},
      gpu::KernelDim3{constant(emitter.getCombineThreads()), constant(1),
                      constant(1)},
      /*dynamicSharedMemorySize=*/Value(),
      ValueRange{partialOutputs, partialStatistics,
                 flattenForLaunch(rewriter, loc, attention.output.buffer)});
  memref::DeallocOp::create(rewriter, loc, partialOutputs);
  memref::DeallocOp::create(rewriter, loc, partialStatistics);
  eraseAttentionOps(rewriter, attention);
  return success();
}
