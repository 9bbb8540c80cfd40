//===- KernelTileCopies.cpp - a contraction kernel's tile copies ---------===//
//
// How a contraction's kernel stages tiles of A and B, over the copy it
// shares with the attention kernel (KernelBuilder.h): the vector width
// (up to 128 bits, fewer at ragged edges), the transposing copy of 8-bit B,
// and producers fused as prologues: element-wise bodies applied on the way
// in, and gathering prologues (dequantization) that compute each staged
// element from the stored buffers.
//
//===----------------------------------------------------------------------===//

#include "ContractionKernelEmitter.h"

using namespace mlir;
using namespace mlir::subgroup_matrix;

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
      copy.active.push_back(active);
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
  computeRowMajorCopyPositions(copy, threadId, getThreads());
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
  loaded.values.push_back(
      loadCopy(copy, globalRow, globalColumn, inBounds, [&](Value value) {
        // Padding along K must stay zero whatever the body makes of zero.
        return copy.prologue ? applyPrologue(copy, value) : value;
      }));
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

Value ContractionKernelEmitter::isInside(SplitIndex index, int64_t size) {
  if (!index.base)
    return arith::ConstantIntOp::create(
        b, loc, b.getI1Type(), index.offset >= 0 && index.offset < size);
  Value position = materialize(index);
  Value &inside = gatherBoundChecks[{position, size}];
  // A negative index is a large unsigned one.
  if (!inside)
    inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, position,
                                   this->index(size));
  return inside;
}

SmallVector<Value> ContractionKernelEmitter::loadGathered(
    Value buffer, Type element, ArrayRef<SplitIndex> offsets,
    ArrayRef<Value> inside, TypedAttr padding) {
  // Where the whole vector is inside or outside together, its start moves
  // to element 0 outside; otherwise each element is loaded on its own.
  bool insideTogether = llvm::all_equal(inside);
  Value paddingValue =
      padding ? arith::ConstantOp::create(b, loc, padding).getResult()
              : Value();
  auto pad = [&](Value value, Value isInside) {
    return isInside
               ? arith::SelectOp::create(b, loc, isInside, value, paddingValue)
                     .getResult()
               : value;
  };
  auto clamp = [&](Value position, Value isInside) {
    return isInside
               ? arith::SelectOp::create(b, loc, isInside, position, index(0))
                     .getResult()
               : position;
  };
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
  // (Not elements narrower than a byte: the SPIR-V lowering emulates those
  // one at a time in 32-bit words, and has no vectors of them.)
  if (sharedBase && contiguous && insideTogether && length > 1 && bits >= 8 &&
      length * bits % 32 == 0 && length * bits <= 128 && first % length == 0 &&
      (alignment == 0 || alignment % length == 0)) {
    Value vectorInside = inside.empty() ? Value() : inside.front();
    Value start =
        clamp(materialize({offsets.front().base, first, 0}), vectorInside);
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
      values.push_back(pad(unpacked[offset.offset - first], vectorInside));
    return values;
  }
  DenseMap<std::tuple<Value, int64_t, Value>, Value> loaded;
  for (auto [i, offset] : llvm::enumerate(offsets)) {
    Value elementInside = inside.empty() ? Value() : inside[i];
    Value &value = loaded[{offset.base, offset.offset, elementInside}];
    if (!value)
      value =
          pad(memref::LoadOp::create(b, loc, buffer,
                                     clamp(materialize(offset), elementInside)),
              elementInside);
    values.push_back(value);
  }
  return values;
}

GatheredVector
ContractionKernelEmitter::loadGatheredVector(const TileCopy &copy, Value row,
                                             Value column, Value inBounds) {
  gatherIndexOps.clear();
  gatherBoundChecks.clear();
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
    AffineMap map = copy.gatherMaps[position];
    MemRefType type = copy.gatheredTypes[position];
    const std::optional<GatherPadding> &padding = copy.gatherPadding[position];
    SmallVector<SplitIndex> offsets;
    SmallVector<Value> inside;
    for (int64_t i = 0; i < copy.width; ++i) {
      SmallVector<SplitIndex, 3> dims = {{row, 0, 1}, {column, i, copy.width}};
      if (map.getNumDims() == 3)
        dims.insert(dims.begin(), {batchIndex, 0, 1});
      // Row-major offset of the selected element; an input of the tile's
      // own shape has the tile's (maybe dynamic) row length.
      SplitIndex offset = {Value(), 0, 0};
      Value elementInside;
      for (auto [dim, expr] : llvm::enumerate(map.getResults())) {
        if (type.hasStaticShape()) {
          offset = scaleIndex(offset, type.getDimSize(dim));
        } else {
          Value length = dim == 0 ? copy.rowsValue : copy.colsValue;
          offset = {gatherIndexOp<arith::MulIOp>(materialize(offset), length),
                    0, 1};
        }
        SplitIndex position = computeIndex(expr, dims);
        if (padding && padding->checked[dim]) {
          Value check = isInside(position, type.getDimSize(dim));
          elementInside =
              elementInside ? gatherIndexOp<arith::AndIOp>(elementInside, check)
                            : check;
        }
        offset = addIndices(offset, position);
      }
      offsets.push_back(offset);
      if (padding)
        inside.push_back(elementInside);
    }
    inputs.push_back(loadGathered(buffer, type.getElementType(), offsets,
                                  inside,
                                  padding ? padding->value : TypedAttr()));
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
  storeCopies(copy, stageOffset, [&](size_t index) {
    return copy.gathers ? computeGatheredVector(copy, loaded.gathered[index])
                        : loaded.values[index];
  });
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
    if (Value active = copy.active[block]) {
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
