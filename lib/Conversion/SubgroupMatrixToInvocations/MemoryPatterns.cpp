//===- MemoryPatterns.cpp - loads, stores and splats ----------------------===//
//
// Per-invocation loads, stores and splats: each invocation moves its own
// elements with the op's stride and layout.
//
//===----------------------------------------------------------------------===//

#include "InvocationBuilder.h"

using namespace mlir;
using namespace mlir::subgroup_matrix;
using namespace mlir::subgroup_matrix::per_invocation;

namespace {
/// Elements per vector access of an emulated matrix whose invocations each
/// hold whole columns of column-major memory, which lie contiguously: four,
/// so that every access is 32, 64 or 128 bits wide and its vector is one
/// that SPIR-V holds without the Vector16 capability.
static constexpr unsigned kEmulatedAccessWidth = 4;

/// Whether each invocation's elements of `layout` are runs of contiguous
/// memory when the matrix is `colMajor`: whole columns per invocation.
static bool hasContiguousColumns(const InvocationLayout &layout,
                                 bool colMajor) {
  return layout.emulated && colMajor && layout.spread == 1 &&
         layout.rows % kEmulatedAccessWidth == 0;
}

/// Calls `access(address, firstSlot)` for each run of
/// `kEmulatedAccessWidth` rows of each column an invocation of `layout`
/// holds (see hasContiguousColumns): `address` is the run's first element,
/// `firstSlot` the slot holding it.
static void forEachColumnRun(InvocationBuilder &b,
                             const InvocationLayout &layout, Value base,
                             Value stride,
                             llvm::function_ref<void(Value, unsigned)> access) {
  OpBuilder &builder = b.builder;
  Location loc = b.loc;
  unsigned perTile = layout.getSlotsPerTile();
  for (unsigned tile = 0; tile < layout.tiles; ++tile) {
    Value column = std::get<1>(b.locate(layout, tile * perTile, 0));
    Value start = arith::AddIOp::create(
        builder, loc, base,
        arith::MulIOp::create(builder, loc, column, stride));
    for (unsigned row = 0; row < layout.rows; row += kEmulatedAccessWidth)
      access(arith::AddIOp::create(builder, loc, start, b.index(row)),
             tile * perTile + row);
  }
}

/// Where a load or store moves the matrix: the flat buffer, the offset
/// of element [0, 0] and the stride, with the builder that addresses it.
struct MatrixAccess {
  InvocationLayout layout;
  Value memref, base, stride;
  bool colMajor;

  /// The offset of element (`row`, `column`) in `memref`.
  Value getAddress(OpBuilder &builder, Location loc, Value row,
                   Value column) const {
    Value major = colMajor ? column : row;
    Value minor = colMajor ? row : column;
    return arith::AddIOp::create(
        builder, loc, base,
        arith::AddIOp::create(
            builder, loc, arith::MulIOp::create(builder, loc, major, stride),
            minor));
  }
};

/// Whether element (`row`, `column`) lies inside the bounds of a bounded
/// access (null for an unbounded one), and inside the layout (`valid`, null
/// where every element does).
static Value isAccessible(OpBuilder &builder, Location loc, ValueRange bounds,
                          Value row, Value column, Value valid) {
  Value inside = valid;
  if (bounds.empty())
    return inside;
  auto below = [&](Value index, Value bound) {
    return arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt, index,
                                 bound);
  };
  Value inBounds = arith::AndIOp::create(builder, loc, below(row, bounds[0]),
                                         below(column, bounds[1]));
  return inside ? arith::AndIOp::create(builder, loc, inside, inBounds)
                : inBounds;
}

/// The access of `op` (a load or a store) to a matrix of `matrixType`
/// through `source`'s `indices` with `stride`; reports on `op` what has no
/// per-invocation form.
template <typename MatrixOp>
static FailureOr<MatrixAccess>
getMatrixAccess(const IntelPattern<MatrixOp> &pattern, MatrixOp op,
                Type matrixType, ValueRange source, ValueRange indices,
                ValueRange stride, ConversionPatternRewriter &rewriter) {
  FailureOr<InvocationLayout> layout = pattern.getLayout(op, matrixType);
  if (failed(layout))
    return failure();
  FailureOr<std::pair<Value, Value>> flat =
      flatten(op, rewriter, source.front(), indices);
  if (failed(flat))
    return failure();
  return MatrixAccess{*layout, flat->first, flat->second, stride.front(),
                      op.getColMajor()};
}

struct LoadLowering : IntelPattern<LoadOp> {
  using IntelPattern::IntelPattern;

  LogicalResult
  matchAndRewrite(LoadOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<MatrixAccess> access = getMatrixAccess(
        *this, op, op.getType(), adaptor.getSource(),
        getSingleValues(adaptor.getIndices()), adaptor.getStride(), rewriter);
    if (failed(access))
      return failure();
    const InvocationLayout *layout = &access->layout;
    Value memref = access->memref, base = access->base, stride = access->stride;
    InvocationBuilder b(rewriter, op.getLoc(), emulated);
    SmallVector<Value> packedElements;
    SmallVector<Value> bounds = getSingleValues(adaptor.getBounds());
    if (bounds.empty() && hasContiguousColumns(*layout, op.getColMajor())) {
      // One vector load per run of rows. Whether the buffer can be
      // addressed with vectors is decided later, for the whole kernel
      // (packWideAccesses); where it cannot, they become scalars again.
      auto vectorType =
          VectorType::get({kEmulatedAccessWidth}, layout->packedElement);
      forEachColumnRun(b, *layout, base, stride, [&](Value address, unsigned) {
        Value run = vector::LoadOp::create(rewriter, op.getLoc(), vectorType,
                                           memref, address);
        for (unsigned i = 0; i < kEmulatedAccessWidth; ++i)
          packedElements.push_back(
              vector::ExtractOp::create(rewriter, op.getLoc(), run, i));
      });
      replaceWithSlots(rewriter, op, *layout, packedElements);
      return success();
    }
    Type storage = getStorageType(layout->component);
    for (unsigned p = 0; p < layout->packedCount; ++p) {
      SmallVector<Value> elements;
      for (unsigned s = 0; s < layout->elementsPerPacked; ++s) {
        auto [row, column, valid] = b.locate(*layout, p, s);
        Value address = access->getAddress(rewriter, op.getLoc(), row, column);
        if (!bounds.empty()) {
          // Memory outside the bounds is not read at all. The guarded
          // element leaves the branch as bits: a bf16 value there would
          // need a type that SPIR-V has only with SPV_KHR_bfloat16.
          Value accessible =
              isAccessible(rewriter, op.getLoc(), bounds, row, column, valid);
          Type bits = rewriter.getIntegerType(storage.getIntOrFloatBitWidth());
          auto guard = scf::IfOp::create(rewriter, op.getLoc(), bits,
                                         accessible, /*withElseRegion=*/true);
          OpBuilder thenBuilder = guard.getThenBodyBuilder();
          Value element = memref::LoadOp::create(thenBuilder, op.getLoc(),
                                                 memref, ValueRange{address});
          if (element.getType() != bits)
            element = arith::BitcastOp::create(thenBuilder, op.getLoc(), bits,
                                               element);
          scf::YieldOp::create(thenBuilder, op.getLoc(), element);
          OpBuilder elseBuilder = guard.getElseBodyBuilder();
          scf::YieldOp::create(
              elseBuilder, op.getLoc(),
              arith::ConstantOp::create(elseBuilder, op.getLoc(),
                                        elseBuilder.getZeroAttr(bits))
                  .getResult());
          Value loaded = guard.getResult(0);
          if (storage != bits)
            loaded = arith::BitcastOp::create(rewriter, op.getLoc(), storage,
                                              loaded);
          elements.push_back(loaded);
          continue;
        }
        Value element = memref::LoadOp::create(rewriter, op.getLoc(), memref,
                                               ValueRange{address});
        if (valid) {
          Value zero = arith::ConstantOp::create(rewriter, op.getLoc(),
                                                 rewriter.getZeroAttr(storage));
          element = arith::SelectOp::create(rewriter, op.getLoc(), valid,
                                            element, zero);
        }
        elements.push_back(element);
      }
      packedElements.push_back(b.pack(*layout, elements));
    }
    replaceWithSlots(rewriter, op, *layout, packedElements);
    return success();
  }
};

/// Each invocation decodes its own elements: the body runs once per slot
/// inside the tensor, with the slot's tensor position.
struct DecodeLoadLowering : IntelPattern<DecodeLoadOp> {
  using IntelPattern::IntelPattern;

  LogicalResult
  matchAndRewrite(DecodeLoadOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<InvocationLayout> layout = getLayout(op, op.getType());
    if (failed(layout))
      return failure();
    Location loc = op.getLoc();
    InvocationBuilder b(rewriter, loc, emulated);
    Type storage = getStorageType(layout->component);
    // The element leaves the guard as bits, as a bounded load's does.
    Type bits = rewriter.getIntegerType(storage.getIntOrFloatBitWidth());
    SmallVector<Value> position =
        getSingleValues({adaptor.getRow(), adaptor.getColumn(),
                         adaptor.getRows(), adaptor.getColumns()});
    Value firstRow = position[0], firstColumn = position[1];
    SmallVector<Value> tensorBounds = {position[2], position[3]};
    SmallVector<Value> packedElements;
    for (unsigned p = 0; p < layout->packedCount; ++p) {
      SmallVector<Value> elements;
      for (unsigned s = 0; s < layout->elementsPerPacked; ++s) {
        auto [row, column, valid] = b.locate(*layout, p, s);
        Value tensorRow = arith::AddIOp::create(rewriter, loc, firstRow, row);
        Value tensorColumn =
            arith::AddIOp::create(rewriter, loc, firstColumn, column);
        Value inside = isAccessible(rewriter, loc, tensorBounds, tensorRow,
                                    tensorColumn, valid);
        auto guard = scf::IfOp::create(rewriter, loc, bits, inside,
                                       /*withElseRegion=*/true);
        OpBuilder thenBuilder = guard.getThenBodyBuilder();
        IRMapping mapping;
        mapping.map(op.getTensorRow(), tensorRow);
        mapping.map(op.getTensorColumn(), tensorColumn);
        for (Operation &inner : op.getBodyBlock().without_terminator())
          thenBuilder.clone(inner, mapping);
        Value element = mapping.lookupOrDefault(op.getYieldedValue());
        if (element.getType() != bits)
          element = arith::BitcastOp::create(thenBuilder, loc, bits, element);
        scf::YieldOp::create(thenBuilder, loc, element);
        OpBuilder elseBuilder = guard.getElseBodyBuilder();
        scf::YieldOp::create(
            elseBuilder, loc,
            arith::ConstantOp::create(elseBuilder, loc,
                                      elseBuilder.getZeroAttr(bits))
                .getResult());
        Value decoded = guard.getResult(0);
        if (storage != bits)
          decoded = arith::BitcastOp::create(rewriter, loc, storage, decoded);
        elements.push_back(decoded);
      }
      packedElements.push_back(b.pack(*layout, elements));
    }
    replaceWithSlots(rewriter, op, *layout, packedElements);
    return success();
  }
};

struct StoreLowering : IntelPattern<StoreOp> {
  using IntelPattern::IntelPattern;

  LogicalResult
  matchAndRewrite(StoreOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<MatrixAccess> access = getMatrixAccess(
        *this, op, op.getValue().getType(), adaptor.getTarget(),
        getSingleValues(adaptor.getIndices()), adaptor.getStride(), rewriter);
    if (failed(access))
      return failure();
    const InvocationLayout *layout = &access->layout;
    Value memref = access->memref, base = access->base, stride = access->stride;
    InvocationBuilder b(rewriter, op.getLoc(), emulated);
    Location loc = op.getLoc();
    SmallVector<Value> slots = getSlots(rewriter, loc, adaptor.getValue());
    SmallVector<Value> bounds = getSingleValues(adaptor.getBounds());
    if (bounds.empty() && hasContiguousColumns(*layout, op.getColMajor())) {
      // As in LoadLowering: a vector store per run of rows.
      auto vectorType =
          VectorType::get({kEmulatedAccessWidth}, layout->packedElement);
      forEachColumnRun(
          b, *layout, base, stride, [&](Value address, unsigned firstSlot) {
            Value run = vector::FromElementsOp::create(
                rewriter, loc, vectorType,
                ArrayRef(slots).slice(firstSlot, kEmulatedAccessWidth));
            vector::StoreOp::create(rewriter, loc, run, memref, address);
          });
      rewriter.eraseOp(op);
      return success();
    }
    for (unsigned p = 0; p < layout->packedCount; ++p) {
      Value packed = slots[p];
      for (unsigned s = 0; s < layout->elementsPerPacked; ++s) {
        auto [row, column, valid] = b.locate(*layout, p, s);
        Value address = access->getAddress(rewriter, loc, row, column);
        Value element = b.unpack(*layout, packed, s);
        valid = isAccessible(rewriter, loc, bounds, row, column, valid);
        if (!valid) {
          memref::StoreOp::create(rewriter, loc, element, memref,
                                  ValueRange{address});
          continue;
        }
        auto guard = scf::IfOp::create(rewriter, loc, valid,
                                       /*withElseRegion=*/false);
        OpBuilder::InsertionGuard insertion(rewriter);
        rewriter.setInsertionPoint(guard.thenBlock()->getTerminator());
        memref::StoreOp::create(rewriter, loc, element, memref,
                                ValueRange{address});
      }
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct SplatLowering : IntelPattern<SplatOp> {
  using IntelPattern::IntelPattern;

  LogicalResult
  matchAndRewrite(SplatOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<InvocationLayout> layout = getLayout(op, op.getType());
    if (failed(layout))
      return failure();
    InvocationBuilder b(rewriter, op.getLoc(), emulated);
    Value element = scalarToComponent(
        rewriter, op.getLoc(), adaptor.getValue().front(), layout->component);
    SmallVector<Value> copies(layout->elementsPerPacked, element);
    Value packed = b.pack(*layout, copies);
    if (emulated) {
      replaceWithSlots(rewriter, op, *layout,
                       SmallVector<Value>(layout->packedCount, packed));
      return success();
    }
    rewriter.replaceOpWithNewOp<vector::BroadcastOp>(
        op, layout->getVectorType(), packed);
    return success();
  }
};

} // namespace

namespace {
/// OpenCL's `__spirv_ControlBarrier(Subgroup, Subgroup, AcquireRelease |
/// WorkgroupMemory)`, which LLVM's SPIR-V backend emits as OpControlBarrier.
/// (Emulated kernels keep the op for the Vulkan lowering.)
struct SubgroupBarrierLowering : OpConversionPattern<SubgroupBarrierOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SubgroupBarrierOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto module = op->getParentOfType<gpu::GPUModuleOp>();
    if (!module)
      return rewriter.notifyMatchFailure(op, "not in a gpu.module");
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type();
    constexpr int32_t subgroupScope = 3;
    constexpr int32_t acquireReleaseWorkgroupMemory = 0x8 | 0x100;
    SmallVector<Value> operands;
    for (int32_t value :
         {subgroupScope, subgroupScope, acquireReleaseWorkgroupMemory})
      operands.push_back(
          arith::ConstantIntOp::create(rewriter, loc, i32, value));
    func::FuncOp barrier = getOrDeclareBuiltin(
        rewriter, module, "_Z22__spirv_ControlBarrierjjj", {i32, i32, i32}, {});
    rewriter.replaceOpWithNewOp<func::CallOp>(op, barrier, operands);
    return success();
  }
};
} // namespace

void mlir::subgroup_matrix::per_invocation::populateMemoryPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns,
    unsigned subgroupSize, bool emulated) {
  patterns.add<LoadLowering, DecodeLoadLowering, StoreLowering, SplatLowering>(
      converter, patterns.getContext(), subgroupSize, emulated);
  if (!emulated)
    patterns.add<SubgroupBarrierLowering>(converter, patterns.getContext());
}
