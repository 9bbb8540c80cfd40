//===- ConvolutionsAsContractions.cpp - implicit GEMM on tensors ----------===//
//
// Part of the sm-normalize-contractions stage: every convolution on tensors
// (a named op of any layout, or a generic whose input map windows the
// image) becomes a contraction whose first input is the gathered window,
// the "im2col" matrix, written as a linalg.generic that copies the input
// through the convolution's own map. The contraction is then an ordinary
// one, which the stage brings to matrix form like any other; once
// bufferized, the contraction kernel runs the gathering generic as it
// stages tiles of A, so the gathered matrix never exists in memory.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Contraction/Contraction.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::subgroup_matrix;

/// The loops of the gathered matrix, in the order its dimensions hold
/// them: loops the filter and output share (groups), then the output's own
/// (batch and output image) in the output's order, then the filter's own
/// (window and input channels) in the filter's order. The contraction then
/// reads the filter and writes the output without transposing them.
static std::optional<SmallVector<unsigned>>
getGatheredLoops(AffineMap input, AffineMap filter, AffineMap output) {
  llvm::SmallDenseSet<unsigned> read;
  for (unsigned loop = 0; loop < input.getNumDims(); ++loop)
    if (input.isFunctionOfDim(loop))
      read.insert(loop);
  auto inFilter = [&](unsigned loop) { return filter.isFunctionOfDim(loop); };
  auto inOutput = [&](unsigned loop) { return output.isFunctionOfDim(loop); };
  SmallVector<unsigned> shared, outputOnly, filterOnly;
  for (AffineExpr expr : output.getResults()) {
    unsigned loop = cast<AffineDimExpr>(expr).getPosition();
    if (read.contains(loop))
      (inFilter(loop) ? shared : outputOnly).push_back(loop);
  }
  for (AffineExpr expr : filter.getResults()) {
    unsigned loop = cast<AffineDimExpr>(expr).getPosition();
    if (read.contains(loop) && !inOutput(loop))
      filterOnly.push_back(loop);
  }
  // A loop only the input reads would be summed over outside the product.
  if (shared.size() + outputOnly.size() + filterOnly.size() != read.size() ||
      outputOnly.empty() || filterOnly.empty())
    return std::nullopt;
  SmallVector<unsigned> loops = shared;
  llvm::append_range(loops, outputOnly);
  llvm::append_range(loops, filterOnly);
  return loops;
}

/// Builds, before the convolution `op` (a generic), the contraction over
/// the gathered window that computes the same; fails, building nothing,
/// when it is not one.
static FailureOr<linalg::GenericOp> buildContraction(RewriterBase &rewriter,
                                                     linalg::GenericOp op) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap inputMap = maps[0], filterMap = maps[1];
  // A quantized convolution's zero points are scalars after the filter,
  // its output last.
  bool quantized = op.getNumDpsInputs() == 4;
  AffineMap outputMap = maps.back();
  Block &body = op.getRegion().front();
  if (!filterMap.isProjectedPermutation() ||
      !outputMap.isProjectedPermutation() || inputMap.getNumSymbols() ||
      !llvm::all_of(inputMap.getResults(), isComputableIndex) ||
      !(quantized ? isQuantizedMultiplyAccumulateBody(body)
                  : isMultiplyAccumulateBody(body)))
    return failure();
  // Output channels: loops of the filter and the output the input does not
  // read. Without them the product has no N (a depthwise convolution).
  bool hasOutputChannels = llvm::any_of(
      llvm::seq<unsigned>(0, op.getNumLoops()), [&](unsigned loop) {
        return filterMap.isFunctionOfDim(loop) &&
               outputMap.isFunctionOfDim(loop) &&
               !inputMap.isFunctionOfDim(loop);
      });
  std::optional<SmallVector<unsigned>> gathered =
      getGatheredLoops(inputMap, filterMap, outputMap);
  SmallVector<int64_t> loopSizes = op.getStaticLoopRanges();
  if (!hasOutputChannels || !gathered ||
      llvm::any_of(loopSizes, ShapedType::isDynamic))
    return failure();

  Location loc = op.getLoc();
  MLIRContext *context = op.getContext();
  rewriter.setInsertionPoint(op);
  // The gathering generic: one loop per dimension of the gathered matrix,
  // reading the input through the convolution's map restated on them.
  SmallVector<int64_t> shape;
  SmallVector<AffineExpr> renamed(op.getNumLoops(),
                                  getAffineConstantExpr(0, context));
  for (auto [position, loop] : llvm::enumerate(*gathered)) {
    shape.push_back(loopSizes[loop]);
    renamed[loop] = getAffineDimExpr(position, context);
  }
  Value input = op.getDpsInputs()[0];
  Type element = cast<RankedTensorType>(input.getType()).getElementType();
  Value empty = tensor::EmptyOp::create(rewriter, loc, shape, element);
  AffineMap gatherMap =
      inputMap.replaceDimsAndSymbols(renamed, {}, gathered->size(), 0);
  auto gather = linalg::GenericOp::create(
      rewriter, loc, empty.getType(), ValueRange{input}, ValueRange{empty},
      ArrayRef<AffineMap>{gatherMap,
                          rewriter.getMultiDimIdentityMap(gathered->size())},
      SmallVector<utils::IteratorType>(gathered->size(),
                                       utils::IteratorType::parallel),
      [](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        linalg::YieldOp::create(nested, nestedLoc, args[0]);
      });

  // The contraction of the gathered matrix with the filter.
  SmallVector<AffineExpr> gatheredDims;
  for (unsigned loop : *gathered)
    gatheredDims.push_back(getAffineDimExpr(loop, context));
  maps[0] = AffineMap::get(op.getNumLoops(), 0, gatheredDims, context);
  SmallVector<Value> inputs = op.getDpsInputs();
  inputs[0] = gather.getResult(0);
  auto contraction = linalg::GenericOp::create(
      rewriter, loc, op->getResultTypes(), inputs, op.getDpsInits(), maps,
      op.getIteratorTypesArray());
  rewriter.cloneRegionBefore(op.getRegion(), contraction.getRegion(),
                             contraction.getRegion().end());
  return contraction;
}

/// Whether sm-unit-convolutions-to-contractions takes `op` over: it views
/// the buffers of a 1x1 convolution with unit strides as matrices, which
/// needs no gathering.
static bool isViewedLater(linalg::LinalgOp op) {
  auto isUnit = [](DenseIntElementsAttr values) {
    return llvm::all_of(values, [](const APInt &v) { return v.isOne(); });
  };
  auto filterIsOneByOne = [&](unsigned first) {
    auto type = cast<ShapedType>(op.getDpsInputs()[1].getType());
    return type.getDimSize(first) == 1 && type.getDimSize(first + 1) == 1;
  };
  if (auto conv = dyn_cast<linalg::Conv2DNhwcHwcfOp>(op.getOperation()))
    return isUnit(conv.getStrides()) && isUnit(conv.getDilations()) &&
           filterIsOneByOne(0);
  if (auto conv = dyn_cast<linalg::Conv2DNchwFchwOp>(op.getOperation()))
    return isUnit(conv.getStrides()) && isUnit(conv.getDilations()) &&
           filterIsOneByOne(2);
  return false;
}

void mlir::subgroup_matrix::rewriteConvolutionsAsContractions(ModuleOp module) {
  SmallVector<linalg::LinalgOp> convolutions;
  module.walk([&](linalg::LinalgOp op) {
    // Two inputs, or a quantized convolution's four (two zero points).
    bool hasZeroPoints =
        op.getNumDpsInputs() == 4 &&
        llvm::none_of(llvm::drop_begin(op.getDpsInputs(), 2), [](Value zero) {
          return isa<ShapedType>(zero.getType());
        });
    if (op.hasPureTensorSemantics() &&
        (op.getNumDpsInputs() == 2 || hasZeroPoints) &&
        op.getNumDpsInits() == 1 && !op.hasIndexSemantics() &&
        op->getNumRegions() == 1 && !op->getParentOfType<gpu::GPUModuleOp>() &&
        linalg::isaConvolutionOpInterface(op) && !isViewedLater(op))
      convolutions.push_back(op);
  });
  IRRewriter rewriter(module.getContext());
  for (linalg::LinalgOp op : convolutions) {
    rewriter.setInsertionPoint(op);
    auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
    if (!generic) {
      Operation *copy = rewriter.clone(*op);
      FailureOr<linalg::GenericOp> generalized =
          linalg::generalizeNamedOp(rewriter, cast<linalg::LinalgOp>(copy));
      if (failed(generalized)) {
        rewriter.eraseOp(copy);
        continue;
      }
      generic = *generalized;
    }
    FailureOr<linalg::GenericOp> contraction =
        buildContraction(rewriter, generic);
    if (generic != op)
      rewriter.eraseOp(generic);
    // A convolution this cannot rewrite stays as it was, for the kernel
    // stages to report in its own spelling.
    if (succeeded(contraction))
      rewriter.replaceOp(op, (*contraction)->getResults());
  }
}
