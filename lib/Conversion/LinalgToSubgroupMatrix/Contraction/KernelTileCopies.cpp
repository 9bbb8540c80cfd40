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

GatheredVector
ContractionKernelEmitter::loadGatheredVector(const TileCopy &copy, Value row,
                                             Value column, Value inBounds) {
  return KernelBuilder::loadGatheredVector(copy.gather, batchIndex, row, column,
                                           copy.width, inBounds);
}

Value ContractionKernelEmitter::computeGatheredVector(
    const TileCopy &copy, const GatheredVector &loaded) {
  Type staged = copy.storage.isBF16() ? b.getI16Type() : copy.storage;
  SmallVector<Value> elements =
      computeGatheredElements(copy.prologue, loaded, copy.width, staged);
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
