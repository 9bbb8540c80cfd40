//===- HoldBFloat16AsBits.cpp - bf16 as i16 without bf16 ------------------===//
//
// `sm-hold-bf16-as-bits`: on targets without matrix units, which have no
// bf16 in SPIR-V, what is left of bf16 after emulation becomes i16.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/Conversion/Passes.h"
#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"
#include "SubgroupMatrix/IR/TargetPresets.h"
#include "SubgroupMatrix/Transforms/Checks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace subgroup_matrix {
#define GEN_PASS_DEF_HOLDBFLOAT16ASBITSPASS
#include "SubgroupMatrix/Conversion/Passes.h.inc"
} // namespace subgroup_matrix
} // namespace mlir

using namespace mlir;
using namespace mlir::subgroup_matrix;

/// Devices without bf16 (the emulated targets) hold bf16 values and buffers
/// as 16-bit integers. By now every bf16 computation of an emulated kernel
/// is integer arithmetic on the bits (upstream's bf16 expansion), so only
/// types, constants and the bitcasts between bits and bf16 change; anything
/// else that still computes in bf16 is reported.
static LogicalResult holdBFloat16AsBits(Operation *root) {
  MLIRContext *context = root->getContext();
  Type bits = IntegerType::get(context, 16);
  auto convert = [&](Type type) -> Type {
    if (type.isBF16())
      return bits;
    if (auto memref = dyn_cast<MemRefType>(type))
      if (memref.getElementType().isBF16())
        return memref.clone(bits);
    if (auto vector = dyn_cast<VectorType>(type))
      if (vector.getElementType().isBF16())
        return vector.clone(bits);
    return type;
  };
  auto toBits = [&](Attribute value) -> Attribute {
    if (auto floatValue = dyn_cast<FloatAttr>(value))
      if (floatValue.getType().isBF16())
        return IntegerAttr::get(bits, floatValue.getValue().bitcastToAPInt());
    if (auto elements = dyn_cast<DenseFPElementsAttr>(value))
      if (elements.getElementType().isBF16())
        return elements.bitcast(bits);
    return value;
  };
  SmallVector<arith::BitcastOp> bitcasts;
  bool failed = false;
  root->walk([&](Operation *op) {
    if (auto function = dyn_cast<FunctionOpInterface>(op)) {
      auto type = dyn_cast<FunctionType>(function.getFunctionType());
      if (type)
        function.setType(FunctionType::get(
            context, llvm::map_to_vector(type.getInputs(), convert),
            llvm::map_to_vector(type.getResults(), convert)));
    }
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument argument : block.getArguments())
          argument.setType(convert(argument.getType()));
    bool hadBFloat16 = false;
    for (OpResult result : op->getResults()) {
      Type converted = convert(result.getType());
      hadBFloat16 |= converted != result.getType();
      result.setType(converted);
    }
    if (auto constant = dyn_cast<arith::ConstantOp>(op))
      constant.setValueAttr(cast<TypedAttr>(toBits(constant.getValue())));
    else if (auto bitcast = dyn_cast<arith::BitcastOp>(op))
      bitcasts.push_back(bitcast);
    else if (hadBFloat16 &&
             isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) &&
             !isa<arith::SelectOp>(op)) {
      op->emitOpError("computes in bf16, which the device lacks");
      failed = true;
    }
  });
  for (arith::BitcastOp bitcast : bitcasts)
    if (bitcast.getIn().getType() == bitcast.getType()) {
      bitcast.replaceAllUsesWith(bitcast.getIn());
      bitcast.erase();
    }
  return failure(failed);
}

namespace {
/// Whether the device computes with bf16 matrices, the mark of a driver with
/// VK_KHR_shader_bfloat16 (the H100's). Emulated targets have none; nor
/// has Mesa 26's lavapipe (cpu-lavapipe-coopmat), whose kernels of bf16
/// are emulated and whose SPIR-V may not name the type.
static bool hasBFloat16Matrices(TargetAttr target) {
  return !target.getEmulated() &&
         llvm::any_of(target.getConfigs(), [](MatrixConfigAttr config) {
           return config.getComponentType().isBF16() ||
                  config.getResultType().isBF16();
         });
}

struct HoldBFloat16AsBitsPass
    : public subgroup_matrix::impl::HoldBFloat16AsBitsPassBase<
          HoldBFloat16AsBitsPass> {
  using HoldBFloat16AsBitsPassBase::HoldBFloat16AsBitsPassBase;

  void runOnOperation() override {
    for (gpu::GPUModuleOp kernels : getModulesBeingLowered(getOperation())) {
      TargetAttr target = getLoweringTargetOrError(kernels, TargetAttr());
      if (!target)
        return signalPassFailure();
      if (hasBFloat16Matrices(target))
        continue;
      // Conversions between bf16 and f32 that no emulation expanded (the
      // element-wise kernels of a target with other matrices) become
      // integer arithmetic on the bits too.
      RewritePatternSet expansions(&getContext());
      arith::populateExpandBFloat16Patterns(expansions);
      if (failed(applyPatternsGreedily(kernels, std::move(expansions))) ||
          failed(holdBFloat16AsBits(kernels)))
        return signalPassFailure();
    }
  }
};
} // namespace
