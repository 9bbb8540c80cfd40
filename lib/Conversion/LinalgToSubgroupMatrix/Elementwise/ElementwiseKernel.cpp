//===- ElementwiseKernel.cpp - a kernel for an element-wise op ------------===//

#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Elementwise/ElementwiseKernel.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Contraction/Contraction.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Contraction/KernelEmitter.h"

#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::subgroup_matrix;

/// Reductions at least this long over fewer outputs than
/// kCooperativeOutputs run one workgroup per output: one invocation per
/// output would leave the device nearly idle for the whole reduction (the
/// row sums of an 8-bit product's zero points: 768 outputs of 768 terms).
static constexpr int64_t kCooperativeReduction = 64;
static constexpr int64_t kCooperativeOutputs = 16384;

bool mlir::subgroup_matrix::canEmitElementwiseKernel(linalg::GenericOp op,
                                                     bool report,
                                                     ArrayRef<Value> computed,
                                                     bool allowBodyLoads) {
  auto fail = [&](const Twine &message) {
    if (report)
      op->emitOpError() << "cannot be put on the GPU: " << message;
    return false;
  };
  for (OpOperand &operand : op->getOpOperands()) {
    Value value = operand.get();
    if (llvm::is_contained(computed, value))
      continue;
    auto type = dyn_cast<MemRefType>(value.getType());
    if (!type) {
      if (isa<ShapedType>(value.getType()))
        return fail("it works on tensors");
      if (!matchPattern(value, m_Constant()) && !isKernelScalar(value))
        return fail(llvm::formatv("it reads a scalar of type '{0}', which "
                                  "kernels cannot take",
                                  value.getType()));
      continue;
    }
    if (type.getRank() == 0)
      return fail(llvm::formatv("'{0}' has no dimensions", type));
    if (!type.getLayout().isIdentity())
      return fail(llvm::formatv("'{0}' is not a contiguous row-major memref{1}",
                                type, describeUnknownLayout(value)));
    for (auto [position, expr] :
         llvm::enumerate(op.getMatchingIndexingMap(&operand).getResults())) {
      if (!isComputableIndex(expr))
        return fail(llvm::formatv(
            "an operand is indexed by '{0}', which is not built of loops "
            "and constants by +, and *, floordiv and mod by positive "
            "constants",
            expr));
    }
  }
  // The body's ops, those in its branches too.
  std::function<bool(Block &)> canCompute = [&](Block &block) {
    for (Operation &inner : block.without_terminator()) {
      // Loop indices are what the kernel computes first.
      if (isa<linalg::IndexOp>(inner))
        continue;
      // A gather (an embedding's rows, chosen by the ids the body reads):
      // the buffer becomes an argument of the kernel, flat, and the load's
      // indices are linearized.
      if (auto load = dyn_cast<memref::LoadOp>(inner);
          load && allowBodyLoads &&
          !op.getRegion().isAncestor(load.getMemRef().getParentRegion())) {
        auto type = load.getMemRefType();
        if (!type.getLayout().isIdentity() || !type.hasStaticShape() ||
            type.getMemorySpace())
          return fail(llvm::formatv("its body loads from '{0}', which is not "
                                    "a statically shaped row-major memref",
                                    type));
        continue;
      }
      // A branch that chooses a value (a padding generic reads its input
      // only inside the bounds): computed as a branch in the kernel.
      if (auto branch = dyn_cast<scf::IfOp>(inner);
          branch && branch.getNumResults()) {
        for (Region &region : branch->getRegions())
          if (!region.empty() && !canCompute(region.front()))
            return false;
        continue;
      }
      if (!isa<arith::ArithDialect, math::MathDialect>(inner.getDialect()) ||
          inner.getNumRegions() || !isPure(&inner))
        return fail(llvm::formatv("its body uses '{0}', which kernels of "
                                  "this pipeline do not compute",
                                  inner.getName()));
      for (Value operand : inner.getOperands())
        if (!op.getRegion().isAncestor(operand.getParentRegion()) &&
            !matchPattern(operand, m_Constant()) && !isKernelScalar(operand))
          return fail(llvm::formatv("its body uses a value of type '{0}' "
                                    "from outside, which kernels cannot take",
                                    operand.getType()));
    }
    return true;
  };
  if (!canCompute(op.getRegion().front()))
    return false;
  return true;
}

SmallVector<int64_t> mlir::subgroup_matrix::getKernelLoopSizes(
    ArrayRef<AffineMap> maps, ValueRange operands, unsigned loopCount) {
  SmallVector<int64_t> sizes(loopCount, ShapedType::kDynamic);
  for (auto [map, operand] : llvm::zip(maps, operands)) {
    auto type = dyn_cast<ShapedType>(operand.getType());
    if (!type)
      continue;
    for (auto [position, expr] : llvm::enumerate(map.getResults())) {
      auto dim = dyn_cast<AffineDimExpr>(expr);
      if (!dim || type.isDynamicDim(position))
        continue;
      int64_t &size = sizes[dim.getPosition()];
      size = ShapedType::isDynamic(size)
                 ? type.getDimSize(position)
                 : std::min(size, type.getDimSize(position));
    }
  }
  return sizes;
}

bool mlir::subgroup_matrix::canStartFromFill(linalg::GenericOp op,
                                             OpOperand &init,
                                             linalg::FillOp fill) {
  if (fill.getDpsInits()[0] != init.get())
    return false;
  Value start = fill.getDpsInputs()[0];
  if (start.getType() !=
          cast<ShapedType>(init.get().getType()).getElementType() ||
      (!matchPattern(start, m_Constant()) && !isKernelScalar(start)))
    return false;
  // Every element of the output is written: distinct loops index it, each
  // as long as its dimension (a view folded into the output's map covers
  // part of it).
  AffineMap map = op.getMatchingIndexingMap(&init);
  auto type = cast<ShapedType>(init.get().getType());
  SmallVector<int64_t> loopSizes = getKernelLoopSizes(
      op.getIndexingMapsArray(), op->getOperands(), op.getNumLoops());
  llvm::SmallDenseSet<unsigned> loops;
  for (auto [position, expr] : llvm::enumerate(map.getResults())) {
    auto dim = dyn_cast<AffineDimExpr>(expr);
    if (!dim || !loops.insert(dim.getPosition()).second ||
        loopSizes[dim.getPosition()] != type.getDimSize(position))
      return false;
  }
  return true;
}

FailureOr<gpu::LaunchFuncOp> mlir::subgroup_matrix::emitElementwiseKernel(
    RewriterBase &rewriter, linalg::GenericOp op, gpu::GPUModuleOp into,
    StringRef name, ArrayRef<linalg::FillOp> startingFills) {
  if (!canEmitElementwiseKernel(op, /*report=*/true, /*computed=*/{},
                                /*allowBodyLoads=*/true))
    return failure();
  Location loc = op.getLoc();
  // A loop's size is static when any operand spells it; otherwise the
  // kernel takes it as an argument (after the buffers, in loop order) and
  // the host reads it off an operand. Where operands disagree, the kernel
  // runs over the smallest (getKernelLoopSizes).
  int64_t loopCount = op.getNumLoops();
  SmallVector<int64_t> ranges = getKernelLoopSizes(
      op.getIndexingMapsArray(), op->getOperands(), loopCount);
  // A dynamic dimension that no loop spans alone (a convolution's input
  // row, indexed by output row plus window row) is an argument of its own,
  // an extent read off its buffer by the host: the kernel needs it to
  // linearize.
  SmallVector<std::pair<Value, unsigned>> sourceOfLoop(loopCount);
  SmallVector<std::pair<Value, unsigned>> extents;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type)
      continue;
    for (auto [position, expr] :
         llvm::enumerate(op.getMatchingIndexingMap(&operand).getResults())) {
      if (!type.isDynamicDim(position))
        continue;
      std::pair<Value, unsigned> dimension{operand.get(), position};
      auto dim = dyn_cast<AffineDimExpr>(expr);
      if (!dim) {
        if (!llvm::is_contained(extents, dimension))
          extents.push_back(dimension);
      } else if (!sourceOfLoop[dim.getPosition()].first) {
        sourceOfLoop[dim.getPosition()] = dimension;
      }
    }
  }
  bool hasDynamicLoops = llvm::any_of(ranges, ShapedType::isDynamic);
  SmallVector<std::string> loopNames;
  for (int64_t d = 0; d < loopCount; ++d)
    loopNames.push_back("d" + std::to_string(d));
  // One invocation per element of the output (per combination of the
  // parallel loops); the reduction loops run inside it.
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  int64_t total = 1;
  for (auto [range, iterator] : llvm::zip(ranges, iterators))
    if (iterator == utils::IteratorType::parallel)
      total = ShapedType::isDynamic(range) || ShapedType::isDynamic(total)
                  ? ShapedType::kDynamic
                  : total * range;
  // Static grids are counted here; dynamic ones by the same arithmetic on
  // the host and, for the row length, in the kernel.
  int64_t workgroups = 0, gridX = 0, gridY = 0;
  if (!ShapedType::isDynamic(total)) {
    workgroups = llvm::divideCeil(total, kElementwiseWorkgroupSize);
    gridX = std::min(workgroups, kMaxGridDimension);
    gridY = llvm::divideCeil(workgroups, gridX);
  }
  // Few outputs of long reductions: one workgroup per output, whose
  // invocations share the reduction and combine their parts through
  // workgroup memory.
  int64_t reductionSize = 1;
  for (auto [range, iterator] : llvm::zip(ranges, iterators))
    if (iterator == utils::IteratorType::reduction)
      reductionSize = ShapedType::isDynamic(range) ? ShapedType::kDynamic
                                                   : reductionSize * range;
  std::optional<arith::AtomicRMWKind> reductionKind = getReductionKind(op);
  bool cooperative = reductionKind && !hasDynamicLoops &&
                     reductionSize >= kCooperativeReduction &&
                     total < kCooperativeOutputs;
  if (cooperative) {
    gridX = total;
    gridY = 1;
  }

  // Kernel arguments: the memref operands in operand order, not inputs
  // that only give loops their sizes (a pooling's window); the buffers the
  // body loads from (gathers); the dynamic sizes and extents; the scalars
  // the host knows (a function argument: a scale, a zero point; a fill's
  // starting value).
  ElementKernelArguments arguments;
  for (OpOperand &operand : op->getOpOperands())
    if (isa<MemRefType>(operand.get().getType()) &&
        !(op.isDpsInput(&operand) &&
          op.getMatchingBlockArgument(&operand).use_empty()))
      arguments.addBuffer(operand.get());
  for (Value buffer : getBodyLoadedBuffers(op))
    arguments.addBuffer(buffer);
  arguments.extraSizes = extents.size();
  for (Value scalar : getKernelScalars(op))
    arguments.addScalar(scalar);
  for (linalg::FillOp fill : startingFills)
    if (fill)
      arguments.addScalar(fill.getDpsInputs()[0]);
  ArrayRef<Value> buffers = arguments.buffers, scalars = arguments.scalars;

  Type outputElement =
      cast<MemRefType>(op.getDpsInits()[0].getType()).getElementType();
  SmallVector<Type> attributions;
  if (cooperative)
    attributions.push_back(
        getWorkgroupBufferType(kElementwiseWorkgroupSize, outputElement));
  ElementKernelSkeleton skeleton =
      createElementKernel(into, loc, name, arguments, ranges, attributions,
                          kElementwiseWorkgroupSize);
  gpu::GPUFuncOp kernel = skeleton.kernel;
  Block *entry = skeleton.entry;
  // Every loop's size is a constant or a kernel argument; the extents and
  // the scalars are arguments.
  ArrayRef<Value> loopSizes = skeleton.loopSizes;
  ArrayRef<Value> extentValues = skeleton.extraSizes;
  const IRMapping &scalarArguments = skeleton.scalarArguments;
  OpBuilder b = OpBuilder::atBlockEnd(entry);
  auto index = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(b, loc, value);
  };
  Value totalValue;
  for (auto [size, iterator] : llvm::zip(loopSizes, iterators))
    if (iterator == utils::IteratorType::parallel)
      totalValue =
          totalValue ? arith::MulIOp::create(b, loc, totalValue, size) : size;
  // One output element where every loop is a reduction (a dot product).
  if (!totalValue)
    totalValue = index(1);
  Value gridXValue;
  if (ShapedType::isDynamic(total)) {
    Value workgroupsValue = arith::DivUIOp::create(
        b, loc,
        arith::AddIOp::create(b, loc, totalValue,
                              index(kElementwiseWorkgroupSize - 1)),
        index(kElementwiseWorkgroupSize));
    gridXValue = arith::MinUIOp::create(b, loc, workgroupsValue,
                                        index(kMaxGridDimension));
  } else {
    gridXValue = index(gridX);
  }
  Value blockX = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value blockY = gpu::BlockIdOp::create(b, loc, gpu::Dimension::y);
  Value thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value block = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, blockY, gridXValue), blockX);
  // The output element: one per invocation, or (cooperative) one per
  // workgroup, whose grid has exactly as many workgroups as outputs, so
  // that no invocation leaves before the workgroup's barriers.
  Value linear =
      cooperative ? block
                  : Value(arith::AddIOp::create(
                        b, loc,
                        arith::MulIOp::create(b, loc, block,
                                              index(kElementwiseWorkgroupSize)),
                        thread));
  if (cooperative) {
    auto end = gpu::ReturnOp::create(b, loc);
    b.setInsertionPoint(end);
  } else {
    Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                          linear, totalValue);
    auto ifOp = scf::IfOp::create(b, loc, inRange, /*withElse=*/false);
    gpu::ReturnOp::create(b, loc);
    b.setInsertionPointToStart(ifOp.thenBlock());
  }

  // The loop indices of this element, row-major over the loop ranges.
  SmallVector<Value> loops(ranges.size());
  decomposeLinearIndex(b, loc, linear, loopSizes, iterators,
                       utils::IteratorType::parallel, loops);
  // The linear offset of the element an indexing map selects.
  auto offsetOf = [&](AffineMap map, Value buffer) -> Value {
    auto type = cast<MemRefType>(buffer.getType());
    Value offset = index(0);
    for (auto [dimension, expr] : llvm::enumerate(map.getResults())) {
      Value position = emitIndex(b, loc, expr, loops);
      // A dynamic dimension has the size of the loop that indexes it, or
      // is an argument of its own.
      Value size;
      if (!type.isDynamicDim(dimension))
        size = index(type.getDimSize(dimension));
      else {
        if (auto dim = dyn_cast<AffineDimExpr>(expr))
          size = loopSizes[dim.getPosition()];
        else
          size = extentValues[llvm::find(
                                  extents,
                                  std::make_pair(buffer, unsigned(dimension))) -
                              extents.begin()];
      }
      offset = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, offset, size), position);
    }
    return offset;
  };
  Block &body = op.getRegion().front();
  // Each output (an argmax has two: the value and its index) at this
  // element, and its running value: read first when the body or a
  // reduction uses it, carried through the reduction loops.
  SmallVector<Value> outputs, outputOffsets, running;
  SmallVector<BlockArgument> outArguments;
  bool reduces = op.getNumReductionLoops() > 0;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    outputs.push_back(
        entry->getArgument(llvm::find(buffers, init.get()) - buffers.begin()));
    outputOffsets.push_back(
        offsetOf(op.getMatchingIndexingMap(&init), init.get()));
    outArguments.push_back(body.getArgument(init.getOperandNumber()));
    linalg::FillOp startingFill;
    if (!startingFills.empty())
      startingFill = startingFills[outputs.size() - 1];
    if (startingFill) {
      running.push_back(getScalarInKernel(b, startingFill.getDpsInputs()[0],
                                          scalarArguments));
    } else if (!outArguments.back().use_empty() || reduces) {
      running.push_back(
          memref::LoadOp::create(b, loc, outputs.back(), outputOffsets.back()));
    } else {
      running.push_back(Value());
    }
  }
  // Builds the body at the current loop indices on the running values.
  auto computeElement = [&](ValueRange current) -> SmallVector<Value> {
    IRMapping mapping = mapElementArguments(
        b, op, scalarArguments, IRMapping(),
        [&](OpOperand *operand) -> Value {
          Value value = operand->get();
          Value buffer =
              entry->getArgument(llvm::find(buffers, value) - buffers.begin());
          return memref::LoadOp::create(
              b, loc, buffer,
              offsetOf(op.getMatchingIndexingMap(operand), value));
        },
        loops);
    for (auto [argument, value] : llvm::zip(outArguments, current))
      if (value)
        mapping.map(argument, value);
    // Gathers load from the flat argument at their linearized indices.
    auto emitGather = [&](Operation &inner) {
      auto load = dyn_cast<memref::LoadOp>(inner);
      if (!load || load.getMemRef().getParentBlock() == &body)
        return false;
      Value linear = index(0);
      for (auto [size, position] :
           llvm::zip(load.getMemRefType().getShape(), load.getIndices()))
        linear = arith::AddIOp::create(
            b, loc, arith::MulIOp::create(b, loc, linear, index(size)),
            mapping.lookupOrDefault(position));
      Value buffer = entry->getArgument(llvm::find(buffers, load.getMemRef()) -
                                        buffers.begin());
      mapping.map(load.getResult(),
                  memref::LoadOp::create(b, loc, buffer, linear));
      return true;
    };
    return cloneScalarBodyResults(b, body, mapping, emitGather);
  };
  SmallVector<Value> results;
  if (cooperative) {
    // Each invocation folds every 256th element of the flattened reduction
    // into its part, from the combination's identity; the parts are then
    // combined pairwise in workgroup memory, and the first invocation
    // folds the total into the output's value.
    Value identity = arith::getIdentityValue(*reductionKind, outputElement, b,
                                             loc, /*useOnlyFiniteValue=*/false);
    auto loop = scf::ForOp::create(b, loc, thread, index(reductionSize),
                                   index(kElementwiseWorkgroupSize),
                                   ValueRange{identity});
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      decomposeLinearIndex(b, loc, loop.getInductionVar(), loopSizes, iterators,
                           utils::IteratorType::reduction, loops);
      scf::YieldOp::create(b, loc, computeElement(loop.getRegionIterArgs()));
    }
    Value parts = kernel.getWorkgroupAttributions()[0];
    emitWorkgroupReduction(b, loc, *reductionKind, loop.getResult(0), parts,
                           thread, kElementwiseWorkgroupSize);
    Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        thread, index(0));
    auto store = scf::IfOp::create(b, loc, first, /*withElse=*/false);
    b.setInsertionPointToStart(store.thenBlock());
    Value total = memref::LoadOp::create(b, loc, parts, index(0));
    results.push_back(
        arith::getReductionOp(*reductionKind, b, loc, running.front(), total));
  } else if (!reduces) {
    results = computeElement(running);
  } else {
    // Nested loops over the reduction dimensions, in order.
    OpBuilder::InsertionGuard guard(b);
    SmallVector<scf::ForOp> nest;
    ValueRange carried = running;
    for (auto [d, iterator] : llvm::enumerate(iterators)) {
      if (iterator == utils::IteratorType::parallel)
        continue;
      auto loop =
          scf::ForOp::create(b, loc, index(0), loopSizes[d], index(1), carried);
      if (!nest.empty())
        scf::YieldOp::create(b, loc, loop.getResults());
      nest.push_back(loop);
      b.setInsertionPointToStart(loop.getBody());
      loops[d] = loop.getInductionVar();
      carried = loop.getRegionIterArgs();
    }
    scf::YieldOp::create(b, loc, computeElement(carried));
    llvm::append_range(results, nest.front().getResults());
  }
  for (auto [result, output, offset] :
       llvm::zip(results, outputs, outputOffsets))
    memref::StoreOp::create(b, loc, result, output, offset);

  // What the runner needs to launch it alone; dynamic sizes appear by the
  // names of their loops (d0, d1, ...).
  SmallVector<StringRef> names(loopNames.begin(), loopNames.end());
  // (A buffer with dynamic dimensions other than loops' - a kernel with
  // extents - is not launched alone.)
  SmallVector<std::string> counts =
      llvm::map_to_vector(buffers, [&](Value buffer) {
        return formatBufferSize(buffer, op, names);
      });
  std::string workgroupsText;
  SmallVector<std::string> sizes;
  if (hasDynamicLoops) {
    std::string totalText = formatLoopProduct(ranges, iterators, names,
                                              utils::IteratorType::parallel);
    workgroupsText =
        llvm::formatv("ceildiv({0},{1})", totalText, kElementwiseWorkgroupSize);
    for (auto [range, name] : llvm::zip(ranges, names))
      if (ShapedType::isDynamic(range))
        sizes.push_back(name.str());
  }
  if (extents.empty() && canLaunchAlone(buffers, scalars))
    kernel->setAttr(SubgroupMatrixDialect::getLaunchAttrName(),
                    getSpreadLaunch(rewriter.getContext(), buffers, counts,
                                    {gridX, gridY}, workgroupsText, sizes));

  // The host side: flat views, the dynamic loop sizes and extents, the
  // scalars, and the launch; the grid is counted as for static sizes.
  rewriter.setInsertionPoint(op);
  auto [operands, hostTotal] = buildElementLaunchOperands(
      rewriter, loc, arguments, ranges, sourceOfLoop, iterators,
      utils::IteratorType::parallel, extents);
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, value);
  };
  Value hostGridX, hostGridY;
  if (!ShapedType::isDynamic(total)) {
    hostGridX = constant(gridX);
    hostGridY = constant(gridY);
  } else {
    Value hostWorkgroups = arith::CeilDivUIOp::create(
        rewriter, loc, hostTotal, constant(kElementwiseWorkgroupSize));
    hostGridX = arith::MinUIOp::create(rewriter, loc, hostWorkgroups,
                                       constant(kMaxGridDimension));
    hostGridY =
        arith::CeilDivUIOp::create(rewriter, loc, hostWorkgroups, hostGridX);
  }
  auto launch = gpu::LaunchFuncOp::create(
      rewriter, loc, kernel, gpu::KernelDim3{hostGridX, hostGridY, constant(1)},
      gpu::KernelDim3{constant(kElementwiseWorkgroupSize), constant(1),
                      constant(1)},
      /*dynamicSharedMemorySize=*/Value(), operands);
  rewriter.eraseOp(op);
  for (linalg::FillOp fill : startingFills)
    if (fill)
      rewriter.eraseOp(fill);
  return launch;
}
