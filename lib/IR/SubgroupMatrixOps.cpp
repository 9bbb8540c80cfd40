//===- SubgroupMatrixOps.cpp - subgroup_matrix operations -----------------===//

#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::subgroup_matrix;

#define GET_OP_CLASSES
#include "SubgroupMatrix/IR/SubgroupMatrixOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Memory access verification
//===----------------------------------------------------------------------===//

/// Whether matrices may be loaded from and stored to `memorySpace`: the
/// default (global) space or the GPU dialect's global and workgroup spaces.
/// Vulkan and Metal only give matrix loads and stores storage-buffer and
/// workgroup pointers.
static bool isSupportedMemorySpace(Attribute memorySpace) {
  if (!memorySpace)
    return true;
  if (auto integer = dyn_cast<IntegerAttr>(memorySpace))
    return integer.getValue().isZero();
  if (auto gpuSpace = dyn_cast<gpu::AddressSpaceAttr>(memorySpace))
    return gpuSpace.getValue() == gpu::AddressSpace::Global ||
           gpuSpace.getValue() == gpu::AddressSpace::Workgroup;
  return false;
}

/// Checks the rules shared by `load` and `store`: index count, memref
/// element type, memory space, contiguity, the constant stride and, where
/// everything is static, that the matrix fits in the memref.
static LogicalResult verifyMemoryAccess(Operation *op,
                                        SubgroupMatrixTypeInterface matrix,
                                        MemRefType memref, ValueRange indices,
                                        Value stride, bool colMajor) {
  if (memref.getRank() == 0)
    return op->emitOpError("expected a memref of rank 1 or more, got ")
           << memref;
  if (static_cast<int64_t>(indices.size()) != memref.getRank())
    return op->emitOpError("expected ")
           << memref.getRank() << " indices for a memref of rank "
           << memref.getRank() << ", got " << indices.size();

  Type storageType = getStorageType(matrix.getElementType());
  // Components per memref element: 1, or more for packed 32-bit words.
  int64_t packing = 1;
  auto packed = dyn_cast<VectorType>(memref.getElementType());
  if (packed && packed.getRank() == 1 &&
      packed.getElementType().isInteger(32) &&
      (packed.getNumElements() * 32) % storageType.getIntOrFloatBitWidth() ==
          0) {
    packing =
        packed.getNumElements() * 32 / storageType.getIntOrFloatBitWidth();
  } else if (memref.getElementType() != storageType) {
    return op->emitOpError("memref element type ")
           << memref.getElementType() << " does not match the storage type "
           << storageType << " of matrix component type "
           << matrix.getElementType()
           << " (or a vector of i32 words packing it)";
  }

  if (!isSupportedMemorySpace(memref.getMemorySpace()))
    return op->emitOpError("memref memory space ")
           << memref.getMemorySpace()
           << " is not supported: subgroup matrices are loaded from and "
              "stored to global or workgroup memory";

  SmallVector<int64_t> memrefStrides;
  int64_t memrefOffset;
  if (failed(memref.getStridesAndOffset(memrefStrides, memrefOffset)) ||
      memrefStrides.back() != 1)
    return op->emitOpError("memref must be contiguous in its innermost "
                           "dimension (unit stride), got ")
           << memref;

  // Row-major matrices step `stride` elements per row, so a row must fit in
  // the stride; column-major ones the same with columns.
  unsigned minorExtent = colMajor ? matrix.getRows() : matrix.getColumns();
  unsigned majorExtent = colMajor ? matrix.getColumns() : matrix.getRows();
  APInt strideValue;
  if (!matchPattern(stride, m_ConstantInt(&strideValue)))
    return success();
  if (strideValue.getSExtValue() * packing < static_cast<int64_t>(minorExtent))
    return op->emitOpError("stride ")
           << strideValue.getSExtValue() * packing << " is smaller than the "
           << minorExtent << (colMajor ? " rows" : " columns") << " of a "
           << (colMajor ? "column-major" : "row-major") << " " << Type(matrix);

  // A statically shaped memref must hold the whole matrix. The offset of
  // element [0, 0] is at least the part of it known from constant indices.
  if (!memref.hasStaticShape() || !memref.getLayout().isIdentity())
    return success();
  int64_t offset = 0;
  for (auto [index, memrefStride] : llvm::zip(indices, memrefStrides)) {
    APInt indexValue;
    if (matchPattern(index, m_ConstantInt(&indexValue)))
      offset += indexValue.getSExtValue() * memrefStride;
  }
  offset *= packing;
  int64_t span =
      strideValue.getSExtValue() * packing * (majorExtent - 1) + minorExtent;
  int64_t numElements = memref.getNumElements() * packing;
  if (offset + span > numElements)
    return op->emitOpError("the matrix reaches element ")
           << offset + span - 1 << " of a memref of " << numElements
           << " elements";
  return success();
}

LogicalResult LoadOp::verify() {
  return verifyMemoryAccess(*this, getMatrixType(), getMemRefType(),
                            getIndices(), getStride(), getColMajor());
}

LogicalResult StoreOp::verify() {
  return verifyMemoryAccess(*this, getMatrixType(), getMemRefType(),
                            getIndices(), getStride(), getColMajor());
}

//===----------------------------------------------------------------------===//
// SplatOp
//===----------------------------------------------------------------------===//

/// Checks that `scalar` has the scalar type of `matrix`'s components.
static LogicalResult verifyScalarType(Operation *op,
                                      SubgroupMatrixTypeInterface matrix,
                                      Type scalar) {
  Type expected = getScalarType(matrix.getElementType());
  if (scalar != expected)
    return op->emitOpError("scalar type ")
           << scalar << " does not match " << expected
           << ", the scalar type of component type " << matrix.getElementType();
  return success();
}

LogicalResult SplatOp::verify() {
  return verifyScalarType(*this, getMatrixType(), getValue().getType());
}

//===----------------------------------------------------------------------===//
// Multiplication
//===----------------------------------------------------------------------===//

static LogicalResult verifyMultiply(Operation *op, LeftMatrixType left,
                                    RightMatrixType right,
                                    ResultMatrixType result) {
  if (left.getM() != result.getM())
    return op->emitOpError("M mismatch: the left operand has ")
           << left.getM() << " rows but the result has " << result.getM();
  if (right.getN() != result.getN())
    return op->emitOpError("N mismatch: the right operand has ")
           << right.getN() << " columns but the result has " << result.getN();
  if (left.getK() != right.getK())
    return op->emitOpError("K mismatch: the left operand has ")
           << left.getK() << " columns but the right operand has "
           << right.getK() << " rows";
  if (left.getElementType() != right.getElementType())
    return op->emitOpError("left and right component types must match, got ")
           << left.getElementType() << " and " << right.getElementType();
  if (!isValidAccumulatorType(left.getElementType(), result.getElementType()))
    return op->emitOpError("result component type ")
           << result.getElementType() << " cannot accumulate "
           << left.getElementType()
           << " products (valid: f16 -> f16|f32, bf16 -> f32, f32 -> f32, "
              "si8 -> si32, ui8 -> ui32, si32 -> si32, ui32 -> ui32)";
  return success();
}

LogicalResult MmaOp::verify() {
  return verifyMultiply(*this, getLeft().getType(), getRight().getType(),
                        getResult().getType());
}

LogicalResult MultiplyOp::verify() {
  return verifyMultiply(*this, getLeft().getType(), getRight().getType(),
                        getResult().getType());
}

//===----------------------------------------------------------------------===//
// Constant scalars
//===----------------------------------------------------------------------===//

/// The value an integer scalar takes for `component`: clamped to the
/// component's range, as `splat` and the scalar ops specify. The i32 scalar
/// reads as signed for signed components and as unsigned for unsigned ones
/// (WGSL hands unsigned components a u32).
static APInt clampToComponent(const APInt &scalar, IntegerType component) {
  unsigned width = component.getWidth();
  if (width >= scalar.getBitWidth())
    return scalar.zextOrTrunc(width);
  if (component.isSigned())
    return scalar.sgt(
               APInt::getSignedMaxValue(width).sext(scalar.getBitWidth()))
               ? APInt::getSignedMaxValue(width)
           : scalar.slt(
                 APInt::getSignedMinValue(width).sext(scalar.getBitWidth()))
               ? APInt::getSignedMinValue(width)
               : scalar.trunc(width);
  return scalar.ugt(APInt::getMaxValue(width).zext(scalar.getBitWidth()))
             ? APInt::getMaxValue(width)
             : scalar.trunc(width);
}

namespace {
/// A constant scalar as the matrix components see it.
struct ComponentConstant {
  std::optional<APFloat> floatValue;
  std::optional<APInt> intValue;
};
} // namespace

static std::optional<ComponentConstant> matchComponentConstant(Value scalar,
                                                               Type component) {
  if (auto intComponent = dyn_cast<IntegerType>(component)) {
    APInt value;
    if (!matchPattern(scalar, m_ConstantInt(&value)))
      return std::nullopt;
    return ComponentConstant{std::nullopt,
                             clampToComponent(value, intComponent)};
  }
  APFloat value(0.0);
  if (!matchPattern(scalar, m_ConstantFloat(&value)))
    return std::nullopt;
  return ComponentConstant{value, std::nullopt};
}

//===----------------------------------------------------------------------===//
// MmaOp canonicalization
//===----------------------------------------------------------------------===//

namespace {
/// `mma(a, b, splat(+0))` is by definition `multiply(a, b)`.
struct MmaWithZeroAccumulator : OpRewritePattern<MmaOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MmaOp op,
                                PatternRewriter &rewriter) const override {
    auto splat = op.getAcc().getDefiningOp<SplatOp>();
    if (!splat)
      return failure();
    std::optional<ComponentConstant> value = matchComponentConstant(
        splat.getValue(), op.getResult().getType().getElementType());
    if (!value)
      return failure();
    bool isPositiveZero = value->intValue ? value->intValue->isZero()
                                          : value->floatValue->isPosZero();
    if (!isPositiveZero)
      return failure();
    rewriter.replaceOpWithNewOp<MultiplyOp>(op, op.getResult().getType(),
                                            op.getLeft(), op.getRight());
    return success();
  }
};
} // namespace

void MmaOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                        MLIRContext *context) {
  results.add<MmaWithZeroAccumulator>(context);
}

//===----------------------------------------------------------------------===//
// Scalar op folding
//===----------------------------------------------------------------------===//

namespace {
enum class ScalarOperation { Add, Sub, Mul, Div };
} // namespace

/// Whether applying `operation` with `value` leaves every component
/// unchanged. Float identities follow IEEE 754 exactly: x + -0.0, x - +0.0,
/// x * 1.0 and x / 1.0 are x for every x, including -0.0.
static bool isIdentity(ScalarOperation operation,
                       const ComponentConstant &value) {
  if (value.intValue) {
    const APInt &v = *value.intValue;
    return operation == ScalarOperation::Add ||
                   operation == ScalarOperation::Sub
               ? v.isZero()
               : v.isOne();
  }
  const APFloat &v = *value.floatValue;
  switch (operation) {
  case ScalarOperation::Add:
    return v.isNegZero();
  case ScalarOperation::Sub:
    return v.isPosZero();
  case ScalarOperation::Mul:
  case ScalarOperation::Div:
    return v.isExactlyValue(1.0);
  }
  llvm_unreachable("unknown scalar operation");
}

/// Computes `lhs operation rhs` in the component type, or nothing when the
/// result is not a plain value (integer division is not an op of the
/// dialect).
static std::optional<ComponentConstant> evaluate(ScalarOperation operation,
                                                 const ComponentConstant &lhs,
                                                 const ComponentConstant &rhs) {
  if (lhs.intValue) {
    const APInt &a = *lhs.intValue, &b = *rhs.intValue;
    switch (operation) {
    case ScalarOperation::Add:
      return ComponentConstant{std::nullopt, a + b};
    case ScalarOperation::Sub:
      return ComponentConstant{std::nullopt, a - b};
    case ScalarOperation::Mul:
      return ComponentConstant{std::nullopt, a * b};
    case ScalarOperation::Div:
      return std::nullopt;
    }
  }
  APFloat result = *lhs.floatValue;
  const APFloat &b = *rhs.floatValue;
  switch (operation) {
  case ScalarOperation::Add:
    result.add(b, APFloat::rmNearestTiesToEven);
    break;
  case ScalarOperation::Sub:
    result.subtract(b, APFloat::rmNearestTiesToEven);
    break;
  case ScalarOperation::Mul:
    result.multiply(b, APFloat::rmNearestTiesToEven);
    break;
  case ScalarOperation::Div:
    result.divide(b, APFloat::rmNearestTiesToEven);
    break;
  }
  return ComponentConstant{result, std::nullopt};
}

template <typename ScalarOpTy>
static OpFoldResult foldScalarOp(ScalarOpTy op, ScalarOperation operation) {
  std::optional<ComponentConstant> value = matchComponentConstant(
      op.getScalar(), op.getMatrixType().getElementType());
  if (value && isIdentity(operation, *value))
    return op.getMatrix();
  return {};
}

OpFoldResult ScalarAddOp::fold(FoldAdaptor) {
  return foldScalarOp(*this, ScalarOperation::Add);
}
OpFoldResult ScalarSubOp::fold(FoldAdaptor) {
  return foldScalarOp(*this, ScalarOperation::Sub);
}
OpFoldResult ScalarMulOp::fold(FoldAdaptor) {
  return foldScalarOp(*this, ScalarOperation::Mul);
}
OpFoldResult ScalarDivOp::fold(FoldAdaptor) {
  return foldScalarOp(*this, ScalarOperation::Div);
}

namespace {
/// `scalar_op(splat(c1), c2)` with constants c1 and c2 is `splat(c1 op c2)`,
/// computed in the component type (rounded like the device for floats,
/// wrapping for integers).
template <typename ScalarOpTy>
struct FoldScalarOpOfConstantSplat : OpRewritePattern<ScalarOpTy> {
  FoldScalarOpOfConstantSplat(MLIRContext *context, ScalarOperation operation)
      : OpRewritePattern<ScalarOpTy>(context), operation(operation) {}

  LogicalResult matchAndRewrite(ScalarOpTy op,
                                PatternRewriter &rewriter) const override {
    auto splat = op.getMatrix().template getDefiningOp<SplatOp>();
    if (!splat)
      return failure();
    Type component = op.getMatrixType().getElementType();
    std::optional<ComponentConstant> lhs =
        matchComponentConstant(splat.getValue(), component);
    std::optional<ComponentConstant> rhs =
        matchComponentConstant(op.getScalar(), component);
    if (!lhs || !rhs)
      return failure();
    std::optional<ComponentConstant> result = evaluate(operation, *lhs, *rhs);
    if (!result)
      return failure();

    Type scalarType = op.getScalar().getType();
    TypedAttr resultAttr;
    if (result->intValue) {
      // Widen back to the i32 scalar; the value is in the component's range,
      // so the clamp of the new splat leaves it unchanged.
      APInt widened = cast<IntegerType>(component).isSigned()
                          ? result->intValue->sext(32)
                          : result->intValue->zext(32);
      resultAttr = rewriter.getIntegerAttr(scalarType, widened);
    } else {
      resultAttr = rewriter.getFloatAttr(scalarType, *result->floatValue);
    }
    Value constant =
        arith::ConstantOp::create(rewriter, op.getLoc(), resultAttr);
    rewriter.replaceOpWithNewOp<SplatOp>(op, op.getType(), constant);
    return success();
  }

  ScalarOperation operation;
};
} // namespace

void ScalarAddOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<FoldScalarOpOfConstantSplat<ScalarAddOp>>(context,
                                                        ScalarOperation::Add);
}
void ScalarSubOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<FoldScalarOpOfConstantSplat<ScalarSubOp>>(context,
                                                        ScalarOperation::Sub);
}
void ScalarMulOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<FoldScalarOpOfConstantSplat<ScalarMulOp>>(context,
                                                        ScalarOperation::Mul);
}
void ScalarDivOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<FoldScalarOpOfConstantSplat<ScalarDivOp>>(context,
                                                        ScalarOperation::Div);
}

//===----------------------------------------------------------------------===//
// Scalar op verification
//===----------------------------------------------------------------------===//

LogicalResult ScalarAddOp::verify() {
  return verifyScalarType(*this, getMatrixType(), getScalar().getType());
}
LogicalResult ScalarSubOp::verify() {
  return verifyScalarType(*this, getMatrixType(), getScalar().getType());
}
LogicalResult ScalarMulOp::verify() {
  return verifyScalarType(*this, getMatrixType(), getScalar().getType());
}
LogicalResult ScalarDivOp::verify() {
  if (isa<IntegerType>(getMatrixType().getElementType()))
    return emitOpError("only float matrices can be divided, got component "
                       "type ")
           << getMatrixType().getElementType();
  return verifyScalarType(*this, getMatrixType(), getScalar().getType());
}
