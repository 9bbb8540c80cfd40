//===- ComputeF64InF32.cpp - f64 arithmetic in f32 ------------------------===//
//
// The stage `sm-compute-f64-in-f32` (sm-linalg-to-gpu's `f64=f32`): on a
// target without f64, the f64 values inside a program's functions become
// f32, each op changed remarked on.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/Conversion/Passes.h"
#include "SubgroupMatrix/IR/TargetPresets.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/ADT/SetVector.h"

namespace mlir {
namespace subgroup_matrix {
#define GEN_PASS_DEF_COMPUTEF64INF32PASS
#include "SubgroupMatrix/Conversion/Passes.h.inc"
} // namespace subgroup_matrix
} // namespace mlir

using namespace mlir;
using namespace mlir::subgroup_matrix;

/// `type` with f64 elements (of a tensor, memref or vector) made f32; null
/// when it holds no f64.
static Type demoteF64(Type type) {
  Type f32 = Float32Type::get(type.getContext());
  if (type.isF64())
    return f32;
  if (auto shaped = dyn_cast<ShapedType>(type))
    if (shaped.getElementType().isF64())
      return shaped.clone(f32);
  return {};
}

static bool holdsF64(Type type) { return bool(demoteF64(type)); }

/// `value` (an f64 constant's) rounded to f32.
static TypedAttr demoteConstant(TypedAttr value) {
  auto f32 = Float32Type::get(value.getContext());
  auto round = [&](const APFloat &element) {
    APFloat rounded = element;
    bool losesInfo;
    rounded.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven,
                    &losesInfo);
    return rounded;
  };
  if (auto scalar = dyn_cast<FloatAttr>(value))
    return FloatAttr::get(f32, round(scalar.getValue()));
  if (auto dense = dyn_cast<DenseFPElementsAttr>(value))
    return cast<TypedAttr>(dense.mapValues(f32, [&](const APFloat &element) {
      return round(element).bitcastToAPInt();
    }));
  return {};
}

/// Whether `op` holds f64 in a way the rewrite cannot follow: bits
/// reinterpreted, or a typed attribute other than a constant's value.
static bool reinterpretsF64(Operation *op) {
  if (isa<arith::BitcastOp>(op))
    return llvm::any_of(op->getOperandTypes(), holdsF64) ||
           llvm::any_of(op->getResultTypes(), holdsF64);
  if (isa<arith::ConstantOp>(op))
    return false;
  return llvm::any_of(op->getAttrs(), [](NamedAttribute attribute) {
    auto typed = dyn_cast<TypedAttr>(attribute.getValue());
    return typed && holdsF64(typed.getType());
  });
}

/// Rewrites the f64 of `function` into f32; false, having reported why,
/// when it cannot.
static LogicalResult computeInF32(FunctionOpInterface function,
                                  StringRef reason) {
  if (llvm::any_of(function.getArgumentTypes(), holdsF64) ||
      llvm::any_of(function.getResultTypes(), holdsF64))
    return function->emitOpError()
           << "takes or returns f64, but " << reason
           << ": f64=f32 computes the program's own f64 in f32 but leaves "
              "its interface to the caller (pass f32)";
  WalkResult unsupported = function.getFunctionBody().walk([](Operation *op) {
    if (!reinterpretsF64(op))
      return WalkResult::advance();
    op->emitOpError() << "reinterprets or carries f64 in a way f64=f32 "
                         "cannot compute in f32";
    return WalkResult::interrupt();
  });
  if (unsupported.wasInterrupted())
    return failure();

  // The outermost ops changed, in order: the ops in their bodies are
  // covered by their remark.
  llvm::SetVector<Operation *> changedOps;
  auto isCovered = [&](Operation *op) {
    for (Operation *parent = op->getParentOp(); parent;
         parent = parent->getParentOp())
      if (changedOps.contains(parent))
        return true;
    return false;
  };
  auto recordChange = [&](Operation *op) {
    if (!isCovered(op))
      changedOps.insert(op);
  };
  SmallVector<Operation *> casts;
  function.getFunctionBody().walk<WalkOrder::PreOrder>([&](Operation *op) {
    bool changed = false;
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument argument : block.getArguments())
          if (Type demoted = demoteF64(argument.getType())) {
            argument.setType(demoted);
            changed = true;
          }
    for (OpResult result : op->getResults())
      if (Type demoted = demoteF64(result.getType())) {
        result.setType(demoted);
        changed = true;
      }
    if (auto constant = dyn_cast<arith::ConstantOp>(op))
      if (holdsF64(constant.getValue().getType()))
        if (TypedAttr demoted = demoteConstant(constant.getValue()))
          constant.setValueAttr(demoted);
    if (isa<arith::ExtFOp, arith::TruncFOp>(op))
      casts.push_back(op);
    if (changed)
      recordChange(op);
  });
  auto remark = [&](Operation *op, StringRef what) {
    op->emitRemark() << what << ": " << reason << " (f64=f32)";
  };
  // Casts to or from f64 that became casts of f32 to f32 go.
  for (Operation *cast : casts)
    if (cast->getOperand(0).getType() == cast->getResult(0).getType()) {
      changedOps.remove(cast);
      if (!isCovered(cast))
        remark(cast, "is dropped, its value kept in f32");
      cast->getResult(0).replaceAllUsesWith(cast->getOperand(0));
      cast->erase();
    }
  for (Operation *op : changedOps)
    remark(op, "computes in f32, not f64");
  return success();
}

namespace {
struct ComputeF64InF32Pass
    : public subgroup_matrix::impl::ComputeF64InF32PassBase<
          ComputeF64InF32Pass> {
  using ComputeF64InF32PassBase::ComputeF64InF32PassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (mode == "native")
      return;
    if (mode != "f32") {
      emitError(module.getLoc())
          << "unknown f64 '" << mode << "'; expected 'native' or 'f32'";
      return signalPassFailure();
    }
    FailureOr<TargetAttr> target =
        resolveTargetOption(module.getLoc(), targetName);
    if (failed(target))
      return signalPassFailure();
    if (!*target)
      *target = findEnclosingTarget(module);
    if (!*target) {
      emitError(module.getLoc())
          << "sm-compute-f64-in-f32 needs a target: pass target=NAME or set "
             "subgroup_matrix.target on the module";
      return signalPassFailure();
    }
    if (target->getFloat64())
      return;
    std::string reason =
        ("target '" +
         (target->getName() ? target->getName().getValue() : "custom") +
         "' has no f64")
            .str();
    for (auto function : module.getOps<FunctionOpInterface>())
      if (!function.isExternal() && failed(computeInF32(function, reason)))
        return signalPassFailure();
  }
};
} // namespace
