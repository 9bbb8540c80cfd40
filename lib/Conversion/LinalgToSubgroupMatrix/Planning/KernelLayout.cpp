//===- KernelLayout.cpp - what a contraction kernel's plan implies --------===//

#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Planning/KernelLayout.h"

#include "SubgroupMatrix/Transforms/ExpandThroughWorkgroupMemory.h"

#include "mlir/IR/Builders.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::subgroup_matrix;

bool mlir::subgroup_matrix::hasRaggedRows(const Contraction &problem,
                                          const MatmulTiling &tiling) {
  return problem.outputRowsPerPart == 0 &&
         (problem.hasDynamicM() || problem.m % tiling.tileM);
}

bool mlir::subgroup_matrix::hasRaggedResult(const Contraction &problem,
                                            const MatmulTiling &tiling) {
  return hasRaggedRows(problem, tiling) || problem.hasDynamicN() ||
         problem.n % tiling.tileN;
}

bool mlir::subgroup_matrix::epilogueMapsOnMatrices(const Contraction &problem,
                                                   TargetAttr target,
                                                   MatrixConfigAttr config) {
  MLIRContext *context = problem.op->getContext();
  bool isUnsigned = problem.resultComponent.isUnsignedInteger();
  auto resultOf = [&](Type storage) -> SubgroupMatrixTypeInterface {
    Type component = storage;
    if (auto integer = dyn_cast<IntegerType>(storage))
      component = IntegerType::get(context, integer.getWidth(),
                                   isUnsigned ? IntegerType::Unsigned
                                              : IntegerType::Signed);
    return ResultMatrixType::get(context, config.getM(), config.getN(),
                                 component);
  };
  for (const EpilogueOperand &operand : problem.epilogueOperands)
    if (operand.broadcast != EpilogueBroadcast::None ||
        !target.supportsType(resultOf(
            cast<MemRefType>(operand.buffer.getType()).getElementType())))
      return false;
  for (const EpilogueStep &step : problem.epilogue)
    if (!target.supportsType(
            resultOf(cast<MemRefType>(step.op.getDpsInits()[0].getType())
                         .getElementType())))
      return false;
  // Emulated matrices map in registers whatever the body computes. On
  // matrix units a map that is not component-wise goes through the scratch
  // (ExpandThroughWorkgroupMemory) with each of its inputs and its result,
  // then is stored: the element path, one trip through the scratch, is
  // cheaper (9 us of 235 on Llama's SwiGLU product, H100).
  if (target.getEmulated() || isEmulatedConfig(config, target))
    return true;
  SmallVector<Type> storageTypes = {getStorageType(problem.resultComponent)};
  for (const EpilogueOperand &operand : problem.epilogueOperands)
    storageTypes.push_back(
        cast<MemRefType>(operand.buffer.getType()).getElementType());
  for (const EpilogueStep &step : problem.epilogue)
    storageTypes.push_back(
        cast<MemRefType>(step.op.getDpsInits()[0].getType()).getElementType());
  return llvm::all_of(problem.epilogue, [&](const EpilogueStep &step) {
    return isComponentWiseBody(step.op.getRegion().front(), storageTypes);
  });
}

/// Lays out the copy of one operand's tile (`copy`'s sizes and whether it
/// transposes set), shared by `threads` invocations.
static LogicalResult layOutCopy(TileCopyLayout &copy,
                                const Contraction &problem,
                                const MatmulTiling &tiling, int64_t threads,
                                StringRef operandName) {
  Operation *op = problem.op;
  if (copy.transposes) {
    // Blocks of eight rows by four columns: loads of 32 bits and stores of
    // 64 (the emitter's computeCopyPositions says how invocations share
    // them).
    copy.width = kTransposedBlockColumns;
    copy.sharedStride = copy.tileRows + tiling.padding;
    copy.stageElements = copy.tileCols * copy.sharedStride;
    if (!transposingCopyFits(copy.globalCols, copy.tileRows, copy.tileCols,
                             tiling.padding))
      return op->emitOpError()
                 << "cannot be tiled: transposing " << operandName
                 << " as it is staged needs its rows (of " << copy.globalCols
                 << " elements), its " << copy.tileRows << "x" << copy.tileCols
                 << " tile and the padded rows in workgroup memory to be "
                    "multiples of "
                 << copy.width << " columns and " << kTransposedBlockRows
                 << " rows",
             failure();
    return success();
  }
  copy.sharedStride = copy.tileCols + tiling.padding;
  copy.stageElements = copy.tileRows * copy.sharedStride;
  // Vectors must not straddle a row, globally or in the workgroup copy:
  // halve the width down to 64 bits until they do, else copy scalars.
  int64_t elementBits =
      getStorageType(problem.inputComponent).getIntOrFloatBitWidth();
  copy.width = tiling.vectorWidth;
  // A row of unknown length may start anywhere: scalars.
  while (copy.width > 1 &&
         (ShapedType::isDynamic(copy.globalCols) ||
          copy.globalCols % copy.width || copy.tileCols % copy.width ||
          copy.sharedStride % copy.width))
    copy.width = copy.width * elementBits > 64 ? copy.width / 2 : 1;
  int64_t vectors = copy.tileRows * copy.tileCols / copy.width;
  if (vectors % threads)
    return op->emitOpError() << "cannot be tiled: the " << copy.tileRows << "x"
                             << copy.tileCols << " tile of " << operandName
                             << " is " << vectors << " copies of " << copy.width
                             << " element(s), which " << threads
                             << " invocations cannot share evenly",
           failure();
  return success();
}

FailureOr<ContractionKernelLayout>
mlir::subgroup_matrix::layOutContractionKernel(const Contraction &contraction,
                                               TargetAttr target,
                                               const TilingPlan &plan) {
  const MatmulTiling &tiling = plan.tiling;
  MatrixConfigAttr config = plan.config;
  Operation *op = contraction.op;
  ContractionKernelLayout layout;
  layout.problem = contraction;
  Contraction &problem = layout.problem;

  // Split K: the kernel writes one partial product per part, stacked along
  // the rows of a workspace, each padded to whole tiles (a ragged M, a
  // decode step's few rows, would otherwise make every workgroup store
  // through workgroup memory with bounds checks); the fill and the
  // epilogue apply to the sum of the parts, after it.
  int64_t parts = tiling.splitK;
  if (parts > 1) {
    if (contraction.batch != 1 || contraction.hasDynamicSizes() ||
        llvm::divideCeil(contraction.k, tiling.tileK) % parts)
      return op->emitOpError()
                 << "cannot split K in " << parts
                 << " parts: a split needs no batch, static sizes and a "
                    "number of K steps it divides",
             failure();
    problem.outputRowsPerPart =
        llvm::divideCeil(contraction.m, tiling.tileM) * tiling.tileM;
    unfuseEpilogue(problem);
    problem.fill = {};
    problem.fillValue = cast<TypedAttr>(
        Builder(op->getContext())
            .getZeroAttr(getStorageType(contraction.resultComponent)));
  }

  bool transposedA = problem.a.transposed, transposedB = problem.b.transposed;
  TileCopyLayout &a = layout.a, &b = layout.b;
  a.globalRows = transposedA ? problem.k : problem.m;
  a.globalCols = transposedA ? problem.m : problem.k;
  a.tileRows = transposedA ? tiling.tileK : tiling.tileM;
  a.tileCols = transposedA ? tiling.tileM : tiling.tileK;
  b.globalRows = transposedB ? problem.n : problem.k;
  b.globalCols = transposedB ? problem.k : problem.n;
  b.tileRows = transposedB ? tiling.tileN : tiling.tileK;
  b.tileCols = transposedB ? tiling.tileK : tiling.tileN;
  b.transposes = tiling.stageBTransposed == 1;
  int64_t threads =
      tiling.subgroupsM * tiling.subgroupsN * target.getSubgroupSize();
  if (failed(layOutCopy(a, problem, tiling, threads, "A")) ||
      failed(layOutCopy(b, problem, tiling, threads, "B")))
    return failure();

  bool ragged = hasRaggedResult(problem, tiling);
  layout.storesThroughScratch =
      ragged || (!problem.epilogue.empty() &&
                 !epilogueMapsOnMatrices(problem, target, config));
  int64_t inputBytes =
      getStorageType(problem.inputComponent).getIntOrFloatBitWidth() / 8;
  layout.workgroupBytes =
      tiling.stages * (a.stageElements + b.stageElements) * inputBytes;
  if (layout.storesThroughScratch)
    layout.workgroupBytes +=
        tiling.subgroupsM * tiling.subgroupsN * config.getM() * config.getN() *
        getStorageType(problem.resultComponent).getIntOrFloatBitWidth() / 8;
  int64_t limit = target.getWorkgroupMemoryLimit();
  if (layout.workgroupBytes > limit)
    return op->emitOpError()
               << "cannot be tiled: the tiling needs " << layout.workgroupBytes
               << " bytes of workgroup memory, more than the " << limit
               << " a kernel may use on target '"
               << (target.getName() ? target.getName().getValue() : "custom")
               << "'",
           failure();
  return layout;
}
