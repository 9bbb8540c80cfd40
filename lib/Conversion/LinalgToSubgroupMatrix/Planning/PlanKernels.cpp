//===- PlanKernels.cpp - sm-plan-kernels ----------------------------------===//
//
// sm-plan-kernels: after the program is prepared, chooses the tiling of
// every attention and contraction and attaches it as a
// `subgroup_matrix.plan` attribute, which the stages that make kernels
// follow.
//
//===----------------------------------------------------------------------===//

#include "KernelStages.h"

#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Attention/Attention.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Attention/DecodeAttention.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Contraction/Contraction.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Contraction/TileMatmul.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Elementwise/ElementwiseKernel.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Elementwise/RowGroupKernel.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Planning/DotProductPlan.h"
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
#define GEN_PASS_DEF_PLANKERNELSPASS
#include "SubgroupMatrix/Conversion/Passes.h.inc"
} // namespace subgroup_matrix
} // namespace mlir

using namespace mlir;
using namespace mlir::subgroup_matrix;

/// The attention tiling the `attention-*` options ask for; reports a bad
/// `attention-softmax` at `loc`.
static FailureOr<AttentionTiling>
readAttentionTilingOptions(Location loc, int64_t subgroups,
                           int64_t subgroupRows, int64_t keyBlock,
                           StringRef softmax, bool nvCooperativeMatrix2) {
  AttentionTiling tiling;
  tiling.nvCooperativeMatrix2 = nvCooperativeMatrix2;
  tiling.subgroups = subgroups;
  tiling.subgroupRows = subgroupRows;
  tiling.keyBlock = keyBlock;
  if (softmax == "registers")
    tiling.softmax = AttentionTiling::Softmax::Registers;
  else if (softmax == "workgroup-memory")
    tiling.softmax = AttentionTiling::Softmax::WorkgroupMemory;
  else if (!softmax.empty())
    return emitError(loc, "attention-softmax must be 'registers' or "
                          "'workgroup-memory', not '")
               << softmax << "'",
           failure();
  return tiling;
}

namespace {
struct PlanKernelsPass
    : public subgroup_matrix::impl::PlanKernelsPassBase<PlanKernelsPass> {
  using PlanKernelsPassBase::PlanKernelsPassBase;
  template <typename PassWithTilingOptions>
  friend MatmulTiling
  subgroup_matrix::readMatmulTilingOptions(const PassWithTilingOptions &);

  void runOnOperation() override;
};
} // namespace

void PlanKernelsPass::runOnOperation() {
  ModuleOp module = getOperation();
  FailureOr<TargetAttr> target = getProgramTarget(module, targetName);
  if (failed(target))
    return signalPassFailure();
  FailureOr<AttentionTiling> attentionTiling = readAttentionTilingOptions(
      module.getLoc(), attentionSubgroups, attentionSubgroupRows,
      attentionKeyBlock, attentionSoftmax, nvCoopmat2);
  if (failed(attentionTiling))
    return signalPassFailure();
  MatmulTiling requested = readMatmulTilingOptions(*this);
  requested.splitK = splitK;
  TuningTableOption tuningOption;
  if (failed(tuningOption.parse(module.getLoc(), tuningTable)))
    return signalPassFailure();
  const TuningTable *tuning = tuningOption.getFor(*target);
  StringRef planName = SubgroupMatrixDialect::getPlanAttrName();

  // Attention first: its products are the kernel's, not kernels of their
  // own. A plan already attached (by hand) is kept. Where the options ask
  // for nothing and the defaults do not fit, the attention's ops become
  // kernels of their own; what the options ask is honoured or reported.
  bool failedAny = false;
  llvm::SmallPtrSet<Operation *, 8> inAttention;
  module.walk([&](linalg::SoftmaxOp softmax) {
    if (!isOnHost(softmax))
      return;
    std::optional<Attention> attention = matchAttention(softmax);
    if (!attention)
      return;
    if (!softmax->hasAttr(planName)) {
      bool asked = !attentionTiling->isDefault();
      // A few queries split their keys, unless the options ask for a
      // tiling.
      std::optional<DecodeAttentionPlan> decode;
      if (!asked)
        decode =
            planDecodeAttention(*attention, *target, decodeAttentionQueries);
      if (decode) {
        softmax->setAttr(planName, decode->getAttr(softmax.getContext()));
        inAttention.insert(attention->ops.begin(), attention->ops.end());
        return;
      }
      FailureOr<AttentionPlan> plan =
          planAttention(*attention, *target, *attentionTiling, asked);
      if (failed(plan)) {
        failedAny |= asked;
        return;
      }
      softmax->setAttr(planName, plan->getAttr());
    }
    inAttention.insert(attention->ops.begin(), attention->ops.end());
  });

  IRRewriter rewriter(module.getContext());
  // Each planned contraction's fusion is recorded as a group of its own,
  // numbered after any an earlier run recorded.
  StringRef groupName = SubgroupMatrixDialect::getFusionGroupAttrName();
  int64_t nextGroup = 0;
  module.walk([&](Operation *op) {
    if (auto group = op->getAttrOfType<IntegerAttr>(groupName))
      nextGroup = std::max(nextGroup, group.getInt() + 1);
  });
  module.walk([&](linalg::LinalgOp op) {
    if (!isOnHost(op) || !isMatrixContraction(op) || inAttention.count(op) ||
        op->hasAttr(planName))
      return;
    FailureOr<Contraction> contraction =
        analyzeContractionKernel(rewriter, op, *target);
    if (failed(contraction)) {
      failedAny = true;
      return;
    }
    // Few rows take dot products, unless the options ask for a tiling.
    std::optional<DotProductPlan> dotProducts;
    if (requested.asksForNothing())
      dotProducts = planDotProducts(*contraction, *target, dotProductRows);
    if (dotProducts) {
      op->setAttr(planName, dotProducts->getAttr(op->getContext()));
      recordFusion(*contraction, rewriter.getI64IntegerAttr(nextGroup++));
      return;
    }
    FailureOr<TilingPlan> plan =
        planContraction(*contraction, *target, requested, tuning);
    if (failed(plan)) {
      failedAny = true;
      return;
    }
    op->setAttr(planName, plan->getAttr());
    recordFusion(*contraction, rewriter.getI64IntegerAttr(nextGroup++));
  });
  if (failedAny)
    signalPassFailure();
}
