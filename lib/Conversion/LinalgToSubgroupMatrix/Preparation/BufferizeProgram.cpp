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
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
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
  // Upstream's bufferization of linalg.softmax builds the new op without its
  // discardable attributes, which would drop a plan written by hand; each
  // softmax is replaced where it was, so walk order pairs them up again.
  SmallVector<DictionaryAttr> softmaxAttributes;
  module.walk([&](linalg::SoftmaxOp op) {
    softmaxAttributes.push_back(op->getDiscardableAttrDictionary());
  });
  bufferization::BufferizationState state;
  if (failed(bufferization::runOneShotModuleBufferize(module, options, state)))
    return failure();
  SmallVector<linalg::SoftmaxOp> softmaxOps;
  module.walk([&](linalg::SoftmaxOp op) { softmaxOps.push_back(op); });
  if (softmaxOps.size() == softmaxAttributes.size())
    for (auto [op, attributes] : llvm::zip(softmaxOps, softmaxAttributes))
      if (!attributes.empty())
        op->setDiscardableAttrs(attributes);
  return success();
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
