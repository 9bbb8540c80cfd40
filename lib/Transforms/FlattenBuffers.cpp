//===- FlattenBuffers.cpp - views folded, N-D buffers made 1-D ------------===//

#include "SubgroupMatrix/Transforms/FlattenBuffers.h"

#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"
#include "SubgroupMatrix/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/CheckedArithmetic.h"

namespace mlir {
namespace subgroup_matrix {
#define GEN_PASS_DEF_FLATTENBUFFERSPASS
#include "SubgroupMatrix/Transforms/Passes.h.inc"
} // namespace subgroup_matrix
} // namespace mlir

using namespace mlir;
using namespace mlir::subgroup_matrix;

namespace {
/// The buffer operand and the index operands of an op that reads or writes
/// elements of a memref at indices, one per dimension.
struct BufferAccess {
  OpOperand *buffer;
  MutableOperandRange indices;
};
} // namespace

static std::optional<BufferAccess> getBufferAccess(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<BufferAccess>>(op)
      .Case([](LoadOp load) {
        return BufferAccess{&load.getSourceMutable(), load.getIndicesMutable()};
      })
      .Case([](StoreOp store) {
        return BufferAccess{&store.getTargetMutable(),
                            store.getIndicesMutable()};
      })
      .Case([](memref::LoadOp load) {
        return BufferAccess{&load.getMemrefMutable(), load.getIndicesMutable()};
      })
      .Case([](memref::StoreOp store) {
        return BufferAccess{&store.getMemrefMutable(),
                            store.getIndicesMutable()};
      })
      .Case([](vector::LoadOp load) {
        return BufferAccess{&load.getBaseMutable(), load.getIndicesMutable()};
      })
      .Case([](vector::StoreOp store) {
        return BufferAccess{&store.getBaseMutable(), store.getIndicesMutable()};
      })
      .Default([](Operation *) { return std::nullopt; });
}

/// `base + index * stride`, with no op for what constants decide.
static OpFoldResult addScaled(OpBuilder &builder, Location loc,
                              OpFoldResult base, OpFoldResult index,
                              OpFoldResult stride) {
  std::optional<int64_t> baseValue = getConstantIntValue(base);
  std::optional<int64_t> indexValue = getConstantIntValue(index);
  std::optional<int64_t> strideValue = getConstantIntValue(stride);
  if (baseValue && indexValue && strideValue)
    return builder.getIndexAttr(*baseValue + *indexValue * *strideValue);
  if (indexValue == 0 || strideValue == 0)
    return base;
  auto materialize = [&](OpFoldResult value) {
    return getValueOrCreateConstantIndexOp(builder, loc, value);
  };
  OpFoldResult scaled =
      strideValue == 1 ? index
      : indexValue == 1
          ? stride
          : OpFoldResult(arith::MulIOp::create(builder, loc, materialize(index),
                                               materialize(stride)));
  if (baseValue == 0)
    return scaled;
  return arith::AddIOp::create(builder, loc, materialize(base),
                               materialize(scaled))
      .getResult();
}

//===----------------------------------------------------------------------===//
// Folding subviews
//===----------------------------------------------------------------------===//

namespace {
/// An access through a `memref.subview` becomes an access of the subview's
/// source: index i of a kept dimension d becomes offset[d] + i * stride[d],
/// a dropped (rank-reduced) dimension is addressed at its offset.
template <typename OpTy> struct FoldSubViewIntoAccess : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    std::optional<BufferAccess> access = getBufferAccess(op);
    if (!access->buffer->get().template getDefiningOp<memref::SubViewOp>())
      return rewriter.notifyMatchFailure(op, "not an access through a subview");
    // Through a chain of subviews, one at a time.
    rewriter.modifyOpInPlace(op, [&] {
      while (
          auto subview =
              access->buffer->get().template getDefiningOp<memref::SubViewOp>())
        foldInto(*access, subview, rewriter, op.getLoc());
    });
    return success();
  }

private:
  /// Points `access` at the source of `subview`, through which it reads.
  static void foldInto(BufferAccess &access, memref::SubViewOp subview,
                       OpBuilder &rewriter, Location loc) {
    SmallVector<OpFoldResult> offsets = subview.getMixedOffsets();
    SmallVector<OpFoldResult> strides = subview.getMixedStrides();
    llvm::SmallBitVector dropped = subview.getDroppedDims();
    SmallVector<Value> viewIndices(access.indices.getAsOperandRange());
    SmallVector<Value> indices;
    unsigned next = 0;
    for (unsigned d = 0, e = offsets.size(); d < e; ++d) {
      OpFoldResult index = dropped.test(d)
                               ? offsets[d]
                               : addScaled(rewriter, loc, offsets[d],
                                           viewIndices[next++], strides[d]);
      indices.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, index));
    }
    access.buffer->set(subview.getSource());
    access.indices.assign(indices);
  }
};
} // namespace

void mlir::subgroup_matrix::populateFoldSubViewIntoAccessPatterns(
    RewritePatternSet &patterns) {
  patterns.add<FoldSubViewIntoAccess<LoadOp>, FoldSubViewIntoAccess<StoreOp>,
               FoldSubViewIntoAccess<memref::LoadOp>,
               FoldSubViewIntoAccess<memref::StoreOp>,
               FoldSubViewIntoAccess<vector::LoadOp>,
               FoldSubViewIntoAccess<vector::StoreOp>>(patterns.getContext());
}

void mlir::subgroup_matrix::foldSubViewsIntoAccesses(Operation *root) {
  // The subviews something reads now; those of them that nothing reads
  // after folding are erased (and only those).
  SmallVector<memref::SubViewOp> used;
  root->walk([&](memref::SubViewOp subview) {
    if (!subview->use_empty())
      used.push_back(subview);
  });
  RewritePatternSet patterns(root->getContext());
  populateFoldSubViewIntoAccessPatterns(patterns);
  // One visit per op, and no dead-code elimination: the rest of the
  // function stays as it was.
  walkAndApplyPatterns(root, std::move(patterns));
  // Last first, so that a subview of a subview frees its source.
  for (memref::SubViewOp subview : llvm::reverse(used))
    if (subview->use_empty())
      subview->erase();
}

//===----------------------------------------------------------------------===//
// Flattening buffers
//===----------------------------------------------------------------------===//

/// The 1-D type of the memory `type` addresses, or null when `type` is not
/// an N-D buffer with static strides and offset. Its length is SPIR-V's for
/// the N-D type (the offset plus the largest size times stride), so that the
/// storage buffer a kernel binds keeps its size.
static MemRefType getFlatType(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (type.getRank() < 2 || failed(type.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset) ||
      llvm::is_contained(strides, ShapedType::kDynamic))
    return {};
  // Negative strides and lengths past int64_t are left alone (the verifier
  // or the SPIR-V conversion reports what is wrong with them).
  if (offset < 0 || llvm::any_of(strides, [](int64_t s) { return s < 0; }))
    return {};
  std::optional<int64_t> length = 0;
  for (auto [size, stride] : llvm::zip(type.getShape(), strides)) {
    if (ShapedType::isDynamic(size))
      return MemRefType::get({ShapedType::kDynamic}, type.getElementType(),
                             MemRefLayoutAttrInterface(),
                             type.getMemorySpace());
    std::optional<int64_t> extent = llvm::checkedMul(size, stride);
    if (!extent)
      return {};
    length = std::max(*length, *extent);
  }
  length = llvm::checkedAdd(*length, offset);
  if (!length)
    return {};
  return MemRefType::get({*length}, type.getElementType(),
                         MemRefLayoutAttrInterface(), type.getMemorySpace());
}

/// Whether every use of `buffer` is as the buffer of an access this file
/// can rewrite.
static bool hasOnlyFlattenableUses(Value buffer) {
  return llvm::all_of(buffer.getUses(), [](OpOperand &use) {
    Operation *user = use.getOwner();
    std::optional<BufferAccess> access = getBufferAccess(user);
    if (!access || access->buffer != &use)
      return false;
    // A vector of more than one dimension spans several rows, which are not
    // contiguous in the linear order.
    VectorType vector;
    if (auto load = dyn_cast<vector::LoadOp>(user))
      vector = load.getVectorType();
    else if (auto store = dyn_cast<vector::StoreOp>(user))
      vector = store.getVectorType();
    return !vector || vector.getRank() == 1;
  });
}

/// Points every access of `buffer` (of N-D type `type`) at `flat`, by the
/// linear index of the element it addresses.
static void rewriteAccesses(Value buffer, MemRefType type, Value flat) {
  SmallVector<int64_t> strides;
  int64_t offset;
  (void)type.getStridesAndOffset(strides, offset);
  Builder attributes(type.getContext());
  for (OpOperand &use : llvm::make_early_inc_range(buffer.getUses())) {
    Operation *op = use.getOwner();
    std::optional<BufferAccess> access = getBufferAccess(op);
    OpBuilder builder(op);
    Location loc = op->getLoc();
    OpFoldResult linear = attributes.getIndexAttr(offset);
    for (auto [index, stride] :
         llvm::zip(access->indices.getAsOperandRange(), strides))
      linear = addScaled(builder, loc, linear, index,
                         attributes.getIndexAttr(stride));
    Value linearValue = getValueOrCreateConstantIndexOp(builder, loc, linear);
    access->buffer->set(flat);
    access->indices.assign(linearValue);
  }
}

/// Gives each buffer of `function` (a kernel's memref arguments, every
/// `memref.alloc`) the type `retype` returns for it, where it returns one,
/// and lets `rewrite(buffer, oldType, replacement)` move the buffer's
/// accesses: an argument is retyped in place, with the kernel's signature
/// (a device function's arguments are its callers' too, so only kernels'),
/// an allocation is replaced by one of the new type (static shapes only).
static void
retypeBuffers(FunctionOpInterface function,
              llvm::function_ref<MemRefType(Value)> retype,
              llvm::function_ref<void(Value, MemRefType, Value)> rewrite) {
  auto kernel = dyn_cast<gpu::GPUFuncOp>(function.getOperation());
  if (kernel && kernel.isKernel()) {
    SmallVector<Type> inputs(kernel.getFunctionType().getInputs());
    for (auto [i, input] : llvm::enumerate(inputs)) {
      BlockArgument argument = kernel.getArgument(i);
      auto type = dyn_cast<MemRefType>(input);
      MemRefType newType = type ? retype(argument) : MemRefType();
      if (!newType)
        continue;
      argument.setType(newType);
      rewrite(argument, type, argument);
      input = newType;
    }
    kernel.setFunctionType(FunctionType::get(kernel.getContext(), inputs,
                                             kernel.getResultTypes()));
  }
  SmallVector<memref::AllocOp> allocations;
  function->walk([&](memref::AllocOp alloc) { allocations.push_back(alloc); });
  for (memref::AllocOp alloc : allocations) {
    MemRefType newType = retype(alloc);
    if (!newType || !newType.hasStaticShape())
      continue;
    OpBuilder builder(alloc);
    auto replacement = memref::AllocOp::create(builder, alloc.getLoc(), newType,
                                               alloc.getAlignmentAttr());
    rewrite(alloc, alloc.getType(), replacement);
    alloc.erase();
  }
}

void mlir::subgroup_matrix::flattenBuffers(FunctionOpInterface function) {
  retypeBuffers(
      function,
      [](Value buffer) {
        MemRefType flatType = getFlatType(cast<MemRefType>(buffer.getType()));
        return flatType && hasOnlyFlattenableUses(buffer) ? flatType
                                                          : MemRefType();
      },
      rewriteAccesses);
}

//===----------------------------------------------------------------------===//
// Unpacking words
//===----------------------------------------------------------------------===//

/// The storage type of the matrices that access `buffer`, a 1-D buffer of
/// packed i32 words, when every use is a matrix access of one storage type
/// or a load or store of a whole word; null otherwise.
static Type getUnpackedElementType(Value buffer) {
  auto type = dyn_cast<MemRefType>(buffer.getType());
  auto word = type ? dyn_cast<VectorType>(type.getElementType()) : nullptr;
  // Words of 32, 64 or 128 bits, as the native lowering packs them.
  if (!word || type.getRank() != 1 || !type.getLayout().isIdentity() ||
      word.getRank() != 1 || word.isScalable() || word.getNumElements() > 4 ||
      !word.getElementType().isInteger(32))
    return {};
  Type element;
  for (Operation *user : buffer.getUsers()) {
    Type storage;
    if (auto load = dyn_cast<LoadOp>(user))
      storage = getStorageType(load.getMatrixType().getElementType());
    else if (auto store = dyn_cast<StoreOp>(user))
      storage = getStorageType(store.getMatrixType().getElementType());
    else if (isa<memref::LoadOp, memref::StoreOp>(user))
      continue;
    else
      return {};
    if (element && element != storage)
      return {};
    element = storage;
  }
  if (!element ||
      (word.getNumElements() * 32) % element.getIntOrFloatBitWidth() != 0)
    return {};
  return element;
}

/// The i32 holding `pieces`, the elements of one 32-bit word in order.
static Value piecesToWord(OpBuilder &builder, Location loc,
                          ArrayRef<Value> pieces) {
  Type i32 = builder.getI32Type();
  if (pieces.size() == 1)
    return arith::BitcastOp::create(builder, loc, i32, pieces.front());
  auto piecesType =
      VectorType::get({int64_t(pieces.size())}, pieces.front().getType());
  Value vector =
      vector::FromElementsOp::create(builder, loc, piecesType, pieces);
  Value word = vector::BitCastOp::create(builder, loc,
                                         VectorType::get({1}, i32), vector);
  return vector::ExtractOp::create(builder, loc, word, 0);
}

/// The elements of type `element` that the i32 `word` holds, in order.
static SmallVector<Value> wordToPieces(OpBuilder &builder, Location loc,
                                       Value word, Type element) {
  int64_t count = 32 / element.getIntOrFloatBitWidth();
  if (count == 1)
    return {arith::BitcastOp::create(builder, loc, element, word)};
  Value vector = vector::FromElementsOp::create(
      builder, loc, VectorType::get({1}, word.getType()), word);
  Value pieces = vector::BitCastOp::create(
      builder, loc, VectorType::get({count}, element), vector);
  SmallVector<Value> result;
  for (int64_t i = 0; i < count; ++i)
    result.push_back(vector::ExtractOp::create(builder, loc, pieces, i));
  return result;
}

/// Retypes `buffer` (words of `wordType`) as `unpacked`, `packing` elements
/// per word, and rewrites its accesses: matrices address elements (index
/// and stride times `packing`); a whole word is read or written as its
/// elements, each i32 of it the bitcast of the elements it holds (vectors
/// of two or four, which SPIR-V has, where a word-sized vector of eight or
/// sixteen elements it has not).
static void unpackAccesses(Value buffer, VectorType wordType, Value unpacked,
                           int64_t packing) {
  Type element = cast<MemRefType>(unpacked.getType()).getElementType();
  int64_t perI32 = 32 / element.getIntOrFloatBitWidth();
  for (OpOperand &use : llvm::make_early_inc_range(buffer.getUses())) {
    Operation *op = use.getOwner();
    OpBuilder builder(op);
    Location loc = op->getLoc();
    auto constant = [&](int64_t value) -> Value {
      return arith::ConstantIndexOp::create(builder, loc, value);
    };
    auto scale = [&](Value value) -> Value {
      return arith::MulIOp::create(builder, loc, value, constant(packing));
    };
    if (auto load = dyn_cast<LoadOp>(op)) {
      load.getSourceMutable().set(unpacked);
      load.getIndicesMutable().assign(scale(load.getIndices()[0]));
      load.getStrideMutable().set(scale(load.getStride()));
    } else if (auto store = dyn_cast<StoreOp>(op)) {
      store.getTargetMutable().set(unpacked);
      store.getIndicesMutable().assign(scale(store.getIndices()[0]));
      store.getStrideMutable().set(scale(store.getStride()));
    } else if (auto load = dyn_cast<memref::LoadOp>(op)) {
      Value first = scale(load.getIndices()[0]);
      SmallVector<Value> words;
      for (int64_t w = 0; w < wordType.getNumElements(); ++w) {
        SmallVector<Value> pieces;
        for (int64_t e = 0; e < perI32; ++e) {
          Value index = arith::AddIOp::create(builder, loc, first,
                                              constant(w * perI32 + e));
          pieces.push_back(
              memref::LoadOp::create(builder, loc, unpacked, index));
        }
        words.push_back(piecesToWord(builder, loc, pieces));
      }
      load.replaceAllUsesWith(
          vector::FromElementsOp::create(builder, loc, wordType, words)
              .getResult());
      load.erase();
    } else {
      auto store = cast<memref::StoreOp>(op);
      Value first = scale(store.getIndices()[0]);
      for (int64_t w = 0; w < wordType.getNumElements(); ++w) {
        Value word =
            vector::ExtractOp::create(builder, loc, store.getValueToStore(), w);
        SmallVector<Value> pieces = wordToPieces(builder, loc, word, element);
        for (int64_t e = 0; e < perI32; ++e) {
          Value value = pieces[e];
          Value index = arith::AddIOp::create(builder, loc, first,
                                              constant(w * perI32 + e));
          memref::StoreOp::create(builder, loc, value, unpacked, index);
        }
      }
      store.erase();
    }
  }
}

/// Elements of `element` per word of the packed buffer type `type`.
static int64_t getPacking(MemRefType type, Type element) {
  return cast<VectorType>(type.getElementType()).getNumElements() * 32 /
         element.getIntOrFloatBitWidth();
}

void mlir::subgroup_matrix::unpackWordBuffers(FunctionOpInterface function) {
  retypeBuffers(
      function,
      [](Value buffer) -> MemRefType {
        Type element = getUnpackedElementType(buffer);
        if (!element)
          return {};
        auto type = cast<MemRefType>(buffer.getType());
        // None where the length passes int64_t (the verifier reports such a
        // buffer).
        std::optional<int64_t> length = ShapedType::kDynamic;
        if (!type.isDynamicDim(0))
          length =
              llvm::checkedMul(type.getDimSize(0), getPacking(type, element));
        if (!length)
          return {};
        return MemRefType::get({*length}, element, MemRefLayoutAttrInterface(),
                               type.getMemorySpace());
      },
      [](Value buffer, MemRefType wordsType, Value unpacked) {
        Type element = cast<MemRefType>(unpacked.getType()).getElementType();
        unpackAccesses(buffer, cast<VectorType>(wordsType.getElementType()),
                       unpacked, getPacking(wordsType, element));
      });
}

namespace {
struct FlattenBuffersPass
    : public subgroup_matrix::impl::FlattenBuffersPassBase<FlattenBuffersPass> {
  void runOnOperation() override {
    foldSubViewsIntoAccesses(getOperation());
    // Device code only: the host's buffers are the launches' arguments.
    getOperation().walk([](gpu::GPUModuleOp gpuModule) {
      gpuModule.walk(
          [](FunctionOpInterface function) { flattenBuffers(function); });
    });
  }
};
} // namespace
