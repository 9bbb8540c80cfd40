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

#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/KernelEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"

#include <numeric>

using namespace mlir;
using namespace mlir::subgroup_matrix;

namespace {

/// The elements a gathering prologue reads for one copied vector, and
/// where the vector lies.
struct GatheredVector {
  /// Per input of the prologue, its element for each element of the vector.
  SmallVector<SmallVector<Value>> inputs;
  Value row, column, inBounds;
};

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
/// time).
struct TileCopy {
  Value global, shared;
  Type storage;
  int64_t globalRows = 0, globalCols = 0;
  /// The same sizes in the kernel: constants, or kernel arguments.
  Value rowsValue, colsValue;
  int64_t tileRows = 0, tileCols = 0;
  int64_t sharedStride = 0;
  int64_t stageElements = 0;
  int64_t width = 1;
  /// Whether the tile is transposed on its way into workgroup memory (8-bit
  /// elements only): each copy is a block of `kTransposedBlockRows` rows of
  /// `width` elements, stored as its columns, so that the workgroup buffer
  /// holds `tileCols` rows of `tileRows`.
  bool transposes = false;
  /// Per block of a transposing copy, whether this invocation stores it
  /// (null: always).
  SmallVector<Value> activeBlocks;
  /// The first element of this workgroup's batch in the global buffer.
  Value batchBase;
  /// An element-wise body applied to every element on its way in (op
  /// handles do not propagate const).
  mutable linalg::GenericOp prologue;
  /// With a gathering prologue, the kernel's buffers of the prologue's
  /// inputs (`global` first): each staged element is computed from the
  /// elements its indexing maps select.
  bool gathers = false;
  SmallVector<Value> gatheredBuffers;
  /// Per copied vector, loop invariant: its row and column in the tile and
  /// its offset in one stage of the workgroup buffer.
  SmallVector<Value> rows, columns, sharedOffsets;

  bool checkRows() const {
    return ShapedType::isDynamic(globalRows) || globalRows % tileRows != 0;
  }
  bool checkColumns() const {
    return ShapedType::isDynamic(globalCols) || globalCols % tileCols != 0;
  }
};

/// An index into a gathering prologue's input, for element i of a copied
/// vector: `base + offset`, where `base` (null: zero) is the same for every
/// element and a multiple of `alignment` (0: of everything), and `offset`
/// is a constant that depends on i.
struct SplitIndex {
  Value base;
  int64_t offset = 0;
  int64_t alignment = 1;
};

/// Emits the kernel of one contraction.
class ContractionKernelEmitter {
public:
  ContractionKernelEmitter(const Contraction &problem, MatrixConfigAttr config,
                           TargetAttr target, const MatmulTiling &tiling,
                           Location loc)
      : problem(problem), config(config), target(target), tiling(tiling),
        b(loc.getContext()), loc(loc) {}

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
  Value index(int64_t value);
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) {
    // Products of static sizes stay constants.
    std::optional<int64_t> cx = getConstantIntValue(x),
                           cy = getConstantIntValue(y);
    if (cx && cy)
      return index(*cx * *cy);
    return arith::MulIOp::create(b, loc, x, y);
  }
  Value add(Value x, int64_t y) { return y ? add(x, index(y)) : x; }
  Value mul(Value x, int64_t y) { return y == 1 ? x : mul(x, index(y)); }
  Value lessThan(Value x, int64_t bound) { return lessThan(x, index(bound)); }
  Value lessThan(Value x, Value bound) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, bound);
  }
  Value both(Value x, Value y) {
    return !x ? y : !y ? x : arith::AndIOp::create(b, loc, x, y).getResult();
  }

  /// The value a copy element takes outside the global matrix.
  Value zeroOf(Type type);
  /// The type one invocation copies at once (a scalar, or 32-bit words).
  Type getCopyType(const TileCopy &copy);

  LogicalResult planCopy(TileCopy &copy, StringRef operandName);
  LogicalResult planTransposingCopy(TileCopy &copy, StringRef operandName);
  void computeCopyPositions(TileCopy &copy);
  /// Loads this invocation's share of the tile whose first element is at
  /// (`rowBase`, `columnBase`) of the global matrix.
  LoadedTile loadTile(const TileCopy &copy, Value rowBase, Value columnBase);
  /// Loads the copied vector at (`globalRow`, `globalColumn`), zero where
  /// it lies outside the matrix, into `loaded`.
  void loadVector(const TileCopy &copy, Value globalRow, Value globalColumn,
                  LoadedTile &loaded);
  /// The `element`s that the 32-bit `word` packs, and the word that packs
  /// `elements` (vectors of at most four, which every path has).
  SmallVector<Value> unpackWord(Value word, Type element);
  Value packWord(ArrayRef<Value> elements);
  /// Applies the copy's prologue to a loaded value (an element, or words of
  /// several elements each).
  Value applyPrologue(const TileCopy &copy, Value value);
  /// Loads what the gathering prologue reads for the staged elements at
  /// (`row`, `column` + i), i below the copy's width; `inBounds` (when
  /// set) says whether they lie inside the matrix.
  GatheredVector loadGatheredVector(const TileCopy &copy, Value row,
                                    Value column, Value inBounds);
  /// Runs the prologue on what `loadGatheredVector` loaded: the staged
  /// elements, packed as `getCopyType`.
  Value computeGatheredVector(const TileCopy &copy,
                              const GatheredVector &loaded);
  /// An index expression of a prologue's indexing map, for element i of a
  /// copied vector.
  SplitIndex computeIndex(AffineExpr expr, ArrayRef<SplitIndex> dims);
  SplitIndex addIndices(SplitIndex x, SplitIndex y);
  SplitIndex scaleIndex(SplitIndex index, int64_t factor);
  Value materialize(SplitIndex index);
  /// Loads `buffer`'s elements at `offsets` (one per element of a copied
  /// vector), each distinct one once.
  SmallVector<Value> loadGathered(Value buffer, Type element,
                                  ArrayRef<SplitIndex> offsets);
  /// `kind` (an arith op on indices) of x and y, built once per copied
  /// vector: the elements of a vector share their bases.
  template <typename OpTy> Value gatherIndexOp(Value x, Value y) {
    Value &result = gatherIndexOps[{OpTy::getOperationName(), x, y}];
    if (!result)
      result = OpTy::create(b, loc, x, y);
    return result;
  }
  DenseMap<std::tuple<StringRef, Value, Value>, Value> gatherIndexOps;
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
    return hasRaggedRows() || problem.hasDynamicN() || problem.n % tiling.tileN;
  }
  bool hasRaggedRows() const {
    return problem.outputRowsPerPart == 0 &&
           (problem.hasDynamicM() || problem.m % tiling.tileM);
  }
  /// Whether the epilogue can run as subgroup_matrix.map on whole result
  /// matrices: every operand is a full matrix and the target has the result
  /// types of every step.
  bool epilogueMapsOnMatrices() const;
  /// Whether every workgroup can: the above, and every tile lies inside C.
  bool canMapEpilogue() const {
    return !hasRaggedResult() && epilogueMapsOnMatrices();
  }
  /// Whether results go through this subgroup's scratch (element by
  /// element, with bounds, and the epilogue on scalars).
  bool storesThroughScratch() const {
    return hasRaggedResult() ||
           (!problem.epilogue.empty() && !canMapEpilogue());
  }
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
  /// The epilogue on one element at (`row`, `column`) of the result.
  Value applyEpilogueToElement(Value value, Value row, Value column);
  /// The epilogue on result matrix (`row`, `column`), as maps.
  Value applyEpilogueToMatrix(Value matrix, Value row, Value column);
  /// The offset in an epilogue operand of element (row, column).
  Value epilogueOffset(const EpilogueOperand &operand, Value row, Value column);

  const Contraction &problem;
  MatrixConfigAttr config;
  TargetAttr target;
  const MatmulTiling &tiling;

  /// Builds the kernel body; `loc` is the matmul's.
  OpBuilder b;
  Location loc;
  Block *entry = nullptr;
  DenseMap<int64_t, Value> indexConstants;

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

} // namespace

Value ContractionKernelEmitter::index(int64_t value) {
  Value &constant = indexConstants[value];
  if (!constant) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(entry);
    constant = arith::ConstantIndexOp::create(b, loc, value);
  }
  return constant;
}

Value ContractionKernelEmitter::zeroOf(Type type) {
  return arith::ConstantOp::create(b, loc, b.getZeroAttr(type));
}

Type ContractionKernelEmitter::getCopyType(const TileCopy &copy) {
  // bf16 moves as bits: some paths have no bf16 scalars (LLVM's SPIR-V
  // backend declares them only with SPV_KHR_bfloat16).
  if (copy.width == 1)
    return copy.storage.isBF16() ? b.getI16Type() : copy.storage;
  int64_t words = copy.width * copy.storage.getIntOrFloatBitWidth() / 32;
  return VectorType::get({words}, b.getI32Type());
}

LogicalResult ContractionKernelEmitter::planCopy(TileCopy &copy,
                                                 StringRef operandName) {
  if (copy.transposes)
    return planTransposingCopy(copy, operandName);
  copy.sharedStride = copy.tileCols + tiling.padding;
  copy.stageElements = copy.tileRows * copy.sharedStride;
  // Vectors must not straddle a row, globally or in the workgroup copy:
  // halve the width down to 64 bits until they do, else copy scalars.
  int64_t elementBits = copy.storage.getIntOrFloatBitWidth();
  copy.width = tiling.vectorWidth;
  // A row of unknown length may start anywhere: scalars.
  while (copy.width > 1 &&
         (ShapedType::isDynamic(copy.globalCols) ||
          copy.globalCols % copy.width || copy.tileCols % copy.width ||
          copy.sharedStride % copy.width))
    copy.width = copy.width * elementBits > 64 ? copy.width / 2 : 1;
  int64_t vectors = copy.tileRows * copy.tileCols / copy.width;
  if (vectors % getThreads())
    return problem.op->emitOpError()
               << "cannot be tiled: the " << copy.tileRows << "x"
               << copy.tileCols << " tile of " << operandName << " is "
               << vectors << " copies of " << copy.width
               << " element(s), which " << getThreads()
               << " invocations cannot share evenly",
           failure();
  return success();
}

LogicalResult
ContractionKernelEmitter::planTransposingCopy(TileCopy &copy,
                                              StringRef operandName) {
  // Blocks of eight rows by four columns: loads of 32 bits and stores of
  // 64 (see computeCopyPositions for how invocations share them).
  copy.width = kTransposedBlockColumns;
  copy.sharedStride = copy.tileRows + tiling.padding;
  copy.stageElements = copy.tileCols * copy.sharedStride;
  if (!transposingCopyFits(copy.globalCols, copy.tileRows, copy.tileCols,
                           tiling.padding))
    return problem.op->emitOpError()
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

void ContractionKernelEmitter::computeCopyPositions(TileCopy &copy) {
  if (copy.transposes) {
    // Consecutive invocations take four blocks down the rows, then the
    // next four columns: the 32 loads a subgroup issues at once (one row of
    // each of its blocks) read 32 consecutive bytes of four rows of 8-bit
    // elements, whole 32-byte sectors. The block at (8 r, 4 c) stores its
    // columns at 2 r + (4 c + j) * stride / 4 in 32-bit words, so with 80
    // padded bytes a row (K steps of 64) the stores of 64 bits meet in pairs
    // on their banks. Walking all the blocks down the rows first instead
    // keeps the stores free of conflicts but has a subgroup load 16-byte
    // halves of eight sectors: 8-bit GEMMs with B K x N ran 4-9% slower so
    // on the H100 (docs/performance.md).
    // When the blocks do not split evenly, the invocations past the last
    // block of the last round load the last block again (a branch-free
    // load) and store nothing.
    int64_t blockRows = copy.tileRows / kTransposedBlockRows;
    int64_t columnBlocks = copy.tileCols / copy.width;
    int64_t blocksDownRows = std::gcd<int64_t>(blockRows, 4);
    int64_t blocks = blockRows * columnBlocks;
    int64_t threads = getThreads();
    for (int64_t first = 0; first < blocks; first += threads) {
      Value block = add(threadId, first);
      Value active;
      if (first + threads > blocks) {
        active = lessThan(block, blocks);
        block = arith::MinUIOp::create(b, loc, block, index(blocks - 1));
      }
      copy.activeBlocks.push_back(active);
      Value rowInGroup =
          arith::RemUIOp::create(b, loc, block, index(blocksDownRows));
      Value group =
          arith::DivUIOp::create(b, loc, block, index(blocksDownRows));
      Value rowGroup =
          arith::DivUIOp::create(b, loc, group, index(columnBlocks));
      Value row = mul(add(mul(rowGroup, blocksDownRows), rowInGroup),
                      kTransposedBlockRows);
      Value column =
          mul(arith::RemUIOp::create(b, loc, group, index(columnBlocks)),
              copy.width);
      copy.rows.push_back(row);
      copy.columns.push_back(column);
      copy.sharedOffsets.push_back(add(mul(column, copy.sharedStride), row));
    }
    return;
  }
  int64_t vectorsPerRow = copy.tileCols / copy.width;
  int64_t threads = getThreads();
  int64_t count = copy.tileRows * vectorsPerRow / threads;
  for (int64_t i = 0; i < count; ++i) {
    Value row, column;
    if (threads % vectorsPerRow == 0) {
      // Every invocation stays in one column: cheaper index arithmetic.
      Value threadRow =
          arith::DivUIOp::create(b, loc, threadId, index(vectorsPerRow));
      row = add(threadRow, i * (threads / vectorsPerRow));
      column = arith::RemUIOp::create(b, loc, threadId, index(vectorsPerRow));
    } else {
      Value element = add(threadId, i * threads);
      row = arith::DivUIOp::create(b, loc, element, index(vectorsPerRow));
      column = arith::RemUIOp::create(b, loc, element, index(vectorsPerRow));
    }
    column = mul(column, copy.width);
    copy.rows.push_back(row);
    copy.columns.push_back(column);
    copy.sharedOffsets.push_back(add(mul(row, copy.sharedStride), column));
  }
}

LoadedTile ContractionKernelEmitter::loadTile(const TileCopy &copy,
                                              Value rowBase, Value columnBase) {
  LoadedTile loaded;
  // A transposing copy loads the rows of its block one at a time.
  int64_t rowsPerCopy = copy.transposes ? kTransposedBlockRows : 1;
  for (auto [row, column] : llvm::zip(copy.rows, copy.columns))
    for (int64_t r = 0; r < rowsPerCopy; ++r)
      loadVector(copy, add(rowBase, add(row, r)), add(columnBase, column),
                 loaded);
  return loaded;
}

void ContractionKernelEmitter::loadVector(const TileCopy &copy, Value globalRow,
                                          Value globalColumn,
                                          LoadedTile &loaded) {
  Type copyType = getCopyType(copy);
  Value inBounds;
  if (copy.checkRows())
    inBounds = lessThan(globalRow, copy.rowsValue);
  // Vectors never straddle the end of a row (the width divides it).
  if (copy.checkColumns())
    inBounds = both(inBounds, lessThan(globalColumn, copy.colsValue));
  if (copy.gathers) {
    loaded.gathered.push_back(
        loadGatheredVector(copy, globalRow, globalColumn, inBounds));
    return;
  }
  Value address = add(mul(globalRow, copy.colsValue), globalColumn);
  // Out of bounds, read the first element of the slice (always there) and
  // replace it by zero, rather than branch.
  if (inBounds)
    address = arith::SelectOp::create(b, loc, inBounds, address, index(0));
  if (copy.batchBase)
    address = add(copy.batchBase, address);
  Value value;
  if (copy.width == 1) {
    value = memref::LoadOp::create(b, loc, copy.global, address);
    if (value.getType() != copyType)
      value = arith::BitcastOp::create(b, loc, copyType, value);
  } else {
    auto vectorType = VectorType::get({copy.width}, copy.storage);
    Value vector =
        vector::LoadOp::create(b, loc, vectorType, copy.global, address);
    value = vector::BitCastOp::create(b, loc, copyType, vector);
  }
  // Before the zeroing: padding along K must stay zero whatever the body
  // makes of zero.
  if (copy.prologue)
    value = applyPrologue(copy, value);
  if (inBounds)
    value = arith::SelectOp::create(b, loc, inBounds, value, zeroOf(copyType));
  loaded.values.push_back(value);
}

Value ContractionKernelEmitter::applyPrologue(const TileCopy &copy,
                                              Value value) {
  Block &body = copy.prologue.getRegion().front();
  auto apply = [&](Value element) {
    IRMapping mapping;
    mapping.map(body.getArgument(0), element);
    return cloneScalarBody(b, body, mapping);
  };
  if (copy.width == 1)
    return apply(value);
  // Words of 32 bits, each seen as the elements it packs.
  auto wordsType = cast<VectorType>(value.getType());
  SmallVector<Value> words;
  for (int64_t w = 0; w < wordsType.getNumElements(); ++w) {
    SmallVector<Value> results;
    for (Value element :
         unpackWord(vector::ExtractOp::create(b, loc, value, w), copy.storage))
      results.push_back(apply(element));
    words.push_back(packWord(results));
  }
  return vector::FromElementsOp::create(b, loc, wordsType, words);
}

SmallVector<Value> ContractionKernelEmitter::unpackWord(Value word,
                                                        Type element) {
  int64_t perWord = 32 / element.getIntOrFloatBitWidth();
  Value packed = vector::FromElementsOp::create(
      b, loc, VectorType::get({1}, b.getI32Type()), word);
  Value elements = vector::BitCastOp::create(
      b, loc, VectorType::get({perWord}, element), packed);
  SmallVector<Value> result;
  for (int64_t e = 0; e < perWord; ++e)
    result.push_back(vector::ExtractOp::create(b, loc, elements, e));
  return result;
}

Value ContractionKernelEmitter::packWord(ArrayRef<Value> elements) {
  auto elementsType =
      VectorType::get({int64_t(elements.size())}, elements.front().getType());
  Value word = vector::BitCastOp::create(
      b, loc, VectorType::get({1}, b.getI32Type()),
      vector::FromElementsOp::create(b, loc, elementsType, elements));
  return vector::ExtractOp::create(b, loc, word, 0);
}

SplitIndex ContractionKernelEmitter::addIndices(SplitIndex x, SplitIndex y) {
  Value base = !x.base   ? y.base
               : !y.base ? x.base
                         : gatherIndexOp<arith::AddIOp>(x.base, y.base);
  return {base, x.offset + y.offset, std::gcd(x.alignment, y.alignment)};
}

Value ContractionKernelEmitter::materialize(SplitIndex index) {
  if (!index.base)
    return this->index(index.offset);
  if (!index.offset)
    return index.base;
  return gatherIndexOp<arith::AddIOp>(index.base, this->index(index.offset));
}

SplitIndex ContractionKernelEmitter::scaleIndex(SplitIndex index,
                                                int64_t factor) {
  return {index.base
              ? gatherIndexOp<arith::MulIOp>(index.base, this->index(factor))
              : Value(),
          index.offset * factor, index.alignment * factor};
}

/// Whether `base + offset` lies in the same block of `c` as `base`: c is a
/// multiple of base's alignment and the offset stays below it.
static bool staysWithinAlignment(SplitIndex index, int64_t c) {
  return index.base && index.alignment > 0 && c % index.alignment == 0 &&
         index.offset >= 0 && index.offset < index.alignment;
}

SplitIndex ContractionKernelEmitter::computeIndex(AffineExpr expr,
                                                  ArrayRef<SplitIndex> dims) {
  if (auto dim = dyn_cast<AffineDimExpr>(expr))
    return dims[dim.getPosition()];
  if (auto constant = dyn_cast<AffineConstantExpr>(expr))
    return {Value(), constant.getValue(), 0};
  auto binary = cast<AffineBinaryOpExpr>(expr);
  SplitIndex lhs = computeIndex(binary.getLHS(), dims);
  if (binary.getKind() == AffineExprKind::Add)
    return addIndices(lhs, computeIndex(binary.getRHS(), dims));
  // The fusion admits only positive constants on the right of *, floordiv
  // and mod; indices are never negative.
  int64_t c = cast<AffineConstantExpr>(binary.getRHS()).getValue();
  switch (binary.getKind()) {
  case AffineExprKind::Mul:
    return scaleIndex(lhs, c);
  case AffineExprKind::FloorDiv:
    // (base + offset) floordiv c = base / c + offset floordiv c when c
    // divides base: the offset stays a constant.
    if (lhs.alignment % c == 0)
      return {lhs.base ? gatherIndexOp<arith::DivUIOp>(lhs.base, index(c))
                       : Value(),
              lhs.offset / c, lhs.alignment / c};
    // Nor does it when base steps in multiples of c's divisor alignment
    // and the offset stays below it (a group of 128 along a vector of 8).
    if (staysWithinAlignment(lhs, c))
      return {gatherIndexOp<arith::DivUIOp>(lhs.base, index(c)), 0, 1};
    return {gatherIndexOp<arith::DivUIOp>(materialize(lhs), index(c)), 0, 1};
  case AffineExprKind::Mod:
    if (lhs.alignment % c == 0)
      return {Value(), lhs.offset % c, 0};
    if (staysWithinAlignment(lhs, c))
      return {gatherIndexOp<arith::RemUIOp>(lhs.base, index(c)), lhs.offset,
              lhs.alignment};
    return {gatherIndexOp<arith::RemUIOp>(materialize(lhs), index(c)), 0, 1};
  default:
    llvm_unreachable("the fusion admits no other index expression");
  }
}

SmallVector<Value>
ContractionKernelEmitter::loadGathered(Value buffer, Type element,
                                       ArrayRef<SplitIndex> offsets) {
  // Offsets share their base; the elements they select are loaded once
  // each, as one vector of words where they are contiguous and aligned.
  int64_t first = offsets.front().offset, last = first;
  bool sharedBase = true;
  for (const SplitIndex &offset : offsets) {
    sharedBase &= offset.base == offsets.front().base;
    first = std::min(first, offset.offset);
    last = std::max(last, offset.offset);
  }
  int64_t length = last - first + 1;
  int64_t bits = element.getIntOrFloatBitWidth();
  int64_t alignment = offsets.front().alignment;
  bool contiguous =
      llvm::all_of(llvm::seq<int64_t>(first, last + 1), [&](int64_t o) {
        return llvm::any_of(offsets, [&](auto x) { return x.offset == o; });
      });
  SmallVector<Value> values;
  if (sharedBase && contiguous && length > 1 && length * bits % 32 == 0 &&
      length * bits <= 128 && first % length == 0 &&
      (alignment == 0 || alignment % length == 0)) {
    Value start = materialize({offsets.front().base, first, 0});
    Value vector = vector::LoadOp::create(
        b, loc, VectorType::get({length}, element), buffer, start);
    int64_t words = length * bits / 32;
    Value packed = vector::BitCastOp::create(
        b, loc, VectorType::get({words}, b.getI32Type()), vector);
    SmallVector<Value> unpacked;
    for (int64_t w = 0; w < words; ++w)
      llvm::append_range(
          unpacked,
          unpackWord(vector::ExtractOp::create(b, loc, packed, w), element));
    for (const SplitIndex &offset : offsets)
      values.push_back(unpacked[offset.offset - first]);
    return values;
  }
  DenseMap<std::pair<Value, int64_t>, Value> loaded;
  for (const SplitIndex &offset : offsets) {
    Value &value = loaded[{offset.base, offset.offset}];
    if (!value)
      value = memref::LoadOp::create(b, loc, buffer, materialize(offset));
    values.push_back(value);
  }
  return values;
}

GatheredVector
ContractionKernelEmitter::loadGatheredVector(const TileCopy &copy, Value row,
                                             Value column, Value inBounds) {
  linalg::GenericOp prologue = copy.prologue;
  SmallVector<AffineMap> maps = prologue.getIndexingMapsArray();
  gatherIndexOps.clear();
  // Outside the matrix, compute the first element instead (always there)
  // and replace it by zero.
  if (inBounds) {
    row = arith::SelectOp::create(b, loc, inBounds, row, index(0));
    column = arith::SelectOp::create(b, loc, inBounds, column, index(0));
  }
  // Element i of the vector is at column `column + i`, and `column` is a
  // multiple of the width: index arithmetic keeps i a constant, so what
  // does not vary along the vector (a column's scale, a group's) is
  // computed and loaded once.
  SmallVector<SmallVector<Value>> inputs;
  for (auto [position, buffer] : llvm::enumerate(copy.gatheredBuffers)) {
    AffineMap map = maps[position];
    Value operand = prologue.getDpsInputs()[position];
    auto type = cast<MemRefType>(operand.getType());
    SmallVector<SplitIndex> offsets;
    for (int64_t i = 0; i < copy.width; ++i) {
      SplitIndex dims[] = {{row, 0, 1}, {column, i, copy.width}};
      // Row-major offset of the selected element; an input of the tile's
      // own shape has the tile's (maybe dynamic) row length.
      SplitIndex offset = {Value(), 0, 0};
      for (auto [dim, expr] : llvm::enumerate(map.getResults())) {
        if (type.hasStaticShape()) {
          offset = scaleIndex(offset, type.getDimSize(dim));
        } else {
          Value length = dim == 0 ? copy.rowsValue : copy.colsValue;
          offset = {gatherIndexOp<arith::MulIOp>(materialize(offset), length),
                    0, 1};
        }
        offset = addIndices(offset, computeIndex(expr, dims));
      }
      offsets.push_back(offset);
    }
    inputs.push_back(loadGathered(buffer, type.getElementType(), offsets));
  }
  return {std::move(inputs), row, column, inBounds};
}

Value ContractionKernelEmitter::computeGatheredVector(
    const TileCopy &copy, const GatheredVector &loaded) {
  Block &body = copy.prologue.getRegion().front();
  Value row = loaded.row, column = loaded.column, inBounds = loaded.inBounds;
  Type staged = copy.storage.isBF16() ? b.getI16Type() : copy.storage;
  SmallVector<Value> elements;
  for (int64_t i = 0; i < copy.width; ++i) {
    IRMapping mapping;
    for (auto [position, values] : llvm::enumerate(loaded.inputs))
      mapping.map(body.getArgument(position), values[i]);
    Value dims[] = {row, add(column, i)};
    body.walk([&](linalg::IndexOp indexOp) {
      mapping.map(indexOp.getResult(), dims[indexOp.getDim()]);
    });
    Value element = cloneScalarBody(b, body, mapping);
    if (element.getType() != staged)
      element = arith::BitcastOp::create(b, loc, staged, element);
    if (inBounds)
      element =
          arith::SelectOp::create(b, loc, inBounds, element, zeroOf(staged));
    elements.push_back(element);
  }
  if (copy.width == 1)
    return elements.front();
  int64_t perWord = 32 / staged.getIntOrFloatBitWidth();
  SmallVector<Value> words;
  for (int64_t first = 0; first < copy.width; first += perWord)
    words.push_back(packWord(ArrayRef<Value>(elements).slice(first, perWord)));
  return vector::FromElementsOp::create(
      b, loc, cast<VectorType>(getCopyType(copy)), words);
}

void ContractionKernelEmitter::storeTile(const TileCopy &copy,
                                         const LoadedTile &loaded,
                                         Value stageOffset) {
  if (copy.transposes)
    return storeTransposedTile(copy, loaded, stageOffset);
  for (auto [index, offset] : llvm::enumerate(copy.sharedOffsets)) {
    Value value = copy.gathers
                      ? computeGatheredVector(copy, loaded.gathered[index])
                      : loaded.values[index];
    Value address = add(stageOffset, offset);
    if (copy.width == 1) {
      if (value.getType() != copy.storage)
        value = arith::BitcastOp::create(b, loc, copy.storage, value);
      memref::StoreOp::create(b, loc, value, copy.shared, address);
      continue;
    }
    auto vectorType = VectorType::get({copy.width}, copy.storage);
    Value vector = vector::BitCastOp::create(b, loc, vectorType, value);
    vector::StoreOp::create(b, loc, vector, copy.shared, address);
  }
}

void ContractionKernelEmitter::storeTransposedTile(const TileCopy &copy,
                                                   const LoadedTile &loaded,
                                                   Value stageOffset) {
  // Each block's rows are words of four elements; column j of the block is
  // element j of every row, packed into words (SPIR-V has no vectors of
  // eight bytes) and stored at row j of the buffer.
  int64_t perWord = 32 / copy.storage.getIntOrFloatBitWidth();
  auto wordsType =
      VectorType::get({kTransposedBlockRows / perWord}, b.getI32Type());
  auto columnType = VectorType::get({kTransposedBlockRows}, copy.storage);
  for (auto [block, offset] : llvm::enumerate(copy.sharedOffsets)) {
    OpBuilder::InsertionGuard guard(b);
    if (Value active = copy.activeBlocks[block]) {
      auto ifOp = scf::IfOp::create(b, loc, active, /*withElseRegion=*/false);
      b.setInsertionPointToStart(ifOp.thenBlock());
    }
    SmallVector<SmallVector<Value>> rows;
    for (int64_t r = 0; r < kTransposedBlockRows; ++r) {
      Value word = vector::ExtractOp::create(
          b, loc, loaded.values[block * kTransposedBlockRows + r], 0);
      rows.push_back(unpackWord(word, copy.storage));
    }
    Value base = add(stageOffset, offset);
    for (int64_t j = 0; j < copy.width; ++j) {
      SmallVector<Value> words;
      for (int64_t first = 0; first < kTransposedBlockRows; first += perWord) {
        SmallVector<Value> elements;
        for (int64_t r = first; r < first + perWord; ++r)
          elements.push_back(rows[r][j]);
        words.push_back(packWord(elements));
      }
      Value column = vector::BitCastOp::create(
          b, loc, columnType,
          vector::FromElementsOp::create(b, loc, wordsType, words));
      vector::StoreOp::create(b, loc, column, copy.shared,
                              add(base, j * copy.sharedStride));
    }
  }
}

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
  }
  if (operand.batched)
    offset = add(mul(batchIndex, slice), offset);
  return offset;
}

Value ContractionKernelEmitter::applyEpilogueToElement(Value value, Value row,
                                                       Value column) {
  for (const EpilogueStep &step : problem.epilogue) {
    Block &body = step.op.getRegion().front();
    IRMapping mapping;
    for (auto [position, operand] : llvm::enumerate(step.operandOf)) {
      if (operand < 0) {
        mapping.map(body.getArgument(position), value);
        continue;
      }
      const EpilogueOperand &input = problem.epilogueOperands[operand];
      mapping.map(body.getArgument(position),
                  memref::LoadOp::create(b, loc, epilogueBuffers[operand],
                                         epilogueOffset(input, row, column)));
    }
    value = cloneScalarBody(b, body, mapping);
  }
  return value;
}

bool ContractionKernelEmitter::epilogueMapsOnMatrices() const {
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
  return true;
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
        loadResultThroughScratch(row, column);
        gpu::BarrierOp::create(b, loc);
        accumulators.push_back(LoadOp::create(
            b, loc, resultType, scratch, ValueRange{mul(subgroupId, fm * fn)},
            index(fn), false));
        gpu::BarrierOp::create(b, loc);
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
      StoreOp::create(b, loc, accumulators[i * blockN + j], scratch,
                      ValueRange{mul(subgroupId, fm * fn)}, index(fn), false);
      gpu::BarrierOp::create(b, loc);
      storeResultThroughScratch(
          add(rowBase, resultRow(i)), add(columnBase, resultColumn(j)),
          addsCAfterLoop() ? ArrayRef(cElements[j]) : ArrayRef<Value>());
      gpu::BarrierOp::create(b, loc);
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
  copyB.transposes = tiling.stageBTransposed == 1;
  bool transposedA = problem.a.transposed, transposedB = problem.b.transposed;
  copyA.globalRows = transposedA ? problem.k : problem.m;
  copyA.globalCols = transposedA ? problem.m : problem.k;
  copyA.tileRows = transposedA ? tiling.tileK : tiling.tileM;
  copyA.tileCols = transposedA ? tiling.tileM : tiling.tileK;
  copyB.globalRows = transposedB ? problem.n : problem.k;
  copyB.globalCols = transposedB ? problem.k : problem.n;
  copyB.tileRows = transposedB ? tiling.tileN : tiling.tileK;
  copyB.tileCols = transposedB ? tiling.tileK : tiling.tileN;
  if (failed(planCopy(copyA, "A")) || failed(planCopy(copyB, "B")))
    return failure();

  int64_t fm = config.getM(), fn = config.getN();
  int64_t subgroups = tiling.subgroupsM * tiling.subgroupsN;
  int64_t inputBytes = inputStorage.getIntOrFloatBitWidth() / 8;
  int64_t sharedBytes =
      tiling.stages * (copyA.stageElements + copyB.stageElements) * inputBytes;
  if (storesThroughScratch())
    sharedBytes +=
        subgroups * fm * fn * resultStorage.getIntOrFloatBitWidth() / 8;
  int64_t limit = target.getWorkgroupMemoryLimit();
  if (sharedBytes > limit)
    return problem.op->emitOpError()
               << "cannot be tiled: the tiling needs " << sharedBytes
               << " bytes of workgroup memory, more than the " << limit
               << " a kernel may use on target '"
               << (target.getName() ? target.getName().getValue() : "custom")
               << "'",
           failure();

  // The arguments: A, B, C when it is read, the epilogue's operands, and
  // the output when it is not C; every buffer flattened.
  ContractionKernel result;
  result.arguments = {problem.a.buffer, problem.b.buffer};
  if (problem.accumulates())
    result.arguments.push_back(problem.c);
  for (const EpilogueOperand &operand : problem.epilogueOperands)
    result.arguments.push_back(operand.buffer);
  llvm::append_range(result.arguments, problem.a.prologueOperands);
  llvm::append_range(result.arguments, problem.b.prologueOperands);
  bool separateOutput = problem.output != problem.c || !problem.accumulates();
  if (separateOutput)
    result.arguments.push_back(problem.output);
  auto workgroupSpace =
      gpu::AddressSpaceAttr::get(context, gpu::AddressSpace::Workgroup);
  auto flat = [&](int64_t size, Type element, Attribute space = nullptr) {
    return MemRefType::get({size}, element, MemRefLayoutAttrInterface(), space);
  };
  SmallVector<Type> arguments;
  for (Value buffer : result.arguments) {
    auto type = cast<MemRefType>(buffer.getType());
    arguments.push_back(flat(type.hasStaticShape() ? type.getNumElements()
                                                   : ShapedType::kDynamic,
                             type.getElementType()));
  }
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

  entry = &kernel.getBody().front();
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
    copy->gatheredBuffers.push_back(copy->global);
    for (size_t i = 0; i < input->prologueOperands.size(); ++i)
      copy->gatheredBuffers.push_back(entry->getArgument(argument++));
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
    OpBuilder &moduleBuilder, StringRef name, const Contraction &contraction,
    TargetAttr target, const TilingPlan &plan) {
  ContractionKernelEmitter emitter(contraction, plan.config, target,
                                   plan.tiling, contraction.op.getLoc());
  return emitter.emit(moduleBuilder, name);
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
