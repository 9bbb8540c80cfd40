//===- PrecisionPolicy.cpp - what contractions accumulate in --------------===//
//
// The stage `sm-apply-precision-policy`: f16 and bf16 contractions that
// write f16 or bf16 are rewritten to accumulate in an f32 buffer, rounded
// once into the original output by an element-wise truncation that the
// contraction's kernel later takes over as its epilogue. The rewrite is on
// linalg, so the kernel stages see an ordinary f16/bf16 -> f32 product and
// a fused cast, which they already tile and check.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Contraction/Contraction.h"
#include "SubgroupMatrix/Conversion/Passes.h"
#include "SubgroupMatrix/IR/TargetPresets.h"
#include "SubgroupMatrix/Transforms/AccumulateInF32.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"

namespace mlir {
namespace subgroup_matrix {
#define GEN_PASS_DEF_APPLYPRECISIONPOLICYPASS
#include "SubgroupMatrix/Conversion/Passes.h.inc"
} // namespace subgroup_matrix
} // namespace mlir

using namespace mlir;
using namespace mlir::subgroup_matrix;

namespace {
/// What the policy makes of each contraction's accumulator.
struct PrecisionPolicy {
  /// f16 products into f16 keep f16 accumulators.
  bool f16Accumulates = false;
  /// What the inputs of f32 products into f32 are rounded to (null: they
  /// are not, and the kernel emulates its matrices).
  Type f32InputsRoundedTo;

  /// Whether a contraction of `input` elements into `output` ones should
  /// accumulate in f32 instead.
  bool widens(Type input, Type output) const {
    if (!isa<Float16Type, BFloat16Type>(input) ||
        !isa<Float16Type, BFloat16Type>(output))
      return false;
    return !(f16Accumulates && input.isF16() && output.isF16());
  }
};
} // namespace

/// `value` (C's f16 or bf16 fill value) as f32: a constant stays a constant
/// (the contraction's kernel folds constant fills only).
static Value widenScalar(OpBuilder &b, Location loc, Value value) {
  Type f32 = b.getF32Type();
  FloatAttr constant;
  if (matchPattern(value, m_Constant(&constant)))
    return arith::ConstantOp::create(
        b, loc, FloatAttr::get(f32, constant.getValueAsDouble()));
  return arith::ExtFOp::create(b, loc, f32, value);
}

/// An element-wise generic from `input` to `output` (same shape) whose body
/// is `cast` of the element.
template <typename CastOp>
static void castBuffer(OpBuilder &b, Location loc, Value input, Value output) {
  auto type = cast<MemRefType>(output.getType());
  AffineMap identity = b.getMultiDimIdentityMap(type.getRank());
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::parallel);
  linalg::GenericOp::create(
      b, loc, ValueRange{input}, ValueRange{output},
      ArrayRef<AffineMap>{identity, identity}, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value element =
            CastOp::create(nested, nestedLoc, type.getElementType(), args[0]);
        linalg::YieldOp::create(nested, nestedLoc, element);
      });
}

/// A new buffer of `buffer`'s shape (its dynamic sizes read off it) with
/// `element`s.
static Value allocateLike(OpBuilder &b, Location loc, Value buffer,
                          Type element) {
  auto type = cast<MemRefType>(buffer.getType());
  SmallVector<Value> dynamicSizes;
  for (int64_t dim = 0; dim < type.getRank(); ++dim)
    if (type.isDynamicDim(dim))
      dynamicSizes.push_back(memref::DimOp::create(b, loc, buffer, dim));
  return memref::AllocOp::create(
      b, loc, MemRefType::get(type.getShape(), element), dynamicSizes);
}

/// Rewrites `op` (a contraction into the f16/bf16 buffer C) to accumulate
/// in a new f32 buffer, and rounds that into C after it.
static void widenAccumulator(linalg::LinalgOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value c = op.getDpsInits()[0];
  // A fill of C before `op` becomes the f32 buffer's: the buffer is made
  // before it.
  linalg::FillOp fill = getFillBefore(op, c);
  if (fill)
    b.setInsertionPoint(fill);
  Value wide = allocateLike(b, loc, c, b.getF32Type());

  // The accumulator starts as C's fill, or as C.
  if (fill) {
    Value value = widenScalar(b, loc, fill.getDpsInputs()[0]);
    linalg::FillOp::create(b, loc, ValueRange{value}, ValueRange{wide});
    fill.erase();
    b.setInsertionPoint(op);
  } else {
    castBuffer<arith::ExtFOp>(b, loc, c, wide);
  }

  // The same loops and maps; the body extends each product's factors and
  // sums in f32.
  buildContractionGeneric(b, loc, op.getDpsInputs()[0], op.getDpsInputs()[1],
                          wide, op.getIndexingMapsArray(),
                          op.getIteratorTypesArray());
  castBuffer<arith::TruncFOp>(b, loc, wide, c);
  memref::DeallocOp::create(b, loc, wide);
  op->erase();
}

/// Rewrites the f32 product `op` to read its inputs rounded to `narrow`
/// (in temporaries that truncations write) and accumulate in f32.
static void roundInputs(linalg::LinalgOp op, Type narrow) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  SmallVector<Value> rounded;
  for (Value input : op.getDpsInputs()) {
    Value temporary = allocateLike(b, loc, input, narrow);
    castBuffer<arith::TruncFOp>(b, loc, input, temporary);
    rounded.push_back(temporary);
  }
  buildContractionGeneric(b, loc, rounded[0], rounded[1], op.getDpsInits()[0],
                          op.getIndexingMapsArray(),
                          op.getIteratorTypesArray());
  for (Value temporary : rounded)
    memref::DeallocOp::create(b, loc, temporary);
  op->erase();
}

namespace {
struct ApplyPrecisionPolicyPass
    : public subgroup_matrix::impl::ApplyPrecisionPolicyPassBase<
          ApplyPrecisionPolicyPass> {
  using ApplyPrecisionPolicyPassBase::ApplyPrecisionPolicyPassBase;

  void runOnOperation() override {
    PrecisionPolicy policy;
    if (accumulate == "f16") {
      policy.f16Accumulates = true;
    } else if (accumulate != "f32") {
      getOperation().emitError()
          << "sm-apply-precision-policy: unknown accumulate '" << accumulate
          << "' (expected 'f32' or 'f16')";
      return signalPassFailure();
    }
    if (f32Matmul == "f16" || f32Matmul == "bf16") {
      FailureOr<TargetAttr> target =
          resolveTargetOption(getOperation().getLoc(), targetName);
      if (failed(target))
        return signalPassFailure();
      if (!*target)
        *target = findEnclosingTarget(getOperation());
      Builder builder(&getContext());
      Type f32 = builder.getF32Type();
      Type narrow = f32Matmul == "f16" ? Type(builder.getF16Type())
                                       : Type(builder.getBF16Type());
      auto hasMatrices = [&](Type input) {
        return !*target ||
               llvm::any_of((*target).getConfigs(),
                            [&](MatrixConfigAttr config) {
                              return config.getComponentType() == input &&
                                     config.getResultType() == f32;
                            });
      };
      // Rounded where the matrix units lack f32 and have the narrow type
      // (RDNA3 has no bf16: its f32 products stay emulated).
      if (!hasMatrices(f32) && hasMatrices(narrow))
        policy.f32InputsRoundedTo = narrow;
    } else if (f32Matmul != "emulate") {
      getOperation().emitError()
          << "sm-apply-precision-policy: unknown f32-matmul '" << f32Matmul
          << "' (expected 'emulate', 'f16' or 'bf16')";
      return signalPassFailure();
    }
    SmallVector<linalg::LinalgOp> contractions, roundedProducts;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op->getParentOfType<gpu::GPUModuleOp>() ||
          !op.hasPureBufferSemantics() || !isMatrixContraction(op))
        return;
      auto elementType = [&](Value value) {
        return cast<MemRefType>(value.getType()).getElementType();
      };
      Type a = elementType(op.getDpsInputs()[0]);
      Type b = elementType(op.getDpsInputs()[1]);
      // A matrix contraction's body is a sum of products of its operands,
      // maybe cast: the f32 body that replaces it computes the same.
      Type c = elementType(op.getDpsInits()[0]);
      if (a == b && policy.widens(a, c) && !op->getNumResults())
        contractions.push_back(op);
      if (a == b && a.isF32() && c.isF32() && policy.f32InputsRoundedTo)
        roundedProducts.push_back(op);
    });
    for (linalg::LinalgOp op : contractions)
      widenAccumulator(op);
    for (linalg::LinalgOp op : roundedProducts)
      roundInputs(op, policy.f32InputsRoundedTo);
    if (!policy.f16Accumulates)
      widenElementwiseReductions();
  }

  /// Reductions that are no matrix products (a sum along rows, a pooling,
  /// a dot product) sum into f16 or bf16 outputs in f32 too, rounding
  /// once: their kernels carry what the body computes, so the body
  /// computes in f32 into an f32 copy of the output.
  void widenElementwiseReductions() {
    SmallVector<linalg::LinalgOp> reductions;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (!op->getParentOfType<gpu::GPUModuleOp>() &&
          op.hasPureBufferSemantics() && reducesIntoNarrowFloat(op) &&
          !isMatrixContraction(op))
        reductions.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : reductions) {
      auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
      if (!generic) {
        rewriter.setInsertionPoint(op);
        FailureOr<linalg::GenericOp> generalized =
            linalg::generalizeNamedOp(rewriter, op);
        if (failed(generalized))
          continue;
        generic = *generalized;
      }
      accumulateInF32(generic);
    }
  }
};
} // namespace
