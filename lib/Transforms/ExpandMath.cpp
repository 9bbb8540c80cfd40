//===- ExpandMath.cpp - the math device languages lack --------------------===//
//
// `sm-expand-math`: bf16 map arithmetic in f32, erf and erfc as upstream's
// polynomials, ceil/floor divisions as plain ones.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"
#include "SubgroupMatrix/Transforms/Checks.h"
#include "SubgroupMatrix/Transforms/Passes.h"
#include "SubgroupMatrix/Transforms/PromoteBFloat16Maps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace mlir {
namespace subgroup_matrix {
#define GEN_PASS_DEF_EXPANDMATHPASS
#include "SubgroupMatrix/Transforms/Passes.h.inc"
} // namespace subgroup_matrix
} // namespace mlir

using namespace mlir;
using namespace mlir::subgroup_matrix;

/// Conversions between bf16 and f64 go through f32: upstream's bf16
/// expansion and the SPIR-V conversion know only f32. Widening stays
/// exact; narrowing rounds twice, which differs from one rounding only for
/// f64 values within 2^-29 of halfway between two bf16 values.
static void splitWideBFloat16Conversions(Operation *root) {
  SmallVector<Operation *> conversions;
  root->walk([&](Operation *op) {
    if (!isa<arith::ExtFOp, arith::TruncFOp>(op))
      return;
    Type from = getElementTypeOrSelf(op->getOperand(0).getType());
    Type to = getElementTypeOrSelf(op->getResult(0).getType());
    if ((from.isBF16() && to.getIntOrFloatBitWidth() > 32) ||
        (to.isBF16() && from.getIntOrFloatBitWidth() > 32))
      conversions.push_back(op);
  });
  for (Operation *op : conversions) {
    OpBuilder b(op);
    Type operandType = op->getOperand(0).getType();
    Type f32 = b.getF32Type();
    if (auto vector = dyn_cast<VectorType>(operandType))
      f32 = vector.clone(f32);
    Value middle, result;
    if (isa<arith::ExtFOp>(op)) {
      middle = arith::ExtFOp::create(b, op->getLoc(), f32, op->getOperand(0));
      result = arith::ExtFOp::create(b, op->getLoc(),
                                     op->getResult(0).getType(), middle);
    } else {
      middle =
          arith::TruncFOp::create(b, op->getLoc(), f32, op->getOperand(0));
      result = arith::TruncFOp::create(b, op->getLoc(),
                                       op->getResult(0).getType(), middle);
    }
    op->getResult(0).replaceAllUsesWith(result);
    op->erase();
  }
}

namespace {
struct ExpandMathPass
    : public subgroup_matrix::impl::ExpandMathPassBase<ExpandMathPass> {
  using ExpandMathPassBase::ExpandMathPassBase;

  void runOnOperation() override {
    for (gpu::GPUModuleOp kernels : getModulesBeingLowered(getOperation())) {
      splitWideBFloat16Conversions(kernels);
      promoteBFloat16Arithmetic(kernels);
      RewritePatternSet expansions(&getContext());
      populatePolynomialApproximateErfPattern(expansions);
      populatePolynomialApproximateErfcPattern(expansions);
      arith::populateCeilFloorDivExpandOpsPatterns(expansions);
      walkAndApplyPatterns(kernels, std::move(expansions));
      // A SPIR-V conversion to bf16 rounds as the driver likes (NVIDIA's
      // truncates), where arith.truncf rounds to nearest even: Vulkan
      // kernels round in integer arithmetic on the bits instead. (Widening
      // bf16 is exact, and stays a conversion.)
      if (kernels->hasAttr(spirv::getTargetEnvAttrName())) {
        SmallVector<Operation *> roundings;
        kernels.walk([&](arith::TruncFOp truncation) {
          if (getElementTypeOrSelf(truncation.getType()).isBF16())
            roundings.push_back(truncation);
        });
        RewritePatternSet bf16Expansions(&getContext());
        arith::populateExpandBFloat16Patterns(bf16Expansions);
        GreedyRewriteConfig config;
        config.setStrictness(GreedyRewriteStrictness::ExistingOps);
        (void)applyOpPatternsGreedily(roundings, std::move(bf16Expansions),
                                      config);
      }
    }
  }
};
} // namespace
