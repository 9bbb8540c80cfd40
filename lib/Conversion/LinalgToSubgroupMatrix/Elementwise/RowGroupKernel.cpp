//===- RowGroupKernel.cpp - one kernel for a row's reductions -------------===//

#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Elementwise/RowGroupKernel.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Contraction/Contraction.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Contraction/KernelEmitter.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Elementwise/ElementwiseKernel.h"

#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
using namespace mlir::subgroup_matrix;

/// The map by which a row group's ops read a reduction's result: the
/// parallel loops (the row), in order.
static AffineMap getRowMap(ArrayRef<utils::IteratorType> iterators,
                           MLIRContext *context) {
  SmallVector<AffineExpr> row;
  for (auto [d, iterator] : llvm::enumerate(iterators))
    if (iterator == utils::IteratorType::parallel)
      row.push_back(getAffineDimExpr(d, context));
  return AffineMap::get(iterators.size(), 0, row, context);
}

namespace {
/// What an op's buffers say of its loops' sizes: a static size, or the
/// dimensions (buffer, position) that a dynamic loop indexes directly.
struct LoopSizes {
  SmallVector<int64_t> ranges;
  SmallVector<SmallVector<std::pair<Value, unsigned>>> sources;
};
} // namespace

/// The loop sizes of `op` that its buffers other than `computed` give.
static LoopSizes getLoopSizes(linalg::GenericOp op, ArrayRef<Value> computed) {
  LoopSizes sizes;
  sizes.ranges.assign(op.getNumLoops(), ShapedType::kDynamic);
  sizes.sources.resize(op.getNumLoops());
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type || llvm::is_contained(computed, operand.get()))
      continue;
    for (auto [position, expr] :
         llvm::enumerate(op.getMatchingIndexingMap(&operand).getResults())) {
      auto dim = dyn_cast<AffineDimExpr>(expr);
      if (!dim)
        continue;
      if (!type.isDynamicDim(position))
        sizes.ranges[dim.getPosition()] = type.getDimSize(position);
      else
        sizes.sources[dim.getPosition()].push_back(
            {operand.get(), unsigned(position)});
    }
  }
  return sizes;
}

/// Whether `a` and `b` are known to give every loop the same size: equal
/// static sizes, or dynamic ones read off the same dimension of a buffer.
static bool haveSameLoopSizes(const LoopSizes &a, const LoopSizes &b) {
  for (auto [aRange, bRange, aSources, bSources] :
       llvm::zip(a.ranges, b.ranges, a.sources, b.sources)) {
    if (!ShapedType::isDynamic(aRange) || !ShapedType::isDynamic(bRange)) {
      if (aRange != bRange)
        return false;
      continue;
    }
    if (llvm::none_of(aSources, [&](const std::pair<Value, unsigned> &source) {
          return llvm::is_contained(bSources, source);
        }))
      return false;
  }
  return true;
}

std::optional<RowGroup>
mlir::subgroup_matrix::findRowGroup(linalg::GenericOp last) {
  if (!last.hasPureBufferSemantics() || last.getNumDpsInits() != 1 ||
      last.getNumReductionLoops() != 0)
    return std::nullopt;
  MLIRContext *context = last.getContext();
  Block *block = last->getBlock();
  RowGroup group;
  group.last = last;
  SmallVector<utils::IteratorType> iterators;
  SmallVector<Value> temporaries;
  // Walk back from the last op through the buffers its ops read: each that
  // a fill and then a reduction of the same rows write joins the group.
  SmallVector<Value> worklist = last.getDpsInputs();
  while (!worklist.empty()) {
    Value buffer = worklist.pop_back_val();
    if (llvm::is_contained(temporaries, buffer) ||
        !buffer.getDefiningOp<memref::AllocOp>())
      continue;
    linalg::FillOp fill;
    linalg::GenericOp reduction;
    bool writtenElsewhere = false;
    for (Operation *user : buffer.getUsers()) {
      auto dps = dyn_cast<DestinationStyleOpInterface>(user);
      if (!dps || !llvm::is_contained(dps.getDpsInits(), buffer))
        continue;
      if (auto filling = dyn_cast<linalg::FillOp>(user); filling && !fill)
        fill = filling;
      else if (auto generic = dyn_cast<linalg::GenericOp>(user);
               generic && !reduction && generic.getNumDpsInits() == 1)
        reduction = generic;
      else
        writtenElsewhere = true;
    }
    if (writtenElsewhere || !fill || !reduction || fill->getBlock() != block ||
        reduction->getBlock() != block || !fill->isBeforeInBlock(reduction) ||
        !reduction->isBeforeInBlock(last) ||
        reduction.getNumLoops() != last.getNumLoops() ||
        reduction.getNumReductionLoops() == 0 || !getReductionKind(reduction) ||
        llvm::is_contained(reduction.getDpsInputs(), buffer))
      continue;
    Value start = fill.getDpsInputs()[0];
    if (start.getType() !=
            cast<MemRefType>(buffer.getType()).getElementType() ||
        (!matchPattern(start, m_Constant()) && !isKernelScalar(start)))
      continue;
    SmallVector<utils::IteratorType> reductionIterators =
        reduction.getIteratorTypesArray();
    if (!iterators.empty() && iterators != reductionIterators)
      continue;
    if (reduction.getMatchingIndexingMap(reduction.getDpsInitOperand(0)) !=
        getRowMap(reductionIterators, context))
      continue;
    iterators = reductionIterators;
    temporaries.push_back(buffer);
    group.reductions.push_back({fill, reduction});
    llvm::append_range(worklist, reduction.getDpsInputs());
  }
  if (group.reductions.empty())
    return std::nullopt;
  llvm::sort(group.reductions, [](const auto &a, const auto &b) {
    return a.second->isBeforeInBlock(b.second);
  });

  SmallVector<Operation *> members;
  for (auto [fill, reduction] : group.reductions)
    members.append({fill, reduction});
  members.push_back(last);
  AffineMap rowMap = getRowMap(iterators, context);
  // The temporaries live only inside the group, each read as a row's value
  // after its reduction.
  for (auto [fill, reduction] : group.reductions) {
    Value temporary = reduction.getDpsInits()[0];
    for (OpOperand &use : temporary.getUses()) {
      Operation *user = use.getOwner();
      if (isa<memref::DeallocOp>(user) || user == fill || user == reduction)
        continue;
      auto reader = dyn_cast<linalg::GenericOp>(user);
      if (!reader || !llvm::is_contained(members, user) ||
          !reader.isDpsInput(&use) ||
          reader.getMatchingIndexingMap(&use) != rowMap ||
          !reduction->isBeforeInBlock(reader))
        return std::nullopt;
    }
  }
  // The last op writes no buffer a reduction reads (through any view):
  // its rows are written only after all of their reductions.
  auto getAllocation = [](Value buffer) {
    while (auto view = buffer.getDefiningOp<ViewLikeOpInterface>())
      buffer = view.getViewSource();
    return buffer;
  };
  Value output = getAllocation(last.getDpsInits()[0]);
  if (llvm::is_contained(temporaries, output))
    return std::nullopt;
  for (auto [fill, reduction] : group.reductions)
    if (llvm::any_of(reduction->getOperands(), [&](Value operand) {
          return getAllocation(operand) == output;
        }))
      return std::nullopt;
  // The kernel runs where the last op was: nothing between the group's
  // first op and it may write memory.
  Operation *first =
      *llvm::min_element(members, [](Operation *a, Operation *b) {
        return a->isBeforeInBlock(b);
      });
  for (Operation *op = first; op != last; op = op->getNextNode())
    if (!llvm::is_contained(members, op) && !isMemoryEffectFree(op) &&
        !isa<memref::AllocOp>(op))
      return std::nullopt;
  LoopSizes lastSizes = getLoopSizes(last, temporaries);
  for (auto [fill, reduction] : group.reductions)
    if (!canEmitElementwiseKernel(reduction, /*report=*/false, temporaries) ||
        !haveSameLoopSizes(getLoopSizes(reduction, temporaries), lastSizes))
      return std::nullopt;
  if (!canEmitElementwiseKernel(last, /*report=*/false, temporaries))
    return std::nullopt;
  return group;
}

FailureOr<gpu::LaunchFuncOp> mlir::subgroup_matrix::emitRowGroupKernel(
    RewriterBase &rewriter, const RowGroup &group, gpu::GPUModuleOp into,
    StringRef name) {
  linalg::GenericOp last = group.last;
  Location loc = last.getLoc();
  SmallVector<linalg::GenericOp> members;
  SmallVector<Value> temporaries;
  for (auto [fill, reduction] : group.reductions) {
    members.push_back(reduction);
    temporaries.push_back(reduction.getDpsInits()[0]);
  }
  members.push_back(last);
  SmallVector<utils::IteratorType> iterators =
      members.front().getIteratorTypesArray();
  int64_t loopCount = iterators.size();

  // Each loop's size: static where any op's buffers say so, else read off
  // a buffer's dimension on the host and passed after the buffers.
  SmallVector<int64_t> ranges(loopCount, ShapedType::kDynamic);
  SmallVector<std::pair<Value, unsigned>> sourceOfLoop(loopCount);
  for (linalg::GenericOp member : members) {
    LoopSizes sizes = getLoopSizes(member, temporaries);
    for (int64_t d = 0; d < loopCount; ++d) {
      if (!ShapedType::isDynamic(sizes.ranges[d]))
        ranges[d] = sizes.ranges[d];
      else if (!sourceOfLoop[d].first && !sizes.sources[d].empty())
        sourceOfLoop[d] = sizes.sources[d].front();
    }
  }
  auto productOf = [&](utils::IteratorType kind) {
    int64_t product = 1;
    for (auto [range, iterator] : llvm::zip(ranges, iterators))
      if (iterator == kind)
        product = ShapedType::isDynamic(range) || ShapedType::isDynamic(product)
                      ? ShapedType::kDynamic
                      : product * range;
    return product;
  };
  int64_t rows = productOf(utils::IteratorType::parallel);
  int64_t rowLength = productOf(utils::IteratorType::reduction);
  // As many invocations as a row has elements, up to the usual workgroup;
  // a power of two for the pairwise combination.
  int64_t workgroupSize = kElementwiseWorkgroupSize;
  if (!ShapedType::isDynamic(rowLength))
    workgroupSize = std::clamp<int64_t>(llvm::PowerOf2Ceil(rowLength), 64,
                                        kElementwiseWorkgroupSize);
  int64_t gridX = 0, gridY = 0;
  if (!ShapedType::isDynamic(rows)) {
    gridX = std::min(rows, kMaxGridDimension);
    gridY = llvm::divideCeil(rows, gridX);
  }

  // Kernel arguments: the buffers the group reads and writes (not its
  // temporaries); the dynamic loop sizes; the host's scalars (the ops',
  // then the fills' starting values).
  ElementKernelArguments arguments;
  for (linalg::GenericOp member : members)
    for (Value value : member->getOperands())
      if (isa<MemRefType>(value.getType()) &&
          !llvm::is_contained(temporaries, value))
        arguments.addBuffer(value);
  for (linalg::GenericOp member : members)
    for (Value scalar : getKernelScalars(member))
      arguments.addScalar(scalar);
  for (auto [fill, reduction] : group.reductions)
    arguments.addScalar(fill.getDpsInputs()[0]);
  ArrayRef<Value> buffers = arguments.buffers, scalars = arguments.scalars;

  // Each reduction combines its invocations' parts in a workgroup buffer
  // of its own.
  SmallVector<Type> attributions;
  for (auto [fill, reduction] : group.reductions)
    attributions.push_back(getWorkgroupBufferType(
        workgroupSize, cast<MemRefType>(reduction.getDpsInits()[0].getType())
                           .getElementType()));
  ElementKernelSkeleton skeleton = createElementKernel(
      into, loc, name, arguments, ranges, attributions, workgroupSize);
  gpu::GPUFuncOp kernel = skeleton.kernel;
  ArrayRef<Value> loopSizes = skeleton.loopSizes;
  const IRMapping &scalarArguments = skeleton.scalarArguments;
  OpBuilder b = OpBuilder::atBlockEnd(skeleton.entry);
  auto index = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(b, loc, value);
  };
  auto productValue = [&](utils::IteratorType kind) {
    Value product = index(1);
    for (auto [size, iterator] : llvm::zip(loopSizes, iterators))
      if (iterator == kind)
        product = arith::MulIOp::create(b, loc, product, size);
    return product;
  };
  Value rowsValue = productValue(utils::IteratorType::parallel);
  Value rowLengthValue = productValue(utils::IteratorType::reduction);
  Value gridXValue = ShapedType::isDynamic(rows)
                         ? Value(arith::MinUIOp::create(
                               b, loc, rowsValue, index(kMaxGridDimension)))
                         : index(gridX);
  Value row = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc,
                            gpu::BlockIdOp::create(b, loc, gpu::Dimension::y),
                            gridXValue),
      gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
  Value thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  // The condition is the same for the whole workgroup, so that every
  // invocation that reaches a barrier reaches all of them.
  Value inRange =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row, rowsValue);
  auto ifOp = scf::IfOp::create(b, loc, inRange, /*withElse=*/false);
  gpu::ReturnOp::create(b, loc);
  b.setInsertionPointToStart(ifOp.thenBlock());

  // The row's loop indices, row-major over the parallel loops; each pass
  // along the row sets the others.
  SmallVector<Value> loops(loopCount);
  auto decompose = [&](Value linear, utils::IteratorType kind) {
    decomposeLinearIndex(b, loc, linear, loopSizes, iterators, kind, loops);
  };
  decompose(row, utils::IteratorType::parallel);
  auto bufferArgument = [&](Value buffer) -> Value {
    return skeleton.entry->getArgument(llvm::find(buffers, buffer) -
                                       buffers.begin());
  };
  auto offsetOf = [&](AffineMap map, MemRefType type) -> Value {
    Value offset = index(0);
    for (auto [dimension, expr] : llvm::enumerate(map.getResults())) {
      Value position = emitIndex(b, loc, expr, loops);
      Value size = type.isDynamicDim(dimension)
                       ? loopSizes[cast<AffineDimExpr>(expr).getPosition()]
                       : index(type.getDimSize(dimension));
      offset = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, offset, size), position);
    }
    return offset;
  };
  // The reductions' results, by temporary, once computed.
  IRMapping rowValues;
  // Builds `op`'s body at the current loop indices, its output's value
  // being `current`.
  auto computeElement = [&](linalg::GenericOp op, Value current) -> Value {
    IRMapping mapping = mapElementArguments(
        b, op, scalarArguments, rowValues,
        [&](OpOperand *operand) -> Value {
          return memref::LoadOp::create(
              b, loc, bufferArgument(operand->get()),
              offsetOf(op.getMatchingIndexingMap(operand),
                       cast<MemRefType>(operand->get().getType())));
        },
        loops);
    Block &body = op.getRegion().front();
    if (current)
      mapping.map(body.getArguments().back(), current);
    return cloneScalarBody(b, body, mapping);
  };

  for (auto [position, step] : llvm::enumerate(group.reductions)) {
    auto [fill, reduction] = step;
    arith::AtomicRMWKind kind = *getReductionKind(reduction);
    Type element =
        cast<MemRefType>(reduction.getDpsInits()[0].getType()).getElementType();
    // Each invocation folds every workgroupSize-th element of the row into
    // its part, from the combination's identity.
    Value identity = arith::getIdentityValue(kind, element, b, loc,
                                             /*useOnlyFiniteValue=*/false);
    auto loop = scf::ForOp::create(b, loc, thread, rowLengthValue,
                                   index(workgroupSize), ValueRange{identity});
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      decompose(loop.getInductionVar(), utils::IteratorType::reduction);
      scf::YieldOp::create(
          b, loc, computeElement(reduction, loop.getRegionIterArgs()[0]));
    }
    Value parts = kernel.getWorkgroupAttributions()[position];
    emitWorkgroupReduction(b, loc, kind, loop.getResult(0), parts, thread,
                           workgroupSize);
    // Every invocation reads the total (the last barrier made it visible)
    // and folds it into the fill's value.
    Value startValue =
        getScalarInKernel(b, fill.getDpsInputs()[0], scalarArguments);
    Value total = memref::LoadOp::create(b, loc, parts, index(0));
    rowValues.map(reduction.getDpsInits()[0],
                  arith::getReductionOp(kind, b, loc, startValue, total));
  }

  // The row of the last op, each invocation writing every
  // workgroupSize-th element.
  OpOperand *init = last.getDpsInitOperand(0);
  auto initType = cast<MemRefType>(init->get().getType());
  auto writeLoop =
      scf::ForOp::create(b, loc, thread, rowLengthValue, index(workgroupSize));
  b.setInsertionPointToStart(writeLoop.getBody());
  decompose(writeLoop.getInductionVar(), utils::IteratorType::reduction);
  Value output = bufferArgument(init->get());
  Value outputOffset = offsetOf(last.getMatchingIndexingMap(init), initType);
  BlockArgument outArgument =
      last.getRegion().front().getArgument(init->getOperandNumber());
  Value current;
  if (!outArgument.use_empty())
    current = memref::LoadOp::create(b, loc, output, outputOffset);
  memref::StoreOp::create(b, loc, computeElement(last, current), output,
                          outputOffset);

  // What the runner needs to launch it alone; dynamic sizes appear by the
  // names of their loops (d0, d1, ...).
  SmallVector<std::string> loopNames;
  for (int64_t d = 0; d < loopCount; ++d)
    loopNames.push_back("d" + std::to_string(d));
  SmallVector<StringRef> names(loopNames.begin(), loopNames.end());
  SmallVector<std::string> counts =
      llvm::map_to_vector(buffers, [&](Value buffer) {
        return formatBufferSize(buffer, members, names);
      });
  std::string workgroups;
  if (ShapedType::isDynamic(rows)) {
    workgroups = formatLoopProduct(ranges, iterators, names,
                                   utils::IteratorType::parallel);
  }
  SmallVector<std::string> sizes;
  for (auto [range, loopName] : llvm::zip(ranges, names))
    if (ShapedType::isDynamic(range))
      sizes.push_back(loopName.str());
  if (canLaunchAlone(buffers, scalars))
    kernel->setAttr(SubgroupMatrixDialect::getLaunchAttrName(),
                    getSpreadLaunch(rewriter.getContext(), buffers, counts,
                                    {gridX, gridY}, workgroups, sizes));

  // The host side: flat views, the sizes and the launch, where the last op
  // was.
  rewriter.setInsertionPoint(last);
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, value);
  };
  auto [operands, hostRows] = buildElementLaunchOperands(
      rewriter, loc, arguments, ranges, sourceOfLoop, iterators,
      utils::IteratorType::parallel, /*extraSizes=*/{});
  Value hostGridX, hostGridY;
  if (!ShapedType::isDynamic(rows)) {
    hostGridX = constant(gridX);
    hostGridY = constant(gridY);
  } else {
    hostGridX = arith::MinUIOp::create(rewriter, loc, hostRows,
                                       constant(kMaxGridDimension));
    hostGridY = arith::CeilDivUIOp::create(rewriter, loc, hostRows, hostGridX);
  }
  auto launch = gpu::LaunchFuncOp::create(
      rewriter, loc, kernel, gpu::KernelDim3{hostGridX, hostGridY, constant(1)},
      gpu::KernelDim3{constant(workgroupSize), constant(1), constant(1)},
      /*dynamicSharedMemorySize=*/Value(), operands);

  // The group's ops and temporaries are gone.
  rewriter.eraseOp(last);
  for (auto [fill, reduction] : llvm::reverse(group.reductions)) {
    rewriter.eraseOp(reduction);
    rewriter.eraseOp(fill);
  }
  for (Value temporary : temporaries) {
    for (Operation *user : llvm::make_early_inc_range(temporary.getUsers()))
      rewriter.eraseOp(user);
    rewriter.eraseOp(temporary.getDefiningOp());
  }
  return launch;
}
