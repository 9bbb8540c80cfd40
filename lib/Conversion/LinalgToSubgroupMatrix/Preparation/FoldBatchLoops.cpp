//===- FoldBatchLoops.cpp - sm-fold-batch-loops ---------------------------===//
//
// sm-fold-batch-loops: the leading batch loops (batch, heads, groups of
// heads) folded into one, on tensors, for kernels that take one batch
// dimension.
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
#define GEN_PASS_DEF_FOLDBATCHLOOPSPASS
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
/// Reads each input of `generic` that has size-1 dimensions broadcast over
/// its loops (zeros among its map's results, as torch-mlir writes a
/// [1, 1, queries, keys] mask: `(b, h, i, j) -> (0, 0, i, j)`) through a
/// collapse of those dimensions, with a map of loops only: upstream's
/// collapse of loops takes no such map. Returns whether it changed any.
static bool readBroadcastUnitDimensionsCollapsed(linalg::GenericOp generic,
                                                 RewriterBase &rewriter) {
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  bool changed = false;
  for (OpOperand *input : generic.getDpsInputOperands()) {
    AffineMap map = maps[input->getOperandNumber()];
    auto type = dyn_cast<RankedTensorType>(input->get().getType());
    if (!type || !type.hasStaticShape())
      continue;
    SmallVector<AffineExpr> kept;
    SmallVector<ReassociationIndices> groups;
    ReassociationIndices pending;
    for (auto [i, result] : llvm::enumerate(map.getResults())) {
      pending.push_back(i);
      auto constant = dyn_cast<AffineConstantExpr>(result);
      if (constant && constant.getValue() == 0 && type.getDimSize(i) == 1)
        continue;
      kept.push_back(result);
      groups.push_back(pending);
      pending.clear();
    }
    if (kept.size() == map.getNumResults())
      continue;
    // Trailing dropped dimensions join the last group (none: a scalar).
    if (!pending.empty() && !groups.empty())
      llvm::append_range(groups.back(), pending);
    rewriter.setInsertionPoint(generic);
    Value collapsed = tensor::CollapseShapeOp::create(
        rewriter, generic.getLoc(), input->get(), groups);
    rewriter.modifyOpInPlace(generic, [&] { input->set(collapsed); });
    maps[input->getOperandNumber()] =
        AffineMap::get(map.getNumDims(), 0, kept, map.getContext());
    changed = true;
  }
  if (changed)
    rewriter.modifyOpInPlace(generic, [&] {
      generic.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
    });
  return changed;
}

/// The ops of an attention around `softmax`: the element-wise steps back
/// to the product of its scores, and forward to the product with V.
static llvm::DenseSet<Operation *> getAttentionOps(linalg::SoftmaxOp softmax) {
  llvm::DenseSet<Operation *> ops;
  auto type = softmax.getInput().getType();
  Operation *producer = softmax.getInput().getDefiningOp();
  while (auto generic = dyn_cast_or_null<linalg::GenericOp>(producer)) {
    ops.insert(generic);
    if (generic.getNumReductionLoops() != 0)
      break;
    // Back along the scores (the input of their shape).
    producer = nullptr;
    for (Value input : generic.getDpsInputs())
      if (input.getType() == type)
        producer = input.getDefiningOp();
  }
  SmallVector<Value> results = {softmax.getResult()[0]};
  while (!results.empty()) {
    Value result = results.pop_back_val();
    for (Operation *user : result.getUsers()) {
      auto generic = dyn_cast<linalg::GenericOp>(user);
      if (!generic || !ops.insert(generic).second)
        continue;
      if (generic.getNumReductionLoops() == 0)
        results.push_back(generic->getResult(0));
    }
  }
  return ops;
}

/// The ops of every attention whose softmax still has two batch loops
/// before its rows, the softmaxes among them.
static llvm::DenseSet<Operation *> getOpsOfBatchedAttentions(ModuleOp module) {
  llvm::DenseSet<Operation *> ops;
  module.walk([&](linalg::SoftmaxOp softmax) {
    if (softmax.getInputOperandRank() < 4 || softmax.getDimension() < 2)
      return;
    ops.insert(softmax);
    for (Operation *op : getAttentionOps(softmax))
      ops.insert(op);
  });
  return ops;
}

/// Reads each input of `generic`, an attention product or score step
/// (getAttentionOps), that is broadcast over the heads loop (K and V of
/// multi-query attention, `(b, h, j, d) -> (b, j, d)`; a [batch, keys] mask)
/// through a copy repeated over the heads, so that the two batch loops fold as
/// they do for Q, the scores and the softmax; the attention kernel reads K and
/// V through the copy (as it reads grouped heads repeated), and the scores and
/// the softmax keep one batch of heads instead of the product folding the heads
/// into its rows. Returns whether it changed any.
static bool repeatInputsOverHeads(linalg::GenericOp generic,
                                  RewriterBase &rewriter,
                                  SmallVectorImpl<Operation *> &copies) {
  if (generic.getNumDpsInits() != 1 ||
      ShapedType::isDynamic(generic.getStaticLoopRanges()[1]))
    return false;
  MLIRContext *context = generic.getContext();
  AffineExpr batch = getAffineDimExpr(0, context),
             heads = getAffineDimExpr(1, context);
  bool changed = false;
  for (OpOperand *input : generic.getDpsInputOperands()) {
    AffineMap map = generic.getMatchingIndexingMap(input);
    auto type = dyn_cast<RankedTensorType>(input->get().getType());
    std::optional<unsigned> batchResult = map.getResultPosition(batch);
    if (!type || !type.hasStaticShape() || !batchResult ||
        map.getResultPosition(heads) || !map.isProjectedPermutation())
      continue;
    // The repeated copy: the heads' dimension right after the batch's.
    SmallVector<AffineExpr> results(map.getResults());
    results.insert(results.begin() + *batchResult + 1, heads);
    SmallVector<int64_t> shape(type.getShape());
    shape.insert(shape.begin() + *batchResult + 1,
                 generic.getStaticLoopRanges()[1]);
    Location loc = generic.getLoc();
    rewriter.setInsertionPoint(generic);
    Value init =
        tensor::EmptyOp::create(rewriter, loc, shape, type.getElementType());
    unsigned rank = shape.size();
    SmallVector<AffineExpr> source;
    for (unsigned dim = 0; dim < rank; ++dim)
      if (dim != *batchResult + 1)
        source.push_back(getAffineDimExpr(dim, context));
    SmallVector<AffineMap> copyMaps = {
        AffineMap::get(rank, 0, source, context),
        AffineMap::getMultiDimIdentityMap(rank, context)};
    auto copy = linalg::GenericOp::create(
        rewriter, loc, init.getType(), ValueRange{input->get()},
        ValueRange{init}, copyMaps,
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [](OpBuilder &b, Location loc, ValueRange args) {
          linalg::YieldOp::create(b, loc, args[0]);
        });
    copies.push_back(copy);
    SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
    maps[input->getOperandNumber()] =
        AffineMap::get(map.getNumDims(), 0, results, context);
    rewriter.modifyOpInPlace(generic, [&] {
      input->set(copy.getResult(0));
      generic.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
    });
    changed = true;
  }
  return changed;
}

/// One round of the fold: every op with two leading batch loops (of
/// `allowed`, where given) loses one; returns whether any did.
static FailureOr<bool>
foldTwoLeadingBatchLoops(ModuleOp module,
                         const llvm::DenseSet<Operation *> *allowed) {
  IRRewriter rewriter(module.getContext());
  auto isAllowed = [&](Operation *op) {
    return !allowed || allowed->contains(op);
  };
  module.walk([&](linalg::GenericOp generic) {
    if (generic.hasPureTensorSemantics() && generic.getNumLoops() >= 4 &&
        isAllowed(generic))
      readBroadcastUnitDimensionsCollapsed(generic, rewriter);
  });
  llvm::DenseSet<Operation *> attentionOps = getOpsOfBatchedAttentions(module);
  SmallVector<Operation *> repeats;
  module.walk([&](linalg::GenericOp generic) {
    // Attention's products (batch, heads, queries, keys or values, and
    // the reduction) and its element-wise steps on the scores (an additive
    // mask of [batch, keys], as BERT's is).
    bool product =
        generic.getNumLoops() >= 5 && generic.getNumReductionLoops() == 1;
    bool step =
        generic.getNumLoops() >= 4 && generic.getNumReductionLoops() == 0;
    if (isAllowed(generic) && attentionOps.contains(generic) &&
        generic.hasPureTensorSemantics() && (product || step) &&
        generic.getIteratorTypesArray()[0] == utils::IteratorType::parallel &&
        generic.getIteratorTypesArray()[1] == utils::IteratorType::parallel)
      repeatInputsOverHeads(generic, rewriter, repeats);
  });
  SmallVector<Operation *> candidates;
  module.walk([&](Operation *op) {
    if (!isAllowed(op) && !llvm::is_contained(repeats, op))
      return;
    if (auto generic = dyn_cast<linalg::GenericOp>(op)) {
      // (Upstream's collapse takes maps of loops and zeros only, and zeros
      // only where the op reads: it crashes on an output that keeps a
      // reduced dimension of one, torch's keepdim.)
      bool readsByLoops =
          llvm::all_of(generic.getIndexingMapsArray(),
                       [](AffineMap map) {
                         return map.isProjectedPermutation(
                             /*allowZeroInResults=*/true);
                       }) &&
          llvm::all_of(generic.getDpsInitsMutable(), [&](OpOperand &init) {
            return generic.getMatchingIndexingMap(&init).isProjectedPermutation(
                /*allowZeroInResults=*/false);
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
        if (type.getRank() >= 4 && softmax.getDimension() >= 2)
          candidates.push_back(op);
  });
  if (candidates.empty())
    return false;
  for (Operation *op : candidates) {
    rewriter.setInsertionPoint(op);
    if (auto softmax = dyn_cast<linalg::SoftmaxOp>(op)) {
      SmallVector<ReassociationIndices> folded = {{0, 1}};
      for (int64_t dim = 2; dim < softmax.getInputOperandRank(); ++dim)
        folded.push_back({dim});
      Location loc = softmax.getLoc();
      Value input = tensor::CollapseShapeOp::create(rewriter, loc,
                                                    softmax.getInput(), folded);
      Value init = tensor::CollapseShapeOp::create(rewriter, loc,
                                                   softmax.getOutput(), folded);
      auto collapsed =
          linalg::SoftmaxOp::create(rewriter, loc, init.getType(), input, init,
                                    softmax.getDimension() - 1);
      // A plan written by hand stays with the op.
      collapsed->setDiscardableAttrs(softmax->getDiscardableAttrDictionary());
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
    collapsed->collapsedOp->setDiscardableAttrs(
        generic->getDiscardableAttrDictionary());
    rewriter.replaceOp(generic, collapsed->results);
  }
  if (failed(foldReshapedFills(module)))
    return failure();
  return true;
}

/// Folds until every op has at most one batch loop before its rows: a
/// grouped attention as JAX writes it (batch, key-value heads, queries per
/// head) takes two rounds.
static LogicalResult foldLeadingBatchLoops(ModuleOp module) {
  FailureOr<bool> folded = foldTwoLeadingBatchLoops(module, nullptr);
  // Attentions that still have two batch loops (three at first: JAX's
  // grouped einsum) fold again, their ops alone: other ops folded once (a
  // copy repeating key-value heads, say) stay as the matcher reads them.
  for (int round = 1; round < 4 && succeeded(folded) && *folded; ++round) {
    llvm::DenseSet<Operation *> allowed = getOpsOfBatchedAttentions(module);
    if (allowed.empty())
      break;
    folded = foldTwoLeadingBatchLoops(module, &allowed);
  }
  return failure(failed(folded));
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

namespace {
struct FoldBatchLoopsPass
    : public subgroup_matrix::impl::FoldBatchLoopsPassBase<FoldBatchLoopsPass> {
  using FoldBatchLoopsPassBase::FoldBatchLoopsPassBase;

  void runOnOperation() override {
    if (failed(foldLeadingBatchLoops(getOperation())))
      signalPassFailure();
  }
};
} // namespace
