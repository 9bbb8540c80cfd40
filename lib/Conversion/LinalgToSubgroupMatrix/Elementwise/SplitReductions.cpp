//===- SplitReductions.cpp - long reductions to few outputs in two steps --===//
//
// A reduction of many elements into fewer outputs than the device has
// compute units (a sum over a whole tensor, a global maximum) would run on
// one workgroup per output and leave the rest of the device idle: it is
// split in two generics, each of which the element-wise stage makes a
// kernel. The first folds parts of the reduction into partial results, one
// workgroup per part and output; the second folds the parts into the
// output with the reduction's own combining op.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Elementwise/ElementwiseKernel.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Planning/TilingPlan.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::subgroup_matrix;

/// Reductions at least this long are split (each part then folds at least
/// kSplitPartElements elements).
static constexpr int64_t kSplitReductionElements = 1 << 16;
static constexpr int64_t kSplitPartElements = 1 << 13;

/// The number of parts to split loop `loop` (of `range` iterations) in, or
/// 1: the largest divisor of `range` up to `wanted`.
static int64_t choosePartCount(int64_t range, int64_t wanted) {
  for (int64_t parts = std::min(range, wanted); parts >= 2; --parts)
    if (range % parts == 0)
      return parts;
  return 1;
}

FailureOr<SplitReduction> mlir::subgroup_matrix::splitLongReduction(
    RewriterBase &rewriter, linalg::GenericOp op, TargetAttr target) {
  std::optional<arith::AtomicRMWKind> kind = getReductionKind(op);
  if (!kind || op.getNumDpsInits() != 1 || !op.hasPureBufferSemantics() ||
      !getBodyLoadedBuffers(op).empty() ||
      !op.getRegion().front().getOps<linalg::IndexOp>().empty())
    return failure();
  OpOperand *init = op.getDpsInitOperand(0);
  auto outputType = dyn_cast<MemRefType>(init->get().getType());
  AffineMap outputMap = op.getMatchingIndexingMap(init);
  // Each output dimension a loop, or 0 (a rank-0 result seen as one
  // element).
  auto isDimensionOrZero = [](AffineExpr expr) {
    auto constant = dyn_cast<AffineConstantExpr>(expr);
    return isa<AffineDimExpr>(expr) || (constant && constant.getValue() == 0);
  };
  if (!outputType || !outputType.hasStaticShape() ||
      outputMap.getNumResults() != outputType.getRank() ||
      !llvm::all_of(outputMap.getResults(), isDimensionOrZero))
    return failure();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  unsigned loopCount = op.getNumLoops();
  SmallVector<int64_t> sizes =
      getKernelLoopSizes(maps, op->getOperands(), loopCount);
  if (llvm::any_of(sizes, ShapedType::isDynamic))
    return failure();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  int64_t outputs = 1, reduced = 1;
  std::optional<unsigned> splitLoop;
  for (auto [loop, iterator] : llvm::enumerate(iterators)) {
    if (iterator == utils::IteratorType::parallel) {
      outputs *= sizes[loop];
      continue;
    }
    reduced *= sizes[loop];
    if (!splitLoop)
      splitLoop = loop;
  }
  int64_t units = getPlannedComputeUnits(target);
  if (!splitLoop || outputs >= units || reduced < kSplitReductionElements)
    return failure();
  // Two workgroups per compute unit, each folding a long enough part.
  int64_t wanted = std::min<int64_t>(llvm::divideCeil(2 * units, outputs),
                                     reduced / kSplitPartElements);
  int64_t parts = choosePartCount(sizes[*splitLoop], wanted);
  if (parts < 2)
    return failure();
  int64_t partLength = sizes[*splitLoop] / parts;

  // An input the split loop indexes sees the dimension it indexes (alone,
  // in one place) expanded into (part, index in the part), so that every
  // loop still indexes a dimension alone, which is how kernels size loops.
  MLIRContext *context = op.getContext();
  AffineExpr splitDim = getAffineDimExpr(*splitLoop, context);
  SmallVector<std::optional<unsigned>> expandedAt;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (!map.isFunctionOfDim(*splitLoop)) {
      expandedAt.push_back(std::nullopt);
      continue;
    }
    std::optional<unsigned> position = map.getResultPosition(splitDim);
    auto type = dyn_cast<MemRefType>(input->get().getType());
    if (!position || !type || !type.getLayout().isIdentity() ||
        type.getDimSize(*position) != sizes[*splitLoop] ||
        llvm::count_if(map.getResults(), [&](AffineExpr expr) {
          return expr.isFunctionOfDim(*splitLoop);
        }) != 1)
      return failure();
    expandedAt.push_back(position);
  }

  Location loc = op.getLoc();
  Type element = outputType.getElementType();
  rewriter.setInsertionPoint(op);
  // The partial results: one output per part, the part's index first, then
  // the output's dimensions that loops index (not those it reads at 0: a
  // rank-0 result seen as one element), so that the first step writes
  // every partial result and starts from the fill.
  SmallVector<int64_t> partialShape = {parts};
  SmallVector<AffineExpr> partialOutput = {getAffineDimExpr(0, context)};
  for (auto [size, expr] :
       llvm::zip(outputType.getShape(), outputMap.getResults()))
    if (isa<AffineDimExpr>(expr)) {
      partialShape.push_back(size);
      partialOutput.push_back(expr.shiftDims(loopCount, 1));
    }
  Value partials = memref::AllocOp::create(
      rewriter, loc, MemRefType::get(partialShape, element));

  // The first step: loop 0 is the part, the split loop runs over one
  // part's length.
  AffineExpr part = getAffineDimExpr(0, context);
  SmallVector<Value> partialInputs;
  SmallVector<AffineMap> partialMaps;
  for (auto [input, position] :
       llvm::zip(op.getDpsInputOperands(), expandedAt)) {
    AffineMap map = op.getMatchingIndexingMap(input).shiftDims(1);
    if (!position) {
      partialInputs.push_back(input->get());
      partialMaps.push_back(map);
      continue;
    }
    auto type = cast<MemRefType>(input->get().getType());
    SmallVector<ReassociationIndices> groups;
    SmallVector<int64_t> shape;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      int64_t next = shape.size();
      if (d == *position) {
        groups.push_back({next, next + 1});
        shape.append({parts, partLength});
        continue;
      }
      groups.push_back({next});
      shape.push_back(type.getDimSize(d));
    }
    partialInputs.push_back(memref::ExpandShapeOp::create(
        rewriter, loc, MemRefType::get(shape, type.getElementType()),
        input->get(), groups));
    partialMaps.push_back(map.insertResult(part, *position));
  }
  // The parts start from the identity (the fill right before the step is
  // its starting value, not a kernel).
  Value identity = arith::getIdentityValue(*kind, element, rewriter, loc,
                                           /*useOnlyFiniteValue=*/false);
  auto fill = linalg::FillOp::create(rewriter, loc, identity, partials);
  partialMaps.push_back(
      AffineMap::get(loopCount + 1, 0, partialOutput, context));
  SmallVector<utils::IteratorType> partialIterators = {
      utils::IteratorType::parallel};
  llvm::append_range(partialIterators, iterators);
  auto first = linalg::GenericOp::create(rewriter, loc, TypeRange(),
                                         partialInputs, ValueRange{partials},
                                         partialMaps, partialIterators);
  rewriter.cloneRegionBefore(op.getRegion(), first.getRegion(),
                             first.getRegion().end());

  // The second step folds the parts into the output, from its value: loop
  // 0 is the part, the others the partial results' other dimensions.
  unsigned foldLoops = partialShape.size();
  SmallVector<AffineExpr> foldOutput;
  unsigned next = 1;
  for (AffineExpr expr : outputMap.getResults())
    foldOutput.push_back(
        isa<AffineDimExpr>(expr) ? getAffineDimExpr(next++, context) : expr);
  SmallVector<AffineMap> foldMaps = {
      AffineMap::getMultiDimIdentityMap(foldLoops, context),
      AffineMap::get(foldLoops, 0, foldOutput, context)};
  SmallVector<utils::IteratorType> foldIterators(foldLoops,
                                                 utils::IteratorType::parallel);
  foldIterators[0] = utils::IteratorType::reduction;
  auto second = linalg::GenericOp::create(
      rewriter, loc, TypeRange(), ValueRange{partials}, ValueRange{init->get()},
      foldMaps, foldIterators,
      [&](OpBuilder &b, Location bodyLoc, ValueRange arguments) {
        linalg::YieldOp::create(b, bodyLoc,
                                arith::getReductionOp(*kind, b, bodyLoc,
                                                      arguments[1],
                                                      arguments[0]));
      });
  rewriter.eraseOp(op);
  return SplitReduction{fill, first, second};
}
