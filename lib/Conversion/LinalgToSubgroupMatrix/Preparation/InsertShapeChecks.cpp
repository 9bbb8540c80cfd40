//===- InsertShapeChecks.cpp - sm-insert-shape-checks ---------------------===//
//
// sm-insert-shape-checks: host assertions that the caller's arrays agree on
// every loop with dynamic sizes that several operands spell.
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
#define GEN_PASS_DEF_INSERTSHAPECHECKSPASS
#include "SubgroupMatrix/Conversion/Passes.h.inc"
} // namespace subgroup_matrix
} // namespace mlir

using namespace mlir;
using namespace mlir::subgroup_matrix;

/// Whether `buffer` is a view of an argument of its function: an array the
/// caller passes, whose shape nothing in the program sets.
static bool isViewOfArgument(Value buffer) {
  while (Operation *def = buffer.getDefiningOp()) {
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view)
      return false;
    buffer = view.getViewSource();
  }
  return true;
}

/// Asserts on the host, before each linalg op whose operands spell one loop
/// with dynamic sizes, that the caller's arrays agree on it: kernels read
/// each size off one operand only, so disagreeing arrays would otherwise be
/// read and written past their ends. Buffers the program allocates are
/// sized by the program itself (and a use of one here would keep a fill
/// from folding into the product that follows it).
static void insertShapeChecks(ModuleOp module) {
  SmallVector<linalg::LinalgOp> ops;
  module.walk([&](linalg::LinalgOp op) {
    if (op.hasPureBufferSemantics() && op.hasDynamicShape())
      ops.push_back(op);
  });
  for (linalg::LinalgOp op : ops) {
    // Each loop's first (operand, dimension) that spells it.
    DenseMap<unsigned, std::pair<OpOperand *, unsigned>> firstSpelling;
    // The checks go where the arrays are first all defined (the start of the
    // function, for its arguments), not between the op and its neighbours:
    // a fill before a product and an epilogue after it fold into its kernel
    // only when nothing comes between them. The runtime evaluates the whole
    // host function before it runs anything, so an early check is as good.
    OpBuilder builder = OpBuilder::atBlockBegin(op->getBlock());
    Operation *latestDefinition = nullptr;
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (!def || !isViewOfArgument(operand))
        continue;
      if (def->getBlock() != op->getBlock()) {
        // A view made in an enclosing region: checked right before the op.
        builder.setInsertionPoint(op);
        break;
      }
      if (!latestDefinition || latestDefinition->isBeforeInBlock(def)) {
        latestDefinition = def;
        builder.setInsertionPointAfter(def);
      }
    }
    Location loc = op.getLoc();
    auto sizeOf = [&](OpOperand *operand, unsigned dim) -> Value {
      auto type = cast<MemRefType>(operand->get().getType());
      if (!type.isDynamicDim(dim))
        return arith::ConstantIndexOp::create(builder, loc,
                                              type.getDimSize(dim));
      return memref::DimOp::create(builder, loc, operand->get(), dim);
    };
    for (OpOperand &operand : op->getOpOperands()) {
      auto type = dyn_cast<MemRefType>(operand.get().getType());
      if (!type || !isViewOfArgument(operand.get()))
        continue;
      AffineMap map = op.getMatchingIndexingMap(&operand);
      for (auto [dim, expr] : llvm::enumerate(map.getResults())) {
        auto loop = dyn_cast<AffineDimExpr>(expr);
        if (!loop)
          continue;
        auto [found, inserted] = firstSpelling.try_emplace(
            loop.getPosition(), &operand, unsigned(dim));
        if (inserted)
          continue;
        auto [first, firstDim] = found->second;
        auto firstType = cast<MemRefType>(first->get().getType());
        if (!firstType.isDynamicDim(firstDim) && !type.isDynamicDim(dim))
          continue;
        Value agree = arith::CmpIOp::create(
            builder, loc, arith::CmpIPredicate::eq, sizeOf(first, firstDim),
            sizeOf(&operand, dim));
        std::string message;
        llvm::raw_string_ostream os(message);
        os << "the shapes of the arrays disagree: dimension " << dim
           << " of operand " << operand.getOperandNumber() << " (" << type
           << ") and dimension " << firstDim << " of operand "
           << first->getOperandNumber() << " (" << firstType
           << ") are the same loop of '" << op->getName() << "'";
        cf::AssertOp::create(builder, loc, agree, message);
      }
    }
  }
}

namespace {
struct InsertShapeChecksPass
    : public subgroup_matrix::impl::InsertShapeChecksPassBase<
          InsertShapeChecksPass> {
  using InsertShapeChecksPassBase::InsertShapeChecksPassBase;

  void runOnOperation() override { insertShapeChecks(getOperation()); }
};
} // namespace
