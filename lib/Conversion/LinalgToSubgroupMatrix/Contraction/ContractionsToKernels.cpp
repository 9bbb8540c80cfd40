//===- ContractionsToKernels.cpp - sm-contractions-to-kernels -------------===//
//
// sm-contractions-to-kernels: every matrix contraction becomes a kernel of
// its own with its fused neighbours, following its plan (or the target's
// defaults where this stage runs alone).
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
#define GEN_PASS_DEF_CONTRACTIONSTOKERNELSPASS
#include "SubgroupMatrix/Conversion/Passes.h.inc"
} // namespace subgroup_matrix
} // namespace mlir

using namespace mlir;
using namespace mlir::subgroup_matrix;

namespace {
struct ContractionsToKernelsPass
    : public subgroup_matrix::impl::ContractionsToKernelsPassBase<
          ContractionsToKernelsPass> {
  using ContractionsToKernelsPassBase::ContractionsToKernelsPassBase;

  /// `report=1`'s remarks on a contraction and the ops fused into its
  /// kernel `name`.
  void reportContraction(const Contraction &contraction, TargetAttr target,
                         const TilingPlan &plan, StringRef name,
                         StringRef reduction) {
    bool emulated = isEmulatedConfig(plan.config, target);
    std::string planText;
    llvm::raw_string_ostream(planText) << plan.getAttr();
    reportKernel(contraction.op, "became", name,
                 Twine("a tiled matrix product on ") +
                     (emulated ? "emulated matrices (the target has no "
                                 "matrix units for these types)"
                               : "the target's matrix units") +
                     ", plan " + planText);
    if (!reduction.empty())
      reportKernel(contraction.op, "its split K is summed by", reduction,
                   "the parts' partial products added element by element");
    for (Operation *producer : contraction.fusedProducers)
      if (isa<linalg::LinalgOp>(producer))
        reportKernel(producer, "fused into", name,
                     "computed element by element as the kernel stages "
                     "the tiles it feeds");
    // A split K writes partial products: the ops after the product (and a
    // fill of C) run after the sum, as kernels of their own (reported by
    // the element-wise stage).
    if (plan.tiling.splitK > 1)
      return;
    for (const EpilogueStep &step : contraction.epilogue)
      reportKernel(step.op, "fused into", name,
                   "applied to the accumulators before the one store");
    if (contraction.fill)
      reportKernel(contraction.fill, "fused into", name,
                   "the accumulators' initial value");
  }

  /// `report=1`'s remarks on a contraction that became dot products.
  void reportDotProducts(const Contraction &contraction,
                         const DotProductPlan &plan, StringRef name) {
    std::string planText;
    llvm::raw_string_ostream(planText) << plan.getAttr(&getContext());
    reportKernel(contraction.op, "became", name,
                 "dot products of its few rows with the columns of B, plan " +
                     planText);
    for (Operation *producer : contraction.fusedProducers)
      if (isa<linalg::LinalgOp>(producer))
        reportKernel(producer, "fused into", name,
                     "computed in registers from what the kernel reads");
    for (const EpilogueStep &step : contraction.epilogue)
      reportKernel(step.op, "fused into", name,
                   "applied to each sum before its store");
    if (contraction.fill)
      reportKernel(contraction.fill, "fused into", name,
                   "the sums' initial value");
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<TargetAttr> target = getProgramTarget(module, targetName);
    if (failed(target))
      return signalPassFailure();
    // Contractions without a plan (this stage run alone) are planned with
    // the target's defaults and its shipped tuning table.
    MatmulTiling defaults;
    defaults.splitK = 0;
    TuningTableOption shippedTable;
    const TuningTable *tuning = shippedTable.getFor(*target);

    ProgramKernels kernels(module, *target);
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::LinalgOp> contractions;
    module.walk([&](linalg::LinalgOp op) {
      if (isOnHost(op) && isMatrixContraction(op))
        contractions.push_back(op);
    });
    bool failedAny = false;
    for (linalg::LinalgOp op : contractions) {
      FailureOr<Contraction> contraction =
          analyzeContractionKernel(rewriter, op, *target);
      if (failed(contraction)) {
        failedAny = true;
        continue;
      }
      // A product with few rows takes dot products where its plan says so,
      // or where it has no plan and the target's crossover does.
      std::optional<DotProductPlan> dotProducts;
      if (auto attr = op->getAttrOfType<DotProductPlanAttr>(
              SubgroupMatrixDialect::getPlanAttrName()))
        dotProducts = DotProductPlan::get(attr);
      else if (!op->hasAttr(SubgroupMatrixDialect::getPlanAttrName()))
        dotProducts = planDotProducts(*contraction, *target);
      if (dotProducts) {
        std::string name = kernels.nextName("matmul");
        if (report)
          reportDotProducts(*contraction, *dotProducts, name);
        if (failed(emitDotProductContraction(rewriter, *contraction, *target,
                                             *dotProducts, kernels.get(),
                                             name)))
          failedAny = true;
        continue;
      }
      FailureOr<TilingPlan> plan;
      if (auto attr = op->getAttrOfType<ContractionPlanAttr>(
              SubgroupMatrixDialect::getPlanAttrName())) {
        plan = TilingPlan::get(attr);
        if (failed(checkPlan(*contraction, *target, *plan)))
          plan = failure();
      } else {
        plan = planContraction(*contraction, *target, defaults, tuning);
      }
      if (failed(plan)) {
        failedAny = true;
        continue;
      }
      // A product's kernels are made together: the reduction of a split K
      // is not linalg that the IR may be verified with (see
      // tileContraction).
      std::string name = kernels.nextName("matmul");
      std::string reduction =
          plan->tiling.splitK > 1 ? kernels.nextName("elementwise") : "";
      if (report)
        reportContraction(*contraction, *target, *plan, name, reduction);
      linalg::GenericOp splitReduction;
      if (failed(tileContraction(rewriter, *contraction, *target, *plan,
                                 kernels.get(), name, &splitReduction)) ||
          (splitReduction &&
           failed(emitElementwiseKernel(rewriter, splitReduction, kernels.get(),
                                        reduction))))
        failedAny = true;
    }
    if (failedAny)
      signalPassFailure();
  }
};

} // namespace
