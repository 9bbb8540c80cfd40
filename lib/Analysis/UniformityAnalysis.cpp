//===- UniformityAnalysis.cpp - subgroup uniformity -----------------------===//

#include "SubgroupMatrix/Analysis/UniformityAnalysis.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;
using namespace mlir::subgroup_matrix;

UniformityAnalysis::UniformityAnalysis(Operation *root)
    : root(root), postDominance(root) {
  runToFixedPoint();
}

void UniformityAnalysis::runToFixedPoint() {
  // Every rule only ever adds varying values and divergent regions or
  // blocks, so repeating the walk until nothing changes terminates.
  bool changed;
  do {
    changed = false;
    root->walk<WalkOrder::PreOrder>(
        [&](Operation *op) { changed |= visit(op); });
  } while (changed);
}

Operation *UniformityAnalysis::getDivergenceSource(Operation *op) const {
  for (Operation *current = op; current && current != root;
       current = current->getParentOp()) {
    Block *block = current->getBlock();
    if (!block)
      return nullptr;
    if (Operation *source = divergentBlocks.lookup(block))
      return source;
    if (Operation *source = divergentRegions.lookup(block->getParent()))
      return source;
  }
  return nullptr;
}

bool UniformityAnalysis::markVarying(Value value) {
  return varyingValues.insert(value).second;
}

bool UniformityAnalysis::markVarying(ValueRange values) {
  bool changed = false;
  for (Value value : values)
    changed |= markVarying(value);
  return changed;
}

bool UniformityAnalysis::anyVarying(ValueRange values) const {
  return llvm::any_of(values, [&](Value value) { return isVarying(value); });
}

bool UniformityAnalysis::markRegionDivergent(Region &region,
                                             Operation *source) {
  return divergentRegions.try_emplace(&region, source).second;
}

/// Whether `op` yields values that differ per invocation whatever its
/// operands: invocation ids, and ops that return a per-invocation view of
/// shared state (atomics, shuffles).
static bool producesInvocationDependentValues(Operation *op) {
  if (isa<gpu::ThreadIdOp, gpu::LaneIdOp, gpu::GlobalIdOp, gpu::ShuffleOp,
          gpu::RotateOp, memref::AtomicRMWOp, memref::GenericAtomicRMWOp>(op))
    return true;
  // Any other op that writes memory and returns a value behaves like an
  // atomic: invocations racing on one location see different values.
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  return op->getNumResults() > 0 && effects &&
         effects.hasEffect<MemoryEffects::Write>();
}

/// Whether `op` hands every invocation of the subgroup the same result even
/// from varying operands.
static bool producesSubgroupUniformValues(Operation *op) {
  if (auto reduce = dyn_cast<gpu::SubgroupReduceOp>(op))
    return !reduce.getClusterSize();
  return isa<gpu::AllReduceOp, gpu::SubgroupBroadcastOp>(op);
}

bool UniformityAnalysis::visit(Operation *op) {
  bool changed = false;
  // Functions and modules only hold code; their arguments are uniform for
  // kernels and get their uniformity from call sites otherwise.
  if (isa<FunctionOpInterface>(op) || op->hasTrait<OpTrait::SymbolTable>())
    return false;

  // A loop's results follow its carried values one by one (visitRegionOp),
  // not all of its operands together: a loop may carry per-invocation
  // values next to uniform matrices.
  bool resultsPerCarriedValue = isa<scf::ForOp, scf::WhileOp>(op);
  if (producesInvocationDependentValues(op))
    changed |= markVarying(op->getResults());
  else if (!producesSubgroupUniformValues(op) && !resultsPerCarriedValue &&
           anyVarying(op->getOperands()))
    changed |= markVarying(op->getResults());
  // Values computed in divergent control flow may differ after it
  // reconverges (for example, the last value of a loop that invocations
  // leave at different iterations).
  if (getDivergenceSource(op))
    changed |= markVarying(op->getResults());

  if (op->getNumRegions() > 0)
    changed |= visitRegionOp(op);
  if (isa<CallOpInterface>(op))
    changed |= visitCall(op);
  if (op->hasTrait<OpTrait::IsTerminator>())
    changed |= visitConditionalBranch(op);
  return changed;
}

/// Returns the operands that `op`'s terminators in `region` hand back to the
/// parent (the values of `scf.yield`).
static SmallVector<ValueRange> getYieldedValues(Region &region) {
  SmallVector<ValueRange> yielded;
  for (Block &block : region)
    if (Operation *terminator = block.getTerminator())
      if (terminator->hasTrait<OpTrait::ReturnLike>())
        yielded.push_back(terminator->getOperands());
  return yielded;
}

bool UniformityAnalysis::visitRegionOp(Operation *op) {
  bool changed = false;
  // Marks result i varying if any region yields a varying value i.
  auto forwardYields = [&](Operation *parent) {
    for (Region &region : parent->getRegions())
      for (ValueRange yielded : getYieldedValues(region))
        for (auto [value, result] : llvm::zip(yielded, parent->getResults()))
          if (isVarying(value))
            changed |= markVarying(result);
  };
  auto divergeAll = [&](Operation *parent) {
    for (Region &region : parent->getRegions()) {
      changed |= markRegionDivergent(region, parent);
      for (Block &block : region)
        changed |= markVarying(block.getArguments());
    }
    changed |= markVarying(parent->getResults());
  };

  if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
    if (isVarying(ifOp.getCondition()))
      divergeAll(op);
    forwardYields(op);
    return changed;
  }
  if (auto forOp = dyn_cast<scf::ForOp>(op)) {
    if (anyVarying(
            {forOp.getLowerBound(), forOp.getUpperBound(), forOp.getStep()}))
      divergeAll(op);
    auto yield = cast<scf::YieldOp>(forOp.getBody()->getTerminator());
    for (auto [init, iterArg, yielded, result] :
         llvm::zip(forOp.getInitArgs(), forOp.getRegionIterArgs(),
                   yield.getOperands(), forOp.getResults())) {
      if (isVarying(init) || isVarying(yielded)) {
        changed |= markVarying(iterArg);
        changed |= markVarying(result);
      }
    }
    return changed;
  }
  if (auto whileOp = dyn_cast<scf::WhileOp>(op)) {
    scf::ConditionOp condition = whileOp.getConditionOp();
    if (isVarying(condition.getCondition()))
      divergeAll(op);
    for (auto [init, yielded, argument] :
         llvm::zip(whileOp.getInits(), whileOp.getYieldOp().getOperands(),
                   whileOp.getBeforeArguments()))
      if (isVarying(init) || isVarying(yielded))
        changed |= markVarying(argument);
    for (auto [forwarded, argument, result] :
         llvm::zip(condition.getArgs(), whileOp.getAfterArguments(),
                   whileOp.getResults()))
      if (isVarying(forwarded)) {
        changed |= markVarying(argument);
        changed |= markVarying(result);
      }
    return changed;
  }
  if (auto switchOp = dyn_cast<scf::IndexSwitchOp>(op)) {
    if (isVarying(switchOp.getArg()))
      divergeAll(op);
    forwardYields(op);
    return changed;
  }
  if (isa<scf::ExecuteRegionOp>(op)) {
    forwardYields(op);
    return changed;
  }
  // An op whose regions we do not understand: any varying operand may
  // decide which invocations run them. An atomic's region sees the value in
  // memory, which differs per invocation.
  if (anyVarying(op->getOperands()))
    divergeAll(op);
  if (isa<memref::GenericAtomicRMWOp>(op))
    changed |= markVarying(op->getRegion(0).getArguments());
  forwardYields(op);
  return changed;
}

bool UniformityAnalysis::visitCall(Operation *op) {
  bool changed = false;
  auto call = cast<CallOpInterface>(op);
  auto callee = dyn_cast_or_null<FunctionOpInterface>(
      call.resolveCallableInTable(&symbolTables));
  if (!callee || callee.isExternal()) {
    // Nothing is known of the callee: its results may depend on anything.
    return changed;
  }
  Region &body = callee.getFunctionBody();
  for (auto [operand, argument] :
       llvm::zip(call.getArgOperands(), body.getArguments()))
    if (isVarying(operand))
      changed |= markVarying(argument);
  if (getDivergenceSource(op))
    changed |= markRegionDivergent(body, op);
  for (ValueRange returned : getYieldedValues(body))
    for (auto [value, result] : llvm::zip(returned, op->getResults()))
      if (isVarying(value))
        changed |= markVarying(result);
  return changed;
}

bool UniformityAnalysis::visitConditionalBranch(Operation *terminator) {
  auto branch = dyn_cast<BranchOpInterface>(terminator);
  if (!branch)
    return false;
  bool changed = false;
  // Values forwarded to a successor's block arguments.
  llvm::SmallPtrSet<OpOperand *, 8> forwarded;
  for (unsigned i = 0, e = terminator->getNumSuccessors(); i < e; ++i) {
    SuccessorOperands operands = branch.getSuccessorOperands(i);
    Block *successor = terminator->getSuccessor(i);
    OperandRange forwardedRange = operands.getForwardedOperands();
    for (OpOperand &operand : forwardedRange.empty()
                                  ? MutableArrayRef<OpOperand>()
                                  : terminator->getOpOperands().slice(
                                        forwardedRange.getBeginOperandIndex(),
                                        forwardedRange.size()))
      forwarded.insert(&operand);
    for (auto [value, argument] :
         llvm::zip(forwardedRange, successor->getArguments().drop_front(
                                       operands.getProducedOperandCount())))
      if (isVarying(value))
        changed |= markVarying(argument);
  }

  // The branch diverges when a value that picks the successor (anything
  // other than the forwarded operands) varies.
  if (terminator->getNumSuccessors() < 2)
    return changed;
  bool divergent = llvm::any_of(terminator->getOpOperands(), [&](OpOperand &o) {
    return !forwarded.contains(&o) && isVarying(o.get());
  });
  if (!divergent)
    return changed;

  Block *block = terminator->getBlock();
  DominanceInfoNode *node = postDominance.getNode(block);
  DominanceInfoNode *joinNode = node ? node->getIDom() : nullptr;
  Block *join = joinNode ? joinNode->getBlock() : nullptr;
  // Every block reachable from the branch before the paths meet runs on
  // only some invocations.
  SmallVector<Block *> worklist(terminator->getSuccessors());
  llvm::SmallPtrSet<Block *, 16> seen;
  while (!worklist.empty()) {
    Block *current = worklist.pop_back_val();
    if (current == join || !seen.insert(current).second)
      continue;
    changed |= divergentBlocks.try_emplace(current, terminator).second;
    llvm::append_range(worklist, current->getSuccessors());
  }
  // Arguments of the join merge values from the divergent paths.
  if (join)
    changed |= markVarying(join->getArguments());
  return changed;
}
