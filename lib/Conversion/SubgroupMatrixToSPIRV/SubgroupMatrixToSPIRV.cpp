//===- SubgroupMatrixToSPIRV.cpp - subgroup_matrix to SPIR-V --------------===//
//
// The mapping follows the WGSL subgroup-matrix proposal's table: matrices are
// Subgroup-scoped cooperative matrices, loads and stores are
// OpCooperativeMatrixLoad/StoreKHR, `mma` is OpCooperativeMatrixMulAddKHR with
// the signedness operands, and scalar ops splat their scalar and apply the
// component-typed arithmetic.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/Conversion/SubgroupMatrixToSPIRV/SubgroupMatrixToSPIRV.h"
#include "SubgroupMatrix/Transforms/ExpandThroughWorkgroupMemory.h"

#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/Transforms/SPIRVConversion.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::subgroup_matrix;

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

static spirv::CooperativeMatrixUseKHR getUse(MatrixKind kind) {
  switch (kind) {
  case MatrixKind::Left:
    return spirv::CooperativeMatrixUseKHR::MatrixA;
  case MatrixKind::Right:
    return spirv::CooperativeMatrixUseKHR::MatrixB;
  case MatrixKind::Result:
    return spirv::CooperativeMatrixUseKHR::MatrixAcc;
  }
  llvm_unreachable("unknown matrix kind");
}

/// Integer components become signless: SPIR-V takes their signedness from
/// the operands of OpCooperativeMatrixMulAddKHR, not from the type.
static spirv::CooperativeMatrixType
convertMatrixType(SubgroupMatrixTypeInterface type) {
  spirv::Scope scope = type.getScope() == MatrixScope::Workgroup
                           ? spirv::Scope::Workgroup
                           : spirv::Scope::Subgroup;
  return spirv::CooperativeMatrixType::get(
      getStorageType(type.getElementType()), type.getRows(), type.getColumns(),
      scope, getUse(type.getKind()));
}

void mlir::subgroup_matrix::populateSubgroupMatrixToSPIRVTypeConversion(
    SPIRVTypeConverter &typeConverter) {
  typeConverter.addConversion(
      [](SubgroupMatrixTypeInterface type) -> std::optional<Type> {
        return convertMatrixType(type);
      });
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static bool isSignedInteger(Type type) {
  auto integer = dyn_cast<IntegerType>(type);
  return integer && integer.isSigned();
}

/// Converts the i32 scalar of an integer matrix to its component: clamped to
/// the component's range (read as signed or unsigned like the component),
/// then narrowed. Float scalars are already the component type.
static Value convertScalarToComponent(OpBuilder &builder, Location loc,
                                      Value scalar, Type component) {
  auto integer = dyn_cast<IntegerType>(component);
  if (!integer || integer.getWidth() == 32)
    return scalar;
  unsigned width = integer.getWidth();
  Type i32 = builder.getI32Type();
  Type narrow = builder.getIntegerType(width);
  auto constant = [&](const APInt &value) -> Value {
    return spirv::ConstantOp::create(
        builder, loc, i32, builder.getIntegerAttr(i32, value.getSExtValue()));
  };
  if (integer.isSigned()) {
    Value clamped = spirv::GLSClampOp::create(
        builder, loc, i32, scalar,
        constant(APInt::getSignedMinValue(width).sext(32)),
        constant(APInt::getSignedMaxValue(width).sext(32)));
    return spirv::SConvertOp::create(builder, loc, narrow, clamped);
  }
  Value clamped = spirv::GLUClampOp::create(
      builder, loc, i32, scalar, constant(APInt::getZero(32)),
      constant(APInt::getMaxValue(width).zext(32)));
  return spirv::UConvertOp::create(builder, loc, narrow, clamped);
}

/// The same clamp on a constant, at compile time.
static TypedAttr clampConstantToComponent(Builder &builder, TypedAttr scalar,
                                          Type component) {
  auto integer = dyn_cast<IntegerType>(component);
  if (!integer)
    return scalar;
  APInt value = cast<IntegerAttr>(scalar).getValue();
  unsigned width = integer.getWidth();
  APInt result;
  if (width == 32)
    result = value;
  else if (integer.isSigned())
    result = value.sgt(APInt::getSignedMaxValue(width).sext(32))
                 ? APInt::getSignedMaxValue(width)
             : value.slt(APInt::getSignedMinValue(width).sext(32))
                 ? APInt::getSignedMinValue(width)
                 : value.trunc(width);
  else
    result = value.ugt(APInt::getMaxValue(width).zext(32))
                 ? APInt::getMaxValue(width)
                 : value.trunc(width);
  return builder.getIntegerAttr(builder.getIntegerType(width), result);
}

/// A matrix with every element `scalar` (an i32 for integer matrices, the
/// component type for float ones): an OpConstantComposite when the scalar is
/// a constant, an OpCompositeConstruct otherwise.
static Value buildSplat(OpBuilder &builder, Location loc,
                        SubgroupMatrixTypeInterface matrixType, Value scalar) {
  spirv::CooperativeMatrixType spirvType = convertMatrixType(matrixType);
  Type component = matrixType.getElementType();
  Attribute constant;
  if (matchPattern(scalar, m_Constant(&constant))) {
    TypedAttr element =
        clampConstantToComponent(builder, cast<TypedAttr>(constant), component);
    return spirv::ConstantOp::create(
        builder, loc, spirvType,
        DenseElementsAttr::get(cast<ShapedType>(spirvType), element));
  }
  Value element = convertScalarToComponent(builder, loc, scalar, component);
  return spirv::CompositeConstructOp::create(builder, loc, spirvType, element);
}

static Value buildZero(OpBuilder &builder, Location loc,
                       SubgroupMatrixTypeInterface matrixType) {
  spirv::CooperativeMatrixType spirvType = convertMatrixType(matrixType);
  Type element = spirvType.getElementType();
  TypedAttr zero = isa<FloatType>(element)
                       ? TypedAttr(builder.getFloatAttr(element, 0.0))
                       : TypedAttr(builder.getIntegerAttr(element, 0));
  return spirv::ConstantOp::create(
      builder, loc, spirvType,
      DenseElementsAttr::get(cast<ShapedType>(spirvType), zero));
}

//===----------------------------------------------------------------------===//
// Memory access
//===----------------------------------------------------------------------===//

namespace {
/// Shared lowering of `load` and `store`: the pointer to element [0, 0], the
/// layout and the memory operands.
template <typename OpTy>
struct MemoryAccessLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;

protected:
  /// Returns the element pointer, or null (after notifying the rewriter) if
  /// the memref cannot be addressed in SPIR-V.
  Value getPointer(OpTy op, Value memref, ValueRange indices,
                   ConversionPatternRewriter &rewriter) const {
    const auto &typeConverter =
        *this->template getTypeConverter<SPIRVTypeConverter>();
    Value pointer =
        spirv::getElementPtr(typeConverter, op.getMemRefType(), memref, indices,
                             op.getLoc(), rewriter);
    if (!pointer)
      (void)rewriter.notifyMatchFailure(
          op, "memref cannot be addressed in SPIR-V (it needs static "
              "strides and a storage class)");
    return pointer;
  }

  spirv::CooperativeMatrixLayoutKHRAttr getLayout(OpTy op) const {
    return spirv::CooperativeMatrixLayoutKHRAttr::get(
        op.getContext(), op.getColMajor()
                             ? spirv::CooperativeMatrixLayoutKHR::ColumnMajor
                             : spirv::CooperativeMatrixLayoutKHR::RowMajor);
  }

  /// Under the Vulkan memory model, only non-private accesses take part in
  /// the availability and visibility operations of barriers, which kernels
  /// rely on when they stage matrices through workgroup memory.
  spirv::MemoryAccessAttr getMemoryAccess(OpTy op) const {
    return spirv::MemoryAccessAttr::get(op.getContext(),
                                        spirv::MemoryAccess::NonPrivatePointer);
  }
};

struct LoadLowering : MemoryAccessLowering<LoadOp> {
  using MemoryAccessLowering::MemoryAccessLowering;

  LogicalResult
  matchAndRewrite(LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // sm-expand-through-workgroup-memory (or the tensor loads of
    // sm-use-nv-cooperative-matrix2) takes bounded loads first.
    if (op.isBounded())
      return rewriter.notifyMatchFailure(op, "a bounded load has no "
                                             "OpCooperativeMatrixLoadKHR");
    Value pointer =
        getPointer(op, adaptor.getSource(), adaptor.getIndices(), rewriter);
    if (!pointer)
      return failure();
    Type resultType = convertMatrixType(op.getMatrixType());
    rewriter.replaceOpWithNewOp<spirv::KHRCooperativeMatrixLoadOp>(
        op, resultType, pointer, getLayout(op), adaptor.getStride(),
        getMemoryAccess(op), /*alignment=*/IntegerAttr());
    return success();
  }
};

struct StoreLowering : MemoryAccessLowering<StoreOp> {
  using MemoryAccessLowering::MemoryAccessLowering;

  LogicalResult
  matchAndRewrite(StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.isBounded())
      return rewriter.notifyMatchFailure(op, "a bounded store has no "
                                             "OpCooperativeMatrixStoreKHR");
    Value pointer =
        getPointer(op, adaptor.getTarget(), adaptor.getIndices(), rewriter);
    if (!pointer)
      return failure();
    rewriter.replaceOpWithNewOp<spirv::KHRCooperativeMatrixStoreOp>(
        op, pointer, adaptor.getValue(), getLayout(op), adaptor.getStride(),
        getMemoryAccess(op), /*alignment=*/IntegerAttr());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Construction and multiplication
//===----------------------------------------------------------------------===//

struct SplatLowering : OpConversionPattern<SplatOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SplatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Match the constant on the original operand: the converted one is the
    // materialized spirv.Constant, which m_Constant also recognises.
    rewriter.replaceOp(op, buildSplat(rewriter, op.getLoc(), op.getMatrixType(),
                                      adaptor.getValue()));
    return success();
  }
};

/// The signedness operands of OpCooperativeMatrixMulAddKHR: without them,
/// integer components are zero-extended.
static spirv::CooperativeMatrixOperandsKHRAttr
getMulAddOperands(MLIRContext *context, Type component, Type result) {
  auto operands = spirv::CooperativeMatrixOperandsKHR::None;
  if (isSignedInteger(component))
    operands = operands | spirv::CooperativeMatrixOperandsKHR::ASigned |
               spirv::CooperativeMatrixOperandsKHR::BSigned;
  if (isSignedInteger(result))
    operands = operands | spirv::CooperativeMatrixOperandsKHR::CSigned |
               spirv::CooperativeMatrixOperandsKHR::ResultSigned;
  if (operands == spirv::CooperativeMatrixOperandsKHR::None)
    return {};
  return spirv::CooperativeMatrixOperandsKHRAttr::get(context, operands);
}

struct MmaLowering : OpConversionPattern<MmaOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(MmaOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ResultMatrixType resultType = op.getResult().getType();
    rewriter.replaceOpWithNewOp<spirv::KHRCooperativeMatrixMulAddOp>(
        op, convertMatrixType(resultType), adaptor.getLeft(),
        adaptor.getRight(), adaptor.getAcc(),
        getMulAddOperands(op.getContext(),
                          op.getLeft().getType().getElementType(),
                          resultType.getElementType()));
    return success();
  }
};

struct MultiplyLowering : OpConversionPattern<MultiplyOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(MultiplyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ResultMatrixType resultType = op.getResult().getType();
    Value zero = buildZero(rewriter, op.getLoc(), resultType);
    rewriter.replaceOpWithNewOp<spirv::KHRCooperativeMatrixMulAddOp>(
        op, convertMatrixType(resultType), adaptor.getLeft(),
        adaptor.getRight(), zero,
        getMulAddOperands(op.getContext(),
                          op.getLeft().getType().getElementType(),
                          resultType.getElementType()));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Scalar arithmetic
//===----------------------------------------------------------------------===//

/// Lowers a scalar op to the component-typed arithmetic op applied to the
/// matrix and a splat of the scalar.
template <typename ScalarOpTy, typename FloatOpTy, typename IntegerOpTy>
struct ScalarOpLowering : OpConversionPattern<ScalarOpTy> {
  using OpConversionPattern<ScalarOpTy>::OpConversionPattern;
  using OpAdaptor = typename ScalarOpTy::Adaptor;

  LogicalResult
  matchAndRewrite(ScalarOpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SubgroupMatrixTypeInterface matrixType = op.getMatrixType();
    Type spirvType = convertMatrixType(matrixType);
    Value splat =
        buildSplat(rewriter, op.getLoc(), matrixType, adaptor.getScalar());
    if (isa<FloatType>(matrixType.getElementType()))
      rewriter.replaceOpWithNewOp<FloatOpTy>(op, spirvType, adaptor.getMatrix(),
                                             splat);
    else if constexpr (!std::is_same_v<IntegerOpTy, void>)
      rewriter.replaceOpWithNewOp<IntegerOpTy>(op, spirvType,
                                               adaptor.getMatrix(), splat);
    else
      return rewriter.notifyMatchFailure(op, "integer division");
    return success();
  }
};

/// Float multiplication by a scalar is OpMatrixTimesScalar, which needs no
/// splat.
struct ScalarMulLowering : OpConversionPattern<ScalarMulOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ScalarMulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SubgroupMatrixTypeInterface matrixType = op.getMatrixType();
    Type spirvType = convertMatrixType(matrixType);
    if (isa<FloatType>(matrixType.getElementType())) {
      rewriter.replaceOpWithNewOp<spirv::MatrixTimesScalarOp>(
          op, spirvType, adaptor.getMatrix(), adaptor.getScalar());
      return success();
    }
    Value splat =
        buildSplat(rewriter, op.getLoc(), matrixType, adaptor.getScalar());
    rewriter.replaceOpWithNewOp<spirv::IMulOp>(op, spirvType,
                                               adaptor.getMatrix(), splat);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Conversion and component-wise maps
//===----------------------------------------------------------------------===//

/// A change of component type within one kind: the conversion instructions
/// take cooperative matrices of the same use directly. (A change of kind has
/// been expanded through workgroup memory before.)
struct ConvertLowering : OpConversionPattern<ConvertOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ConvertOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SubgroupMatrixTypeInterface from = op.getSourceType(),
                                to = op.getResultType();
    if (from.getKind() != to.getKind())
      return rewriter.notifyMatchFailure(
          op, "a change of kind goes through workgroup memory");
    Type resultType = convertMatrixType(to);
    Type fromComponent = from.getElementType(),
         toComponent = to.getElementType();
    Value source = adaptor.getSource();
    Location loc = op.getLoc();
    Value result;
    if (isa<FloatType>(toComponent)) {
      if (isa<FloatType>(fromComponent) &&
          fromComponent.getIntOrFloatBitWidth() ==
              toComponent.getIntOrFloatBitWidth()) {
        // f16 <-> bf16: OpFConvert changes the width, so through f32, which
        // holds either exactly; the second conversion rounds once.
        Type wide = convertMatrixType(
            getMatrixType(to.getKind(), to.getRows(), to.getColumns(),
                          rewriter.getF32Type(), to.getScope()));
        Value widened = spirv::FConvertOp::create(rewriter, loc, wide, source);
        result = spirv::FConvertOp::create(rewriter, loc, resultType, widened);
      } else if (isa<FloatType>(fromComponent)) {
        result = spirv::FConvertOp::create(rewriter, loc, resultType, source);
      } else if (isSignedInteger(fromComponent))
        result =
            spirv::ConvertSToFOp::create(rewriter, loc, resultType, source);
      else
        result =
            spirv::ConvertUToFOp::create(rewriter, loc, resultType, source);
    } else if (fromComponent.getIntOrFloatBitWidth() ==
               toComponent.getIntOrFloatBitWidth()) {
      // Same width: the signless storage types are the same.
      result = source;
    } else if (isSignedInteger(fromComponent)) {
      result = spirv::SConvertOp::create(rewriter, loc, resultType, source);
    } else {
      result = spirv::UConvertOp::create(rewriter, loc, resultType, source);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// A component-wise map (isComponentWiseMap): each body op becomes the same
/// arithmetic on whole cooperative matrices (a float extension or
/// truncation OpFConvert), constants and values from outside the body
/// become splats; each matrix has the map's kind and shape and its
/// scalar's type.
struct ComponentWiseMapLowering : OpConversionPattern<MapOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(MapOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isComponentWiseMap(op))
      return rewriter.notifyMatchFailure(
          op, "not component-wise: it goes through workgroup memory");
    SubgroupMatrixTypeInterface matrixType = op.getResultType();
    Location loc = op.getLoc();
    // The cooperative-matrix type of the matrices of a scalar type: the
    // result's for its storage type (integer components keep their
    // signedness there), else the float type itself.
    Type resultStorage = getStorageType(matrixType.getElementType());
    auto spirvTypeOf = [&](Type scalar) -> Type {
      if (scalar == resultStorage)
        return convertMatrixType(matrixType);
      return convertMatrixType(getMatrixType(
          matrixType.getKind(), matrixType.getRows(), matrixType.getColumns(),
          scalar, matrixType.getScope()));
    };
    // The matrix value of each scalar of the body.
    DenseMap<Value, Value> matrices;
    for (auto [i, input] : llvm::enumerate(adaptor.getInputs()))
      matrices[op.getInputElement(i)] = input;
    auto matrixOf = [&](Value scalar) -> Value {
      if (Value matrix = matrices.lookup(scalar))
        return matrix;
      // A value from outside the body: a splat.
      Value splat = spirv::CompositeConstructOp::create(
          rewriter, loc, spirvTypeOf(scalar.getType()),
          rewriter.getRemappedValue(scalar) ? rewriter.getRemappedValue(scalar)
                                            : scalar);
      matrices[scalar] = splat;
      return splat;
    };
    for (Operation &inner : op.getBodyBlock().without_terminator()) {
      Value result;
      Type spirvType = spirvTypeOf(inner.getResult(0).getType());
      if (auto constant = dyn_cast<arith::ConstantOp>(inner)) {
        result = spirv::ConstantOp::create(
            rewriter, loc, spirvType,
            DenseElementsAttr::get(cast<ShapedType>(spirvType),
                                   cast<TypedAttr>(constant.getValue())));
      } else if (isa<arith::ExtFOp, arith::TruncFOp>(inner)) {
        result = spirv::FConvertOp::create(rewriter, loc, spirvType,
                                           matrixOf(inner.getOperand(0)));
      } else if (isa<arith::NegFOp>(inner)) {
        result = spirv::FNegateOp::create(rewriter, loc, spirvType,
                                          matrixOf(inner.getOperand(0)));
      } else {
        Value lhs = matrixOf(inner.getOperand(0));
        Value rhs = matrixOf(inner.getOperand(1));
        result = TypeSwitch<Operation *, Value>(&inner)
                     .Case([&](arith::AddFOp) {
                       return spirv::FAddOp::create(rewriter, loc, spirvType,
                                                    lhs, rhs);
                     })
                     .Case([&](arith::SubFOp) {
                       return spirv::FSubOp::create(rewriter, loc, spirvType,
                                                    lhs, rhs);
                     })
                     .Case([&](arith::MulFOp) {
                       return spirv::FMulOp::create(rewriter, loc, spirvType,
                                                    lhs, rhs);
                     })
                     .Case([&](arith::DivFOp) {
                       return spirv::FDivOp::create(rewriter, loc, spirvType,
                                                    lhs, rhs);
                     })
                     .Case([&](arith::AddIOp) {
                       return spirv::IAddOp::create(rewriter, loc, spirvType,
                                                    lhs, rhs);
                     })
                     .Case([&](arith::SubIOp) {
                       return spirv::ISubOp::create(rewriter, loc, spirvType,
                                                    lhs, rhs);
                     })
                     .Case([&](arith::MulIOp) {
                       return spirv::IMulOp::create(rewriter, loc, spirvType,
                                                    lhs, rhs);
                     });
      }
      matrices[inner.getResult(0)] = result;
    }
    rewriter.replaceOp(op, matrixOf(op.getYieldedValue()));
    return success();
  }
};

/// `OpControlBarrier` at subgroup scope, ordering workgroup memory.
struct SubgroupBarrierLowering : OpConversionPattern<SubgroupBarrierOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SubgroupBarrierOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<spirv::ControlBarrierOp>(
        op, spirv::Scope::Subgroup, spirv::Scope::Subgroup,
        spirv::MemorySemantics::AcquireRelease |
            spirv::MemorySemantics::WorkgroupMemory);
    return success();
  }
};
} // namespace

void mlir::subgroup_matrix::populateSubgroupMatrixToSPIRVPatterns(
    const SPIRVTypeConverter &typeConverter, RewritePatternSet &patterns) {
  MLIRContext *context = patterns.getContext();
  patterns.add<LoadLowering, StoreLowering, SplatLowering, MmaLowering,
               MultiplyLowering, ScalarMulLowering, ConvertLowering,
               ComponentWiseMapLowering, SubgroupBarrierLowering,
               ScalarOpLowering<ScalarAddOp, spirv::FAddOp, spirv::IAddOp>,
               ScalarOpLowering<ScalarSubOp, spirv::FSubOp, spirv::ISubOp>,
               ScalarOpLowering<ScalarDivOp, spirv::FDivOp, void>>(
      typeConverter, context);
}
