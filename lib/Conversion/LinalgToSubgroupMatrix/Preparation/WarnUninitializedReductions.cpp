//===- WarnUninitializedReductions.cpp - sm-warn-uninitialized-reductions -===//
//
// sm-warn-uninitialized-reductions: a reduction into a tensor.empty() reads
// memory nothing wrote, which the program's author most likely meant to
// fill; the stage warns where it happens.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Attention/Attention.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Contraction/Contraction.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Contraction/TileMatmul.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Elementwise/ElementwiseKernel.h"
#include "SubgroupMatrix/Conversion/Passes.h"
#include "SubgroupMatrix/IR/TargetPresets.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotModuleBufferize.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace subgroup_matrix {
#define GEN_PASS_DEF_WARNUNINITIALIZEDREDUCTIONSPASS
#include "SubgroupMatrix/Conversion/Passes.h.inc"
} // namespace subgroup_matrix
} // namespace mlir

using namespace mlir;
using namespace mlir::subgroup_matrix;

namespace {
struct WarnUninitializedReductionsPass
    : public subgroup_matrix::impl::WarnUninitializedReductionsPassBase<
          WarnUninitializedReductionsPass> {
  void runOnOperation() override {
    getOperation().walk(
        [](linalg::LinalgOp op) {
          if (!op.getNumReductionLoops() || !op.hasPureTensorSemantics())
            return;
          for (OpOperand &init : op.getDpsInitsMutable()) {
            if (!init.get().getDefiningOp<tensor::EmptyOp>() ||
                !op.payloadUsesValueFromOperand(&init))
              continue;
            op->emitWarning()
                << "'" << op->getName() << "' op reduces into output "
                << op.getIndexingMapIndex(&init) - op.getNumDpsInputs()
                << ", a tensor.empty() whose values are undefined: the result "
                   "depends on what its memory held (fill it first, with "
                   "linalg.fill)";
          }
        });
  }
};
} // namespace
