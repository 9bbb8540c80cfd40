//===- KernelBuilder.h - what this library's kernels build with -*- C++ -*-===//
//-*-===//
//
// Private to this library: the index arithmetic, the one copy of tiles
// from global to workgroup memory that the contraction and the attention
// kernels share, and the one way their kernels read a gathering prologue's
// inputs (a dequantizing load). A tile of a row-major global matrix is copied
// by all the invocations of a workgroup, each taking its share of vectors of up
// to 128 bits (moved as 32-bit words), with zeros in place of elements outside
// the matrix; the load and the store are separate steps, so that a kernel can
// issue the loads before work that hides their latency.
//
//===----------------------------------------------------------------------===//

#ifndef LIB_CONVERSION_LINALGTOSUBGROUPMATRIX_KERNELBUILDER_H
#define LIB_CONVERSION_LINALGTOSUBGROUPMATRIX_KERNELBUILDER_H

#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Contraction/Contraction.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir {
namespace subgroup_matrix {

/// The copy of tiles of `tileRows` x `tileCols` elements out of a row-major
/// global matrix into a workgroup buffer, and this invocation's share of it.
struct WorkgroupTileCopy {
  /// The global matrix (a flat buffer) and the workgroup buffer.
  Value global, shared;
  /// The element type in both buffers.
  Type storage;
  /// The matrix's rows and the length of each (its columns): constants, or
  /// kernel arguments.
  Value rowsValue, colsValue;
  /// Where this workgroup's batch starts in `global` (null: at 0).
  Value batchBase;
  /// Elements between the starts of consecutive rows in `global` (null:
  /// the row length, `colsValue`).
  Value globalStride;
  int64_t tileRows = 0, tileCols = 0;
  /// Elements copied at once, and the distance between the tile's rows in
  /// the workgroup buffer.
  int64_t width = 1, sharedStride = 0;
  /// Per copied vector, loop invariant: its row and column in the tile, its
  /// offset in the workgroup buffer, and whether this invocation copies it
  /// (null: always; false in the last round of a copy that the invocations
  /// do not share evenly).
  SmallVector<Value> rows, columns, sharedOffsets, active;
};

/// The elements a gathering prologue reads for one copied vector, and
/// where the vector lies.
struct GatheredVector {
  /// Per input of the prologue, its element for each element of the vector.
  SmallVector<SmallVector<Value>> inputs;
  Value row, column, inBounds;
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

/// A matrix that a gathering prologue computes element by element from the
/// buffers it reads through its indexing maps (a dequantized weight: the
/// stored values, their scales, their zero points).
struct GatheredOperand {
  /// The kernel's (flat) buffers of the prologue's inputs, their types
  /// before the kernel flattened them, the element of each that element
  /// (row, column) of the matrix (batched: (batch, row, column)) reads
  /// (ContractionInput::gatherMaps), and the padding read where a map falls
  /// outside its buffer.
  SmallVector<Value> buffers;
  SmallVector<MemRefType> types;
  SmallVector<AffineMap> maps;
  SmallVector<std::optional<GatherPadding>> padding;
  /// The matrix's rows and columns (constants or kernel arguments): the
  /// row length of an input of the matrix's own, maybe dynamic, shape.
  Value rowsValue, colsValue;
};

/// The base of this library's kernel emitters: the builder, index
/// arithmetic that folds what is known, the tile copies, and the loads of
/// gathering prologues (GatheredLoads.cpp).
class KernelBuilder {
protected:
  explicit KernelBuilder(Location loc) : b(loc.getContext()), loc(loc) {}

  /// An index constant: built once, at the start of `constantBlock` when
  /// it is set, else at the insertion point.
  Value index(int64_t value);
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value add(Value x, int64_t y) { return y ? add(x, index(y)) : x; }
  Value mul(Value x, Value y) {
    // Products of static sizes stay constants.
    std::optional<int64_t> cx = getConstantIntValue(x),
                           cy = getConstantIntValue(y);
    if (cx && cy)
      return index(*cx * *cy);
    return arith::MulIOp::create(b, loc, x, y);
  }
  Value mul(Value x, int64_t y) { return y == 1 ? x : mul(x, index(y)); }
  Value lessThan(Value x, int64_t bound) { return lessThan(x, index(bound)); }
  Value lessThan(Value x, Value bound) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, bound);
  }
  /// x and y, either of which may be null (true).
  Value both(Value x, Value y) {
    return !x ? y : !y ? x : arith::AndIOp::create(b, loc, x, y).getResult();
  }
  /// The zero of `type` (a scalar or a vector).
  Value zeroOf(Type type);

  /// The type one invocation copies at once: a scalar (bf16 as its bits:
  /// some paths have no bf16 scalars), or a vector of 32-bit words.
  Type getCopyType(const WorkgroupTileCopy &copy);
  /// Shares the copy of a tile among `threads` invocations, vectors of
  /// `copy.width` consecutive elements of a row each, and fills
  /// `copy.rows`, `columns`, `sharedOffsets` and `active` for the
  /// invocation `threadId`.
  void computeRowMajorCopyPositions(WorkgroupTileCopy &copy, Value threadId,
                                    int64_t threads);
  /// Loads the copied vector at (`row`, `column`) of the global matrix, as
  /// `getCopyType`; where `inBounds` (when set) is false it reads the
  /// batch's first element instead, which is always there, and becomes
  /// zero. `transform`, when set, applies to the loaded value before the
  /// zeroing (so that padding stays zero whatever it makes of zero).
  Value loadCopy(const WorkgroupTileCopy &copy, Value row, Value column,
                 Value inBounds,
                 function_ref<Value(Value)> transform = nullptr);
  /// Stores each copied vector of this invocation's share, `valueOf(i)`
  /// for the i-th, at its offset past `stageOffset` (null: 0) in the
  /// workgroup buffer; inactive copies store nothing.
  void storeCopies(const WorkgroupTileCopy &copy, Value stageOffset,
                   function_ref<Value(size_t)> valueOf);

  OpBuilder b;
  Location loc;
  /// Where index constants are built once (the kernel's entry block), or
  /// null to build them where they are used.
  Block *constantBlock = nullptr;

  /// The `element`s that the 32-bit `word` packs, and the word that packs
  /// `elements` (vectors of at most four, which every path has).
  SmallVector<Value> unpackWord(Value word, Type element);
  Value packWord(ArrayRef<Value> elements);
  /// The `count` elements of `buffer` (of 8 bits or more, `count` of them
  /// at most 128 bits and whole 32-bit words) from `start`, loaded as one
  /// vector and taken apart word by word.
  SmallVector<Value> loadVectorElements(Value buffer, Type element, Value start,
                                        int64_t count);

  /// Loads what a gathering prologue reads for the `width` elements at
  /// (`row`, `column` + i) of `operand` (of batch `batchIndex` where its
  /// maps have one), `column` a multiple of `width`; `inBounds` (when set)
  /// says whether they lie inside the matrix. With `vectorLoads`, inputs
  /// that are contiguous along the vector load as vectors of up to 128 bits.
  GatheredVector loadGatheredVector(const GatheredOperand &operand,
                                    Value batchIndex, Value row, Value column,
                                    int64_t width, Value inBounds,
                                    bool vectorLoads = true);
  /// Runs `prologue`'s body on what `loadGatheredVector` loaded: one
  /// element per position of the vector, as `element` (a bitcast of the
  /// body's result), zero outside the matrix.
  SmallVector<Value> computeGatheredElements(linalg::GenericOp prologue,
                                             const GatheredVector &loaded,
                                             int64_t width, Type element);
  /// Whether elements i and j of `loaded` read the same values but for
  /// bytes 16 bits apart in one loaded word, which
  /// `computeGatheredPair` may compute at once.
  bool arePairable(const GatheredVector &loaded, int64_t i, int64_t j);
  /// Elements i and j of the vector (pairable), the body run on both at
  /// once (PairedDequantization.cpp); nullopt, and nothing built, where the
  /// body does something that evaluation does not know.
  std::optional<std::pair<Value, Value>>
  computeGatheredPair(linalg::GenericOp prologue, const GatheredVector &loaded,
                      int64_t i, int64_t j, int64_t width);

  /// A kernel function `name` of `threads` invocations per workgroup at the
  /// end of `moduleBuilder`'s block, with `attributions` in workgroup
  /// memory; the builder then inserts into its entry block, where index
  /// constants go.
  gpu::GPUFuncOp createKernelFunction(OpBuilder &moduleBuilder, StringRef name,
                                      ArrayRef<Type> arguments,
                                      ArrayRef<Type> attributions,
                                      int64_t threads);
  /// The sum of `value` (a 32-bit float or integer) over each aligned run
  /// of `lanes` invocations of a subgroup of `subgroupSize` (a power of
  /// two), in every one of them: a butterfly of XOR shuffles.
  Value addAcrossLanes(Value value, int64_t lanes, int64_t subgroupSize);

  /// The fused epilogue of `problem` on one element of its result,
  /// `value` (of C's element type): each step's body, its other inputs the
  /// elements `loadOperand` loads (given their index in
  /// `problem.epilogueOperands`).
  Value applyEpilogueToScalar(const Contraction &problem, Value value,
                              function_ref<Value(unsigned)> loadOperand);

private:
  /// An index expression of a prologue's indexing map, for element i of a
  /// vector.
  SplitIndex computeIndex(AffineExpr expr, ArrayRef<SplitIndex> dims);
  SplitIndex addIndices(SplitIndex x, SplitIndex y);
  SplitIndex scaleIndex(SplitIndex index, int64_t factor);
  Value materialize(SplitIndex index);
  /// Loads `buffer`'s elements at `offsets` (one per element of a vector),
  /// each distinct one once; with `inside` (one condition per element), an
  /// element outside the buffer is `padding` instead.
  SmallVector<Value> loadGathered(Value buffer, Type element,
                                  ArrayRef<SplitIndex> offsets,
                                  ArrayRef<Value> inside, TypedAttr padding,
                                  bool vectorLoads);
  /// Whether `index` lies in [0, size): one unsigned comparison, made
  /// once per index.
  Value isInside(SplitIndex index, int64_t size);
  /// `kind` (an arith op on indices) of x and y, built once per vector:
  /// the elements of a vector share their bases.
  template <typename OpTy> Value gatherIndexOp(Value x, Value y) {
    Value &result = gatherIndexOps[{OpTy::getOperationName(), x, y}];
    if (!result)
      result = OpTy::create(b, loc, x, y);
    return result;
  }
  DenseMap<std::tuple<StringRef, Value, Value>, Value> gatherIndexOps;
  DenseMap<std::pair<Value, int64_t>, Value> gatherBoundChecks;

  DenseMap<int64_t, Value> indexConstants;
};

} // namespace subgroup_matrix
} // namespace mlir

#endif // LIB_CONVERSION_LINALGTOSUBGROUPMATRIX_KERNELBUILDER_H
