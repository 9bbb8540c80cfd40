//===- UniformityAnalysis.h - subgroup uniformity ---------------*- C++ -*-===//
//
// Finds the values that may differ between the invocations of a subgroup and
// the operations that may execute in control flow that diverges inside a
// subgroup.
//
//===----------------------------------------------------------------------===//

#ifndef SUBGROUPMATRIX_ANALYSIS_UNIFORMITYANALYSIS_H
#define SUBGROUPMATRIX_ANALYSIS_UNIFORMITYANALYSIS_H

#include "mlir/IR/Dominance.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir {
namespace subgroup_matrix {

/// A whole-module, interprocedural analysis of subgroup uniformity.
///
/// A value is *varying* when invocations of one subgroup may see different
/// values for it: it derives from an invocation id (`gpu.thread_id`,
/// `gpu.lane_id`, `gpu.global_id`), from an atomic or a shuffle, or from an
/// op that runs in divergent control flow. Everything else (kernel
/// arguments, constants, block and subgroup ids, subgroup reductions) is
/// uniform.
///
/// Control flow *diverges* at a region op whose condition, bounds or
/// selector is varying (`scf.if`, `scf.for`, `scf.while`,
/// `scf.index_switch`, or any unknown region op with a varying operand), and
/// at a conditional branch on a varying value, up to the branch's immediate
/// post-dominator, where the paths meet again. Functions called from
/// divergent control flow run divergent as a whole.
///
/// The analysis iterates to a fixed point, so values carried around loops
/// and through calls are handled.
class UniformityAnalysis {
public:
  /// Analyses every function nested under `root` (usually a module).
  explicit UniformityAnalysis(Operation *root);

  /// Whether `value` may differ between the invocations of a subgroup.
  bool isVarying(Value value) const { return varyingValues.contains(value); }

  /// If `op` may execute in divergent control flow, returns the operation
  /// that makes it so (a region op, a conditional branch or a call);
  /// otherwise returns null.
  Operation *getDivergenceSource(Operation *op) const;

private:
  void runToFixedPoint();
  /// Visits one op; returns true if anything changed.
  bool visit(Operation *op);
  bool visitRegionOp(Operation *op);
  bool visitCall(Operation *op);
  bool visitConditionalBranch(Operation *terminator);

  bool markVarying(Value value);
  bool markVarying(ValueRange values);
  bool markRegionDivergent(Region &region, Operation *source);
  bool anyVarying(ValueRange values) const;

  Operation *root;
  SymbolTableCollection symbolTables;
  PostDominanceInfo postDominance;
  llvm::DenseSet<Value> varyingValues;
  /// Regions that run divergent as a whole, with the op responsible.
  llvm::DenseMap<Region *, Operation *> divergentRegions;
  /// Blocks reached on only some paths of a divergent branch, with the
  /// branch responsible.
  llvm::DenseMap<Block *, Operation *> divergentBlocks;
};

} // namespace subgroup_matrix
} // namespace mlir

#endif // SUBGROUPMATRIX_ANALYSIS_UNIFORMITYANALYSIS_H
