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

namespace {
struct ExpandMathPass
    : public subgroup_matrix::impl::ExpandMathPassBase<ExpandMathPass> {
  using ExpandMathPassBase::ExpandMathPassBase;

  void runOnOperation() override {
    for (gpu::GPUModuleOp kernels : getModulesBeingLowered(getOperation())) {
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
