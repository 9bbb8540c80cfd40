//===- CheckUniformity.cpp - diagnose divergent subgroup matrix ops -------===//

#include "SubgroupMatrix/Analysis/UniformityAnalysis.h"
#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"
#include "SubgroupMatrix/Transforms/Checks.h"
#include "SubgroupMatrix/Transforms/Passes.h"

namespace mlir {
namespace subgroup_matrix {
#define GEN_PASS_DEF_CHECKUNIFORMITYPASS
#include "SubgroupMatrix/Transforms/Passes.h.inc"
} // namespace subgroup_matrix
} // namespace mlir

using namespace mlir;
using namespace mlir::subgroup_matrix;

LogicalResult
mlir::subgroup_matrix::checkUniformity(ModuleOp module,
                                       UniformitySeverity severity) {
  if (severity == UniformitySeverity::Off)
    return success();
  UniformityAnalysis analysis(module);
  bool failed = false;
  module.walk([&](Operation *op) {
    // A yield ends a per-element body (map, decode_load), which is not
    // control flow: the op that holds the body answers for it.
    if (!isa<SubgroupMatrixDialect>(op->getDialect()) || isa<YieldOp>(op))
      return;
    std::optional<InFlightDiagnostic> diagnostic;
    auto report = [&]() -> InFlightDiagnostic & {
      diagnostic.emplace(severity == UniformitySeverity::Error
                             ? op->emitError()
                             : op->emitWarning());
      *diagnostic << "'" << op->getName() << "' op ";
      return *diagnostic;
    };
    if (Operation *source = analysis.getDivergenceSource(op)) {
      report() << "may execute in control flow that diverges within a "
                  "subgroup; subgroup matrix operations must be reached by "
                  "every invocation of the subgroup";
      diagnostic->attachNote(source->getLoc())
          << "control flow diverges here, on a value that depends on the "
             "invocation";
    } else {
      for (OpOperand &operand : op->getOpOperands()) {
        if (!analysis.isVarying(operand.get()))
          continue;
        report() << "operand #" << operand.getOperandNumber()
                 << " may differ between the invocations of a subgroup; "
                    "subgroup matrix operands must be subgroup uniform";
        break;
      }
      // A map's or decode load's body computes every element the same way:
      // a value it takes from outside must be the same for every
      // invocation, or the element would depend on which invocation happens
      // to compute it.
      Region *body = nullptr;
      if (auto map = dyn_cast<MapOp>(op))
        body = &map.getBody();
      else if (auto decode = dyn_cast<DecodeLoadOp>(op))
        body = &decode.getBody();
      if (body && !diagnostic) {
        body->walk([&](Operation *inner) {
          for (Value value : inner->getOperands()) {
            if (body->isAncestor(value.getParentRegion()) ||
                !analysis.isVarying(value))
              continue;
            report() << "body uses a value from outside the "
                     << op->getName().stripDialect()
                     << " that may differ between the invocations of a "
                        "subgroup; it must be subgroup uniform";
            diagnostic->attachNote(value.getLoc()) << "the value is defined "
                                                      "here";
            return WalkResult::interrupt();
          }
          return WalkResult::advance();
        });
      }
    }
    failed |= diagnostic && severity == UniformitySeverity::Error;
  });
  return failure(failed);
}

namespace {
struct CheckUniformityPass
    : public subgroup_matrix::impl::CheckUniformityPassBase<
          CheckUniformityPass> {
  using CheckUniformityPassBase::CheckUniformityPassBase;

  LogicalResult initialize(MLIRContext *context) override {
    std::optional<UniformitySeverity> parsed =
        llvm::StringSwitch<std::optional<UniformitySeverity>>(severity)
            .Case("error", UniformitySeverity::Error)
            .Case("warning", UniformitySeverity::Warning)
            .Case("off", UniformitySeverity::Off)
            .Default(std::nullopt);
    if (!parsed)
      return emitError(UnknownLoc::get(context))
             << "sm-check-uniformity: unknown severity '" << severity
             << "'; expected error, warning or off";
    parsedSeverity = *parsed;
    return success();
  }

  void runOnOperation() override {
    if (failed(checkUniformity(getOperation(), parsedSeverity)))
      signalPassFailure();
  }

  UniformitySeverity parsedSeverity = UniformitySeverity::Error;
};
} // namespace
