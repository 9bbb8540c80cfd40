//===- BufferizeProgram.cpp - sm-bufferize-program ------------------------===//
//
// sm-bufferize-program: one-shot bufferization into dense row-major buffers,
// the layout kernels take, and rank-0 buffers viewed as one-element vectors.
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
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/IR/Iterators.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace subgroup_matrix {
#define GEN_PASS_DEF_BUFFERIZEPROGRAMPASS
#include "SubgroupMatrix/Conversion/Passes.h.inc"
} // namespace subgroup_matrix
} // namespace mlir

using namespace mlir;
using namespace mlir::subgroup_matrix;

namespace {
/// memref.dim of a memref.collapse_shape: the product of the dimensions it
/// collapsed, where one of them is dynamic.
struct DimOfCollapseShape : OpRewritePattern<memref::DimOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(memref::DimOp dim,
                                PatternRewriter &rewriter) const override {
    auto collapse = dim.getSource().getDefiningOp<memref::CollapseShapeOp>();
    std::optional<int64_t> index = dim.getConstantIndex();
    if (!collapse || !index || *index < 0 ||
        *index >= int64_t(collapse.getReassociationIndices().size()))
      return failure();
    MemRefType source = collapse.getSrcType();
    std::optional<int64_t> dynamicDim;
    int64_t staticProduct = 1;
    for (int64_t d : collapse.getReassociationIndices()[*index]) {
      if (!source.isDynamicDim(d)) {
        staticProduct *= source.getDimSize(d);
      } else if (dynamicDim) {
        return failure();
      } else {
        dynamicDim = d;
      }
    }
    if (!dynamicDim)
      return failure();
    Location loc = dim.getLoc();
    Value size =
        memref::DimOp::create(rewriter, loc, collapse.getSrc(), *dynamicDim);
    if (staticProduct != 1)
      size = arith::MulIOp::create(
          rewriter, loc, size,
          arith::ConstantIndexOp::create(rewriter, loc, staticProduct));
    rewriter.replaceOp(dim, size);
    return success();
  }
};
} // namespace

/// Sizes read off the results of ops, views and new buffers (the sizes of
/// the tensors and buffers of dynamic shape that the earlier stages and
/// bufferization make) are read off the arguments the program was given
/// instead, and what is then unused goes: so that a value, a view or the
/// buffer behind it has no users but the ops that compute or move its
/// elements (a kernel that reads through them, attention through the copies
/// of K and V, can replace them; a fill kept only for its size is no
/// kernel).
static LogicalResult resolveDimensions(ModuleOp module) {
  SmallVector<Operation *> dims;
  module.walk([&](Operation *op) {
    if (isa<tensor::DimOp, memref::DimOp>(op) &&
        !op->getParentOfType<gpu::GPUModuleOp>())
      dims.push_back(op);
  });
  if (dims.empty())
    return success();
  MLIRContext *context = module.getContext();
  RewritePatternSet patterns(context);
  memref::populateResolveRankedShapedTypeResultDimsPatterns(patterns);
  memref::DimOp::getCanonicalizationPatterns(patterns, context);
  tensor::DimOp::getCanonicalizationPatterns(patterns, context);
  tensor::EmptyOp::getCanonicalizationPatterns(patterns, context);
  patterns.add<DimOfCollapseShape>(context);
  if (failed(applyOpPatternsGreedily(dims, std::move(patterns))))
    return failure();
  bool erased = true;
  while (erased) {
    erased = false;
    module.walk<WalkOrder::PostOrder, ReverseIterator>([&](Operation *op) {
      bool onValues =
          isa<tensor::DimOp, memref::DimOp>(op) ||
          llvm::any_of(op->getResultTypes(), llvm::IsaPred<TensorType>);
      if (onValues && isOpTriviallyDead(op)) {
        op->erase();
        erased = true;
      }
    });
  }
  return success();
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
    return resolveDimensions(module);
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
  // Upstream's bufferization of linalg.softmax builds the new op without its
  // discardable attributes, which would drop a plan written by hand; each
  // softmax is replaced where it was, so walk order pairs them up again.
  SmallVector<DictionaryAttr> softmaxAttributes;
  module.walk([&](linalg::SoftmaxOp op) {
    softmaxAttributes.push_back(op->getDiscardableAttrDictionary());
  });
  if (failed(resolveDimensions(module)))
    return failure();
  bufferization::BufferizationState state;
  if (failed(bufferization::runOneShotModuleBufferize(module, options, state)))
    return failure();
  SmallVector<linalg::SoftmaxOp> softmaxOps;
  module.walk([&](linalg::SoftmaxOp op) { softmaxOps.push_back(op); });
  if (softmaxOps.size() == softmaxAttributes.size())
    for (auto [op, attributes] : llvm::zip(softmaxOps, softmaxAttributes))
      if (!attributes.empty())
        op->setDiscardableAttrs(attributes);
  return resolveDimensions(module);
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

namespace {
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
} // namespace
