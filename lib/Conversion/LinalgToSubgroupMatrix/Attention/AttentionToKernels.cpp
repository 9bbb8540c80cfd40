//===- AttentionToKernels.cpp - sm-attention-to-kernels -------------------===//
//
// sm-attention-to-kernels: every attention (softmax(f(Q K^T)) V) with a
// plan becomes one FlashAttention kernel; a softmax outside attention is
// decomposed into the row group the element-wise stage makes a kernel.
//
//===----------------------------------------------------------------------===//

#include "KernelStages.h"

#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Attention/Attention.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Attention/DecodeAttention.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Contraction/Contraction.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Contraction/TileMatmul.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Elementwise/ElementwiseKernel.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Elementwise/RowGroupKernel.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Planning/TilingPlan.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Planning/TuningTable.h"
#include "SubgroupMatrix/Conversion/Passes.h"
#include "SubgroupMatrix/IR/TargetPresets.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir {
namespace subgroup_matrix {
#define GEN_PASS_DEF_ATTENTIONTOKERNELSPASS
#include "SubgroupMatrix/Conversion/Passes.h.inc"
} // namespace subgroup_matrix
} // namespace mlir

using namespace mlir;
using namespace mlir::subgroup_matrix;

/// max, the sum of the shifted exponentials, and their quotient, which
/// computes the exponentials again rather than keeping them in a buffer:
/// the row group that becomes one kernel (a softmax inside attention is
/// fused instead).
static LogicalResult decomposeSoftmax(RewriterBase &rewriter,
                                      linalg::SoftmaxOp softmax) {
  Location loc = softmax.getLoc();
  Value input = softmax.getInput(), output = softmax.getOutput();
  auto type = dyn_cast<MemRefType>(input.getType());
  if (!type || !isa<MemRefType>(output.getType()))
    return softmax.emitOpError("cannot be put on the GPU: it works on "
                               "tensors"),
           failure();
  auto elementType = dyn_cast<FloatType>(type.getElementType());
  if (!elementType)
    return softmax.emitOpError("cannot be put on the GPU: its elements are "
                               "not floats"),
           failure();
  int64_t rank = type.getRank(), dimension = softmax.getDimension();
  MLIRContext *context = rewriter.getContext();
  rewriter.setInsertionPoint(softmax);
  // The reduced buffer: the input's shape without `dimension`.
  SmallVector<int64_t> reducedShape;
  SmallVector<Value> reducedSizes;
  SmallVector<AffineExpr> reducedExprs;
  for (int64_t d = 0; d < rank; ++d) {
    if (d == dimension)
      continue;
    reducedShape.push_back(type.getDimSize(d));
    reducedExprs.push_back(getAffineDimExpr(d, context));
    if (type.isDynamicDim(d))
      reducedSizes.push_back(memref::DimOp::create(rewriter, loc, input, d));
  }
  auto reducedType = MemRefType::get(reducedShape, elementType);
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, context);
  AffineMap reduced = AffineMap::get(rank, 0, reducedExprs, context);
  SmallVector<utils::IteratorType> reducing(rank,
                                            utils::IteratorType::parallel);
  reducing[dimension] = utils::IteratorType::reduction;
  SmallVector<utils::IteratorType> parallel(rank,
                                            utils::IteratorType::parallel);
  auto constant = [&](OpBuilder &b, double value) {
    return arith::ConstantOp::create(b, loc,
                                     FloatAttr::get(elementType, value));
  };
  Value maxima =
      memref::AllocOp::create(rewriter, loc, reducedType, reducedSizes);
  Value sums =
      memref::AllocOp::create(rewriter, loc, reducedType, reducedSizes);
  // The lowest finite value rather than -inf starts the maximum, so that
  // a row of -inf gives exp(-inf - m) = 0, never NaN.
  Value lowest = arith::ConstantOp::create(
      rewriter, loc,
      FloatAttr::get(elementType,
                     APFloat::getLargest(elementType.getFloatSemantics(),
                                         /*Negative=*/true)));
  linalg::FillOp::create(rewriter, loc, ValueRange{lowest}, ValueRange{maxima});
  linalg::GenericOp::create(
      rewriter, loc, ValueRange{input}, ValueRange{maxima},
      ArrayRef<AffineMap>{identity, reduced}, reducing,
      [](OpBuilder &b, Location loc, ValueRange args) {
        linalg::YieldOp::create(
            b, loc, Value(arith::MaximumFOp::create(b, loc, args[0], args[1])));
      });
  linalg::FillOp::create(rewriter, loc, ValueRange{constant(rewriter, 0.0)},
                         ValueRange{sums});
  linalg::GenericOp::create(
      rewriter, loc, ValueRange{input, maxima}, ValueRange{sums},
      ArrayRef<AffineMap>{identity, reduced, reduced}, reducing,
      [](OpBuilder &b, Location loc, ValueRange args) {
        Value shifted = arith::SubFOp::create(b, loc, args[0], args[1]);
        Value exponential = math::ExpOp::create(b, loc, shifted);
        linalg::YieldOp::create(
            b, loc, Value(arith::AddFOp::create(b, loc, exponential, args[2])));
      });
  linalg::GenericOp::create(
      rewriter, loc, ValueRange{input, maxima, sums}, ValueRange{output},
      ArrayRef<AffineMap>{identity, reduced, reduced, identity}, parallel,
      [](OpBuilder &b, Location loc, ValueRange args) {
        Value shifted = arith::SubFOp::create(b, loc, args[0], args[1]);
        Value exponential = math::ExpOp::create(b, loc, shifted);
        linalg::YieldOp::create(
            b, loc, Value(arith::DivFOp::create(b, loc, exponential, args[2])));
      });
  memref::DeallocOp::create(rewriter, loc, maxima);
  memref::DeallocOp::create(rewriter, loc, sums);
  rewriter.eraseOp(softmax);
  return success();
}

namespace {
struct AttentionToKernelsPass
    : public subgroup_matrix::impl::AttentionToKernelsPassBase<
          AttentionToKernelsPass> {
  using AttentionToKernelsPassBase::AttentionToKernelsPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<TargetAttr> target = getProgramTarget(module, targetName);
    if (failed(target))
      return signalPassFailure();
    ProgramKernels kernels(module, *target);
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::SoftmaxOp> softmaxOps;
    module.walk([&](linalg::SoftmaxOp op) {
      if (isOnHost(op))
        softmaxOps.push_back(op);
    });
    for (linalg::SoftmaxOp op : softmaxOps) {
      std::optional<Attention> attention = matchAttention(op);
      // A few queries: the decode kernels, planned here where no plan was
      // attached (this stage run alone).
      auto decodeAttr = op->getAttrOfType<DecodeAttentionPlanAttr>(
          SubgroupMatrixDialect::getPlanAttrName());
      if (decodeAttr && !attention) {
        op.emitOpError("has a decode attention plan but is not the softmax "
                       "of an attention these kernels compute");
        return signalPassFailure();
      }
      std::optional<DecodeAttentionPlan> decode;
      if (decodeAttr)
        decode = DecodeAttentionPlan::get(decodeAttr);
      else if (attention &&
               !op->hasAttr(SubgroupMatrixDialect::getPlanAttrName()))
        decode = planDecodeAttention(*attention, *target);
      if (decode) {
        std::string name = kernels.nextName("attention");
        if (report)
          for (Operation *fused : attention->ops)
            reportKernel(fused, fused == op ? "became" : "fused into", name,
                         "the keys of a few queries split over workgroups, "
                         "their runs combined by '" +
                             name + "_combine'");
        if (failed(emitDecodeAttentionKernels(rewriter, *attention, *target,
                                              *decode, kernels.get(), name)))
          return signalPassFailure();
        continue;
      }
      auto attr = op->getAttrOfType<AttentionPlanAttr>(
          SubgroupMatrixDialect::getPlanAttrName());
      if (attr && !attention) {
        op.emitOpError("has an attention plan but is not the softmax of an "
                       "attention this kernel computes");
        return signalPassFailure();
      }
      // An attention without a plan (this stage run alone) is planned with
      // the target's defaults; where they do not fit, its ops become
      // kernels of their own.
      FailureOr<AttentionPlan> plan = failure();
      if (attr) {
        plan = AttentionPlan::get(attr);
        if (failed(checkAttentionPlan(*attention, *target, *plan)))
          return signalPassFailure();
      } else if (attention) {
        plan = planAttention(*attention, *target, AttentionTiling(),
                             /*report=*/false);
      }
      if (failed(plan)) {
        if (report)
          op->emitRemark("not one attention kernel: ")
              << (attention ? "no attention tiling fits the target"
                            : "it is not the softmax of scores that are "
                              "multiplied by values")
              << "; its exponentials, sums and quotient become element-wise "
                 "kernels";
        if (failed(decomposeSoftmax(rewriter, op)))
          return signalPassFailure();
        continue;
      }
      std::string name = kernels.nextName("attention");
      if (report)
        for (Operation *fused : attention->ops)
          reportKernel(fused, fused == op ? "became" : "fused into", name,
                       "the scores, their softmax and its product with the "
                       "values in one flash-attention kernel, keys in "
                       "blocks, the scores never stored");
      if (failed(emitAttentionKernel(rewriter, *attention, *target, *plan,
                                     kernels.get(), name)))
        return signalPassFailure();
    }
  }
};
} // namespace
