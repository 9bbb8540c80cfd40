//===- RobustAccess.cpp - bounds-checked matrix loads and stores ----------===//

#include "SubgroupMatrix/Transforms/RobustAccess.h"

#include "SubgroupMatrix/Transforms/Checks.h"

#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"
#include "SubgroupMatrix/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace mlir {
namespace subgroup_matrix {
#define GEN_PASS_DEF_ROBUSTACCESSPASS
#include "SubgroupMatrix/Transforms/Passes.h.inc"
} // namespace subgroup_matrix
} // namespace mlir

using namespace mlir;
using namespace mlir::subgroup_matrix;

namespace {
/// Builds the bounds check of one load or store.
class BoundsCheckBuilder {
public:
  BoundsCheckBuilder(OpBuilder &builder, Location loc)
      : builder(builder), loc(loc) {}

  Value constant(int64_t value) {
    return arith::ConstantIndexOp::create(builder, loc, value);
  }

  /// Whether a matrix whose element [0, 0] is `offset` elements into a
  /// memref of `length` elements, with `major` rows (or columns) of `minor`
  /// elements `stride` apart, lies inside it:
  ///   offset + stride * (major - 1) + minor <= length.
  /// Unsigned and rearranged so that no intermediate value overflows; a
  /// negative offset or stride reads as a huge unsigned value and fails.
  Value inBounds(Value offset, Value length, Value stride, int64_t major,
                 int64_t minor) {
    auto ule = [&](Value a, Value b) {
      return arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ule, a,
                                   b);
    };
    Value fits = ule(offset, length);
    Value available = arith::SubIOp::create(builder, loc, length, offset);
    Value minorFits = ule(constant(minor), available);
    Value ok = arith::AndIOp::create(builder, loc, fits, minorFits);
    if (major > 1) {
      Value rest =
          arith::SubIOp::create(builder, loc, available, constant(minor));
      Value maxStride =
          arith::DivUIOp::create(builder, loc, rest, constant(major - 1));
      ok = arith::AndIOp::create(builder, loc, ok, ule(stride, maxStride));
    }
    return ok;
  }

private:
  OpBuilder &builder;
  Location loc;
};
} // namespace

/// The linear offset of the element at `indices` and the length of
/// `memref`, both in elements; fails for memrefs it cannot bound.
static LogicalResult getOffsetAndLength(Operation *op, Value memref,
                                        ValueRange indices,
                                        gpu::GPUFuncOp kernel, Value &lengths,
                                        OpBuilder &builder, Value &offset,
                                        Value &length) {
  Location loc = op->getLoc();
  auto type = cast<MemRefType>(memref.getType());
  SmallVector<int64_t> strides;
  int64_t staticOffset;
  if (failed(type.getStridesAndOffset(strides, staticOffset)) ||
      staticOffset != 0 || llvm::is_contained(strides, ShapedType::kDynamic))
    return op->emitOpError("robust access needs a memref with static strides "
                           "and no offset, got ")
           << type;
  offset = arith::ConstantIndexOp::create(builder, loc, 0);
  for (auto [index, stride] : llvm::zip(indices, strides)) {
    Value scaled = arith::MulIOp::create(
        builder, loc, index,
        arith::ConstantIndexOp::create(builder, loc, stride));
    offset = arith::AddIOp::create(builder, loc, offset, scaled);
  }
  if (type.hasStaticShape()) {
    length =
        arith::ConstantIndexOp::create(builder, loc, type.getNumElements());
    return success();
  }
  // A runtime-sized buffer: its length comes from the lengths argument.
  auto argument = dyn_cast<BlockArgument>(memref);
  if (!argument || argument.getOwner() != &kernel.getBody().front() ||
      argument.getArgNumber() >= kernel.getNumArguments())
    return op->emitOpError("robust access needs a runtime-sized memref to be "
                           "a kernel argument, whose length the kernel is "
                           "given");
  if (!lengths) {
    unsigned position = kernel.getNumArguments();
    auto lengthsType =
        MemRefType::get({ShapedType::kDynamic}, builder.getI32Type());
    if (failed(
            kernel.insertArgument(position, lengthsType, {}, kernel.getLoc())))
      return failure();
    lengths = kernel.getArgument(position);
  }
  Value element =
      memref::LoadOp::create(builder, loc, lengths,
                             ValueRange{arith::ConstantIndexOp::create(
                                 builder, loc, argument.getArgNumber())});
  length = arith::IndexCastUIOp::create(builder, loc, builder.getIndexType(),
                                        element);
  return success();
}

LogicalResult
mlir::subgroup_matrix::addRobustAccessGuards(gpu::GPUFuncOp kernel) {
  SmallVector<Operation *> accesses;
  kernel.walk([&](Operation *op) {
    if (isa<LoadOp, StoreOp>(op))
      accesses.push_back(op);
  });
  Value lengths;
  for (Operation *op : accesses) {
    OpBuilder builder(op);
    Location loc = op->getLoc();
    BoundsCheckBuilder checks(builder, loc);
    auto guard = [&](Value memref, ValueRange indices, Value stride,
                     SubgroupMatrixTypeInterface matrix,
                     bool colMajor) -> Value {
      Value offset, length;
      if (failed(getOffsetAndLength(op, memref, indices, kernel, lengths,
                                    builder, offset, length)))
        return {};
      int64_t rows = matrix.getRows(), columns = matrix.getColumns();
      return checks.inBounds(offset, length, stride, colMajor ? columns : rows,
                             colMajor ? rows : columns);
    };
    if (auto load = dyn_cast<LoadOp>(op)) {
      Value inBounds =
          guard(load.getSource(), load.getIndices(), load.getStride(),
                load.getMatrixType(), load.getColMajor());
      if (!inBounds)
        return failure();
      Type matrixType = load.getType();
      Type scalarType = getScalarType(load.getMatrixType().getElementType());
      auto ifOp = scf::IfOp::create(builder, loc, matrixType, inBounds,
                                    /*withElseRegion=*/true);
      OpBuilder thenBuilder = ifOp.getThenBodyBuilder();
      Operation *moved = thenBuilder.clone(*op);
      scf::YieldOp::create(thenBuilder, loc, moved->getResults());
      OpBuilder elseBuilder = ifOp.getElseBodyBuilder();
      Value zero = arith::ConstantOp::create(
          elseBuilder, loc, elseBuilder.getZeroAttr(scalarType));
      Value zeros = SplatOp::create(elseBuilder, loc, matrixType, zero);
      scf::YieldOp::create(elseBuilder, loc, zeros);
      op->replaceAllUsesWith(ifOp.getResults());
      op->erase();
      continue;
    }
    auto store = cast<StoreOp>(op);
    Value inBounds =
        guard(store.getTarget(), store.getIndices(), store.getStride(),
              store.getMatrixType(), store.getColMajor());
    if (!inBounds)
      return failure();
    auto ifOp = scf::IfOp::create(builder, loc, TypeRange(), inBounds,
                                  /*withElseRegion=*/false);
    op->moveBefore(ifOp.thenBlock()->getTerminator());
  }
  return success();
}

namespace {
struct RobustAccessPass
    : public subgroup_matrix::impl::RobustAccessPassBase<RobustAccessPass> {
  void runOnOperation() override {
    // Emulated kernels were guarded before their matrices were taken apart.
    for (gpu::GPUModuleOp kernels : getModulesBeingLowered(getOperation())) {
      WalkResult result = kernels.walk([](gpu::GPUFuncOp function) {
        if (function.isKernel() && !isEmulated(function) &&
            failed(addRobustAccessGuards(function)))
          return WalkResult::interrupt();
        return WalkResult::advance();
      });
      if (result.wasInterrupted())
        return signalPassFailure();
    }
  }
};
} // namespace
