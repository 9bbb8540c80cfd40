//===- ContractionKernelEmitter.h - a contraction's kernel ------*- C++ -*-===//
//
// The emitter of KernelEmitter.h's kernels, private to this library; its
// parts live in KernelEmitter.cpp (the K loop, the accumulators, the
// kernel), KernelTileCopies.cpp (global to workgroup memory, with
// prologues, over KernelBuilder.h's copy) and KernelEpilogue.cpp (the fused
// epilogue and the stores through workgroup memory).
//
//===----------------------------------------------------------------------===//

#ifndef LIB_CONVERSION_LINALGTOSUBGROUPMATRIX_CONTRACTION_CONTRACTIONKERNELEMITTER_H
#define LIB_CONVERSION_LINALGTOSUBGROUPMATRIX_CONTRACTION_CONTRACTIONKERNELEMITTER_H

#include "KernelBuilder.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Contraction/KernelEmitter.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Planning/KernelLayout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"

#include <numeric>

namespace mlir {
namespace subgroup_matrix {

/// What one invocation loaded of a tile: per copied vector, its value (in
/// the copy type), or with a gathering prologue what the prologue reads,
/// which the store turns into the value (after the multiplication of the
/// previous step, so that the loads' latency hides behind it).
struct LoadedTile {
  SmallVector<Value> values;
  SmallVector<GatheredVector> gathered;
};

/// One operand's copy from global to workgroup memory: a tile of
/// `tileRows` x `tileCols` elements out of a row-major global matrix of
/// `globalRows` x `globalCols` (ShapedType::kDynamic when known only at run
/// time), staged once per K step into one of the workgroup buffer's stages.
struct TileCopy : WorkgroupTileCopy {
  int64_t globalRows = 0, globalCols = 0;
  int64_t stageElements = 0;
  /// Whether the tile is transposed on its way into workgroup memory (8-bit
  /// elements only): each copy is a block of `kTransposedBlockRows` rows of
  /// `width` elements, stored as its columns, so that the workgroup buffer
  /// holds `tileCols` rows of `tileRows`.
  bool transposes = false;
  /// An element-wise body applied to every element on its way in (op
  /// handles do not propagate const).
  mutable linalg::GenericOp prologue;
  /// With a gathering prologue, what it reads (`gather.buffers` starts
  /// with `global`).
  bool gathers = false;
  GatheredOperand gather;

  bool checkRows() const {
    return ShapedType::isDynamic(globalRows) || globalRows % tileRows != 0;
  }
  bool checkColumns() const {
    return ShapedType::isDynamic(globalCols) || globalCols % tileCols != 0;
  }
};

/// Emits the kernel of one contraction.
class ContractionKernelEmitter : public KernelBuilder {
public:
  ContractionKernelEmitter(const ContractionKernelLayout &layout,
                           MatrixConfigAttr config, TargetAttr target,
                           const MatmulTiling &tiling, Location loc)
      : KernelBuilder(loc), layout(layout), problem(layout.problem),
        config(config), target(target), tiling(tiling) {}

  /// Builds the kernel `name` with `moduleBuilder`; reports on the
  /// contraction's op if the tiling does not fit.
  FailureOr<ContractionKernel> emit(OpBuilder &moduleBuilder, StringRef name);

  int64_t getThreads() const {
    return tiling.subgroupsM * tiling.subgroupsN * target.getSubgroupSize();
  }
  /// Tile columns, or 0 when N is dynamic (the host computes them).
  int64_t getGridX() const {
    return problem.hasDynamicN() ? 0
                                 : llvm::divideCeil(problem.n, tiling.tileN);
  }
  /// Tile rows, or 0 when M is dynamic (the host computes them).
  int64_t getGridY() const {
    return problem.hasDynamicM() ? 0
                                 : llvm::divideCeil(problem.m, tiling.tileM);
  }

private:
  void computeCopyPositions(TileCopy &copy);
  /// Loads this invocation's share of the tile whose first element is at
  /// (`rowBase`, `columnBase`) of the global matrix.
  LoadedTile loadTile(const TileCopy &copy, Value rowBase, Value columnBase);
  /// Loads the copied vector at (`globalRow`, `globalColumn`), zero where
  /// it lies outside the matrix, into `loaded`.
  void loadVector(const TileCopy &copy, Value globalRow, Value globalColumn,
                  LoadedTile &loaded);
  /// Applies the copy's prologue to a loaded value (an element, or words of
  /// several elements each).
  Value applyPrologue(const TileCopy &copy, Value value);
  /// Loads what the gathering prologue reads for the staged elements at
  /// (`row`, `column` + i), i below the copy's width.
  GatheredVector loadGatheredVector(const TileCopy &copy, Value row,
                                    Value column, Value inBounds);
  /// Runs the prologue on what `loadGatheredVector` loaded: the staged
  /// elements, packed as `getCopyType`.
  Value computeGatheredVector(const TileCopy &copy,
                              const GatheredVector &loaded);
  /// Stores what `loadTile` returned into the stage at `stageOffset`.
  void storeTile(const TileCopy &copy, const LoadedTile &loaded,
                 Value stageOffset);
  /// `storeTile` for a transposing copy.
  void storeTransposedTile(const TileCopy &copy, const LoadedTile &loaded,
                           Value stageOffset);
  Value stageOffset(const TileCopy &copy, Value step);
  /// The tile of C that workgroup (`blockX`, `blockY`) computes: with
  /// `groupM` > 1, workgroups in launch order walk down `groupM` tile rows
  /// before moving to the next tile column, so that the workgroups running
  /// together share tiles of A and B in the L2 cache.
  std::pair<Value, Value> getTilePosition(Value blockX, Value blockY);

  /// Multiplies one K step out of the workgroup buffers at the given stage.
  void multiplyStep(Value aStage, Value bStage,
                    MutableArrayRef<Value> accumulators);

  /// The accumulators before the first K step: C's matrices with
  /// `preload-c`, else splats of the fill value or of zero.
  SmallVector<Value> initAccumulators();
  /// Whether C is read and added to the accumulators as they are stored.
  bool addsCAfterLoop() const {
    return problem.accumulates() && !tiling.preloadC;
  }
  /// Stores the accumulators to the output, with C added when it is read
  /// and the epilogue applied.
  void storeAccumulators(ArrayRef<Value> accumulators);
  /// The same, for a tile inside C: whole matrices, the epilogue as maps.
  void storeWholeMatrices(ArrayRef<Value> accumulators);
  /// The same, through the subgroup's scratch, element by element within
  /// the bounds of C, the epilogue on scalars.
  void storeThroughScratch(ArrayRef<Value> accumulators);
  /// `lhs + rhs` for two scalars of the result's storage type.
  Value addAccumulator(Value lhs, Value rhs);
  /// The offset in C of result matrix (i, j) of this subgroup.
  Value resultRow(int64_t i) { return add(subgroupRow, i * config.getM()); }
  Value resultColumn(int64_t j) {
    return add(subgroupColumn, j * config.getN());
  }
  /// Whether C needs bounds checks (some workgroup tile crosses its edge;
  /// a split-K workspace has whole tiles of rows).
  bool hasRaggedResult() const {
    return subgroup_matrix::hasRaggedResult(problem, tiling);
  }
  bool hasRaggedRows() const {
    return subgroup_matrix::hasRaggedRows(problem, tiling);
  }
  /// Whether the epilogue runs as subgroup_matrix.map on whole result
  /// matrices (KernelLayout.h).
  bool epilogueMapsOnMatrices() const {
    return subgroup_matrix::epilogueMapsOnMatrices(problem, target, config);
  }
  /// Whether every workgroup can: the above, and every tile lies inside C.
  bool canMapEpilogue() const {
    return !hasRaggedResult() && epilogueMapsOnMatrices();
  }
  /// Whether results go through this subgroup's scratch (element by
  /// element, with bounds, and the epilogue on scalars).
  bool storesThroughScratch() const { return layout.storesThroughScratch; }
  /// Calls `body` for each element of result matrix (row, column) that this
  /// invocation moves through the subgroup's scratch: its scratch address,
  /// its place in C, and whether that place is inside C.
  void
  forEachScratchElement(Value row, Value column,
                        function_ref<void(Value scratchAddress, Value globalRow,
                                          Value globalColumn, Value inBounds)>
                            body);
  /// The elements of result matrix (row, column) of C that this invocation
  /// moves through the scratch (forEachScratchElement's order), zero
  /// outside C.
  SmallVector<Value> loadResultElements(Value row, Value column);
  /// Copies result matrix (row, column) of C into this subgroup's scratch,
  /// element by element, zero outside C.
  void loadResultThroughScratch(Value row, Value column);
  /// Copies this subgroup's scratch to result matrix (row, column) of the
  /// output, element by element, within its bounds, adding `cElements`
  /// (from loadResultElements; empty when C is not read) and applying the
  /// epilogue.
  void storeResultThroughScratch(Value row, Value column,
                                 ArrayRef<Value> cElements);
  /// `storeResultThroughScratch` with no C to add, each lane storing a run
  /// of one row as one vector (the epilogue applied element by element);
  /// false, emitting nothing, where C's rows do not divide into runs.
  bool storeScratchRowRuns(Value row, Value column);
  /// The epilogue on one element at (`row`, `column`) of the result.
  Value applyEpilogueToElement(Value value, Value row, Value column);
  /// The epilogue on result matrix (`row`, `column`), as maps.
  Value applyEpilogueToMatrix(Value matrix, Value row, Value column);
  /// The offset in an epilogue operand of element (row, column).
  Value epilogueOffset(const EpilogueOperand &operand, Value row, Value column);

  const ContractionKernelLayout &layout;
  const Contraction &problem;
  MatrixConfigAttr config;
  TargetAttr target;
  const MatmulTiling &tiling;

  /// The kernel's entry block (where index constants are built).
  Block *entry = nullptr;

  TileCopy copyA, copyB;
  Value c, output, scratch;
  SmallVector<Value> epilogueBuffers;
  /// This workgroup's batch and the first element of its slice of C and of
  /// the output.
  Value batchIndex, cBatchBase, outputBatchBase;
  /// M, N and K: constants, or kernel arguments when dynamic.
  Value mValue, nValue, kValue;
  /// The part of K this workgroup multiplies (split K only).
  Value splitIndex;
  Value threadId, laneId, subgroupId;
  /// Where this workgroup's tile and this subgroup's block start in C.
  Value rowBase, columnBase, subgroupRow, subgroupColumn;
  int64_t blockM = 0, blockN = 0;
};

} // namespace subgroup_matrix
} // namespace mlir

#endif // LIB_CONVERSION_LINALGTOSUBGROUPMATRIX_CONTRACTION_CONTRACTIONKERNELEMITTER_H
