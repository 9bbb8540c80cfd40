//===- FuseElementwise.cpp - element-wise ops merged into their readers ---===//
//
// The first stage of sm-linalg-to-gpu, dispatch formation on tensors: what
// graph compilers write op by op (named element-wise ops, fills as
// generics, keepdim reshapes, scalars extracted from rank-0 tensors) is
// brought to generics, and element-wise generics merge into the generics
// that read them, so that a chain becomes one op, an epilogue or prologue
// of a product one op beside it, and a written-out softmax or norm a few
// reductions and one element-wise op, which the kernel stages put in one
// kernel (RowGroupKernel.cpp).
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Contraction/Contraction.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Elementwise/ElementwiseKernel.h"
#include "SubgroupMatrix/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SmallBitVector.h"

namespace mlir {
namespace subgroup_matrix {
#define GEN_PASS_DEF_FUSEELEMENTWISEPASS
#include "SubgroupMatrix/Conversion/Passes.h.inc"
} // namespace subgroup_matrix
} // namespace mlir

using namespace mlir;
using namespace mlir::subgroup_matrix;

/// Whether `op` is a linalg.generic on tensors whose loops are all parallel.
bool mlir::subgroup_matrix::isElementwiseOnTensors(Operation *op) {
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  return generic && generic.hasPureTensorSemantics() &&
         generic.getNumLoops() == generic.getNumParallelLoops() &&
         !generic->getParentOfType<gpu::GPUModuleOp>();
}

/// Replaces `op` by a generic with the same outputs, loops and body but
/// `inputs` read through `maps` (inputs first, then the outputs'); the body
/// moves over unchanged, and callers add the block arguments of new inputs.
static linalg::GenericOp rebuildWithInputs(RewriterBase &rewriter,
                                           linalg::GenericOp op,
                                           ValueRange inputs,
                                           ArrayRef<AffineMap> maps) {
  rewriter.setInsertionPoint(op);
  auto generic = linalg::GenericOp::create(
      rewriter, op.getLoc(), op->getResultTypes(), inputs, op.getDpsInits(),
      maps, op.getIteratorTypesArray());
  rewriter.inlineRegionBefore(op.getRegion(), generic.getRegion(),
                              generic.getRegion().end());
  return generic;
}

/// Elements of tensors that bodies use from outside (`tensor.extract %scale[]`
/// of a rank-0 scale, as torch-mlir writes one) become inputs of the
/// generics that use them, indexed by the constant indices: kernels read
/// them from the tensor's buffer, which the host never reads.
static void readExtractedElementsAsInputs(ModuleOp module) {
  SmallVector<linalg::GenericOp> users;
  module.walk([&](linalg::GenericOp op) {
    if (!op.hasPureTensorSemantics() || op->getParentOfType<gpu::GPUModuleOp>())
      return;
    bool extracts = false;
    op.getRegion().walk([&](Operation *inner) {
      for (Value operand : inner->getOperands())
        if (auto extract = operand.getDefiningOp<tensor::ExtractOp>())
          extracts |= !op->isAncestor(extract);
    });
    if (extracts)
      users.push_back(op);
  });
  IRRewriter rewriter(module.getContext());
  for (linalg::GenericOp op : users) {
    Block &body = op.getRegion().front();
    SmallVector<tensor::ExtractOp> extracts;
    body.walk([&](Operation *inner) {
      for (Value operand : inner->getOperands())
        if (auto extract = operand.getDefiningOp<tensor::ExtractOp>())
          if (!op->isAncestor(extract) &&
              !llvm::is_contained(extracts, extract))
            extracts.push_back(extract);
    });
    SmallVector<Value> inputs = op.getDpsInputs();
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    AffineMap outputMap = maps.pop_back_val();
    SmallVector<tensor::ExtractOp> read;
    for (tensor::ExtractOp extract : extracts) {
      SmallVector<AffineExpr> indices;
      for (Value index : extract.getIndices()) {
        APInt constant;
        if (!matchPattern(index, m_ConstantInt(&constant)))
          break;
        indices.push_back(
            getAffineConstantExpr(constant.getSExtValue(), op.getContext()));
      }
      if (indices.size() != extract.getIndices().size())
        continue;
      inputs.push_back(extract.getTensor());
      maps.push_back(
          AffineMap::get(op.getNumLoops(), 0, indices, op.getContext()));
      read.push_back(extract);
    }
    if (read.empty())
      continue;
    maps.push_back(outputMap);
    linalg::GenericOp generic = rebuildWithInputs(rewriter, op, inputs, maps);
    Block &moved = generic.getRegion().front();
    unsigned position = op.getNumDpsInputs();
    for (tensor::ExtractOp extract : read) {
      BlockArgument element =
          moved.insertArgument(position++, extract.getType(), extract.getLoc());
      extract.getResult().replaceUsesWithIf(element, [&](OpOperand &use) {
        return generic->isAncestor(use.getOwner());
      });
    }
    rewriter.replaceOp(op, generic->getResults());
    for (tensor::ExtractOp extract : read)
      if (extract->use_empty())
        rewriter.eraseOp(extract);
  }
}

/// Generics that only fill their output with a value from outside (how a
/// generalized program writes a zero accumulator) become the linalg.fill
/// they are, which products and reductions start from.
static void specializeFills(ModuleOp module) {
  SmallVector<std::pair<linalg::GenericOp, Value>> fills;
  module.walk([&](linalg::GenericOp op) {
    if (!op.hasPureTensorSemantics() || op->getParentOfType<gpu::GPUModuleOp>())
      return;
    if (std::optional<Value> value = linalg::isaFillOpInterface(op))
      fills.push_back({op, *value});
  });
  IRRewriter rewriter(module.getContext());
  for (auto [op, value] : fills) {
    rewriter.setInsertionPoint(op);
    rewriter.replaceOpWithNewOp<linalg::FillOp>(op, value, op.getDpsInits());
  }
}

/// Generalizes the named element-wise ops a graph compiler emits
/// (`linalg.add`, `mul`, `exp`, `elementwise`, `map`, `broadcast`,
/// `transpose`, ...: every loop parallel, one output) into the generics
/// they are, so that chains of them merge below. Fills stay named: the
/// kernels take them over as initial values.
static void generalizeElementwiseNamedOps(ModuleOp module) {
  SmallVector<linalg::LinalgOp> named;
  module.walk([&](linalg::LinalgOp op) {
    if (!isa<linalg::GenericOp, linalg::FillOp>(op.getOperation()) &&
        op.hasPureTensorSemantics() && op.getNumDpsInits() == 1 &&
        op.getNumLoops() == op.getNumParallelLoops() &&
        !op->getParentOfType<gpu::GPUModuleOp>())
      named.push_back(op);
  });
  IRRewriter rewriter(module.getContext());
  for (linalg::LinalgOp op : named) {
    rewriter.setInsertionPoint(op);
    (void)linalg::generalizeNamedOp(rewriter, op);
  }
}

/// The map by which a generic reads `reshaped`'s source instead of
/// `reshaped` (read by `map`), when it is a slice with static offsets and
/// strides (the indices scaled and offset), or a reshape that only adds or
/// drops dimensions of size 1 (torch's keepdim, a batch of one: the unit
/// dimensions' indices drop, or are 0).
static std::optional<AffineMap> getMapThroughView(Value reshaped,
                                                  AffineMap map) {
  MLIRContext *context = map.getContext();
  // A product's reshapes are the epilogue stages' to fold.
  Operation *reshape = reshaped.getDefiningOp();
  if (!reshape || reshape->getNumOperands() != 1)
    return std::nullopt;
  if (auto producer = reshape->getOperand(0).getDefiningOp<linalg::LinalgOp>())
    if (linalg::isaContractionOpInterface(producer) ||
        linalg::isaConvolutionOpInterface(producer))
      return std::nullopt;
  if (auto slice = reshaped.getDefiningOp<tensor::ExtractSliceOp>()) {
    if (slice.getSourceType().getRank() != slice.getType().getRank() ||
        ShapedType::isDynamicShape(slice.getStaticOffsets()) ||
        ShapedType::isDynamicShape(slice.getStaticStrides()))
      return std::nullopt;
    AffineMap composed = applyStaticView(map, slice.getStaticOffsets(),
                                         slice.getStaticStrides());
    // A dimension read by a bare loop must be as long as the loop (linalg
    // sizes loops by such reads): a slice that keeps the start of a longer
    // dimension stays a slice.
    for (auto [position, expr] : llvm::enumerate(composed.getResults()))
      if (isa<AffineDimExpr>(expr) &&
          slice.getSourceType().getDimSize(position) !=
              slice.getType().getDimSize(position))
        return std::nullopt;
    return composed;
  }
  if (auto expand = reshaped.getDefiningOp<tensor::ExpandShapeOp>()) {
    ArrayRef<int64_t> shape = expand.getResultType().getShape();
    SmallVector<AffineExpr> exprs;
    for (ReassociationIndices group : expand.getReassociationIndices()) {
      // Of dimensions that are all 1, the first's index (0 at run time).
      std::optional<int64_t> kept = getOnlyLongDimension(shape, group);
      if (!kept)
        return std::nullopt;
      exprs.push_back(map.getResult(*kept));
    }
    return AffineMap::get(map.getNumDims(), 0, exprs, context);
  }
  if (auto collapse = reshaped.getDefiningOp<tensor::CollapseShapeOp>())
    return mapThroughCollapse(map, collapse.getSrcType().getShape(),
                              collapse.getReassociationIndices());
  return std::nullopt;
}

/// Whether every one of `numLoops` loops is a bare index of some map.
static bool sizesEveryLoop(ArrayRef<AffineMap> maps, unsigned numLoops) {
  llvm::SmallBitVector sized(numLoops);
  for (AffineMap map : maps)
    for (AffineExpr expr : map.getResults())
      if (auto dim = dyn_cast<AffineDimExpr>(expr))
        sized.set(dim.getPosition());
  return sized.all();
}

/// Generics that read a tensor through a slice or a reshape adding or
/// dropping unit dimensions (a reduction's [1, S] result seen as [1, S, 1]
/// with keepdim; half of a head for a rotary embedding) read the tensor
/// itself, so that the view no longer stands between it and its reader.
static void readThroughViews(ModuleOp module) {
  SmallVector<linalg::GenericOp> readers;
  module.walk([&](linalg::GenericOp op) {
    if (op.hasPureTensorSemantics() && !op->getParentOfType<gpu::GPUModuleOp>())
      readers.push_back(op);
  });
  IRRewriter rewriter(module.getContext());
  for (linalg::GenericOp op : readers) {
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    SmallVector<std::pair<OpOperand *, Value>> sources;
    for (OpOperand *input : op.getDpsInputOperands()) {
      unsigned position = input->getOperandNumber();
      std::optional<AffineMap> map =
          getMapThroughView(input->get(), maps[position]);
      if (!map)
        continue;
      AffineMap viewMap = maps[position];
      maps[position] = *map;
      // linalg sizes each loop by an operand that a bare loop index reads:
      // a loop that only the view read so (the reduced dimension of a
      // slice) keeps the view.
      if (!sizesEveryLoop(maps, op.getNumLoops())) {
        maps[position] = viewMap;
        continue;
      }
      sources.push_back({input, input->get().getDefiningOp()->getOperand(0)});
    }
    if (sources.empty())
      continue;
    SmallVector<Operation *> reshapes;
    for (auto [input, source] : sources)
      reshapes.push_back(input->get().getDefiningOp());
    rewriter.modifyOpInPlace(op, [&]() {
      for (auto [input, source] : sources)
        input->set(source);
      op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
    });
    for (Operation *reshape : reshapes)
      if (reshape->use_empty())
        rewriter.eraseOp(reshape);
  }
}

/// The first input of a generic on tensors that a concatenation it can
/// read part by part gives: static parts along one dimension, which the
/// generic indexes by a loop.
static OpOperand *findReadConcatenation(ModuleOp module) {
  OpOperand *found = nullptr;
  module.walk([&](linalg::GenericOp op) {
    if (!op.hasPureTensorSemantics() || op->getParentOfType<gpu::GPUModuleOp>())
      return WalkResult::advance();
    for (OpOperand *input : op.getDpsInputOperands()) {
      auto concat = input->get().getDefiningOp<tensor::ConcatOp>();
      if (!concat || !concat.getResultType().hasStaticShape() ||
          !isa<AffineDimExpr>(
              op.getMatchingIndexingMap(input).getResult(concat.getDim())))
        continue;
      // Each part is read modulo its size along the dimension.
      if (llvm::any_of(concat.getInputs(), [&](Value part) {
            int64_t size = cast<RankedTensorType>(part.getType())
                               .getDimSize(concat.getDim());
            return ShapedType::isDynamic(size) || size == 0;
          }))
        continue;
      found = input;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

/// Generics that read a concatenation (tensor.concat of static parts along
/// one dimension: a rotary embedding's rotate_half) read its parts
/// instead, each at `(i + c) mod size` along that dimension (in bounds
/// wherever i is), and their bodies take the part that holds position i:
/// the concatenation is never stored, and the parts' producers merge in.
static void readThroughConcatenations(ModuleOp module) {
  MLIRContext *context = module.getContext();
  IRRewriter rewriter(context);
  while (OpOperand *input = findReadConcatenation(module)) {
    auto op = cast<linalg::GenericOp>(input->getOwner());
    auto concat = input->get().getDefiningOp<tensor::ConcatOp>();
    int64_t dim = concat.getDim();
    unsigned position = input->getOperandNumber();
    AffineMap map = op.getMatchingIndexingMap(input);
    unsigned loop = cast<AffineDimExpr>(map.getResult(dim)).getPosition();
    SmallVector<Value> inputs = op.getDpsInputs();
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    SmallVector<Value> parts(concat.getInputs());
    SmallVector<int64_t> offsets;
    SmallVector<AffineMap> partMaps;
    int64_t offset = 0;
    for (Value part : parts) {
      int64_t size = cast<RankedTensorType>(part.getType()).getDimSize(dim);
      offsets.push_back(offset);
      SmallVector<AffineExpr> exprs(map.getResults());
      int64_t shift = (size - offset % size) % size;
      exprs[dim] = (getAffineDimExpr(loop, context) + shift) % size;
      partMaps.push_back(AffineMap::get(map.getNumDims(), 0, exprs, context));
      offset += size;
    }
    inputs.erase(inputs.begin() + position);
    inputs.insert(inputs.begin() + position, parts.begin(), parts.end());
    maps.erase(maps.begin() + position);
    maps.insert(maps.begin() + position, partMaps.begin(), partMaps.end());
    linalg::GenericOp generic = rebuildWithInputs(rewriter, op, inputs, maps);
    Block &body = generic.getRegion().front();
    Type element = body.getArgument(position).getType();
    SmallVector<Value> partValues;
    for (Value part : parts)
      partValues.push_back(body.insertArgument(position + partValues.size(),
                                               element, part.getLoc()));
    // The part that holds position i: the last whose offset is <= i.
    rewriter.setInsertionPointToStart(&body);
    Location loc = concat.getLoc();
    Value index = linalg::IndexOp::create(rewriter, loc, loop);
    Value chosen = partValues.back();
    for (int64_t part = parts.size() - 2; part >= 0; --part) {
      Value before = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::ult, index,
          arith::ConstantIndexOp::create(rewriter, loc, offsets[part + 1]));
      chosen = arith::SelectOp::create(rewriter, loc, before, partValues[part],
                                       chosen);
    }
    BlockArgument whole = body.getArgument(position + parts.size());
    rewriter.replaceAllUsesWith(whole, chosen);
    body.eraseArgument(position + parts.size());
    rewriter.replaceOp(op, generic->getResults());
    if (concat->use_empty())
      rewriter.eraseOp(concat);
  }
}

/// Whether the generic `op` on tensors is one that element-wise producers
/// merge into: element-wise itself, or a reduction that folds one value
/// computed per element (a row's max or sum), but never a contraction or
/// a convolution, whose kernels read their operands as stored.
static bool absorbsProducers(Operation *op) {
  if (isElementwiseOnTensors(op))
    return true;
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  return generic && generic.hasPureTensorSemantics() &&
         !generic->getParentOfType<gpu::GPUModuleOp>() &&
         generic.getNumDpsInits() == 1 && getReductionKind(generic) &&
         !isMultiplyAccumulateBody(generic.getRegion().front()) &&
         !isQuantizedMultiplyAccumulateBody(generic.getRegion().front()) &&
         !linalg::isaContractionOpInterface(generic) &&
         !linalg::isaConvolutionOpInterface(generic);
}

/// Merges element-wise generics into the generics that read them (a bias
/// add, then an activation; an 8-bit weight widened, then scaled; a
/// softmax's shifted exponentials into the sum and the quotient),
/// upstream's element-wise fusion: a chain after a product becomes one
/// epilogue, a chain before one a single prologue, and the steps of a
/// written-out softmax or norm reductions and one element-wise op, which
/// the kernel stages put in one kernel. A producer with several users is
/// merged only when every user takes it, so that its tensor disappears:
/// recomputing a few operations per element costs less than a buffer
/// written and read again.
static void fuseElementwiseChains(ModuleOp module) {
  IRRewriter rewriter(module.getContext());
  auto isMergedEverywhere = [](Operation *producer) {
    return llvm::all_of(producer->getUses(), [](OpOperand &use) {
      auto consumer = dyn_cast<linalg::GenericOp>(use.getOwner());
      return absorbsProducers(consumer) && consumer.isDpsInput(&use) &&
             linalg::areElementwiseOpsFusable(&use);
    });
  };
  auto findFusable = [&]() -> OpOperand * {
    OpOperand *found = nullptr;
    module.walk([&](linalg::GenericOp consumer) {
      if (!absorbsProducers(consumer))
        return WalkResult::advance();
      for (OpOperand *input : consumer.getDpsInputOperands()) {
        Operation *producer = input->get().getDefiningOp();
        if (isElementwiseOnTensors(producer) &&
            producer->getNumResults() == 1 && isMergedEverywhere(producer)) {
          found = input;
          return WalkResult::interrupt();
        }
      }
      return WalkResult::advance();
    });
    return found;
  };
  while (OpOperand *input = findFusable()) {
    Operation *consumer = input->getOwner();
    Operation *producer = input->get().getDefiningOp();
    // A copy of its own for this consumer: upstream would keep the
    // producer's tensor as a second result of the merged op.
    if (!producer->hasOneUse()) {
      rewriter.setInsertionPoint(producer);
      Operation *copy = rewriter.clone(*producer);
      input->set(copy->getResult(0));
      producer = copy;
    }
    rewriter.setInsertionPoint(consumer);
    FailureOr<linalg::ElementwiseOpFusionResult> fused =
        linalg::fuseElementwiseOps(rewriter, input);
    if (failed(fused))
      return;
    for (auto [original, replacement] : fused->replacements)
      rewriter.replaceAllUsesExcept(original, replacement, fused->fusedOp);
    rewriter.eraseOp(consumer);
    if (producer->use_empty())
      rewriter.eraseOp(producer);
  }
}

namespace {
struct FuseElementwisePass
    : public subgroup_matrix::impl::FuseElementwisePassBase<
          FuseElementwisePass> {
  using FuseElementwisePassBase::FuseElementwisePassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    readExtractedElementsAsInputs(module);
    specializeFills(module);
    generalizeElementwiseNamedOps(module);
    readThroughConcatenations(module);
    readThroughViews(module);
    fuseElementwiseChains(module);
  }
};
} // namespace
