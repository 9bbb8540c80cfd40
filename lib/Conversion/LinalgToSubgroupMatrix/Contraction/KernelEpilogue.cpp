//===- KernelEpilogue.cpp - a contraction kernel's fused epilogue ---------===//
//
// The element-wise consumers fused into a contraction's kernel, applied to
// the accumulators before the single store: as maps of whole result
// matrices where they can be, else element by element on the way to
// memory, through workgroup memory where the edges of C or the epilogue's
// operands need the elements' positions.
//
//===----------------------------------------------------------------------===//

#include "ContractionKernelEmitter.h"

#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Planning/TilingPlan.h"
#include "SubgroupMatrix/Transforms/ExpandThroughWorkgroupMemory.h"

using namespace mlir;
using namespace mlir::subgroup_matrix;

void ContractionKernelEmitter::forEachScratchElement(
    Value row, Value column,
    function_ref<void(Value scratchAddress, Value globalRow, Value globalColumn,
                      Value inBounds)>
        body) {
  int64_t fm = config.getM(), fn = config.getN();
  int64_t subgroupSize = target.getSubgroupSize();
  Value scratchBase = mul(subgroupId, fm * fn);
  // fm * fn is a multiple of the subgroup size for every configuration.
  for (int64_t first = 0; first < fm * fn; first += subgroupSize) {
    Value element = add(laneId, first);
    Value r = arith::DivUIOp::create(b, loc, element, index(fn));
    Value col = arith::RemUIOp::create(b, loc, element, index(fn));
    Value globalRow = add(row, r), globalColumn = add(column, col);
    Value inBounds =
        both(lessThan(globalRow, mValue), lessThan(globalColumn, nValue));
    body(add(scratchBase, element), globalRow, globalColumn, inBounds);
  }
}

SmallVector<Value> ContractionKernelEmitter::loadResultElements(Value row,
                                                                Value column) {
  SmallVector<Value> elements;
  forEachScratchElement(
      row, column,
      [&](Value, Value globalRow, Value globalColumn, Value inBounds) {
        // No branch, so that the loads can all be in flight at once: out of
        // bounds, read the slice's first element and replace it by zero.
        Value address = add(mul(globalRow, nValue), globalColumn);
        Value safeAddress =
            add(cBatchBase,
                arith::SelectOp::create(b, loc, inBounds, address, index(0)));
        Value value = memref::LoadOp::create(b, loc, c, safeAddress);
        elements.push_back(arith::SelectOp::create(b, loc, inBounds, value,
                                                   zeroOf(value.getType())));
      });
  return elements;
}

void ContractionKernelEmitter::loadResultThroughScratch(Value row,
                                                        Value column) {
  SmallVector<Value> elements = loadResultElements(row, column);
  unsigned element = 0;
  forEachScratchElement(row, column,
                        [&](Value scratchAddress, Value, Value, Value) {
                          memref::StoreOp::create(b, loc, elements[element++],
                                                  scratch, scratchAddress);
                        });
}

void ContractionKernelEmitter::storeResultThroughScratch(
    Value row, Value column, ArrayRef<Value> cElements) {
  if (cElements.empty() && storeScratchRowRuns(row, column))
    return;
  unsigned element = 0;
  forEachScratchElement(
      row, column,
      [&](Value scratchAddress, Value globalRow, Value globalColumn,
          Value inBounds) {
        auto ifOp = scf::IfOp::create(b, loc, inBounds, /*withElse=*/false);
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(ifOp.thenBlock());
        Value value = memref::LoadOp::create(b, loc, scratch, scratchAddress);
        if (!cElements.empty())
          value = addAccumulator(value, cElements[element++]);
        value = applyEpilogueToElement(value, globalRow, globalColumn);
        Value address =
            add(outputBatchBase, add(mul(globalRow, nValue), globalColumn));
        memref::StoreOp::create(b, loc, value, output, address);
      });
}

bool ContractionKernelEmitter::storeScratchRowRuns(Value row, Value column) {
  int64_t fm = config.getM(), fn = config.getN();
  int64_t subgroupSize = target.getSubgroupSize();
  Type outputType = cast<MemRefType>(output.getType()).getElementType();
  int64_t bits = outputType.getIntOrFloatBitWidth();
  // Each lane stores one run of a row, at most 16 bytes, aligned in C: a
  // run never crosses the end of C's row when N is a static multiple of
  // it.
  // Targets whose tile copies are element by element (Metal's emitter has
  // no vector memory ops) store element by element here too.
  if (tiling.vectorWidth == 1)
    return false;
  int64_t run = fm * fn / subgroupSize;
  Type scratchElement = cast<MemRefType>(scratch.getType()).getElementType();
  int64_t chunk =
      std::min<int64_t>(run, 128 / scratchElement.getIntOrFloatBitWidth());
  if (run < 2 || fn % run || run * bits > 128 || (run * bits) % 32 ||
      run % chunk || (bits != 16 && bits != 32) || problem.hasDynamicN() ||
      problem.n % run)
    return false;
  int64_t runsPerRow = fn / run;
  Value scratchBase = mul(subgroupId, fm * fn);
  Value r = arith::DivUIOp::create(b, loc, laneId, index(runsPerRow));
  Value first =
      mul(arith::RemUIOp::create(b, loc, laneId, index(runsPerRow)), run);
  Value globalRow = add(row, r), globalColumn = add(column, first);
  Value inBounds =
      both(lessThan(globalRow, mValue), lessThan(globalColumn, nValue));
  auto ifOp = scf::IfOp::create(b, loc, inBounds, /*withElse=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  // Loaded from the scratch 16 bytes at a time.
  Value scratchRun = add(scratchBase, add(mul(r, fn), first));
  SmallVector<Value> elements;
  for (int64_t start = 0; start < run; start += chunk) {
    Value values =
        vector::LoadOp::create(b, loc, VectorType::get({chunk}, scratchElement),
                               scratch, ValueRange{add(scratchRun, start)});
    for (int64_t i = 0; i < chunk; ++i)
      elements.push_back(
          applyEpilogueToElement(vector::ExtractOp::create(b, loc, values, i),
                                 globalRow, add(globalColumn, start + i)));
  }
  // 16-bit elements travel packed in words.
  auto runType = VectorType::get({run}, outputType);
  Value result;
  if (bits == 32) {
    result = vector::FromElementsOp::create(b, loc, runType, elements);
  } else {
    SmallVector<Value> words;
    for (int64_t i = 0; i < run; i += 2) {
      SmallVector<Value> pair = {elements[i], elements[i + 1]};
      if (outputType.isBF16())
        for (Value &element : pair)
          element = arith::BitcastOp::create(b, loc, b.getI16Type(), element);
      words.push_back(packWord(pair));
    }
    result = vector::BitCastOp::create(
        b, loc, runType,
        vector::FromElementsOp::create(
            b, loc, VectorType::get({run / 2}, b.getI32Type()), words));
  }
  vector::StoreOp::create(
      b, loc, result, output,
      ValueRange{
          add(outputBatchBase, add(mul(globalRow, nValue), globalColumn))});
  return true;
}

Value ContractionKernelEmitter::epilogueOffset(const EpilogueOperand &operand,
                                               Value row, Value column) {
  Value offset, slice;
  switch (operand.broadcast) {
  case EpilogueBroadcast::None:
    offset = add(mul(row, nValue), column);
    slice = mul(mValue, nValue);
    break;
  case EpilogueBroadcast::AlongRows:
    offset = column;
    slice = nValue;
    break;
  case EpilogueBroadcast::AlongColumns:
    offset = row;
    slice = mValue;
    break;
  case EpilogueBroadcast::Everywhere:
    return index(0);
  }
  if (operand.batched)
    offset = add(mul(batchIndex, slice), offset);
  return offset;
}

Value ContractionKernelEmitter::applyEpilogueToElement(Value value, Value row,
                                                       Value column) {
  return applyEpilogueToScalar(problem, value, [&](unsigned operand) -> Value {
    return memref::LoadOp::create(
        b, loc, epilogueBuffers[operand],
        epilogueOffset(problem.epilogueOperands[operand], row, column));
  });
}

Value ContractionKernelEmitter::applyEpilogueToMatrix(Value matrix, Value row,
                                                      Value column) {
  MLIRContext *context = b.getContext();
  bool isUnsigned = problem.resultComponent.isUnsignedInteger();
  auto componentOf = [&](Type storage) -> Type {
    if (auto integer = dyn_cast<IntegerType>(storage))
      return IntegerType::get(context, integer.getWidth(),
                              isUnsigned ? IntegerType::Unsigned
                                         : IntegerType::Signed);
    return storage;
  };
  int64_t fm = config.getM(), fn = config.getN();
  for (const EpilogueStep &step : problem.epilogue) {
    Block &body = step.op.getRegion().front();
    // The running result first, then the other inputs in order.
    SmallVector<Value> inputs = {matrix};
    SmallVector<unsigned> inputOfArgument;
    for (int operand : step.operandOf) {
      if (operand < 0) {
        inputOfArgument.push_back(0);
        continue;
      }
      const EpilogueOperand &input = problem.epilogueOperands[operand];
      Type storage = cast<MemRefType>(input.buffer.getType()).getElementType();
      auto type = ResultMatrixType::get(context, fm, fn, componentOf(storage));
      inputOfArgument.push_back(inputs.size());
      inputs.push_back(
          LoadOp::create(b, loc, type, epilogueBuffers[operand],
                         ValueRange{epilogueOffset(input, row, column)}, nValue,
                         /*col_major=*/false));
    }
    Type outputStorage =
        cast<MemRefType>(step.op.getDpsInits()[0].getType()).getElementType();
    auto resultType =
        ResultMatrixType::get(context, fm, fn, componentOf(outputStorage));
    matrix = createMap(
        b, loc, resultType, inputs, [&](Value, Value, ValueRange elements) {
          IRMapping mapping;
          for (auto [position, input] : llvm::enumerate(inputOfArgument))
            mapping.map(body.getArgument(position), elements[input]);
          return cloneScalarBody(b, body, mapping);
        });
  }
  return matrix;
}
