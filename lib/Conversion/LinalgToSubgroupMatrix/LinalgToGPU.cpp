//===- LinalgToGPU.cpp - a linalg program made ready for kernels ----------===//
//
// The first stages of sm-linalg-to-gpu, the graph-compiler entry: batch
// loops folded, the program bufferized and its shapes checked, 1x1
// convolutions made matrix products. KernelStages.cpp holds the stages
// after them, which plan and make the kernels.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Attention.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Contraction.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/ElementwiseKernel.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/TileMatmul.h"
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
#define GEN_PASS_DEF_WARNUNINITIALIZEDREDUCTIONSPASS
#define GEN_PASS_DEF_FOLDBATCHLOOPSPASS
#define GEN_PASS_DEF_BUFFERIZEPROGRAMPASS
#define GEN_PASS_DEF_INSERTSHAPECHECKSPASS
#define GEN_PASS_DEF_UNITCONVOLUTIONSTOCONTRACTIONSPASS
#include "SubgroupMatrix/Conversion/Passes.h.inc"
} // namespace subgroup_matrix
} // namespace mlir

using namespace mlir;
using namespace mlir::subgroup_matrix;

/// Folds two leading batch loops (batch and heads, as attention written on
/// 4-D tensors has them) into one, on tensors: linalg.generics whose first
/// two loops are parallel and appear together (or not at all) in every
/// indexing map, and linalg.softmax over a later dimension, become their
/// 3-D forms between reshapes, which then cancel between neighbours. The
/// kernels take one batch dimension (the grid's z or y).
static LogicalResult foldLeadingBatchLoops(ModuleOp module) {
  SmallVector<Operation *> candidates;
  module.walk([&](Operation *op) {
    if (auto generic = dyn_cast<linalg::GenericOp>(op)) {
      // (Upstream's collapse takes maps of loops and zeros only.)
      bool readsByLoops =
          llvm::all_of(generic.getIndexingMapsArray(), [](AffineMap map) {
            return map.isProjectedPermutation(/*allowZeroInResults=*/true);
          });
      if (generic.hasPureTensorSemantics() && readsByLoops &&
          generic.getNumLoops() >= 4 &&
          generic.getIteratorTypesArray()[0] == utils::IteratorType::parallel &&
          generic.getIteratorTypesArray()[1] == utils::IteratorType::parallel &&
          linalg::areDimSequencesPreserved(generic.getIndexingMapsArray(),
                                           ReassociationIndices{0, 1}))
        candidates.push_back(op);
      return;
    }
    if (auto softmax = dyn_cast<linalg::SoftmaxOp>(op))
      if (auto type = dyn_cast<RankedTensorType>(softmax.getInput().getType()))
        if (type.getRank() == 4 && softmax.getDimension() >= 2)
          candidates.push_back(op);
  });
  if (candidates.empty())
    return success();
  IRRewriter rewriter(module.getContext());
  for (Operation *op : candidates) {
    rewriter.setInsertionPoint(op);
    if (auto softmax = dyn_cast<linalg::SoftmaxOp>(op)) {
      SmallVector<ReassociationIndices> folded = {{0, 1}, {2}, {3}};
      Location loc = softmax.getLoc();
      Value input = tensor::CollapseShapeOp::create(rewriter, loc,
                                                    softmax.getInput(), folded);
      Value init = tensor::CollapseShapeOp::create(rewriter, loc,
                                                   softmax.getOutput(), folded);
      auto collapsed =
          linalg::SoftmaxOp::create(rewriter, loc, init.getType(), input, init,
                                    softmax.getDimension() - 1);
      Value result = tensor::ExpandShapeOp::create(
          rewriter, loc, softmax.getResult()[0].getType(),
          collapsed.getResult()[0], folded);
      rewriter.replaceOp(softmax, result);
      continue;
    }
    auto generic = cast<linalg::GenericOp>(op);
    SmallVector<ReassociationIndices> folded = {{0, 1}};
    for (int64_t loop = 2; loop < generic.getNumLoops(); ++loop)
      folded.push_back({loop});
    FailureOr<linalg::CollapseResult> collapsed =
        linalg::collapseOpIterationDims(generic, folded, rewriter);
    if (failed(collapsed))
      return generic.emitOpError(
          "cannot fold its two leading batch loops into one");
    rewriter.replaceOp(generic, collapsed->results);
  }
  return foldReshapedFills(module);
}

LogicalResult mlir::subgroup_matrix::foldReshapedFills(ModuleOp module) {
  MLIRContext *context = module.getContext();
  RewritePatternSet patterns(context);
  linalg::FillOp::getCanonicalizationPatterns(patterns, context);
  linalg::TransposeOp::getCanonicalizationPatterns(patterns, context);
  tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
  tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
  tensor::populateFoldTensorEmptyPatterns(patterns);
  return applyPatternsGreedily(module, std::move(patterns));
}

/// Bufferizes tensors, with every buffer at a function boundary dense and
/// row-major (the layout kernels take).
static LogicalResult bufferize(ModuleOp module) {
  bool hasTensors = false;
  module.walk([&](Operation *op) {
    hasTensors |=
        llvm::any_of(op->getOperandTypes(), llvm::IsaPred<TensorType>) ||
        llvm::any_of(op->getResultTypes(), llvm::IsaPred<TensorType>);
  });
  if (!hasTensors)
    return success();
  // Element-wise arith and math ops on whole tensors (an `arith.extsi` of a
  // weight) become the linalg.generic they are, which bufferizes and which
  // the kernels fuse like any other.
  RewritePatternSet patterns(module.getContext());
  linalg::populateElementwiseToLinalgConversionPatterns(patterns);
  if (failed(applyPatternsGreedily(module, std::move(patterns))))
    return module.emitError("element-wise ops on tensors did not become "
                            "linalg.generic"),
           failure();
  bufferization::OneShotBufferizationOptions options;
  options.bufferizeFunctionBoundaries = true;
  options.setFunctionBoundaryTypeConversion(
      bufferization::LayoutMapOption::IdentityLayoutMap);
  options.unknownTypeConverterFn =
      [](TensorType type, Attribute memorySpace,
         const bufferization::BufferizationOptions &) {
        return bufferization::getMemRefTypeWithStaticIdentityLayout(
            type, memorySpace);
      };
  bufferization::BufferizationState state;
  return bufferization::runOneShotModuleBufferize(module, options, state);
}

/// A one-element view of the rank-0 `buffer`, made where the buffer is, so
/// that a kernel launched before its user (a fused epilogue) sees it.
static Value getScalarView(OpBuilder &builder, Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointAfterValue(buffer);
  return memref::ExpandShapeOp::create(
      builder, loc,
      MemRefType::get({1}, type.getElementType(), AffineMap(),
                      type.getMemorySpace()),
      buffer, ArrayRef<ReassociationIndices>{},
      ArrayRef<OpFoldResult>{builder.getIndexAttr(1)});
}

static bool isScalarBuffer(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  return memref && memref.getRank() == 0;
}

void mlir::subgroup_matrix::viewScalarsAsVectors(ModuleOp module) {
  SmallVector<linalg::LinalgOp> ops;
  module.walk([&](linalg::LinalgOp op) {
    if (op->getParentOfType<gpu::GPUModuleOp>() || !op.hasPureBufferSemantics())
      return;
    bool loadsScalar = false;
    op->getRegion(0).walk([&](memref::LoadOp load) {
      loadsScalar |=
          isScalarBuffer(load.getMemRef().getType()) &&
          !op->getRegion(0).isAncestor(load.getMemRef().getParentRegion());
    });
    if (loadsScalar || llvm::any_of(op->getOperandTypes(), isScalarBuffer))
      ops.push_back(op);
  });
  IRRewriter rewriter(module.getContext());
  for (linalg::LinalgOp linalgOp : ops) {
    // A named op (linalg.dot into a rank-0 C) is rewritten as its generic.
    auto op = dyn_cast<linalg::GenericOp>(linalgOp.getOperation());
    if (!op) {
      rewriter.setInsertionPoint(linalgOp);
      FailureOr<linalg::GenericOp> generalized =
          linalg::generalizeNamedOp(rewriter, linalgOp);
      if (failed(generalized))
        continue;
      op = *generalized;
    }
    OpBuilder builder(op);
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    for (OpOperand &operand : op->getOpOperands()) {
      if (!isScalarBuffer(operand.get().getType()))
        continue;
      operand.set(getScalarView(builder, op.getLoc(), operand.get()));
      AffineMap &map = maps[operand.getOperandNumber()];
      map = AffineMap::get(map.getNumDims(), 0,
                           builder.getAffineConstantExpr(0), op.getContext());
    }
    op.setIndexingMapsAttr(builder.getAffineMapArrayAttr(maps));
    // Loads in the body from scalars outside (a kernel's gathers) read the
    // view's element 0.
    SmallVector<memref::LoadOp> loads;
    op.getRegion().walk([&](memref::LoadOp load) {
      if (isScalarBuffer(load.getMemRef().getType()) &&
          !op.getRegion().isAncestor(load.getMemRef().getParentRegion()))
        loads.push_back(load);
    });
    for (memref::LoadOp load : loads) {
      Value view = getScalarView(builder, load.getLoc(), load.getMemRef());
      rewriter.setInsertionPoint(load);
      Value zero = arith::ConstantIndexOp::create(rewriter, load.getLoc(), 0);
      rewriter.replaceOpWithNewOp<memref::LoadOp>(load, view, ValueRange{zero});
    }
  }
}

/// Whether `buffer` is a view of an argument of its function: an array the
/// caller passes, whose shape nothing in the program sets.
static bool isViewOfArgument(Value buffer) {
  while (Operation *def = buffer.getDefiningOp()) {
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view)
      return false;
    buffer = view.getViewSource();
  }
  return true;
}

/// Asserts on the host, before each linalg op whose operands spell one loop
/// with dynamic sizes, that the caller's arrays agree on it: kernels read
/// each size off one operand only, so disagreeing arrays would otherwise be
/// read and written past their ends. Buffers the program allocates are
/// sized by the program itself (and a use of one here would keep a fill
/// from folding into the product that follows it).
static void insertShapeChecks(ModuleOp module) {
  SmallVector<linalg::LinalgOp> ops;
  module.walk([&](linalg::LinalgOp op) {
    if (op.hasPureBufferSemantics() && op.hasDynamicShape())
      ops.push_back(op);
  });
  for (linalg::LinalgOp op : ops) {
    // Each loop's first (operand, dimension) that spells it.
    DenseMap<unsigned, std::pair<OpOperand *, unsigned>> firstSpelling;
    // The checks go where the arrays are first all defined (the start of the
    // function, for its arguments), not between the op and its neighbours:
    // a fill before a product and an epilogue after it fold into its kernel
    // only when nothing comes between them. The runtime evaluates the whole
    // host function before it runs anything, so an early check is as good.
    OpBuilder builder = OpBuilder::atBlockBegin(op->getBlock());
    Operation *latestDefinition = nullptr;
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (!def || !isViewOfArgument(operand))
        continue;
      if (def->getBlock() != op->getBlock()) {
        // A view made in an enclosing region: checked right before the op.
        builder.setInsertionPoint(op);
        break;
      }
      if (!latestDefinition || latestDefinition->isBeforeInBlock(def)) {
        latestDefinition = def;
        builder.setInsertionPointAfter(def);
      }
    }
    Location loc = op.getLoc();
    auto sizeOf = [&](OpOperand *operand, unsigned dim) -> Value {
      auto type = cast<MemRefType>(operand->get().getType());
      if (!type.isDynamicDim(dim))
        return arith::ConstantIndexOp::create(builder, loc,
                                              type.getDimSize(dim));
      return memref::DimOp::create(builder, loc, operand->get(), dim);
    };
    for (OpOperand &operand : op->getOpOperands()) {
      auto type = dyn_cast<MemRefType>(operand.get().getType());
      if (!type || !isViewOfArgument(operand.get()))
        continue;
      AffineMap map = op.getMatchingIndexingMap(&operand);
      for (auto [dim, expr] : llvm::enumerate(map.getResults())) {
        auto loop = dyn_cast<AffineDimExpr>(expr);
        if (!loop)
          continue;
        auto [found, inserted] = firstSpelling.try_emplace(
            loop.getPosition(), &operand, unsigned(dim));
        if (inserted)
          continue;
        auto [first, firstDim] = found->second;
        auto firstType = cast<MemRefType>(first->get().getType());
        if (!firstType.isDynamicDim(firstDim) && !type.isDynamicDim(dim))
          continue;
        Value agree = arith::CmpIOp::create(
            builder, loc, arith::CmpIPredicate::eq, sizeOf(first, firstDim),
            sizeOf(&operand, dim));
        std::string message;
        llvm::raw_string_ostream os(message);
        os << "the shapes of the arrays disagree: dimension " << dim
           << " of operand " << operand.getOperandNumber() << " (" << type
           << ") and dimension " << firstDim << " of operand "
           << first->getOperandNumber() << " (" << firstType
           << ") are the same loop of '" << op->getName() << "'";
        cf::AssertOp::create(builder, loc, agree, message);
      }
    }
  }
}

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
struct WarnUninitializedReductionsPass
    : public subgroup_matrix::impl::WarnUninitializedReductionsPassBase<
          WarnUninitializedReductionsPass> {
  void runOnOperation() override {
    getOperation().walk(
        [](linalg::LinalgOp op) {
          if (!op.getNumReductionLoops() || !op.hasPureTensorSemantics())
            return;
          for (OpOperand &init : op.getDpsInitsMutable()) {
            if (!init.get().getDefiningOp<tensor::EmptyOp>() ||
                !op.payloadUsesValueFromOperand(&init))
              continue;
            op->emitWarning()
                << "'" << op->getName() << "' op reduces into output "
                << op.getIndexingMapIndex(&init) - op.getNumDpsInputs()
                << ", a tensor.empty() whose values are undefined: the result "
                   "depends on what its memory held (fill it first, with "
                   "linalg.fill)";
          }
        });
  }
};

struct FoldBatchLoopsPass
    : public subgroup_matrix::impl::FoldBatchLoopsPassBase<FoldBatchLoopsPass> {
  using FoldBatchLoopsPassBase::FoldBatchLoopsPassBase;

  void runOnOperation() override {
    if (failed(foldLeadingBatchLoops(getOperation())))
      signalPassFailure();
  }
};

struct BufferizeProgramPass
    : public subgroup_matrix::impl::BufferizeProgramPassBase<
          BufferizeProgramPass> {
  using BufferizeProgramPassBase::BufferizeProgramPassBase;

  void runOnOperation() override {
    if (failed(bufferize(getOperation())))
      return signalPassFailure();
    viewScalarsAsVectors(getOperation());
  }
};

struct InsertShapeChecksPass
    : public subgroup_matrix::impl::InsertShapeChecksPassBase<
          InsertShapeChecksPass> {
  using InsertShapeChecksPassBase::InsertShapeChecksPassBase;

  void runOnOperation() override { insertShapeChecks(getOperation()); }
};

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
