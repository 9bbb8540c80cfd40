//===- EmulateMatrices.cpp - matrices as per-invocation SPIR-V ------------===//
//
// `sm-emulate-matrices`: the kernels that cannot use matrix units (on
// targets without them, or by the `emulation` option) get their matrices as
// the scalars each invocation holds, exchanging operands by subgroup
// operations or through workgroup memory.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/Conversion/Passes.h"
#include "SubgroupMatrix/Conversion/SubgroupMatrixToInvocations/SubgroupMatrixToInvocations.h"
#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"
#include "SubgroupMatrix/IR/TargetPresets.h"
#include "SubgroupMatrix/Transforms/Checks.h"
#include "SubgroupMatrix/Transforms/FlattenBuffers.h"
#include "SubgroupMatrix/Transforms/RobustAccess.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/ADT/StringSwitch.h"

namespace mlir {
namespace subgroup_matrix {
#define GEN_PASS_DEF_EMULATEMATRICESPASS
#include "SubgroupMatrix/Conversion/Passes.h.inc"
} // namespace subgroup_matrix
} // namespace mlir

using namespace mlir;
using namespace mlir::subgroup_matrix;

/// Whether `function` uses a matrix type or multiplication that `target`
/// has no matrix-unit configuration for.
static bool usesUnsupportedMatrices(Operation *function, TargetAttr target) {
  auto unsupported = [&](Type type) {
    auto matrix = dyn_cast<SubgroupMatrixTypeInterface>(type);
    return matrix && !target.supportsType(matrix);
  };
  WalkResult walk = function->walk([&](Operation *op) {
    if (llvm::any_of(op->getResultTypes(), unsupported) ||
        llvm::any_of(op->getOperandTypes(), unsupported))
      return WalkResult::interrupt();
    Value left, right, result;
    if (auto mma = dyn_cast<MmaOp>(op))
      left = mma.getLeft(), right = mma.getRight(), result = mma.getResult();
    else if (auto multiply = dyn_cast<MultiplyOp>(op))
      left = multiply.getLeft(), right = multiply.getRight(),
      result = multiply.getResult();
    if (left && !target.supportsMultiply(left.getType(), right.getType(),
                                         result.getType()))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return walk.wasInterrupted();
}

/// The first op of `function` with a workgroup-scope matrix operand or
/// result, if any.
static Operation *findWorkgroupScopeMatrix(Operation *function) {
  auto isWorkgroupScope = [](Type type) {
    auto matrix = dyn_cast<SubgroupMatrixTypeInterface>(type);
    return matrix && matrix.getScope() == MatrixScope::Workgroup;
  };
  Operation *found = nullptr;
  function->walk([&](Operation *op) {
    if (llvm::any_of(op->getResultTypes(), isWorkgroupScope) ||
        llvm::any_of(op->getOperandTypes(), isWorkgroupScope)) {
      found = op;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

/// How emulated multiplications share operand elements between invocations
/// (the `emulated-exchange` option).
enum class EmulatedExchangeKind {
  /// Workgroup memory on targets with matrix units when the kernel's
  /// workgroup size is known, broadcasts and shuffles otherwise.
  Auto,
  /// Subgroup broadcasts and shuffles.
  Subgroup,
  /// Workgroup memory between subgroup barriers.
  Workgroup,
};

/// Whether `function`'s emulated multiplications exchange operands through
/// workgroup memory. Measured on the H100 (docs/performance.md), where a
/// 16-column matrix spreads over two lanes, workgroup memory is 1.7-4x
/// faster than shuffles with per-lane indices; on lavapipe, where a
/// subgroup is one thread's SIMD lanes, a broadcast is a register move and
/// a barrier costly, so broadcasts are 2.8x faster. Hence `auto` picks
/// workgroup memory on targets with matrix units (a kernel falling back to
/// emulation) and broadcasts on emulated targets.
static bool exchangesThroughWorkgroup(Operation *function, TargetAttr target,
                                      EmulatedExchangeKind kind) {
  switch (kind) {
  case EmulatedExchangeKind::Subgroup:
    return false;
  case EmulatedExchangeKind::Workgroup:
    return true;
  case EmulatedExchangeKind::Auto:
    break;
  }
  auto kernel = dyn_cast<gpu::GPUFuncOp>(function);
  return !target.getEmulated() && kernel && kernel.getKnownBlockSize();
}

namespace {
struct EmulateMatricesPass
    : public subgroup_matrix::impl::EmulateMatricesPassBase<
          EmulateMatricesPass> {
  using EmulateMatricesPassBase::EmulateMatricesPassBase;

  void runOnOperation() override;
};
} // namespace

void EmulateMatricesPass::runOnOperation() {
  ModuleOp module = getOperation();
  if (!llvm::is_contained({"none", "unsupported", "all"}, emulation)) {
    emitError(module.getLoc()) << "unknown emulation '" << emulation
                               << "'; expected 'none', 'unsupported' or 'all'";
    return signalPassFailure();
  }
  std::optional<EmulatedExchangeKind> exchangeKind =
      llvm::StringSwitch<std::optional<EmulatedExchangeKind>>(emulatedExchange)
          .Case("auto", EmulatedExchangeKind::Auto)
          .Case("subgroup", EmulatedExchangeKind::Subgroup)
          .Case("workgroup", EmulatedExchangeKind::Workgroup)
          .Default(std::nullopt);
  if (!exchangeKind) {
    emitError(module.getLoc())
        << "unknown emulated-exchange '" << emulatedExchange
        << "'; expected 'auto', 'subgroup' or 'workgroup'";
    return signalPassFailure();
  }
  MLIRContext *context = &getContext();
  for (gpu::GPUModuleOp kernels : getModulesBeingLowered(module)) {
    TargetAttr target = getLoweringTargetOrError(kernels, TargetAttr());
    if (!target)
      return signalPassFailure();
    WalkResult emulated = kernels.walk([&](FunctionOpInterface function) {
      bool emulate =
          target.getEmulated() || emulation == "all" ||
          function->hasAttr(SubgroupMatrixDialect::getEmulateAttrName()) ||
          (emulation == "unsupported" &&
           usesUnsupportedMatrices(function, target));
      if (!emulate)
        return WalkResult::advance();
      if (Operation *holder = findWorkgroupScopeMatrix(function)) {
        holder->emitOpError(
            "uses a workgroup-scope matrix in a kernel being emulated: "
            "emulation spreads each matrix over one subgroup's invocations, "
            "so only the device's own workgroup-scope matrices hold it (lower "
            "with emulation=none or emulation=unsupported)");
        return WalkResult::interrupt();
      }
      // The emulation addresses every element by its linear index into a
      // 1-D buffer of the matrices' storage type.
      flattenBuffers(function);
      unpackWordBuffers(function);
      // Bounds checks go on the matrix loads and stores that the emulation
      // then takes apart.
      auto kernel = dyn_cast<gpu::GPUFuncOp>(function.getOperation());
      if (robustAccess && kernel && kernel.isKernel() &&
          failed(addRobustAccessGuards(kernel)))
        return WalkResult::interrupt();
      if (failed(emulateSubgroupMatrices(
              function, target.getSubgroupSize(),
              exchangesThroughWorkgroup(function, target, *exchangeKind))))
        return WalkResult::interrupt();
      function->removeAttr(SubgroupMatrixDialect::getEmulateAttrName());
      function->setAttr(SubgroupMatrixDialect::getEmulatedAttrName(),
                        UnitAttr::get(context));
      return WalkResult::advance();
    });
    if (emulated.wasInterrupted())
      return signalPassFailure();
  }
}
