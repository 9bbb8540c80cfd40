//===- ExpandMath.cpp - the math device languages lack --------------------===//
//
// `sm-expand-math`: bf16 map arithmetic and f16 transcendentals in f32, erf
// and erfc as upstream's polynomials, ceil/floor divisions as plain ones,
// f64 e^x and tanh in f64 arithmetic for Vulkan.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"
#include "SubgroupMatrix/Transforms/Checks.h"
#include "SubgroupMatrix/Transforms/Passes.h"
#include "SubgroupMatrix/Transforms/PromoteBFloat16Maps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

#include <limits>

namespace mlir {
namespace subgroup_matrix {
#define GEN_PASS_DEF_EXPANDMATHPASS
#include "SubgroupMatrix/Transforms/Passes.h.inc"
} // namespace subgroup_matrix
} // namespace mlir

using namespace mlir;
using namespace mlir::subgroup_matrix;

/// Conversions between bf16 and f64 go through f32: upstream's bf16
/// expansion and the SPIR-V conversion know only f32. Widening stays
/// exact; narrowing rounds twice, which differs from one rounding only for
/// f64 values within 2^-29 of halfway between two bf16 values.
static void splitWideBFloat16Conversions(Operation *root) {
  SmallVector<Operation *> conversions;
  root->walk([&](Operation *op) {
    if (!isa<arith::ExtFOp, arith::TruncFOp>(op))
      return;
    Type from = getElementTypeOrSelf(op->getOperand(0).getType());
    Type to = getElementTypeOrSelf(op->getResult(0).getType());
    if ((from.isBF16() && to.getIntOrFloatBitWidth() > 32) ||
        (to.isBF16() && from.getIntOrFloatBitWidth() > 32))
      conversions.push_back(op);
  });
  for (Operation *op : conversions) {
    OpBuilder b(op);
    Type operandType = op->getOperand(0).getType();
    Type f32 = b.getF32Type();
    if (auto vector = dyn_cast<VectorType>(operandType))
      f32 = vector.clone(f32);
    Value middle, result;
    if (isa<arith::ExtFOp>(op)) {
      middle = arith::ExtFOp::create(b, op->getLoc(), f32, op->getOperand(0));
      result = arith::ExtFOp::create(b, op->getLoc(),
                                     op->getResult(0).getType(), middle);
    } else {
      middle = arith::TruncFOp::create(b, op->getLoc(), f32, op->getOperand(0));
      result = arith::TruncFOp::create(b, op->getLoc(),
                                       op->getResult(0).getType(), middle);
    }
    op->getResult(0).replaceAllUsesWith(result);
    op->erase();
  }
}

/// Whether `op` is a math function that devices approximate rather than
/// round correctly.
static bool isTranscendental(Operation *op) {
  return isa<math::ExpOp, math::Exp2Op, math::ExpM1Op, math::LogOp,
             math::Log2Op, math::Log10Op, math::Log1pOp, math::PowFOp,
             math::SinOp, math::CosOp, math::TanOp, math::TanhOp, math::SinhOp,
             math::CoshOp, math::AsinOp, math::AcosOp, math::AtanOp,
             math::Atan2Op, math::AsinhOp, math::AcoshOp, math::AtanhOp,
             math::RsqrtOp, math::CbrtOp, math::ErfOp, math::ErfcOp>(op);
}

/// f16 transcendentals computed in f32 and rounded to f16 once. A device's
/// 16-bit instructions may be several f16 ulps off (Vulkan allows
/// 1 + 2|x| ulps for e^x: 5 on the H100 for e^10), where upstream's CPU
/// pipeline computes them in f32; an f32 result rounded to f16 is within
/// an ulp of the exact one, and f32 costs the same on every matrix unit's
/// host core.
static void widenHalfTranscendentals(Operation *root) {
  SmallVector<Operation *> narrow;
  root->walk([&](Operation *op) {
    if (isTranscendental(op) && op->getNumResults() == 1 &&
        getElementTypeOrSelf(op->getResult(0).getType()).isF16())
      narrow.push_back(op);
  });
  for (Operation *op : narrow) {
    OpBuilder b(op);
    auto widen = [&](Type type) -> Type {
      if (auto vector = dyn_cast<VectorType>(type))
        return vector.clone(b.getF32Type());
      return b.getF32Type();
    };
    IRMapping widened;
    for (Value operand : op->getOperands())
      widened.map(operand,
                  arith::ExtFOp::create(b, op->getLoc(),
                                        widen(operand.getType()), operand));
    Operation *wide = b.clone(*op, widened);
    Type narrowType = op->getResult(0).getType();
    wide->getResult(0).setType(widen(narrowType));
    op->getResult(0).replaceAllUsesWith(arith::TruncFOp::create(
        b, op->getLoc(), narrowType, wide->getResult(0)));
    op->erase();
  }
}

/// e^x in f64 arithmetic, for Vulkan kernels: GLSL.std.450's Exp (and
/// Tanh, Exp2) take 16- and 32-bit floats only. x = k ln2 + r with
/// |r| <= ln2 / 2 (ln2 in two parts, so that k ln2 is exact); e^r by its
/// Taylor polynomial to degree 13 (the next term is below 2^-56 of it);
/// 2^k built in the exponent field. Beyond the range of finite results,
/// inf and 0 (results that would be subnormal flush to 0); NaN stays NaN.
static Value emitExpF64(OpBuilder &b, Location loc, Value x) {
  Type f64 = b.getF64Type(), i64 = b.getI64Type();
  auto real = [&](double value) -> Value {
    return arith::ConstantOp::create(b, loc, b.getF64FloatAttr(value));
  };
  Value k = math::FloorOp::create(
      b, loc,
      arith::AddFOp::create(
          b, loc, arith::MulFOp::create(b, loc, x, real(1.4426950408889634)),
          real(0.5)));
  k = arith::MaximumFOp::create(
      b, loc, arith::MinimumFOp::create(b, loc, k, real(1023.0)),
      real(-1022.0));
  Value r = arith::SubFOp::create(
      b, loc,
      arith::SubFOp::create(
          b, loc, x,
          arith::MulFOp::create(b, loc, k, real(6.93147180369123816490e-01))),
      arith::MulFOp::create(b, loc, k, real(1.90821492927058770002e-10)));
  // Horner's rule from the degree-13 coefficient, 1/13!, down to 1.
  double coefficient = 1.0;
  SmallVector<double> coefficients = {1.0};
  for (int degree = 1; degree <= 13; ++degree)
    coefficients.push_back(coefficient /= degree);
  Value polynomial = real(coefficients.back());
  for (int degree = 12; degree >= 0; --degree)
    polynomial = arith::AddFOp::create(
        b, loc, arith::MulFOp::create(b, loc, polynomial, r),
        real(coefficients[degree]));
  Value exponent = arith::ShLIOp::create(
      b, loc,
      arith::AddIOp::create(
          b, loc, arith::FPToSIOp::create(b, loc, i64, k),
          arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(1023))),
      arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(52)));
  Value result = arith::MulFOp::create(
      b, loc, polynomial, arith::BitcastOp::create(b, loc, f64, exponent));
  auto where = [&](arith::CmpFPredicate predicate, Value lhs, Value rhs,
                   Value then, Value otherwise) -> Value {
    return arith::SelectOp::create(
        b, loc, arith::CmpFOp::create(b, loc, predicate, lhs, rhs), then,
        otherwise);
  };
  result = where(arith::CmpFPredicate::OGT, x, real(709.782712893384),
                 real(std::numeric_limits<double>::infinity()), result);
  result = where(arith::CmpFPredicate::OLT, x, real(-708.3964185322641),
                 real(0.0), result);
  return where(arith::CmpFPredicate::UNO, x, x, x, result);
}

/// tanh(x) in f64 arithmetic: (1 - e^-2|x|) / (1 + e^-2|x|) with the sign
/// of x, and below |x| = 2^-7, where that difference cancels, the series
/// x - x^3/3 + 2x^5/15 - 17x^7/315.
static Value emitTanhF64(OpBuilder &b, Location loc, Value x) {
  auto real = [&](double value) -> Value {
    return arith::ConstantOp::create(b, loc, b.getF64FloatAttr(value));
  };
  Value a = math::AbsFOp::create(b, loc, x);
  Value t = emitExpF64(b, loc, arith::MulFOp::create(b, loc, a, real(-2.0)));
  Value large =
      arith::DivFOp::create(b, loc, arith::SubFOp::create(b, loc, real(1.0), t),
                            arith::AddFOp::create(b, loc, real(1.0), t));
  Value square = arith::MulFOp::create(b, loc, a, a);
  Value series = real(-17.0 / 315.0);
  for (double coefficient : {2.0 / 15.0, -1.0 / 3.0, 1.0})
    series = arith::AddFOp::create(
        b, loc, arith::MulFOp::create(b, loc, series, square),
        real(coefficient));
  series = arith::MulFOp::create(b, loc, series, a);
  Value magnitude = arith::SelectOp::create(
      b, loc,
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, a,
                            real(0.0078125)),
      series, large);
  return arith::SelectOp::create(
      b, loc,
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, real(0.0)),
      arith::NegFOp::create(b, loc, magnitude), magnitude);
}

/// The f64 math of Vulkan kernels that GLSL.std.450 computes in 16 or 32
/// bits only: e^x, 2^x and tanh become f64 arithmetic; the others are
/// reported.
static LogicalResult expandWideMath(Operation *root) {
  SmallVector<Operation *> wide;
  root->walk([&](Operation *op) {
    if (isa<math::ExpOp, math::Exp2Op, math::TanhOp, math::LogOp, math::Log2Op,
            math::Log1pOp, math::ExpM1Op, math::PowFOp, math::SinOp,
            math::CosOp, math::TanOp, math::AtanOp, math::Atan2Op, math::SinhOp,
            math::CoshOp, math::AsinOp, math::AcosOp, math::ErfOp>(op) &&
        op->getResult(0).getType().isF64())
      wide.push_back(op);
  });
  for (Operation *op : wide) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    Value x = op->getOperand(0), result;
    if (isa<math::ExpOp>(op))
      result = emitExpF64(b, loc, x);
    else if (isa<math::Exp2Op>(op))
      result = emitExpF64(
          b, loc,
          arith::MulFOp::create(
              b, loc, x,
              arith::ConstantOp::create(
                  b, loc, b.getF64FloatAttr(0.69314718055994530942))));
    else if (isa<math::TanhOp>(op))
      result = emitTanhF64(b, loc, x);
    else
      return op->emitOpError()
             << "on f64 has no Vulkan instruction: GLSL.std.450 computes it "
                "in 16 or 32 bits only (compute it in f32, or on f64 with "
                "math.exp, math.exp2 or math.tanh, which are expanded)";
    op->getResult(0).replaceAllUsesWith(result);
    op->erase();
  }
  return success();
}

namespace {
struct ExpandMathPass
    : public subgroup_matrix::impl::ExpandMathPassBase<ExpandMathPass> {
  using ExpandMathPassBase::ExpandMathPassBase;

  void runOnOperation() override {
    for (gpu::GPUModuleOp kernels : getModulesBeingLowered(getOperation())) {
      splitWideBFloat16Conversions(kernels);
      promoteBFloat16Arithmetic(kernels);
      widenHalfTranscendentals(kernels);
      RewritePatternSet expansions(&getContext());
      populatePolynomialApproximateErfPattern(expansions);
      populatePolynomialApproximateErfcPattern(expansions);
      arith::populateCeilFloorDivExpandOpsPatterns(expansions);
      walkAndApplyPatterns(kernels, std::move(expansions));
      // A SPIR-V conversion to bf16 rounds as the driver likes (NVIDIA's
      // truncates), where arith.truncf rounds to nearest even: Vulkan
      // kernels round in integer arithmetic on the bits instead. (Widening
      // bf16 is exact, and stays a conversion.)
      if (kernels->hasAttr(spirv::getTargetEnvAttrName())) {
        if (failed(expandWideMath(kernels)))
          return signalPassFailure();
        SmallVector<Operation *> roundings;
        kernels.walk([&](arith::TruncFOp truncation) {
          if (getElementTypeOrSelf(truncation.getType()).isBF16())
            roundings.push_back(truncation);
        });
        RewritePatternSet bf16Expansions(&getContext());
        arith::populateExpandBFloat16Patterns(bf16Expansions);
        GreedyRewriteConfig config;
        config.setStrictness(GreedyRewriteStrictness::ExistingOps);
        (void)applyOpPatternsGreedily(roundings, std::move(bf16Expansions),
                                      config);
      }
    }
  }
};
} // namespace
