//===- TosaToLinalg.cpp - TOSA programs in --------------------------------===//
//
// The stage `sm-tosa-to-linalg`, first in sm-linalg-to-gpu: a program written
// in TOSA becomes a linalg program through upstream MLIR's lowering, the one
// TOSA's producers test against, rather than a lowering of this project's.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/Conversion/Passes.h"

#include "mlir/Conversion/TosaToArith/TosaToArith.h"
#include "mlir/Conversion/TosaToLinalg/TosaToLinalg.h"
#include "mlir/Conversion/TosaToSCF/TosaToSCF.h"
#include "mlir/Conversion/TosaToTensor/TosaToTensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Dialect/Tosa/Transforms/Passes.h"
#include "mlir/IR/Iterators.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/PassManager.h"

namespace mlir {
namespace subgroup_matrix {
#define GEN_PASS_DEF_TOSATOLINALGPASS
#include "SubgroupMatrix/Conversion/Passes.h.inc"
} // namespace subgroup_matrix
} // namespace mlir

using namespace mlir;
using namespace mlir::subgroup_matrix;

namespace {

/// The TOSA target a program that declares none is checked against: every
/// profile and every extension of specification 1.0, at level `none`
/// (dynamic sizes and any argument range). Front ends (TFLite's converter,
/// torch-mlir) attach no target, and upstream's validation would otherwise
/// hold them to the 8K level without extensions, refusing the dynamic
/// batches, bf16 and the double rounding of int8 rescales they emit.
tosa::TosaAttachTargetOptions getPermissiveTarget() {
  tosa::TosaAttachTargetOptions target;
  target.specificationVersion = tosa::SpecificationVersion::V_1_0;
  target.level = tosa::Level::none;
  target.profiles = {"pro_int", "pro_fp"};
  target.extensions = {"int16",       "int4",         "bf16",     "fp8e4m3",
                       "fp8e5m2",     "fft",          "variable", "controlflow",
                       "doubleround", "inexactround", "dynamic"};
  return target;
}

/// Upstream's TOSA lowering of a module, in the order its own
/// `tosa-to-linalg-pipeline` documents, completed with the conversions that
/// pipeline leaves to its caller (`tosa.apply_scale`, which the lowering of
/// `tosa.rescale` leaves in its bodies, included).
void buildTosaLowering(OpPassManager &pm, bool attachTarget) {
  if (attachTarget)
    pm.addPass(tosa::createTosaAttachTarget(getPermissiveTarget()));
  tosa::addTosaToLinalgPasses(pm, TosaToLinalgOptions());
  OpPassManager &functions = pm.nest<func::FuncOp>();
  TosaToArithPassOptions arith;
  arith.includeApplyRescale = true;
  functions.addPass(createTosaToArithPass(arith));
  functions.addPass(createTosaToTensorPass());
  functions.addPass(createTosaToSCFPass());
}

bool isTosaOp(Operation *op) {
  return isa_and_nonnull<tosa::TosaDialect>(op->getDialect());
}

/// Reports the TOSA ops that no lowering can give a meaning to, before
/// upstream's conversions would stop at them with a bare "failed to
/// legalize".
LogicalResult checkLowerable(ModuleOp module) {
  WalkResult result =
      module.walk([](Operation *op) {
        if (auto custom = dyn_cast<tosa::CustomOp>(op)) {
          custom.emitOpError()
              << "'" << custom.getDomainName()
              << "::" << custom.getOperatorName()
              << "' is a vendor operator: TOSA does not define what it "
                 "computes, so it has no lowering; replace it with the TOSA "
                 "ops it stands for";
          return WalkResult::interrupt();
        }
        if (isa<tosa::VariableOp, tosa::VariableReadOp, tosa::VariableWriteOp>(
                op)) {
          op->emitOpError()
              << "is stateful TOSA (a variable kept between calls), which "
                 "programs here cannot hold: pass the state as an argument and "
                 "return its new value";
          return WalkResult::interrupt();
        }
        return WalkResult::advance();
      });
  return failure(result.wasInterrupted());
}

struct TosaToLinalgPass
    : public subgroup_matrix::impl::TosaToLinalgPassBase<TosaToLinalgPass> {
  void getDependentDialects(DialectRegistry &registry) const override {
    TosaToLinalgPassBase::getDependentDialects(registry);
    OpPassManager lowering(ModuleOp::getOperationName());
    buildTosaLowering(lowering, /*attachTarget=*/true);
    lowering.getDependentDialects(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!module
             .walk([](Operation *op) {
               return isTosaOp(op) ? WalkResult::interrupt()
                                   : WalkResult::advance();
             })
             .wasInterrupted())
      return;

    if (failed(checkLowerable(module)))
      return signalPassFailure();
    bool attachTarget = !module->hasAttr(tosa::TargetEnvAttr::name);
    OpPassManager lowering(ModuleOp::getOperationName());
    buildTosaLowering(lowering, attachTarget);
    if (failed(runPipeline(lowering, module)))
      return signalPassFailure();
    if (attachTarget)
      module->removeAttr(tosa::TargetEnvAttr::name);

    // The shapes that reshapes and slices took as operands are constants
    // without users once those became tensor ops.
    SmallVector<Operation *> remaining;
    module.walk<WalkOrder::PostOrder, ReverseIterator>([&](Operation *op) {
      if (!isTosaOp(op))
        return;
      if (isOpTriviallyDead(op))
        op->erase();
      else
        remaining.push_back(op);
    });
    for (Operation *op : remaining)
      op->emitOpError()
          << "is not lowered to linalg by upstream MLIR's TOSA pipelines "
             "(tosa-to-linalg-named, tosa-to-linalg, tosa-to-arith, "
             "tosa-to-tensor, tosa-to-scf), so this program cannot run";
    if (!remaining.empty())
      signalPassFailure();
  }
};

} // namespace
