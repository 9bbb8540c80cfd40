//===- PromoteBFloat16Maps.cpp - bf16 map bodies computed in f32 ----------===//

#include "SubgroupMatrix/Transforms/PromoteBFloat16Maps.h"

#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"
#include "SubgroupMatrix/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"

namespace mlir {
namespace subgroup_matrix {
#define GEN_PASS_DEF_PROMOTEBFLOAT16MAPSPASS
#include "SubgroupMatrix/Transforms/Passes.h.inc"
} // namespace subgroup_matrix
} // namespace mlir

using namespace mlir;
using namespace mlir::subgroup_matrix;

static bool isBFloat16(Type type) {
  return getElementTypeOrSelf(type).isBF16();
}

/// `type` with f32 in place of bf16 (a scalar or a vector).
static Type widen(Type type) {
  Type f32 = Float32Type::get(type.getContext());
  if (auto vector = dyn_cast<VectorType>(type))
    return vector.clone(f32);
  return f32;
}

/// Whether `op` only converts a bf16 value, which every path can do.
static bool isConversion(Operation *op) {
  return isa<arith::ExtFOp, arith::TruncFOp, arith::BitcastOp>(op);
}

/// Whether `op` computes on bf16 values.
static bool computesInBFloat16(Operation *op) {
  return !isConversion(op) && !op->getNumRegions() &&
         (llvm::any_of(op->getOperandTypes(), isBFloat16) ||
          llvm::any_of(op->getResultTypes(), isBFloat16));
}

namespace {
/// Promotes bf16 ops, extending each bf16 value at most once.
class BFloat16Promoter {
public:
  void run(ArrayRef<Operation *> ops) {
    for (Operation *op : ops)
      promote(op);
  }

private:
  /// The f32 value equal to the bf16 value `value`, made after its
  /// definition the first time it is asked for.
  Value getWide(Value value) {
    auto [it, inserted] = wide.try_emplace(value);
    if (!inserted)
      return it->second;
    OpBuilder builder(value.getContext());
    if (Operation *definition = value.getDefiningOp())
      builder.setInsertionPointAfter(definition);
    else
      builder.setInsertionPointToStart(cast<BlockArgument>(value).getOwner());
    Value extended = arith::ExtFOp::create(builder, value.getLoc(),
                                           widen(value.getType()), value);
    return wide[value] = extended;
  }

  void promote(Operation *op) {
    OpBuilder builder(op);
    Location loc = op->getLoc();
    Type f32 = builder.getF32Type();
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      // bf16 -> f32 is exact: the constant itself, in f32; the bf16 one
      // stays for users that are not promoted (the yield).
      if (auto value = dyn_cast<FloatAttr>(constant.getValue())) {
        wide[constant] = arith::ConstantOp::create(
            builder, loc, FloatAttr::get(f32, value.getValueAsDouble()));
        return;
      }
      // A splat of a vector: converted where it is used.
      return;
    }
    SmallVector<Value> operands;
    for (Value operand : op->getOperands())
      operands.push_back(isBFloat16(operand.getType()) ? getWide(operand)
                                                       : operand);
    SmallVector<Type> resultTypes;
    for (Type type : op->getResultTypes())
      resultTypes.push_back(isBFloat16(type) ? widen(type) : type);
    OperationState state(loc, op->getName(), operands, resultTypes,
                         op->getAttrs());
    Operation *promoted = builder.create(state);
    SmallVector<Value> results;
    for (auto [old, computed] :
         llvm::zip(op->getResults(), promoted->getResults()))
      results.push_back(isBFloat16(old.getType())
                            ? Value(arith::TruncFOp::create(
                                  builder, loc, old.getType(), computed))
                            : computed);
    op->replaceAllUsesWith(results);
    op->erase();
  }

  DenseMap<Value, Value> wide;
};
} // namespace

void mlir::subgroup_matrix::promoteBFloat16Arithmetic(Operation *root) {
  root->walk([](MapOp map) {
    SmallVector<Operation *> ops;
    for (Operation &op : map.getBodyBlock().without_terminator())
      if (computesInBFloat16(&op))
        ops.push_back(&op);
    BFloat16Promoter().run(ops);
    // bf16 constants that only promoted ops used.
    for (Operation &op :
         llvm::make_early_inc_range(map.getBodyBlock().without_terminator()))
      if (isa<arith::ConstantOp>(op) && op.use_empty())
        op.erase();
  });
  // The scalar (and vector) arithmetic of kernels outside maps: an
  // element-wise kernel or an epilogue that a front-end wrote in bf16.
  // Constants and selects only hold bf16 values, which every path can.
  SmallVector<Operation *> ops;
  root->walk([&](Operation *op) {
    if (isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) &&
        !isa<arith::ConstantOp, arith::SelectOp>(op) &&
        !op->getParentOfType<MapOp>() && computesInBFloat16(op))
      ops.push_back(op);
  });
  BFloat16Promoter().run(ops);
}

namespace {
struct PromoteBFloat16MapsPass
    : public subgroup_matrix::impl::PromoteBFloat16MapsPassBase<
          PromoteBFloat16MapsPass> {
  void runOnOperation() override { promoteBFloat16Arithmetic(getOperation()); }
};
} // namespace
