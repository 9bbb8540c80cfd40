//===- NormalizeContractions.cpp - contractions as one matrix product -----===//
//
// The stage of sm-linalg-to-gpu that brings every contraction on tensors,
// however a front-end spells it, to the one form the contraction kernels
// index: at most one batch, one M, N and K loop, operands [m, k] / [k, m],
// [k, n] / [n, k] and [m, n] after the batch. Loops of one role become one
// dimension through reshapes (views once bufferized); operands whose loops
// are not grouped are transposed first.
//
// Before that, what front-ends write around contractions is tidied on
// tensors (after FuseElementwise.cpp merged element-wise chains): a batch
// of one a matmul, a shared fill one per product;
// convolutions become contractions (ConvolutionsAsContractions.cpp) and
// quantized products the stored product plus corrections
// (QuantizedMatmuls.cpp). After it, element-wise ops that read a product
// through a reshape are collapsed onto it, so that they fuse.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Contraction/Contraction.h"
#include "SubgroupMatrix/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace subgroup_matrix {
#define GEN_PASS_DEF_NORMALIZECONTRACTIONSPASS
#include "SubgroupMatrix/Conversion/Passes.h.inc"
} // namespace subgroup_matrix
} // namespace mlir

using namespace mlir;
using namespace mlir::subgroup_matrix;

/// `loops` in the order `map` indexes with them.
static SmallVector<unsigned> orderAsIndexed(AffineMap map,
                                            ArrayRef<unsigned> loops) {
  SmallVector<unsigned> ordered;
  for (AffineExpr expr : map.getResults())
    if (auto dim = dyn_cast<AffineDimExpr>(expr))
      if (llvm::is_contained(loops, dim.getPosition()))
        ordered.push_back(dim.getPosition());
  return ordered;
}

/// The op that `value` is a copy of another tensor by, with its dimensions
/// permuted or broadcast (linalg.transpose, linalg.broadcast, or a generic
/// that does the same), when nothing else reads the copy.
static linalg::LinalgOp getFoldableCopy(Value value) {
  auto copy = value.getDefiningOp<linalg::LinalgOp>();
  if (!copy || !copy.hasPureTensorSemantics() || !value.hasOneUse() ||
      copy.getNumDpsInputs() != 1 || copy.getNumDpsInits() != 1 ||
      copy.getNumLoops() != copy.getNumParallelLoops() ||
      copy.hasIndexSemantics() || copy->getNumRegions() != 1)
    return {};
  SmallVector<AffineMap> maps = copy.getIndexingMapsArray();
  if (!maps[1].isIdentity() || !maps[0].isProjectedPermutation())
    return {};
  Block &body = copy->getRegion(0).front();
  Operation *yield = body.getTerminator();
  if (body.getOperations().size() != 1 || yield->getNumOperands() != 1 ||
      yield->getOperand(0) != body.getArgument(0))
    return {};
  return copy;
}

namespace {
/// How one operand is brought to its matrix form: its loops grouped by
/// role (batch, then the two matrix dimensions in the order the kernel
/// reads them), transposed when they were not, each group collapsed into
/// one dimension, and a unit dimension for a role without loops.
class MatrixView {
public:
  MatrixView(ArrayRef<unsigned> indexedLoops,
             ArrayRef<SmallVector<unsigned>> groups)
      : groups(groups) {
    for (ArrayRef<unsigned> group : groups)
      for (unsigned loop : group)
        permutation.push_back(llvm::find(indexedLoops, loop) -
                              indexedLoops.begin());
  }

  /// The operand as a tensor of rank `groups.size()` (or one less, with no
  /// batch).
  Value build(OpBuilder &builder, Location loc, Value operand) {
    grouped = operand;
    if (!isIdentityPermutation()) {
      SmallVector<OpFoldResult> sizes =
          tensor::getMixedSizes(builder, loc, operand);
      SmallVector<OpFoldResult> permuted;
      for (int64_t position : permutation)
        permuted.push_back(sizes[position]);
      Value empty = tensor::EmptyOp::create(
          builder, loc, permuted, getElementTypeOrSelf(operand.getType()));
      grouped =
          linalg::TransposeOp::create(builder, loc, operand, empty, permutation)
              .getResult()[0];
    }
    // Groups with loops become one dimension each.
    int64_t next = 0;
    for (ArrayRef<unsigned> group : groups) {
      if (group.empty())
        continue;
      collapsed.push_back(llvm::to_vector(
          llvm::seq<int64_t>(next, next + int64_t(group.size()))));
      next += group.size();
    }
    Value matrix = grouped;
    if (int64_t(collapsed.size()) != next)
      matrix =
          tensor::CollapseShapeOp::create(builder, loc, grouped, collapsed);
    else
      collapsed.clear();
    // A role without loops (the N of a matrix-vector product) is a unit
    // dimension, grouped with the next dimension that has loops (or the
    // last one).
    bool hasUnitDims =
        llvm::any_of(llvm::drop_begin(groups),
                     [](ArrayRef<unsigned> g) { return g.empty(); });
    if (!hasUnitDims)
      return matrix;
    auto type = cast<RankedTensorType>(matrix.getType());
    SmallVector<OpFoldResult> matrixSizes =
        tensor::getMixedSizes(builder, loc, matrix);
    SmallVector<int64_t> shape;
    SmallVector<OpFoldResult> sizes;
    expanded.assign(type.getRank(), {});
    ReassociationIndices pendingUnits;
    int64_t source = 0;
    for (auto [index, group] : llvm::enumerate(groups)) {
      if (index == 0 && group.empty())
        continue;
      int64_t target = shape.size();
      if (group.empty()) {
        shape.push_back(1);
        sizes.push_back(builder.getIndexAttr(1));
        pendingUnits.push_back(target);
        continue;
      }
      shape.push_back(type.getDimSize(source));
      sizes.push_back(matrixSizes[source]);
      llvm::append_range(expanded[source], pendingUnits);
      expanded[source].push_back(target);
      pendingUnits.clear();
      ++source;
    }
    llvm::append_range(expanded.back(), pendingUnits);
    return tensor::ExpandShapeOp::create(
        builder, loc, RankedTensorType::get(shape, type.getElementType()),
        matrix, expanded, sizes);
  }

  /// The inverse of `build` on a result of the matrix form's type, given
  /// the operand `build` took (for its sizes).
  Value restore(OpBuilder &builder, Location loc, Value matrix, Value operand) {
    Value value = matrix;
    if (!expanded.empty())
      value = tensor::CollapseShapeOp::create(builder, loc, value, expanded);
    if (!collapsed.empty())
      value = tensor::ExpandShapeOp::create(
          builder, loc, grouped.getType(), value, collapsed,
          tensor::getMixedSizes(builder, loc, grouped));
    if (isIdentityPermutation())
      return value;
    Value empty = tensor::EmptyOp::create(
        builder, loc, tensor::getMixedSizes(builder, loc, operand),
        getElementTypeOrSelf(operand.getType()));
    return linalg::TransposeOp::create(builder, loc, value, empty,
                                       invertPermutationVector(permutation))
        .getResult()[0];
  }

private:
  bool isIdentityPermutation() const {
    return llvm::equal(permutation, llvm::seq<int64_t>(0, permutation.size()));
  }

  SmallVector<SmallVector<unsigned>> groups;
  /// Dimension i of the grouped operand is dimension permutation[i] of the
  /// operand.
  SmallVector<int64_t> permutation;
  Value grouped;
  /// Reassociations of the collapse and of the unit dimensions' expansion
  /// (empty when not needed).
  SmallVector<ReassociationIndices> collapsed, expanded;
};
} // namespace

/// Rewrites the contraction `op` as one matrix product between reshapes
/// (and transposes); fails, changing nothing, when it is not a contraction
/// of matrices.
static FailureOr<Value> rewriteAsMatrixProduct(RewriterBase &rewriter,
                                               linalg::GenericOp op) {
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || (dims->m.empty() && dims->n.empty()) || dims->k.empty())
    return failure();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<SmallVector<unsigned>> loops;
  for (AffineMap map : maps) {
    std::optional<SmallVector<unsigned>> indexed = getIndexingLoops(map);
    if (!indexed)
      return failure();
    loops.push_back(*indexed);
  }
  // Each role's loops in the order C holds them (K: as A does).
  SmallVector<unsigned> batch = orderAsIndexed(maps[2], dims->batch),
                        m = orderAsIndexed(maps[2], dims->m),
                        n = orderAsIndexed(maps[2], dims->n),
                        k = orderAsIndexed(maps[0], dims->k);
  // A C that holds N before M is the product of the inputs the other way
  // round (C^T = B^T A^T), which needs no transpose of C.
  auto firstMatrixLoop = llvm::find_if(loops[2], [&](unsigned loop) {
    return !llvm::is_contained(batch, loop);
  });
  bool inputsSwapped =
      !m.empty() && !n.empty() && llvm::is_contained(n, *firstMatrixLoop);
  SmallVector<Value> inputs = op.getDpsInputs();
  if (inputsSwapped) {
    std::swap(m, n);
    std::swap(loops[0], loops[1]);
    std::swap(inputs[0], inputs[1]);
    k = orderAsIndexed(maps[1], dims->k);
  }
  // An input whose loops are grouped as [k, m] (or [n, k]) is read
  // transposed rather than copied; one that must be copied keeps its
  // innermost loop innermost.
  auto concat = [](ArrayRef<SmallVector<unsigned>> groups) {
    SmallVector<unsigned> all;
    for (ArrayRef<unsigned> group : groups)
      llvm::append_range(all, group);
    return all;
  };
  auto isReadTransposed = [&](ArrayRef<unsigned> indexed,
                              ArrayRef<SmallVector<unsigned>> plain,
                              ArrayRef<SmallVector<unsigned>> transposed) {
    if (indexed == ArrayRef<unsigned>(concat(plain)))
      return false;
    if (indexed == ArrayRef<unsigned>(concat(transposed)))
      return true;
    return !transposed.back().empty() &&
           llvm::is_contained(transposed.back(), indexed.back());
  };
  bool aTransposed = isReadTransposed(loops[0], {batch, m, k}, {batch, k, m});
  bool bTransposed = isReadTransposed(loops[1], {batch, k, n}, {batch, n, k});
  SmallVector<SmallVector<unsigned>> aGroups =
      aTransposed ? SmallVector<SmallVector<unsigned>>{batch, k, m}
                  : SmallVector<SmallVector<unsigned>>{batch, m, k};
  SmallVector<SmallVector<unsigned>> bGroups =
      bTransposed ? SmallVector<SmallVector<unsigned>>{batch, n, k}
                  : SmallVector<SmallVector<unsigned>>{batch, k, n};
  SmallVector<SmallVector<unsigned>> cGroups = {batch, m, n};

  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  MatrixView aView(loops[0], aGroups), bView(loops[1], bGroups),
      cView(loops[2], cGroups);
  Value a = aView.build(rewriter, loc, inputs[0]);
  Value b = bView.build(rewriter, loc, inputs[1]);
  Value c = cView.build(rewriter, loc, op.getDpsInits()[0]);

  // Loops of the product: the batch (when there is one), M, N, K.
  MLIRContext *context = op.getContext();
  bool batched = !batch.empty();
  unsigned numLoops = batched ? 4 : 3;
  auto dim = [&](unsigned role) {
    return getAffineDimExpr(role + unsigned(batched), context);
  };
  AffineExpr md = dim(0), nd = dim(1), kd = dim(2);
  auto mapOf = [&](ArrayRef<AffineExpr> matrixDims) {
    SmallVector<AffineExpr> results;
    if (batched)
      results.push_back(getAffineDimExpr(0, context));
    llvm::append_range(results, matrixDims);
    return AffineMap::get(numLoops, 0, results, context);
  };
  SmallVector<AffineMap> productMaps = {
      aTransposed ? mapOf({kd, md}) : mapOf({md, kd}),
      bTransposed ? mapOf({nd, kd}) : mapOf({kd, nd}), mapOf({md, nd})};
  SmallVector<utils::IteratorType> iterators(numLoops,
                                             utils::IteratorType::parallel);
  iterators.back() = utils::IteratorType::reduction;
  auto product = linalg::GenericOp::create(
      rewriter, loc, TypeRange{c.getType()}, ValueRange{a, b}, ValueRange{c},
      productMaps, iterators);
  rewriter.inlineRegionBefore(op.getRegion(), product.getRegion(),
                              product.getRegion().end());
  if (inputsSwapped) {
    // The body reads its first two arguments the other way round.
    Block &body = product.getRegion().front();
    BlockArgument oldA = body.getArgument(0), oldB = body.getArgument(1);
    BlockArgument newA = body.insertArgument(0u, oldB.getType(), oldB.getLoc());
    BlockArgument newB = body.insertArgument(1u, oldA.getType(), oldA.getLoc());
    rewriter.replaceAllUsesWith(oldA, newB);
    rewriter.replaceAllUsesWith(oldB, newA);
    body.eraseArguments(2, 2);
  }
  return cView.restore(rewriter, loc, product.getResult(0),
                       op.getDpsInits()[0]);
}

/// Whether the product of A, B into C read through `maps` still has every
/// loop in its place: a parallel loop in C and in A or B, a reduction loop
/// in A and B. A broadcast of A along M folded in would leave M in C alone
/// (every row of the product the same), which is no matrix product.
static bool keepsProductLoops(ArrayRef<AffineMap> maps,
                              ArrayRef<utils::IteratorType> iterators) {
  for (auto [loop, iterator] : llvm::enumerate(iterators)) {
    auto reads = [&, loop = loop](AffineMap map) {
      return map.isFunctionOfDim(loop);
    };
    bool inA = reads(maps[0]), inB = reads(maps[1]), inC = reads(maps[2]);
    if (iterator == utils::IteratorType::parallel ? !inC || !(inA || inB)
                                                  : !inA || !inB)
      return false;
  }
  return true;
}

/// Folds the copies that only feed `op` into its indexing maps, and brings
/// it to the kernels' form unless it is already in it.
static void normalizeContraction(RewriterBase &rewriter, linalg::LinalgOp op) {
  SmallVector<Value> inputs = op.getDpsInputs();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  bool folded = false;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (unsigned index : {0u, 1u}) {
    while (linalg::LinalgOp copy = getFoldableCopy(inputs[index])) {
      SmallVector<AffineMap> folding = maps;
      folding[index] = copy.getIndexingMapsArray()[0].compose(maps[index]);
      if (!keepsProductLoops(folding, iterators))
        break;
      maps = std::move(folding);
      inputs[index] = copy.getDpsInputs()[0];
      folded = true;
    }
  }
  if (!folded && isMatrixContraction(op))
    return;
  // A generic of the same body over the copies' sources.
  rewriter.setInsertionPoint(op);
  auto generic = linalg::GenericOp::create(
      rewriter, op.getLoc(), op->getResultTypes(), inputs, op.getDpsInits(),
      maps, op.getIteratorTypesArray());
  rewriter.cloneRegionBefore(op->getRegion(0), generic.getRegion(),
                             generic.getRegion().end());
  if (isMatrixContraction(generic)) {
    rewriter.replaceOp(op, generic->getResults());
    return;
  }
  FailureOr<Value> product = rewriteAsMatrixProduct(rewriter, generic);
  if (failed(product)) {
    // Not a matrix product after all (a dot product): left as it was.
    rewriter.eraseOp(generic);
    return;
  }
  rewriter.eraseOp(generic);
  rewriter.replaceOp(op, *product);
}

/// A batch_matmul whose batch is one product and whose result is only
/// reshaped to 2-D (TOSA's `tosa.matmul` of a 2-D layer) as the matmul it
/// is, between reshapes that cancel those the front-end wrapped it in; so
/// that the ops that read its result see the product itself and fuse into
/// its kernel. (Batched products whose result stays 3-D, such as the two of
/// an attention, keep the form their matchers read.)
static void dropUnitBatches(ModuleOp module) {
  SmallVector<linalg::BatchMatmulOp> unitBatches;
  auto isOnlyReshapedTo2D = [](linalg::BatchMatmulOp op) {
    return !op->use_empty() &&
           llvm::all_of(op->getUsers(), [](Operation *user) {
             auto collapse = dyn_cast<tensor::CollapseShapeOp>(user);
             return collapse && collapse.getResultType().getRank() == 2 &&
                    collapse.getReassociationIndices().front().size() == 2;
           });
  };
  module.walk([&](linalg::BatchMatmulOp op) {
    if (op.hasPureTensorSemantics() && !op.hasUserDefinedMaps() &&
        !op->hasAttr("cast") && op.getStaticLoopRanges()[0] == 1 &&
        isOnlyReshapedTo2D(op) && !op->getParentOfType<gpu::GPUModuleOp>())
      unitBatches.push_back(op);
  });
  IRRewriter rewriter(module.getContext());
  SmallVector<ReassociationIndices> dropFirst = {{0, 1}, {2}};
  for (linalg::BatchMatmulOp op : unitBatches) {
    rewriter.setInsertionPoint(op);
    Location loc = op.getLoc();
    auto collapse = [&](Value value) -> Value {
      return tensor::CollapseShapeOp::create(rewriter, loc, value, dropFirst);
    };
    Value c = collapse(op.getDpsInits()[0]);
    auto matmul =
        linalg::MatmulOp::create(rewriter, loc, TypeRange{c.getType()},
                                 ValueRange{collapse(op.getDpsInputs()[0]),
                                            collapse(op.getDpsInputs()[1])},
                                 ValueRange{c});
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
        op, op.getResultTypes()[0], matmul.getResult(0), dropFirst);
  }
}

/// Gives each op that starts from a shared fill a fill of its own (two
/// projections of one input written into one zero-filled tensor), so that
/// each product's kernel starts from the fill rather than from a copy of
/// it made by bufferization.
static void unshareFills(ModuleOp module) {
  SmallVector<linalg::FillOp> shared;
  module.walk([&](linalg::FillOp fill) {
    if (fill.hasPureTensorSemantics() && !fill->hasOneUse() &&
        !fill->getParentOfType<gpu::GPUModuleOp>())
      shared.push_back(fill);
  });
  OpBuilder builder(module.getContext());
  for (linalg::FillOp fill : shared) {
    SmallVector<OpOperand *> inits;
    for (OpOperand &use : fill->getResult(0).getUses())
      if (auto user = dyn_cast<DestinationStyleOpInterface>(use.getOwner()))
        if (user.isDpsInit(&use))
          inits.push_back(&use);
    // The first keeps the original; an unused fill has nothing to share.
    if (inits.size() < 2)
      continue;
    for (OpOperand *init : llvm::drop_begin(inits)) {
      builder.setInsertionPoint(init->getOwner());
      init->set(builder.clone(*fill)->getResult(0));
    }
  }
}

/// Element-wise generics that read a product through the reshape that
/// gives it back its loops (an NHWC convolution's [N*H*W, F] product seen
/// as N x H x W x F; a [B*S, H*D] projection seen as B x S x H x D) are
/// collapsed to read the product itself, upstream's fold of a reshape into
/// its consumer by collapsing loops: they then fuse into the product's
/// kernel as its epilogue, and the reshape moves after them.
static LogicalResult collapseEpiloguesOntoProducts(ModuleOp module) {
  MLIRContext *context = module.getContext();
  RewritePatternSet patterns(context);
  linalg::populateFoldReshapeOpsByCollapsingPatterns(
      patterns, [](OpOperand *operand) {
        auto expand = operand->get().getDefiningOp<tensor::ExpandShapeOp>();
        if (!expand || !isElementwiseOnTensors(operand->getOwner()))
          return false;
        auto product = expand.getSrc().getDefiningOp<linalg::LinalgOp>();
        return product && linalg::isaContractionOpInterface(product);
      });
  // The product's reshapes composed first (an expand_shape to the
  // convolution's output, then the collapse_shape of its batch loops).
  tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
  tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
  return applyPatternsGreedily(module, std::move(patterns));
}

static LogicalResult normalizeContractions(ModuleOp module) {
  dropUnitBatches(module);
  unshareFills(module);
  // Convolutions first: a quantized one becomes a quantized contraction.
  rewriteConvolutionsAsContractions(module);
  rewriteQuantizedMatmuls(module);
  SmallVector<linalg::LinalgOp> contractions;
  module.walk([&](linalg::LinalgOp op) {
    if (op.hasPureTensorSemantics() && op.getNumDpsInputs() == 2 &&
        op.getNumDpsInits() == 1 && !op.hasIndexSemantics() &&
        op->getNumRegions() == 1 && !op->getParentOfType<gpu::GPUModuleOp>() &&
        linalg::isaContractionOpInterface(op))
      contractions.push_back(op);
  });
  if (contractions.empty())
    return success();
  IRRewriter rewriter(module.getContext());
  for (linalg::LinalgOp op : contractions)
    normalizeContraction(rewriter, op);
  if (failed(collapseEpiloguesOntoProducts(module)))
    return failure();
  return foldReshapedFills(module);
}

namespace {
struct NormalizeContractionsPass
    : public subgroup_matrix::impl::NormalizeContractionsPassBase<
          NormalizeContractionsPass> {
  using NormalizeContractionsPassBase::NormalizeContractionsPassBase;

  void runOnOperation() override {
    if (failed(normalizeContractions(getOperation())))
      signalPassFailure();
  }
};
} // namespace
