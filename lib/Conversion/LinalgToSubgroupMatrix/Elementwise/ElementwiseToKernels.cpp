//===- ElementwiseToKernels.cpp - sm-elementwise-to-kernels ---------------===//
//
// sm-elementwise-to-kernels: the linalg ops left on the host (element-wise
// generics, reductions, row groups such as a softmax or a norm, strided
// copies) become kernels; what cannot go to the GPU is reported, nothing
// silently stays on the host.
//
//===----------------------------------------------------------------------===//

#include "KernelStages.h"

#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Attention/Attention.h"
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
#define GEN_PASS_DEF_ELEMENTWISETOKERNELSPASS
#include "SubgroupMatrix/Conversion/Passes.h.inc"
} // namespace subgroup_matrix
} // namespace mlir

using namespace mlir;
using namespace mlir::subgroup_matrix;

namespace {
struct ElementwiseToKernelsPass
    : public subgroup_matrix::impl::ElementwiseToKernelsPassBase<
          ElementwiseToKernelsPass> {
  using ElementwiseToKernelsPassBase::ElementwiseToKernelsPassBase;

  void runOnOperation() override;
};
} // namespace

/// Why an op that reached the element-wise stage is an element-wise kernel.
static std::string describeElementwiseKernel(linalg::GenericOp op) {
  std::string why = "one invocation per output element";
  if (op.getNumReductionLoops())
    why += ", its reduction loops run inside the invocation";
  if (op.getNumDpsInputs() != 2 || !op.getNumReductionLoops() ||
      !isMultiplyAccumulateBody(op.getRegion().front()))
    return why;
  // A convolution that stayed one: every convolution with output channels
  // on tensors at static sizes became a product, so this one has none.
  if (linalg::isaConvolutionOpInterface(op))
    return why + " (a convolution without output channels, such as a "
                 "depthwise one: no N loop, nothing for matrix units)";
  // A contraction that did not become a matrix product.
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  bool hasMatrices = succeeded(dims) && (!dims->m.empty() || !dims->n.empty());
  if (!hasMatrices)
    return why + " (a dot product: no M or N loop, nothing for matrix units)";
  return why + " (a contraction that is no matrix product: " +
         whyNotMatrixContraction(op) + ")";
}

/// Whether a generic on `operands` through `maps` runs loops of `sizes` as
/// an element-wise kernel (getKernelLoopSizes): a view folded into its
/// buffer's map must not lend a loop the buffer's size (a one-row view's row
/// loop that nothing else indexes).
static bool keepsLoopSizes(ArrayRef<AffineMap> maps, ValueRange operands,
                           ArrayRef<int64_t> sizes) {
  SmallVector<int64_t> kernelSizes =
      getKernelLoopSizes(maps, operands, sizes.size());
  return llvm::equal(kernelSizes, sizes) &&
         llvm::none_of(sizes, ShapedType::isDynamic);
}

/// Host copies into or out of strided views (bufferization writes a
/// tensor.pad that no convolution's loads fold as a copy into the interior
/// of the padded buffer), which the runtime copies contiguously only,
/// become element-wise generics on the whole buffers, their views' offsets
/// and strides in the maps: kernels like any other.
static void rewriteStridedCopies(ModuleOp module) {
  SmallVector<memref::CopyOp> copies;
  auto isStrided = [](Value view) {
    auto type = dyn_cast<MemRefType>(view.getType());
    return type && !type.getLayout().isIdentity();
  };
  module.walk([&](memref::CopyOp copy) {
    if (isOnHost(copy) &&
        (isStrided(copy.getSource()) || isStrided(copy.getTarget())))
      copies.push_back(copy);
  });
  IRRewriter rewriter(module.getContext());
  // A contiguous side (a reshape of a product's result, say) is read or
  // written as it is; only strided ones go through to their buffers.
  auto getAccessed =
      [](Value view) -> std::optional<std::pair<Value, AffineMap>> {
    auto type = cast<MemRefType>(view.getType());
    if (type.getLayout().isIdentity())
      return std::make_pair(view, AffineMap::getMultiDimIdentityMap(
                                      type.getRank(), view.getContext()));
    return getViewedBuffer(view);
  };
  for (memref::CopyOp copy : copies) {
    auto source = getAccessed(copy.getSource());
    auto target = getAccessed(copy.getTarget());
    // Others stay for the runtime to report.
    if (!source || !target)
      continue;
    auto shape = cast<MemRefType>(copy.getSource().getType()).getShape();
    if (!keepsLoopSizes({source->second, target->second},
                        {source->first, target->first}, shape))
      continue;
    unsigned rank = shape.size();
    rewriter.setInsertionPoint(copy);
    linalg::GenericOp::create(
        rewriter, copy.getLoc(), ValueRange{source->first},
        ValueRange{target->first},
        ArrayRef<AffineMap>{source->second, target->second},
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [](OpBuilder &builder, Location loc, ValueRange arguments) {
          linalg::YieldOp::create(builder, loc, arguments[0]);
        });
    rewriter.eraseOp(copy);
  }
}

/// Generics that read or write strided views of a row-major buffer (a
/// tensor.extract_slice, a tensor.concat's parts) read and write the buffer
/// itself, the views' offsets and strides in their maps, or else
/// contiguous copies of the views: element-wise kernels take contiguous
/// buffers only. (Before strided copies become generics.)
static void foldViewsIntoMaps(ModuleOp module) {
  SmallVector<linalg::GenericOp> generics;
  module.walk([&](linalg::GenericOp op) {
    if (isOnHost(op) && op.hasPureBufferSemantics())
      generics.push_back(op);
  });
  IRRewriter rewriter(module.getContext());
  for (linalg::GenericOp op : generics) {
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    SmallVector<std::pair<OpOperand *, Value>> buffers;
    for (OpOperand &operand : op->getOpOperands()) {
      auto type = dyn_cast<MemRefType>(operand.get().getType());
      if (!type || type.getLayout().isIdentity())
        continue;
      auto viewed = getViewedBuffer(operand.get());
      if (!viewed)
        continue;
      unsigned position = operand.getOperandNumber();
      maps[position] = viewed->second.compose(maps[position]);
      buffers.push_back({&operand, viewed->first});
    }
    if (buffers.empty())
      continue;
    SmallVector<Value> operands = op->getOperands();
    for (auto [operand, buffer] : buffers)
      operands[operand->getOperandNumber()] = buffer;
    // A loop that only a view spans (the reduced dimension of a slice)
    // loses its size in the buffer's map: the generic reads a contiguous
    // copy of the view instead.
    if (!keepsLoopSizes(maps, operands,
                        getKernelLoopSizes(op.getIndexingMapsArray(),
                                           op->getOperands(),
                                           op.getNumLoops()))) {
      copyStridedOperands(rewriter, op);
      continue;
    }
    rewriter.modifyOpInPlace(op, [&]() {
      for (auto [operand, buffer] : buffers)
        operand->set(buffer);
      op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
    });
  }
  // Views nothing reads any more (a reshape of a strided view would be the
  // runtime's to refuse), the last of each chain first.
  while (true) {
    SmallVector<Operation *> unused;
    module.walk([&](Operation *op) {
      if (isa<memref::SubViewOp, memref::CollapseShapeOp,
              memref::ExpandShapeOp>(op) &&
          op->use_empty() && isOnHost(op))
        unused.push_back(op);
    });
    if (unused.empty())
      break;
    for (Operation *op : unused)
      rewriter.eraseOp(op);
  }
}

/// Whether `op` has a loop of no iterations, and so writes nothing.
static bool writesNothing(linalg::GenericOp op) {
  return llvm::is_contained(getKernelLoopSizes(op.getIndexingMapsArray(),
                                               op->getOperands(),
                                               op.getNumLoops()),
                            0);
}

void ElementwiseToKernelsPass::runOnOperation() {
  ModuleOp module = getOperation();
  FailureOr<TargetAttr> target = getProgramTarget(module, targetName);
  if (failed(target))
    return signalPassFailure();
  IRRewriter rewriter(&getContext());
  // Named ops (a pooling, a copy, a linalg.reduce) as generics, so that
  // views fold into their maps, fills before them can be their starting
  // values and reductions can join row groups; fills stay fills to be
  // found. (Before any op is erased: an op created after the row groups'
  // ops are erased could take one's address and pass for grouped.)
  SmallVector<linalg::LinalgOp> named;
  module.walk([&](linalg::LinalgOp op) {
    if (isOnHost(op) && !isa<linalg::GenericOp, linalg::FillOp>(op))
      named.push_back(op);
  });
  for (linalg::LinalgOp op : named) {
    rewriter.setInsertionPoint(op);
    (void)linalg::generalizeNamedOp(rewriter, op);
  }
  foldViewsIntoMaps(module);
  rewriteStridedCopies(module);
  ProgramKernels kernels(module, *target);
  SmallVector<linalg::LinalgOp> remaining;
  module.walk([&](linalg::LinalgOp op) {
    if (isOnHost(op))
      remaining.push_back(op);
  });
  bool failedAny = false;
  // Reductions along rows and the op over the rows that reads them (a
  // softmax, a norm) first: one kernel each group.
  SmallVector<RowGroup> rowGroups;
  for (linalg::LinalgOp op : remaining)
    if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation()))
      if (std::optional<RowGroup> group = findRowGroup(generic))
        rowGroups.push_back(*group);
  DenseSet<Operation *> grouped;
  for (const RowGroup &group : rowGroups) {
    std::string name = kernels.nextName("row_group");
    if (report)
      reportKernel(group.last, "with the reductions it reads became", name,
                   "one workgroup per row, which folds " +
                       Twine(group.reductions.size()) +
                       " reductions along the row in turn and then writes "
                       "the row");
    for (auto [fill, reduction] : group.reductions) {
      grouped.insert(fill);
      grouped.insert(reduction);
    }
    grouped.insert(group.last);
    if (failed(emitRowGroupKernel(rewriter, group, kernels.get(), name)))
      failedAny = true;
  }
  // An op with a loop of no iterations writes nothing (a reduction leaves
  // its output at its starting value): no kernel.
  for (linalg::LinalgOp op : remaining) {
    if (grouped.contains(op))
      continue;
    auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
    if (!generic || !writesNothing(generic))
      continue;
    grouped.insert(generic);
    rewriter.eraseOp(generic);
  }
  // The erased ops leave the list, and `grouped` holds live fills from here
  // on: an op created below could take an erased one's address.
  llvm::erase_if(remaining,
                 [&](linalg::LinalgOp op) { return grouped.contains(op); });
  grouped.clear();
  // Long reductions into few outputs in two steps (the parts' fill is the
  // first step's starting value). The steps take the op's place in
  // `remaining` and are appended, past the end this loop visits: neither
  // is split again.
  for (size_t i = 0, e = remaining.size(); i < e; ++i) {
    // (Ops of row groups are gone.)
    if (grouped.contains(remaining[i]))
      continue;
    auto generic = dyn_cast<linalg::GenericOp>(remaining[i].getOperation());
    if (!generic)
      continue;
    // (Each step is reported as the kernel it becomes, at the op's place.)
    FailureOr<SplitReduction> split =
        splitLongReduction(rewriter, generic, *target);
    if (failed(split))
      continue;
    remaining[i] = split->parts;
    remaining.push_back(split->fill);
    remaining.push_back(split->total);
  }
  // A fill right before the op that writes every element of that output
  // from it (a reduction's starting value) is no kernel of its own.
  DenseMap<Operation *, SmallVector<linalg::FillOp>> startingFills;
  for (linalg::LinalgOp op : remaining) {
    // (Ops of row groups are gone.)
    if (grouped.contains(op))
      continue;
    auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
    if (!generic)
      continue;
    SmallVector<linalg::FillOp> fills;
    for (OpOperand &init : generic.getDpsInitsMutable()) {
      linalg::FillOp fill = getFillBefore(generic, init.get());
      if (!fill || grouped.contains(fill) ||
          !canStartFromFill(generic, init, fill))
        fill = {};
      fills.push_back(fill);
    }
    if (llvm::any_of(fills, [](linalg::FillOp fill) { return bool(fill); })) {
      for (linalg::FillOp fill : fills)
        if (fill)
          grouped.insert(fill);
      startingFills[generic] = std::move(fills);
    }
  }
  for (linalg::LinalgOp op : remaining) {
    if (grouped.contains(op))
      continue;
    // Looked up by the op as it was: a named op generalized below is a new
    // op, which may take the address of one erased before it.
    SmallVector<linalg::FillOp> fills = startingFills.lookup(op);
    auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
    if (!generic) {
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::GenericOp> generalized =
          linalg::generalizeNamedOp(rewriter, op);
      if (failed(generalized)) {
        op->emitOpError("cannot be put on the GPU: it is neither a matrix "
                        "product nor element-wise");
        failedAny = true;
        continue;
      }
      generic = *generalized;
    }
    // (A fill of no elements.)
    if (writesNothing(generic)) {
      rewriter.eraseOp(generic);
      continue;
    }
    std::string name = kernels.nextName("elementwise");
    // On the generic: a named op generalized is gone (its location stays).
    if (report &&
        canEmitElementwiseKernel(generic, /*report=*/false, /*computed=*/{},
                                 /*allowBodyLoads=*/true))
      reportKernel(generic, "became", name, describeElementwiseKernel(generic));
    if (failed(emitElementwiseKernel(rewriter, generic, kernels.get(), name,
                                     fills)))
      failedAny = true;
  }
  if (failedAny)
    return signalPassFailure();

  // Nothing of linalg stays on the host unannounced.
  WalkResult leftover = module.walk([&](Operation *op) {
    if (isa_and_nonnull<linalg::LinalgDialect>(op->getDialect()) &&
        isOnHost(op) && !isa<linalg::YieldOp>(op)) {
      op->emitOpError("cannot be put on the GPU: sm-linalg-to-gpu has no "
                      "kernel for it");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (leftover.wasInterrupted())
    signalPassFailure();
}
