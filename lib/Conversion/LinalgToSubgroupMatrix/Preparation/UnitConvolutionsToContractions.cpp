//===- UnitConvolutionsToContractions.cpp - 1x1 convolutions as products --===//
//===//
//
// sm-unit-convolutions-to-contractions: 1x1 convolutions with unit strides
// on buffers as matrix products over collapsed views of the same buffers.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Attention/Attention.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Contraction/Contraction.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Contraction/TileMatmul.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Elementwise/ElementwiseKernel.h"
#include "SubgroupMatrix/Conversion/Passes.h"
#include "SubgroupMatrix/IR/TargetPresets.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotModuleBufferize.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace subgroup_matrix {
#define GEN_PASS_DEF_UNITCONVOLUTIONSTOCONTRACTIONSPASS
#include "SubgroupMatrix/Conversion/Passes.h.inc"
} // namespace subgroup_matrix
} // namespace mlir

using namespace mlir;
using namespace mlir::subgroup_matrix;

/// `loops` iterators, all parallel but the last, the reduction.
static SmallVector<utils::IteratorType> reductionLast(unsigned loops) {
  SmallVector<utils::IteratorType> iterators(loops,
                                             utils::IteratorType::parallel);
  iterators.back() = utils::IteratorType::reduction;
  return iterators;
}

/// A view of `buffer` with its dimensions grouped as `groups`.
static Value collapse(OpBuilder &builder, Location loc, Value buffer,
                      ArrayRef<ReassociationIndices> groups) {
  return memref::CollapseShapeOp::create(builder, loc, buffer, groups);
}

/// Whether a convolution's strides and dilations are all 1.
template <typename ConvOp> static bool hasUnitStridesAndDilations(ConvOp conv) {
  return llvm::all_of(conv.getStrides(),
                      [](const APInt &v) { return v.isOne(); }) &&
         llvm::all_of(conv.getDilations(),
                      [](const APInt &v) { return v.isOne(); });
}

/// Rewrites 1x1 convolutions with unit strides into matrix products over
/// views of the same buffers; reports the others.
static LogicalResult rewriteUnitConvolutions(ModuleOp module) {
  bool failed = false;
  SmallVector<Operation *> convolutions;
  module.walk([&](Operation *op) {
    if (isa<linalg::Conv2DNhwcHwcfOp, linalg::Conv2DNchwFchwOp>(op) &&
        !op->getParentOfType<gpu::GPUModuleOp>())
      convolutions.push_back(op);
  });
  for (Operation *op : convolutions) {
    auto linalgOp = cast<linalg::LinalgOp>(op);
    Value input = linalgOp.getDpsInputs()[0];
    Value filter = linalgOp.getDpsInputs()[1];
    Value output = linalgOp.getDpsInits()[0];
    auto filterType = dyn_cast<MemRefType>(filter.getType());
    auto inputType = dyn_cast<MemRefType>(input.getType());
    auto outputType = dyn_cast<MemRefType>(output.getType());
    if (!filterType || !inputType || !outputType) {
      op->emitOpError("cannot be put on the GPU: its operands are not "
                      "buffers (the program was not bufferized)");
      failed = true;
      continue;
    }
    // Convolutions on tensors at static sizes became implicit GEMMs before
    // bufferization; what reaches here was on buffers, or has dynamic
    // sizes. Only a dense 1x1 convolution with unit strides is a matrix
    // product of views of its buffers; any other stays, for the
    // element-wise stage to compute as what it is, a sum over its window
    // per output element (dynamic sizes included).
    bool dense = llvm::all_of(
        ArrayRef<MemRefType>{inputType, filterType, outputType},
        [](MemRefType type) {
          return type.hasStaticShape() && type.getLayout().isIdentity();
        });
    bool nhwc = isa<linalg::Conv2DNhwcHwcfOp>(op);
    bool unitStrides =
        nhwc ? hasUnitStridesAndDilations(cast<linalg::Conv2DNhwcHwcfOp>(op))
             : hasUnitStridesAndDilations(cast<linalg::Conv2DNchwFchwOp>(op));
    ArrayRef<int64_t> filterShape = filterType.getShape();
    int64_t kh = nhwc ? filterShape[0] : filterShape[2];
    int64_t kw = nhwc ? filterShape[1] : filterShape[3];
    if (!dense || kh != 1 || kw != 1 || !unitStrides)
      continue;
    OpBuilder builder(op);
    Location loc = op->getLoc();
    MLIRContext *context = op->getContext();
    // A constant fill of the output before moves onto the view, so that
    // the kernel takes it over as its initial accumulator.
    linalg::FillOp fill = getFillBefore(op, output);
    auto refill = [&](Value view) {
      if (!fill)
        return;
      linalg::FillOp::create(builder, fill.getLoc(), fill.getDpsInputs(),
                             ValueRange{view});
      fill->erase();
    };
    AffineExpr d0, d1, d2, d3;
    bindDims(context, d0, d1, d2, d3);
    if (nhwc) {
      // (N*H*W) x C times C x F into (N*H*W) x F.
      Value a = collapse(builder, loc, input, {{0, 1, 2}, {3}});
      Value b = collapse(builder, loc, filter, {{0, 1, 2}, {3}});
      Value c = collapse(builder, loc, output, {{0, 1, 2}, {3}});
      refill(c);
      AffineMap mapA = AffineMap::get(3, 0, {d0, d2}, context);
      AffineMap mapB = AffineMap::get(3, 0, {d2, d1}, context);
      AffineMap mapC = AffineMap::get(3, 0, {d0, d1}, context);
      buildContractionGeneric(builder, loc, a, b, c, {mapA, mapB, mapC},
                              reductionLast(3));
    } else {
      // Per image: F x C times C x (H*W) into F x (H*W); the filter is
      // shared by the batch.
      Value a = collapse(builder, loc, filter, {{0}, {1, 2, 3}});
      Value b = collapse(builder, loc, input, {{0}, {1}, {2, 3}});
      Value c = collapse(builder, loc, output, {{0}, {1}, {2, 3}});
      refill(c);
      AffineMap mapA = AffineMap::get(4, 0, {d1, d3}, context);
      AffineMap mapB = AffineMap::get(4, 0, {d0, d3, d2}, context);
      AffineMap mapC = AffineMap::get(4, 0, {d0, d1, d2}, context);
      buildContractionGeneric(builder, loc, a, b, c, {mapA, mapB, mapC},
                              reductionLast(4));
    }
    op->erase();
  }
  return failure(failed);
}

namespace {
struct UnitConvolutionsToContractionsPass
    : public subgroup_matrix::impl::UnitConvolutionsToContractionsPassBase<
          UnitConvolutionsToContractionsPass> {
  using UnitConvolutionsToContractionsPassBase::
      UnitConvolutionsToContractionsPassBase;

  void runOnOperation() override {
    if (failed(rewriteUnitConvolutions(getOperation())))
      signalPassFailure();
  }
};
} // namespace
