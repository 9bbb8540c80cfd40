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

/// The types of a reduction: the operand's alone where the result has the
/// same type, `operand -> result` where it differs (2x2 blocks).
static ParseResult parseReducedType(OpAsmParser &parser, Type &matrix,
                                    Type &result) {
  if (parser.parseType(matrix))
    return failure();
  result = matrix;
  if (succeeded(parser.parseOptionalArrow()))
    return parser.parseType(result);
  return success();
}

static void printReducedType(OpAsmPrinter &printer, Operation *, Type matrix,
                             Type result) {
  printer << matrix;
  if (result != matrix)
    printer << " -> " << result;
}

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
                                        Value stride, ValueRange bounds,
                                        bool colMajor) {
  if (!bounds.empty() && bounds.size() != 2)
    return op->emitOpError("expected 2 bounds (rows, then columns), got ")
           << bounds.size();
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
    // The elements outside the bounds are each read or written alone.
    if (!bounds.empty())
      return op->emitOpError("bounds need a memref of the storage type ")
             << storageType << ", not of packed words " << packed;
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

  // A statically shaped memref must hold the whole matrix, unless bounds
  // say how much of it is there. The offset of element [0, 0] is at least
  // the part of it known from constant indices.
  if (!bounds.empty() || !memref.hasStaticShape() ||
      !memref.getLayout().isIdentity())
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
                            getIndices(), getStride(), getBounds(),
                            getColMajor());
}

LogicalResult StoreOp::verify() {
  return verifyMemoryAccess(*this, getMatrixType(), getMemRefType(),
                            getIndices(), getStride(), getBounds(),
                            getColMajor());
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
  if (left.getScope() != right.getScope() ||
      left.getScope() != result.getScope())
    return op->emitOpError("operands and result must share one scope, got ")
           << stringifyMatrixScope(left.getScope()) << ", "
           << stringifyMatrixScope(right.getScope()) << " and "
           << stringifyMatrixScope(result.getScope())
           << ": a subgroup cannot multiply a workgroup's matrices";
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

//===----------------------------------------------------------------------===//
// ConvertOp
//===----------------------------------------------------------------------===//

LogicalResult ConvertOp::verify() {
  SubgroupMatrixTypeInterface source = getSourceType();
  SubgroupMatrixTypeInterface result = getResultType();
  if (source.getRows() != result.getRows() ||
      source.getColumns() != result.getColumns())
    return emitOpError("converts a ")
           << source.getRows() << "x" << source.getColumns()
           << " matrix into a " << result.getRows() << "x"
           << result.getColumns() << " one: a conversion keeps the shape";
  if (source.getScope() != result.getScope())
    return emitOpError("converts a ")
           << stringifyMatrixScope(source.getScope()) << " matrix into a "
           << stringifyMatrixScope(result.getScope())
           << " one: a conversion keeps the scope";
  Type from = source.getElementType(), to = result.getElementType();
  if (!isValidComponentConversion(from, to)) {
    InFlightDiagnostic diagnostic = emitOpError("has no conversion from ")
                                    << from << " to " << to;
    if (isa<FloatType>(from) && isa<IntegerType>(to))
      diagnostic << ": float-to-integer rounding and overflow differ between "
                    "devices; quantize with subgroup_matrix.map";
    return diagnostic;
  }
  return success();
}

OpFoldResult ConvertOp::fold(FoldAdaptor) {
  if (getSource().getType() == getResult().getType())
    return getSource();
  return {};
}

//===----------------------------------------------------------------------===//
// DecodeLoadOp
//===----------------------------------------------------------------------===//

Value DecodeLoadOp::getYieldedValue() {
  return cast<YieldOp>(getBodyBlock().getTerminator()).getValue();
}

/// Whether `op` reads one element of a buffer in global memory: the only
/// access to memory a decode body has.
static bool isGlobalElementRead(Operation &op) {
  if (op.getName().getStringRef() != "memref.load" || op.getNumOperands() == 0)
    return false;
  auto memref = dyn_cast<MemRefType>(op.getOperand(0).getType());
  if (!memref)
    return false;
  auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(memref.getMemorySpace());
  return !space || space.getValue() == gpu::AddressSpace::Global;
}

LogicalResult DecodeLoadOp::verifyRegions() {
  Block &body = getBodyBlock();
  if (body.getNumArguments() != 2 ||
      !llvm::all_of(body.getArgumentTypes(),
                    [](Type type) { return type.isIndex(); }))
    return emitOpError("body must take the element's tensor row and column "
                       "(two index arguments)");
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield)
    return emitOpError("body must end with subgroup_matrix.yield");
  Type storage = getStorageType(getMatrixType().getElementType());
  if (yield.getValue().getType() != storage)
    return yield.emitOpError("yields ")
           << yield.getValue().getType()
           << ", but the decoded matrix's elements are of storage type "
           << storage;
  for (Operation &op : body.without_terminator()) {
    bool read = isGlobalElementRead(op);
    StringRef dialect = op.getDialect() ? op.getDialect()->getNamespace() : "";
    if (!read && ((dialect != "arith" && dialect != "math") ||
                  op.getNumRegions() != 0 || !isMemoryEffectFree(&op)))
      return op.emitOpError("cannot be part of a subgroup_matrix.decode_load "
                            "body: the body computes with arith and math ops "
                            "and reads global memory with memref.load");
    // A read's memref is its one operand of another type.
    for (Type type : llvm::concat<const Type>(
             TypeRange(op.getOperands().drop_front(read ? 1 : 0)),
             op.getResultTypes()))
      if (!type.isIntOrIndexOrFloat())
        return op.emitOpError("cannot be part of a subgroup_matrix.decode_load "
                              "body: it uses ")
               << type << ", and the body decodes one scalar element at a time";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// MapOp
//===----------------------------------------------------------------------===//

Value MapOp::getYieldedValue() {
  return cast<YieldOp>(getBodyBlock().getTerminator()).getValue();
}

LogicalResult MapOp::verify() {
  if (getInputs().empty())
    return emitOpError("needs at least one input matrix");
  auto first = cast<SubgroupMatrixTypeInterface>(getInputs()[0].getType());
  auto describe = [](SubgroupMatrixTypeInterface type) {
    return (Twine(stringifyMatrixKind(type.getKind())) + " " +
            Twine(type.getRows()) + "x" + Twine(type.getColumns()) +
            (type.getScope() == MatrixScope::Workgroup ? " workgroup" : ""))
        .str();
  };
  auto sameKindAndShape = [&](SubgroupMatrixTypeInterface type) {
    return type.getKind() == first.getKind() &&
           type.getRows() == first.getRows() &&
           type.getColumns() == first.getColumns() &&
           type.getScope() == first.getScope();
  };
  for (auto [index, input] : llvm::enumerate(getInputs())) {
    auto type = cast<SubgroupMatrixTypeInterface>(input.getType());
    if (!sameKindAndShape(type))
      return emitOpError("input ")
             << index << " is a " << describe(type) << " matrix, input 0 a "
             << describe(first)
             << " one: the inputs of a map share one kind and shape";
  }
  if (!sameKindAndShape(getResultType()))
    return emitOpError("result is a ")
           << describe(getResultType()) << " matrix, the inputs "
           << describe(first)
           << " ones: a map keeps the kind and shape (use convert to change "
              "the kind)";
  return success();
}

LogicalResult MapOp::verifyRegions() {
  Block &body = getBodyBlock();
  unsigned expected = 2 + getInputs().size();
  if (body.getNumArguments() != expected)
    return emitOpError("body must take ")
           << expected << " arguments (row, column and one element of each of "
           << getInputs().size() << " inputs), got " << body.getNumArguments();
  for (unsigned i = 0; i < 2; ++i)
    if (!body.getArgument(i).getType().isIndex())
      return emitOpError("body argument ")
             << i << " (the " << (i ? "column" : "row")
             << ") must be of type index, got "
             << body.getArgument(i).getType();
  for (auto [index, input] : llvm::enumerate(getInputs())) {
    Type storage = getStorageType(
        cast<SubgroupMatrixTypeInterface>(input.getType()).getElementType());
    Type actual = getInputElement(index).getType();
    if (actual != storage)
      return emitOpError("body argument ")
             << 2 + index << " holds an element of input " << index
             << " and must be of its storage type " << storage << ", got "
             << actual;
  }
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield)
    return emitOpError("body must end with subgroup_matrix.yield");
  Type resultStorage = getStorageType(getResultType().getElementType());
  if (yield.getValue().getType() != resultStorage)
    return yield.emitOpError("yields ")
           << yield.getValue().getType()
           << ", but the map's result elements are of storage type "
           << resultStorage;
  for (Operation &op : body.without_terminator()) {
    StringRef dialect = op.getDialect() ? op.getDialect()->getNamespace() : "";
    if (dialect != "arith" && dialect != "math")
      return op.emitOpError("cannot be part of a subgroup_matrix.map body: "
                            "the body may only compute with arith and math "
                            "ops");
    if (op.getNumRegions() != 0 || !isMemoryEffectFree(&op))
      return op.emitOpError("cannot be part of a subgroup_matrix.map body: "
                            "the body must not have side effects or regions");
    for (Type type :
         llvm::concat<const Type>(op.getOperandTypes(), op.getResultTypes()))
      if (!type.isIntOrIndexOrFloat())
        return op.emitOpError("cannot be part of a subgroup_matrix.map body: ")
               << "it uses " << type
               << ", and the body computes one scalar element at a time";
  }
  return success();
}

OpFoldResult MapOp::fold(FoldAdaptor) {
  // A map that yields one of its inputs unchanged is that input.
  auto argument = dyn_cast<BlockArgument>(getYieldedValue());
  if (!argument || argument.getOwner() != &getBodyBlock() ||
      argument.getArgNumber() < 2)
    return {};
  Value input = getInputs()[argument.getArgNumber() - 2];
  if (input.getType() != getResult().getType())
    return {};
  return input;
}

namespace {
/// Drops the inputs whose elements the body does not read.
struct DropUnusedMapInputs : public OpRewritePattern<MapOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MapOp op,
                                PatternRewriter &rewriter) const override {
    SmallVector<unsigned> unused;
    for (unsigned i = 0, e = op.getInputs().size(); i < e; ++i)
      if (op.getInputElement(i).use_empty())
        unused.push_back(i);
    // The first input stays: it carries the kind and shape.
    if (unused.empty() || unused.size() == op.getInputs().size())
      return failure();
    SmallVector<Value> kept;
    BitVector erased(op.getBodyBlock().getNumArguments());
    for (unsigned i = 0, e = op.getInputs().size(); i < e; ++i) {
      if (llvm::is_contained(unused, i))
        erased.set(2 + i);
      else
        kept.push_back(op.getInputs()[i]);
    }
    auto newOp = MapOp::create(rewriter, op.getLoc(), op.getType(), kept);
    rewriter.inlineRegionBefore(op.getBody(), newOp.getBody(),
                                newOp.getBody().end());
    newOp.getBodyBlock().eraseArguments(erased);
    rewriter.replaceOp(op, newOp.getResult());
    return success();
  }
};

/// A map of one float matrix that adds, subtracts, multiplies or divides its
/// element by a value defined outside the map is the scalar op.
struct MapOfScalarArithmetic : public OpRewritePattern<MapOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MapOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getInputs().size() != 1 ||
        op.getInputs()[0].getType() != op.getResult().getType() ||
        !isa<FloatType>(op.getResultType().getElementType()))
      return failure();
    Block &body = op.getBodyBlock();
    if (!llvm::hasSingleElement(body.without_terminator()))
      return failure();
    Operation &arithmetic = body.front();
    if (arithmetic.getNumOperands() != 2 ||
        arithmetic.getResult(0) != op.getYieldedValue() ||
        arithmetic.getOperand(0) != op.getInputElement(0))
      return failure();
    Value scalar = arithmetic.getOperand(1);
    // Fast-math flags have no place on the scalar ops: keep such maps.
    auto fastMath = dyn_cast<arith::ArithFastMathInterface>(arithmetic);
    if (scalar.getParentRegion() == &op.getBody() || !fastMath ||
        fastMath.getFastMathFlagsAttr().getValue() !=
            arith::FastMathFlags::none)
      return failure();
    Value matrix = op.getInputs()[0];
    Type type = op.getType();
    if (isa<arith::AddFOp>(arithmetic))
      rewriter.replaceOpWithNewOp<ScalarAddOp>(op, type, matrix, scalar);
    else if (isa<arith::SubFOp>(arithmetic))
      rewriter.replaceOpWithNewOp<ScalarSubOp>(op, type, matrix, scalar);
    else if (isa<arith::MulFOp>(arithmetic))
      rewriter.replaceOpWithNewOp<ScalarMulOp>(op, type, matrix, scalar);
    else if (isa<arith::DivFOp>(arithmetic))
      rewriter.replaceOpWithNewOp<ScalarDivOp>(op, type, matrix, scalar);
    else
      return failure();
    return success();
  }
};
} // namespace

void MapOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                        MLIRContext *context) {
  results.add<DropUnusedMapInputs, MapOfScalarArithmetic>(context);
}

//===----------------------------------------------------------------------===//
// ReduceOp
//===----------------------------------------------------------------------===//

LogicalResult ReduceOp::verify() {
  SubgroupMatrixTypeInterface type = getMatrixType();
  Type component = type.getElementType();
  if (!isValidReduction(getKind(), component))
    return emitOpError("cannot reduce ")
           << component << " elements with "
           << stringifyReductionKind(getKind())
           << ": integer products are defined on 32-bit components only (8-bit "
              "ones overflow after two factors)";
  if (getFastmath() != arith::FastMathFlags::none && !isa<FloatType>(component))
    return emitOpError("has fastmath flags, which apply to float elements "
                       "only, on ")
           << component << " elements";
  if (getDimensions() != ReductionDimensions::Blocks2x2) {
    if (getResult().getType() != type)
      return emitOpError("reduces over ")
             << stringifyReductionDimensions(getDimensions())
             << ", whose result has the operand's type " << type << ", not "
             << getResult().getType();
    return success();
  }
  if (type.getRows() % 2 || type.getColumns() % 2)
    return emitOpError("reduces 2x2 blocks of a matrix of ")
           << type.getRows() << " rows and " << type.getColumns()
           << " columns: both must be even";
  SubgroupMatrixTypeInterface expected = subgroup_matrix::getMatrixType(
      type.getKind(), type.getRows() / 2, type.getColumns() / 2, component,
      type.getScope());
  if (getResult().getType() != expected)
    return emitOpError("reduces 2x2 blocks of ")
           << type << " into " << expected << ", not " << getResult().getType();
  return success();
}

Value ReduceOp::buildCombine(OpBuilder &b, Location loc, ReductionKind kind,
                             Type component, Value x, Value y,
                             arith::FastMathFlags fastmath) {
  if (isa<FloatType>(component)) {
    switch (kind) {
    case ReductionKind::Add:
      return arith::AddFOp::create(b, loc, x, y, fastmath);
    case ReductionKind::Mul:
      return arith::MulFOp::create(b, loc, x, y, fastmath);
    case ReductionKind::Max:
      return arith::MaximumFOp::create(b, loc, x, y, fastmath);
    case ReductionKind::Min:
      return arith::MinimumFOp::create(b, loc, x, y, fastmath);
    }
  }
  bool isSigned = cast<IntegerType>(component).isSigned();
  switch (kind) {
  case ReductionKind::Add:
    return arith::AddIOp::create(b, loc, x, y);
  case ReductionKind::Mul:
    return arith::MulIOp::create(b, loc, x, y);
  case ReductionKind::Max:
    return isSigned ? Value(arith::MaxSIOp::create(b, loc, x, y))
                    : Value(arith::MaxUIOp::create(b, loc, x, y));
  case ReductionKind::Min:
    return isSigned ? Value(arith::MinSIOp::create(b, loc, x, y))
                    : Value(arith::MinUIOp::create(b, loc, x, y));
  }
  llvm_unreachable("unknown reduction kind");
}

Value ConvertOp::buildElementConversion(OpBuilder &builder, Location loc,
                                        Value element, Type from, Type to) {
  if (from == to)
    return element;
  Type storage = getStorageType(to);
  if (from.isBF16()) {
    element =
        arith::ExtFOp::create(builder, loc, builder.getF32Type(), element);
    from = builder.getF32Type();
    if (to.isF32())
      return element;
  }
  if (to.isBF16()) {
    Value wide = buildElementConversion(builder, loc, element, from,
                                        builder.getF32Type());
    return arith::TruncFOp::create(builder, loc, to, wide);
  }
  if (isa<FloatType>(to)) {
    if (isa<FloatType>(from)) {
      if (from.getIntOrFloatBitWidth() == to.getIntOrFloatBitWidth())
        element =
            arith::ExtFOp::create(builder, loc, builder.getF32Type(), element);
      if (element.getType().getIntOrFloatBitWidth() <
          to.getIntOrFloatBitWidth())
        return arith::ExtFOp::create(builder, loc, storage, element);
      return arith::TruncFOp::create(builder, loc, storage, element);
    }
    if (cast<IntegerType>(from).isSigned())
      return arith::SIToFPOp::create(builder, loc, storage, element);
    return arith::UIToFPOp::create(builder, loc, storage, element);
  }
  unsigned fromBits = from.getIntOrFloatBitWidth(),
           toBits = to.getIntOrFloatBitWidth();
  if (fromBits == toBits)
    return element;
  if (toBits < fromBits)
    return arith::TruncIOp::create(builder, loc, storage, element);
  if (cast<IntegerType>(from).isSigned())
    return arith::ExtSIOp::create(builder, loc, storage, element);
  return arith::ExtUIOp::create(builder, loc, storage, element);
}

OpFoldResult ReduceOp::fold(FoldAdaptor) {
  if (getKind() != ReductionKind::Max && getKind() != ReductionKind::Min)
    return {};
  // 2x2 blocks change the shape: the operand is never the result.
  if (getDimensions() == ReductionDimensions::Blocks2x2)
    return {};
  // The maximum (minimum) of a splat is the splat.
  if (getMatrix().getDefiningOp<SplatOp>())
    return getMatrix();
  // Reducing again the same way changes nothing.
  if (auto inner = getMatrix().getDefiningOp<ReduceOp>())
    if (inner.getKind() == getKind() &&
        inner.getDimensions() == getDimensions())
      return getMatrix();
  return {};
}
