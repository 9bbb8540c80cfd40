//===- KernelEmitter.cpp - a contraction's kernel -------------------------===//
//
// The kernel follows the classic shape of a tensor-core GEMM: a workgroup
// owns a tile of C, its subgroups split that tile, every subgroup keeps a
// block of accumulators in registers for the whole K loop, and each K step
// stages a slice of A and of B through workgroup memory, which all subgroups
// then read as matrices. Static sizes are built into the kernel, and bounds
// checks are emitted only where a dimension is not a multiple of its tile;
// a size known only at run time is a kernel argument and always checked.
// Batches run along the grid's z dimension. The accumulators start from
// zero even when C is read: C is added on the way out, and so is the
// epilogue, as subgroup_matrix.map where whole matrices can take it, else
// element by element.
//
//===----------------------------------------------------------------------===//

#include "ContractionKernelEmitter.h"

using namespace mlir;
using namespace mlir::subgroup_matrix;

std::pair<Value, Value>
ContractionKernelEmitter::getTilePosition(Value blockX, Value blockY) {
  int64_t rows = getGridY(), columns = getGridX();
  // With M or N dynamic the grid is unknown here: row-major order.
  if (tiling.groupM <= 1 || rows <= 1 || columns == 0)
    return {blockY, blockX};
  Value launchIndex = add(mul(blockY, columns), blockX);
  int64_t perGroup = tiling.groupM * columns;
  Value group = arith::DivUIOp::create(b, loc, launchIndex, index(perGroup));
  Value firstRow = mul(group, tiling.groupM);
  // The last group may have fewer rows.
  Value remainingRows = arith::SubIOp::create(b, loc, index(rows), firstRow);
  Value groupRows =
      arith::MinUIOp::create(b, loc, remainingRows, index(tiling.groupM));
  Value inGroup = arith::RemUIOp::create(b, loc, launchIndex, index(perGroup));
  Value row = add(firstRow, arith::RemUIOp::create(b, loc, inGroup, groupRows));
  Value column = arith::DivUIOp::create(b, loc, inGroup, groupRows);
  return {row, column};
}

Value ContractionKernelEmitter::stageOffset(const TileCopy &copy, Value step) {
  if (tiling.stages == 1)
    return index(0);
  Value stage = arith::RemUIOp::create(b, loc, step, index(2));
  return mul(stage, copy.stageElements);
}

void ContractionKernelEmitter::multiplyStep(
    Value aStage, Value bStage, MutableArrayRef<Value> accumulators) {
  MLIRContext *context = b.getContext();
  int64_t fm = config.getM(), fn = config.getN(), fk = config.getK();
  auto leftType = LeftMatrixType::get(context, fm, fk, problem.inputComponent);
  auto rightType =
      RightMatrixType::get(context, fk, fn, problem.inputComponent);
  Value strideA = index(copyA.sharedStride);
  Value strideB = index(copyB.sharedStride);
  // Loop invariant: where this subgroup's rows of A and columns of B start.
  // B is N x K in workgroup memory when given so or transposed on its way.
  bool transposedA = problem.a.transposed,
       transposedB = problem.b.transposed || copyB.transposes;
  Value aBase = transposedA ? add(aStage, subgroupRow)
                            : add(aStage, mul(subgroupRow, copyA.sharedStride));
  Value bBase = transposedB
                    ? add(bStage, mul(subgroupColumn, copyB.sharedStride))
                    : add(bStage, subgroupColumn);
  for (int64_t step = 0; step < tiling.tileK / fk; ++step) {
    auto loadLeft = [&](int64_t i) -> Value {
      // A^T columns are A's rows: the left matrix is read column-major.
      Value offset = transposedA
                         ? add(aBase, step * fk * copyA.sharedStride + i * fm)
                         : add(aBase, i * fm * copyA.sharedStride + step * fk);
      return LoadOp::create(b, loc, leftType, copyA.shared, ValueRange{offset},
                            strideA, transposedA);
    };
    auto loadRight = [&](int64_t j) -> Value {
      // B^T rows are B's columns: the right matrix is read column-major.
      Value offset = transposedB
                         ? add(bBase, j * fn * copyB.sharedStride + step * fk)
                         : add(bBase, step * fk * copyB.sharedStride + j * fn);
      return LoadOp::create(b, loc, rightType, copyB.shared, ValueRange{offset},
                            strideB, transposedB);
    };
    // The shorter side's matrices are loaded first and kept; the other
    // side's are loaded one at a time, each used at once by a row (or a
    // column) of multiply-accumulates, so that fewer matrices are live at a
    // time for a compiler that keeps this order. (The H100's driver
    // reschedules a step: its register counts were the same either way.)
    bool keepLefts = blockM <= blockN;
    int64_t keptCount = keepLefts ? blockM : blockN;
    int64_t streamedCount = keepLefts ? blockN : blockM;
    SmallVector<Value> kept;
    for (int64_t k = 0; k < keptCount; ++k)
      kept.push_back(keepLefts ? loadLeft(k) : loadRight(k));
    for (int64_t s = 0; s < streamedCount; ++s) {
      Value streamed = keepLefts ? loadRight(s) : loadLeft(s);
      for (int64_t k = 0; k < keptCount; ++k) {
        int64_t i = keepLefts ? k : s, j = keepLefts ? s : k;
        Value left = keepLefts ? kept[k] : streamed;
        Value right = keepLefts ? streamed : kept[k];
        Value &acc = accumulators[i * blockN + j];
        acc = MmaOp::create(b, loc, acc.getType(), left, right, acc);
      }
    }
  }
}

SmallVector<Value> ContractionKernelEmitter::initAccumulators() {
  int64_t fm = config.getM(), fn = config.getN();
  auto resultType =
      ResultMatrixType::get(b.getContext(), fm, fn, problem.resultComponent);
  if (problem.accumulates() && tiling.preloadC) {
    SmallVector<Value> accumulators;
    for (int64_t i = 0; i < blockM; ++i) {
      for (int64_t j = 0; j < blockN; ++j) {
        Value row = add(rowBase, resultRow(i));
        Value column = add(columnBase, resultColumn(j));
        if (!hasRaggedResult()) {
          Value offset = add(cBatchBase, add(mul(row, nValue), column));
          accumulators.push_back(LoadOp::create(
              b, loc, resultType, c, ValueRange{offset}, nValue, false));
          continue;
        }
        // Each subgroup has its own region of the scratch: only its own
        // invocations need to wait for each other.
        loadResultThroughScratch(row, column);
        SubgroupBarrierOp::create(b, loc);
        accumulators.push_back(LoadOp::create(
            b, loc, resultType, scratch, ValueRange{mul(subgroupId, fm * fn)},
            index(fn), false));
        SubgroupBarrierOp::create(b, loc);
      }
    }
    return accumulators;
  }
  // Otherwise the accumulators start from a splat, and C, when it is read,
  // is added as they are stored (storeAccumulators), so that its matrices
  // are not live through the K loop beside them. Loaded up front, they cost
  // the 8x4 blocks of f16 accumulators on the H100 their registers (255 and
  // a spill, against 227 from zero; docs/performance.md).
  Type scalarType = getScalarType(problem.resultComponent);
  Attribute value = problem.fillValue;
  if (!value)
    value = b.getZeroAttr(scalarType);
  // The fill value, as the scalar type that splat takes.
  if (auto integer = dyn_cast<IntegerAttr>(value))
    value = IntegerAttr::get(scalarType, integer.getValue().sextOrTrunc(32));
  Value scalar = arith::ConstantOp::create(b, loc, cast<TypedAttr>(value));
  Value splat = SplatOp::create(b, loc, resultType, scalar);
  return SmallVector<Value>(blockM * blockN, splat);
}

Value ContractionKernelEmitter::addAccumulator(Value lhs, Value rhs) {
  if (isa<FloatType>(lhs.getType()))
    return arith::AddFOp::create(b, loc, lhs, rhs);
  return arith::AddIOp::create(b, loc, lhs, rhs);
}

void ContractionKernelEmitter::storeAccumulators(ArrayRef<Value> accumulators) {
  if (!storesThroughScratch())
    return storeWholeMatrices(accumulators);
  // A static size under its tile leaves no tile inside C.
  bool hasInnerTiles = (problem.hasDynamicM() || problem.m >= tiling.tileM) &&
                       (problem.hasDynamicN() || problem.n >= tiling.tileN);
  if (!hasRaggedResult() || !hasInnerTiles || !epilogueMapsOnMatrices())
    return storeThroughScratch(accumulators);
  // Only workgroups at the edges of C need the scratch: a tile inside C
  // stores whole matrices. The condition is the same for the whole
  // workgroup, so the matrix operations and barriers of both branches stay
  // in uniform control flow.
  auto fitsIn = [&](Value base, int64_t tile, Value size) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule,
                                 add(base, tile), size);
  };
  Value inside = fitsIn(columnBase, tiling.tileN, nValue);
  if (hasRaggedRows())
    inside = both(fitsIn(rowBase, tiling.tileM, mValue), inside);
  auto ifOp = scf::IfOp::create(b, loc, inside, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  storeWholeMatrices(accumulators);
  b.setInsertionPointToStart(ifOp.elseBlock());
  storeThroughScratch(accumulators);
}

void ContractionKernelEmitter::storeWholeMatrices(
    ArrayRef<Value> accumulators) {
  for (int64_t i = 0; i < blockM; ++i) {
    // C's part of a whole row of result matrices is loaded before any of
    // them is stored: C may be the output, so the driver cannot move a load
    // of C above a store to it, and loads issued one after each store would
    // wait out the memory latency once per matrix.
    SmallVector<Value> cMatrices;
    for (int64_t j = 0; j < blockN && addsCAfterLoop(); ++j) {
      Value row = add(rowBase, resultRow(i));
      Value column = add(columnBase, resultColumn(j));
      Value offset = add(cBatchBase, add(mul(row, nValue), column));
      cMatrices.push_back(LoadOp::create(b, loc, accumulators.front().getType(),
                                         c, ValueRange{offset}, nValue,
                                         /*col_major=*/false));
    }
    for (int64_t j = 0; j < blockN; ++j) {
      Value acc = accumulators[i * blockN + j];
      Value row = add(rowBase, resultRow(i));
      Value column = add(columnBase, resultColumn(j));
      if (addsCAfterLoop())
        acc = createMap(b, loc, acc.getType(), {acc, cMatrices[j]},
                        [&](Value, Value, ValueRange elements) {
                          return addAccumulator(elements[0], elements[1]);
                        });
      if (!problem.epilogue.empty())
        acc = applyEpilogueToMatrix(acc, row, column);
      Value offset = add(outputBatchBase, add(mul(row, nValue), column));
      StoreOp::create(b, loc, acc, output, ValueRange{offset}, nValue,
                      /*col_major=*/false);
    }
  }
}

void ContractionKernelEmitter::storeThroughScratch(
    ArrayRef<Value> accumulators) {
  int64_t fm = config.getM(), fn = config.getN();
  for (int64_t i = 0; i < blockM; ++i) {
    // As for whole matrices, C's elements for a row of result matrices are
    // all loaded before the first store.
    SmallVector<SmallVector<Value>> cElements;
    for (int64_t j = 0; j < blockN && addsCAfterLoop(); ++j)
      cElements.push_back(loadResultElements(add(rowBase, resultRow(i)),
                                             add(columnBase, resultColumn(j))));
    for (int64_t j = 0; j < blockN; ++j) {
      // A result matrix cannot be stored partially: it goes through
      // workgroup memory, and element by element within C.
      // The scratch region is the subgroup's own.
      StoreOp::create(b, loc, accumulators[i * blockN + j], scratch,
                      ValueRange{mul(subgroupId, fm * fn)}, index(fn), false);
      SubgroupBarrierOp::create(b, loc);
      storeResultThroughScratch(
          add(rowBase, resultRow(i)), add(columnBase, resultColumn(j)),
          addsCAfterLoop() ? ArrayRef(cElements[j]) : ArrayRef<Value>());
      SubgroupBarrierOp::create(b, loc);
    }
  }
}

FailureOr<ContractionKernel>
ContractionKernelEmitter::emit(OpBuilder &moduleBuilder, StringRef name) {
  MLIRContext *context = moduleBuilder.getContext();
  blockM = tiling.tileM / tiling.subgroupsM / config.getM();
  blockN = tiling.tileN / tiling.subgroupsN / config.getN();

  Type inputStorage = getStorageType(problem.inputComponent);
  Type resultStorage = getStorageType(problem.resultComponent);
  copyA.storage = copyB.storage = inputStorage;
  copyA.prologue = problem.a.prologue;
  copyB.prologue = problem.b.prologue;
  copyA.gathers = problem.a.gathers;
  copyB.gathers = problem.b.gathers;
  copyA.gather.maps = problem.a.gatherMaps;
  copyB.gather.maps = problem.b.gatherMaps;
  copyA.gather.padding = problem.a.gatherPadding;
  copyB.gather.padding = problem.b.gatherPadding;
  for (auto [copy, copyLayout] :
       {std::pair(&copyA, &layout.a), std::pair(&copyB, &layout.b)}) {
    copy->globalRows = copyLayout->globalRows;
    copy->globalCols = copyLayout->globalCols;
    copy->tileRows = copyLayout->tileRows;
    copy->tileCols = copyLayout->tileCols;
    copy->transposes = copyLayout->transposes;
    copy->width = copyLayout->width;
    copy->sharedStride = copyLayout->sharedStride;
    copy->stageElements = copyLayout->stageElements;
  }
  bool transposedA = problem.a.transposed, transposedB = problem.b.transposed;
  int64_t fm = config.getM(), fn = config.getN();
  int64_t subgroups = tiling.subgroupsM * tiling.subgroupsN;

  // The arguments: A, B, C when it is read, the epilogue's operands, and
  // the output when it is not C; every buffer flattened.
  ContractionKernel result;
  result.arguments = getContractionKernelArguments(problem);
  bool separateOutput = problem.output != problem.c || !problem.accumulates();
  auto workgroupSpace =
      gpu::AddressSpaceAttr::get(context, gpu::AddressSpace::Workgroup);
  auto flat = [&](int64_t size, Type element, Attribute space = nullptr) {
    return MemRefType::get({size}, element, MemRefLayoutAttrInterface(), space);
  };
  SmallVector<Type> arguments;
  for (Value buffer : result.arguments)
    arguments.push_back(getFlatKernelArgumentType(buffer));
  for (bool dynamic :
       {problem.hasDynamicM(), problem.hasDynamicN(), problem.hasDynamicK()})
    if (dynamic)
      arguments.push_back(moduleBuilder.getIndexType());
  SmallVector<Type> attributions = {
      flat(tiling.stages * copyA.stageElements, inputStorage, workgroupSpace),
      flat(tiling.stages * copyB.stageElements, inputStorage, workgroupSpace)};
  if (storesThroughScratch())
    attributions.push_back(
        flat(subgroups * fm * fn, resultStorage, workgroupSpace));

  auto kernel = gpu::GPUFuncOp::create(
      moduleBuilder, loc, name, FunctionType::get(context, arguments, {}),
      attributions);
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                  moduleBuilder.getUnitAttr());
  kernel.setKnownBlockSizeAttr(moduleBuilder.getDenseI32ArrayAttr(
      {static_cast<int32_t>(getThreads()), 1, 1}));
  // Types the matrix units lack are multiplied in ordinary arithmetic.
  if (!target.getEmulated() && isEmulatedConfig(config, target))
    kernel->setAttr(SubgroupMatrixDialect::getEmulateAttrName(),
                    moduleBuilder.getUnitAttr());

  entry = &kernel.getBody().front();
  constantBlock = entry;
  b.setInsertionPointToEnd(entry);
  unsigned argument = 0;
  copyA.global = entry->getArgument(argument++);
  copyB.global = entry->getArgument(argument++);
  if (problem.accumulates())
    c = entry->getArgument(argument++);
  for (size_t i = 0; i < problem.epilogueOperands.size(); ++i)
    epilogueBuffers.push_back(entry->getArgument(argument++));
  for (auto [copy, input] : {std::make_pair(&copyA, &problem.a),
                             std::make_pair(&copyB, &problem.b)}) {
    if (!copy->gathers)
      continue;
    copy->gather.buffers.push_back(copy->global);
    copy->gather.types.push_back(cast<MemRefType>(input->buffer.getType()));
    for (Value operand : input->prologueOperands) {
      copy->gather.buffers.push_back(entry->getArgument(argument++));
      copy->gather.types.push_back(cast<MemRefType>(operand.getType()));
    }
  }
  output = separateOutput ? entry->getArgument(argument++) : c;
  auto sizeValue = [&](int64_t size) {
    return ShapedType::isDynamic(size) ? Value(entry->getArgument(argument++))
                                       : index(size);
  };
  mValue = sizeValue(problem.m);
  nValue = sizeValue(problem.n);
  kValue = sizeValue(problem.k);
  copyA.rowsValue = transposedA ? kValue : mValue;
  copyA.colsValue = transposedA ? mValue : kValue;
  copyB.rowsValue = transposedB ? nValue : kValue;
  copyB.colsValue = transposedB ? kValue : nValue;
  for (TileCopy *copy : {&copyA, &copyB}) {
    copy->gather.rowsValue = copy->rowsValue;
    copy->gather.colsValue = copy->colsValue;
  }
  copyA.shared = kernel.getWorkgroupAttributions()[0];
  copyB.shared = kernel.getWorkgroupAttributions()[1];
  if (storesThroughScratch())
    scratch = kernel.getWorkgroupAttributions()[2];

  threadId = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  subgroupId = gpu::SubgroupIdOp::create(b, loc, /*upper_bound=*/nullptr);
  laneId = gpu::LaneIdOp::create(b, loc, /*upper_bound=*/nullptr);
  Value blockX = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value blockY = gpu::BlockIdOp::create(b, loc, gpu::Dimension::y);
  // Batches run along the grid's z dimension.
  // Splits of K run along z too (never with a batch): each part starts
  // its K loop at its own step and writes its own slice of the output.
  if (tiling.splitK > 1)
    splitIndex = gpu::BlockIdOp::create(b, loc, gpu::Dimension::z);
  // A batch that is summed over runs inside the K loop instead.
  batchIndex = problem.batch > 1 && !problem.reducesBatch
                   ? Value(gpu::BlockIdOp::create(b, loc, gpu::Dimension::z))
                   : index(0);
  auto batchBase = [&](bool batched, Value rows, Value columns) -> Value {
    if (!batched || problem.batch == 1)
      return index(0);
    return mul(batchIndex, mul(rows, columns));
  };
  copyA.batchBase = batchBase(problem.a.batched, mValue, kValue);
  copyB.batchBase = batchBase(problem.b.batched, kValue, nValue);
  cBatchBase = outputBatchBase =
      batchBase(!problem.reducesBatch, mValue, nValue);
  // K steps (of this part, with split K, whose sizes are all static); a
  // summed batch multiplies them, each batch taking its own run of steps.
  int64_t steps = 0;
  Value stepCount, stepsPerBatch;
  if (problem.hasDynamicK()) {
    stepCount = arith::DivUIOp::create(b, loc, add(kValue, tiling.tileK - 1),
                                       index(tiling.tileK));
  } else {
    steps = llvm::divideCeil(problem.k, tiling.tileK) / tiling.splitK;
    stepCount = index(steps);
  }
  if (problem.reducesBatch) {
    stepsPerBatch = stepCount;
    steps *= problem.batch;
    stepCount =
        problem.hasDynamicK() ? mul(stepCount, problem.batch) : index(steps);
  }
  Value firstStep = index(0);
  if (splitIndex) {
    outputBatchBase = mul(splitIndex, problem.outputRowsPerPart * problem.n);
    firstStep = mul(splitIndex, steps);
  }
  auto [tileRow, tileColumn] = getTilePosition(blockX, blockY);
  rowBase = mul(tileRow, tiling.tileM);
  columnBase = mul(tileColumn, tiling.tileN);
  Value subgroupM =
      arith::DivUIOp::create(b, loc, subgroupId, index(tiling.subgroupsN));
  Value subgroupN =
      arith::RemUIOp::create(b, loc, subgroupId, index(tiling.subgroupsN));
  subgroupRow = mul(subgroupM, tiling.tileM / tiling.subgroupsM);
  subgroupColumn = mul(subgroupN, tiling.tileN / tiling.subgroupsN);
  computeCopyPositions(copyA);
  computeCopyPositions(copyB);

  // Where the copies of K step `step` start in A and B.
  auto loadStep = [&](Value step) {
    Value globalStep = splitIndex ? add(firstStep, step) : step;
    if (problem.reducesBatch) {
      Value batch = arith::DivUIOp::create(b, loc, globalStep, stepsPerBatch);
      globalStep = arith::RemUIOp::create(b, loc, globalStep, stepsPerBatch);
      copyA.batchBase = mul(batch, mul(mValue, kValue));
      copyB.batchBase = mul(batch, mul(kValue, nValue));
    }
    Value k = mul(globalStep, tiling.tileK);
    LoadedTile a =
        transposedA ? loadTile(copyA, k, rowBase) : loadTile(copyA, rowBase, k);
    LoadedTile bValues = transposedB ? loadTile(copyB, columnBase, k)
                                     : loadTile(copyB, k, columnBase);
    return std::make_pair(a, bValues);
  };
  auto storeStep = [&](const std::pair<LoadedTile, LoadedTile> &values,
                       Value step) {
    storeTile(copyA, values.first, stageOffset(copyA, step));
    storeTile(copyB, values.second, stageOffset(copyB, step));
  };

  SmallVector<Value> accumulators = initAccumulators();
  if (tiling.prefetch) {
    storeStep(loadStep(index(0)), index(0));
    gpu::BarrierOp::create(b, loc);
  }
  auto loop =
      scf::ForOp::create(b, loc, index(0), stepCount, index(1), accumulators);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value step = loop.getInductionVar();
    SmallVector<Value> carried(loop.getRegionIterArgs());
    if (tiling.prefetch) {
      // Load the next step while this one multiplies; the last iteration
      // reloads its own step rather than branch. With one buffer, every
      // subgroup must be done reading it before it is overwritten.
      std::optional<std::pair<LoadedTile, LoadedTile>> next;
      Value nextStep;
      if (problem.hasDynamicK() || steps > 1) {
        Value lastStep = arith::SubIOp::create(b, loc, stepCount, index(1));
        nextStep = arith::MinUIOp::create(b, loc, add(step, 1), lastStep);
        next = loadStep(nextStep);
      }
      multiplyStep(stageOffset(copyA, step), stageOffset(copyB, step), carried);
      if (next) {
        if (tiling.stages == 1)
          gpu::BarrierOp::create(b, loc);
        storeStep(*next, add(step, 1));
        gpu::BarrierOp::create(b, loc);
      }
    } else {
      auto values = loadStep(step);
      gpu::BarrierOp::create(b, loc);
      storeStep(values, step);
      gpu::BarrierOp::create(b, loc);
      multiplyStep(index(0), index(0), carried);
    }
    scf::YieldOp::create(b, loc, carried);
  }
  storeAccumulators(SmallVector<Value>(loop.getResults()));
  gpu::ReturnOp::create(b, loc);
  result.function = kernel;
  result.gridX = getGridX();
  result.gridY = getGridY();
  result.tileM = tiling.tileM;
  result.tileN = tiling.tileN;
  result.gridZ = tiling.splitK > 1      ? tiling.splitK
                 : problem.reducesBatch ? 1
                                        : problem.batch;
  result.threads = getThreads();
  return result;
}

FailureOr<ContractionKernel> mlir::subgroup_matrix::emitContractionKernel(
    OpBuilder &moduleBuilder, StringRef name,
    const ContractionKernelLayout &layout, TargetAttr target,
    const TilingPlan &plan) {
  ContractionKernelEmitter emitter(layout, plan.config, target, plan.tiling,
                                   layout.problem.op.getLoc());
  return emitter.emit(moduleBuilder, name);
}

SmallVector<Value> mlir::subgroup_matrix::getContractionKernelArguments(
    const Contraction &problem) {
  SmallVector<Value> arguments = {problem.a.buffer, problem.b.buffer};
  if (problem.accumulates())
    arguments.push_back(problem.c);
  for (const EpilogueOperand &operand : problem.epilogueOperands)
    arguments.push_back(operand.buffer);
  llvm::append_range(arguments, problem.a.prologueOperands);
  llvm::append_range(arguments, problem.b.prologueOperands);
  if (problem.output != problem.c || !problem.accumulates())
    arguments.push_back(problem.output);
  return arguments;
}

Value mlir::subgroup_matrix::flattenForLaunch(OpBuilder &builder, Location loc,
                                              Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  if (type.getRank() == 1)
    return buffer;
  SmallVector<ReassociationIndices> all(1);
  for (int64_t d = 0; d < type.getRank(); ++d)
    all.front().push_back(d);
  return memref::CollapseShapeOp::create(builder, loc, buffer, all);
}

MemRefType mlir::subgroup_matrix::getFlatKernelArgumentType(MemRefType type) {
  return MemRefType::get(
      {type.hasStaticShape() ? type.getNumElements() : ShapedType::kDynamic},
      type.getElementType());
}

MemRefType mlir::subgroup_matrix::getFlatKernelArgumentType(Value buffer) {
  return getFlatKernelArgumentType(cast<MemRefType>(buffer.getType()));
}

Value mlir::subgroup_matrix::createMap(
    OpBuilder &builder, Location loc, Type resultType, ValueRange inputs,
    function_ref<Value(Value row, Value column, ValueRange elements)> body) {
  auto map = MapOp::create(builder, loc, resultType, inputs);
  Block *block = new Block();
  map.getBody().push_back(block);
  block->addArguments({builder.getIndexType(), builder.getIndexType()},
                      {loc, loc});
  for (Value input : inputs)
    block->addArgument(
        getStorageType(cast<SubgroupMatrixTypeInterface>(input.getType())
                           .getElementType()),
        loc);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(block);
  Value yielded = body(block->getArgument(0), block->getArgument(1),
                       block->getArguments().drop_front(2));
  YieldOp::create(builder, loc, yielded);
  return map;
}

std::string mlir::subgroup_matrix::formatLaunchSize(ArrayRef<int64_t> factors,
                                                    ArrayRef<StringRef> names) {
  int64_t constant = 1;
  std::string symbols;
  for (auto [factor, name] : llvm::zip(factors, names)) {
    if (!ShapedType::isDynamic(factor)) {
      constant *= factor;
      continue;
    }
    symbols += (symbols.empty() ? "" : "*") + name.str();
  }
  if (symbols.empty())
    return std::to_string(constant);
  if (constant != 1)
    symbols += "*" + std::to_string(constant);
  return "{" + symbols + "}";
}
