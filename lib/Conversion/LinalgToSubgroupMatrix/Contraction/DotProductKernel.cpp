//===- DotProductKernel.cpp - products with few rows ----------------------===//
//
// A workgroup computes `subgroups * columns` consecutive columns of C, all
// M rows of them. Each subgroup owns `columns` columns of B (rows of the
// N x K weight, contiguous in memory), and its invocations walk K together:
// invocation i reads elements [i * w, (i + 1) * w) of every `S * w` (w the
// vector width, S the subgroup size), so that a subgroup's reads of one
// column are consecutive, and `unroll` such reads are issued before any is
// used. A dequantizing prologue runs in registers on what was read (its
// scales loaded once per vector). Products accumulate in f32 (integers in
// i32) per invocation, and a butterfly of shuffles adds them across the
// subgroup; one invocation per element then adds C or the fill, applies the
// fused epilogue and stores.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Contraction/DotProductKernel.h"
#include "KernelBuilder.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Contraction/KernelEmitter.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Planning/TilingPlan.h"
#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::subgroup_matrix;

namespace {
/// Emits the dot-product kernel of one contraction.
class DotProductKernelEmitter : public KernelBuilder {
public:
  DotProductKernelEmitter(const Contraction &problem, TargetAttr target,
                          const DotProductPlan &plan)
      : KernelBuilder(problem.op->getLoc()), problem(problem), target(target),
        plan(plan) {}

  FailureOr<ContractionKernel> emit(OpBuilder &moduleBuilder, StringRef name);

private:
  /// `count` consecutive elements of `buffer` from `start`, as vectors of
  /// up to 128 bits where the target moves vectors; where `inBounds` is
  /// false they read element 0 instead.
  SmallVector<Value> loadRun(Value buffer, Value start, int64_t count,
                             Value inBounds);
  /// `value` (an element of A or B as stored, or as a prologue computes it)
  /// in the accumulators' type.
  Value widen(Value value);
  /// The elements [k, k + width) of row `row` of A, and of column `column`
  /// of B (row `column` of its storage), in the accumulators' type, zero
  /// where `inBounds` is false.
  SmallVector<Value> loadA(Value row, Value k, Value inBounds);
  SmallVector<Value> loadB(Value column, Value k, Value inBounds);
  /// Applies a plain (element-wise) prologue to an element.
  Value applyPrologue(linalg::GenericOp prologue, Value element);
  /// x + y, and accumulator + x * y, in the accumulators' type.
  Value sum(Value x, Value y);
  Value multiplyAdd(Value accumulator, Value x, Value y);
  /// Stores the element (row, column) of the output: `sum` plus C or the
  /// fill, through the epilogue.
  void storeElement(Value total, int64_t row, Value column);

  const Contraction &problem;
  TargetAttr target;
  const DotProductPlan &plan;

  Type accumulator;
  bool vectorLoads = false;
  Value a, bBuffer, c, output;
  SmallVector<Value> epilogueBuffers;
  GatheredOperand gatheredB;
  Value nValue, kValue, laneId;
};
} // namespace

SmallVector<Value> DotProductKernelEmitter::loadRun(Value buffer, Value start,
                                                    int64_t count,
                                                    Value inBounds) {
  if (inBounds)
    start = arith::SelectOp::create(b, loc, inBounds, start, index(0));
  Type element = cast<MemRefType>(buffer.getType()).getElementType();
  int64_t bits = element.getIntOrFloatBitWidth();
  SmallVector<Value> elements;
  int64_t perVector = 128 / bits;
  if (vectorLoads && count > 1 && (count * bits) % 32 == 0 &&
      (count % perVector == 0 || count * bits < 128)) {
    int64_t length = std::min(count, perVector);
    for (int64_t first = 0; first < count; first += length)
      llvm::append_range(
          elements,
          loadVectorElements(buffer, element, add(start, first), length));
    return elements;
  }
  for (int64_t i = 0; i < count; ++i)
    elements.push_back(
        memref::LoadOp::create(b, loc, buffer, ValueRange{add(start, i)}));
  return elements;
}

Value DotProductKernelEmitter::widen(Value value) {
  Type type = value.getType();
  if (type == accumulator)
    return value;
  if (isa<FloatType>(type))
    return arith::ExtFOp::create(b, loc, accumulator, value);
  if (problem.inputComponent.isUnsignedInteger())
    return arith::ExtUIOp::create(b, loc, accumulator, value);
  return arith::ExtSIOp::create(b, loc, accumulator, value);
}

Value DotProductKernelEmitter::applyPrologue(linalg::GenericOp prologue,
                                             Value element) {
  if (!prologue)
    return element;
  Block &body = prologue.getRegion().front();
  IRMapping mapping;
  mapping.map(body.getArgument(0), element);
  return cloneScalarBody(b, body, mapping);
}

SmallVector<Value> DotProductKernelEmitter::loadA(Value row, Value k,
                                                  Value inBounds) {
  SmallVector<Value> elements;
  for (Value element :
       loadRun(a, add(mul(row, kValue), k), plan.vectorWidth, inBounds)) {
    element = widen(applyPrologue(problem.a.prologue, element));
    // Past K, B is zero, and so must A be: an infinity read in its place
    // would make the product NaN.
    if (inBounds)
      element = arith::SelectOp::create(b, loc, inBounds, element,
                                        zeroOf(accumulator));
    elements.push_back(element);
  }
  return elements;
}

SmallVector<Value> DotProductKernelEmitter::loadB(Value column, Value k,
                                                  Value inBounds) {
  SmallVector<Value> elements;
  if (problem.b.gathers) {
    GatheredVector loaded =
        loadGatheredVector(gatheredB, index(0), column, k, plan.vectorWidth,
                           inBounds, vectorLoads);
    Type computed =
        cast<ShapedType>(problem.b.prologue.getDpsInits()[0].getType())
            .getElementType();
    for (Value element : computeGatheredElements(problem.b.prologue, loaded,
                                                 plan.vectorWidth, computed))
      elements.push_back(widen(element));
    return elements;
  }
  for (Value element : loadRun(bBuffer, add(mul(column, kValue), k),
                               plan.vectorWidth, inBounds))
    elements.push_back(widen(applyPrologue(problem.b.prologue, element)));
  if (inBounds)
    for (Value &element : elements)
      element = arith::SelectOp::create(b, loc, inBounds, element,
                                        zeroOf(accumulator));
  return elements;
}

Value DotProductKernelEmitter::sum(Value x, Value y) {
  if (isa<FloatType>(accumulator))
    return arith::AddFOp::create(b, loc, x, y);
  return arith::AddIOp::create(b, loc, x, y);
}

Value DotProductKernelEmitter::multiplyAdd(Value accumulatorValue, Value x,
                                           Value y) {
  if (isa<FloatType>(accumulator))
    return sum(accumulatorValue, arith::MulFOp::create(b, loc, x, y));
  return sum(accumulatorValue, arith::MulIOp::create(b, loc, x, y));
}

void DotProductKernelEmitter::storeElement(Value total, int64_t row,
                                           Value column) {
  Type cElement = cast<MemRefType>(problem.c.getType()).getElementType();
  Value offset = add(mul(index(row), nValue), column);
  // C (or the fill) joins the sum in the accumulators' type: a tiled
  // product adds it to its f32 accumulators too.
  Value initial;
  if (problem.accumulates())
    initial = memref::LoadOp::create(b, loc, c, offset);
  else if (problem.fillValue)
    initial = arith::ConstantOp::create(b, loc, problem.fillValue);
  if (initial)
    total = sum(total, widen(initial));
  Value value = total;
  if (cElement != accumulator)
    value = isa<FloatType>(cElement)
                ? arith::TruncFOp::create(b, loc, cElement, value).getResult()
                : arith::TruncIOp::create(b, loc, cElement, value).getResult();
  value = applyEpilogueToScalar(problem, value, [&](unsigned operand) -> Value {
    const EpilogueOperand &input = problem.epilogueOperands[operand];
    Value at;
    switch (input.broadcast) {
    case EpilogueBroadcast::None:
      at = offset;
      break;
    case EpilogueBroadcast::AlongRows:
      at = column;
      break;
    case EpilogueBroadcast::AlongColumns:
      at = index(row);
      break;
    case EpilogueBroadcast::Everywhere:
      at = index(0);
      break;
    }
    return memref::LoadOp::create(b, loc, epilogueBuffers[operand], at);
  });
  memref::StoreOp::create(b, loc, value, output, offset);
}

FailureOr<ContractionKernel>
DotProductKernelEmitter::emit(OpBuilder &moduleBuilder, StringRef name) {
  accumulator = isa<FloatType>(problem.resultComponent) ? Type(b.getF32Type())
                                                        : Type(b.getI32Type());
  vectorLoads = isVulkanDevice(target);
  int64_t subgroupSize = target.getSubgroupSize();

  // The arguments in a tiled product's order (A has no gathering
  // prologue here), every buffer flattened; then N and K where dynamic.
  ContractionKernel result;
  result.arguments = getContractionKernelArguments(problem);
  bool separateOutput = problem.output != problem.c || !problem.accumulates();
  SmallVector<Type> arguments;
  for (Value buffer : result.arguments)
    arguments.push_back(getFlatKernelArgumentType(buffer));
  for (bool dynamic : {problem.hasDynamicN(), problem.hasDynamicK()})
    if (dynamic)
      arguments.push_back(moduleBuilder.getIndexType());

  int64_t threads = plan.subgroups * subgroupSize;
  gpu::GPUFuncOp kernel =
      createKernelFunction(moduleBuilder, name, arguments, {}, threads);
  Block *entry = &kernel.getBody().front();

  unsigned argument = 0;
  a = entry->getArgument(argument++);
  bBuffer = entry->getArgument(argument++);
  if (problem.accumulates())
    c = entry->getArgument(argument++);
  for (size_t i = 0; i < problem.epilogueOperands.size(); ++i)
    epilogueBuffers.push_back(entry->getArgument(argument++));
  if (problem.b.gathers) {
    gatheredB.buffers.push_back(bBuffer);
    gatheredB.types.push_back(cast<MemRefType>(problem.b.buffer.getType()));
    for (Value operand : problem.b.prologueOperands) {
      gatheredB.buffers.push_back(entry->getArgument(argument++));
      gatheredB.types.push_back(cast<MemRefType>(operand.getType()));
    }
    gatheredB.maps = problem.b.gatherMaps;
    gatheredB.padding = problem.b.gatherPadding;
  }
  output = separateOutput ? entry->getArgument(argument++) : c;
  auto sizeValue = [&](int64_t size) {
    return ShapedType::isDynamic(size) ? Value(entry->getArgument(argument++))
                                       : index(size);
  };
  nValue = sizeValue(problem.n);
  kValue = sizeValue(problem.k);
  gatheredB.rowsValue = nValue;
  gatheredB.colsValue = kValue;

  laneId = gpu::LaneIdOp::create(b, loc, /*upper_bound=*/nullptr);
  Value subgroupId = gpu::SubgroupIdOp::create(b, loc, /*upper_bound=*/nullptr);
  Value blockX = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value firstColumn =
      mul(add(mul(blockX, plan.subgroups), subgroupId), plan.columns);
  // Columns past N (in the last workgroup) read column N - 1 and store
  // nothing.
  bool raggedN =
      problem.hasDynamicN() || problem.n % (plan.subgroups * plan.columns) != 0;
  SmallVector<Value> columns, readColumns;
  for (int64_t r = 0; r < plan.columns; ++r) {
    Value column = add(firstColumn, r);
    columns.push_back(column);
    readColumns.push_back(
        raggedN ? arith::MinUIOp::create(
                      b, loc, column,
                      arith::SubIOp::create(b, loc, nValue, index(1)))
                      .getResult()
                : column);
  }

  // The K loop: each step reads `unroll` vectors per column and row.
  int64_t width = plan.vectorWidth;
  int64_t perStep = subgroupSize * width * plan.unroll;
  bool raggedK = problem.hasDynamicK() || problem.k % perStep != 0;
  int64_t m = problem.m;
  SmallVector<Value> initial(m * plan.columns, zeroOf(accumulator));
  Value laneOffset = mul(laneId, width);
  auto loop =
      scf::ForOp::create(b, loc, index(0), kValue, index(perStep), initial);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value step = loop.getInductionVar();
    SmallVector<Value> accumulators(loop.getRegionIterArgs());
    // Every read of the step first, then the arithmetic.
    SmallVector<SmallVector<Value>> aElements, bElements;
    SmallVector<Value> ks, inBounds;
    for (int64_t u = 0; u < plan.unroll; ++u) {
      Value k = add(add(step, u * subgroupSize * width), laneOffset);
      ks.push_back(k);
      inBounds.push_back(raggedK ? lessThan(k, kValue) : Value());
    }
    for (int64_t u = 0; u < plan.unroll; ++u)
      for (Value column : readColumns)
        bElements.push_back(loadB(column, ks[u], inBounds[u]));
    for (int64_t u = 0; u < plan.unroll; ++u)
      for (int64_t row = 0; row < m; ++row)
        aElements.push_back(loadA(index(row), ks[u], inBounds[u]));
    for (int64_t u = 0; u < plan.unroll; ++u)
      for (int64_t row = 0; row < m; ++row)
        for (int64_t r = 0; r < plan.columns; ++r) {
          Value &running = accumulators[row * plan.columns + r];
          for (int64_t i = 0; i < width; ++i)
            running = multiplyAdd(running, aElements[u * m + row][i],
                                  bElements[u * plan.columns + r][i]);
        }
    scf::YieldOp::create(b, loc, accumulators);
  }

  // Each element is stored by one invocation, round robin over the lanes.
  for (int64_t row = 0; row < m; ++row)
    for (int64_t r = 0; r < plan.columns; ++r) {
      Value total = addAcrossLanes(loop.getResult(row * plan.columns + r),
                                   subgroupSize, subgroupSize);
      int64_t lane = (row * plan.columns + r) % subgroupSize;
      Value stores = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                           laneId, index(lane));
      if (raggedN)
        stores = both(stores, lessThan(columns[r], nValue));
      auto ifOp = scf::IfOp::create(b, loc, stores, /*withElse=*/false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      storeElement(total, row, columns[r]);
    }
  gpu::ReturnOp::create(b, loc);

  result.function = kernel;
  result.threads = threads;
  result.tileM = m;
  result.tileN = plan.subgroups * plan.columns;
  result.gridX =
      problem.hasDynamicN() ? 0 : llvm::divideCeil(problem.n, result.tileN);
  return result;
}

FailureOr<ContractionKernel> mlir::subgroup_matrix::emitDotProductKernel(
    OpBuilder &moduleBuilder, StringRef name, const Contraction &problem,
    TargetAttr target, const DotProductPlan &plan) {
  if (failed(checkDotProductPlan(problem, target, plan)))
    return failure();
  return DotProductKernelEmitter(problem, target, plan)
      .emit(moduleBuilder, name);
}
