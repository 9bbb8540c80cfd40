//===- AttachMetalTarget.cpp - the target each gpu.module lowers for ------===//
//
// `sm-attach-metal-target`: the first stage of sm-lower-to-metal, which
// settles the target of every gpu.module so that the later stages, and
// tests of them, read it from the IR.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/Conversion/SubgroupMatrixToMetal/SubgroupMatrixToMetal.h"

#include "SubgroupMatrix/Conversion/Passes.h"
#include "SubgroupMatrix/IR/TargetPresets.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir {
namespace subgroup_matrix {
#define GEN_PASS_DEF_ATTACHMETALTARGETPASS
#include "SubgroupMatrix/Conversion/Passes.h.inc"
} // namespace subgroup_matrix
} // namespace mlir

using namespace mlir;
using namespace mlir::subgroup_matrix;

TargetAttr mlir::subgroup_matrix::getMetalLanguageTarget(MLIRContext *context) {
  Builder builder(context);
  Type f32 = builder.getF32Type(), f16 = builder.getF16Type(),
       bf16 = builder.getBF16Type();
  std::pair<Type, Type> typePairs[] = {
      {f32, f32}, {f16, f16}, {f16, f32}, {bf16, bf16}, {bf16, f32}};
  SmallVector<MatrixConfigAttr> configs;
  for (auto [component, result] : typePairs)
    configs.push_back(
        MatrixConfigAttr::get(context, 8, 8, 8, component, result));
  return TargetAttr::get(context, builder.getStringAttr("metal"),
                         kMetalSimdgroupSize, configs, /*emulated=*/false,
                         /*float64=*/false, /*int64=*/true,
                         /*computeUnits=*/0,
                         /*workgroupMemory=*/kMetalThreadgroupMemory,
                         CooperativeMatrix2Feature::None,
                         /*flexibleGranularities=*/{},
                         /*flexibleMaxDimension=*/0, Vendor::Apple,
                         TargetBackend::Metal);
}

namespace {
struct AttachMetalTargetPass
    : public subgroup_matrix::impl::AttachMetalTargetPassBase<
          AttachMetalTargetPass> {
  using AttachMetalTargetPassBase::AttachMetalTargetPassBase;

  void runOnOperation() override {
    FailureOr<TargetAttr> overrideTarget =
        resolveTargetOption(getOperation().getLoc(), targetName);
    if (failed(overrideTarget))
      return signalPassFailure();
    StringRef attributeName = SubgroupMatrixDialect::getTargetAttrName();
    WalkResult result = getOperation().walk([&](gpu::GPUModuleOp kernels) {
      TargetAttr target = *overrideTarget;
      if (!target)
        target = findEnclosingTarget(kernels);
      if (!target)
        target = getMetalLanguageTarget(&getContext());
      if (target.getSubgroupSize() != kMetalSimdgroupSize) {
        kernels.emitError() << "cannot be lowered to Metal for a target with "
                               "subgroups of "
                            << target.getSubgroupSize()
                            << " invocations: Metal simdgroups have "
                            << kMetalSimdgroupSize << " threads";
        return WalkResult::interrupt();
      }
      kernels->setAttr(attributeName, target);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
