//===- GPUToSubgroupMatrix.cpp - gpu.subgroup_mma_* to this dialect -------===//
//
// Upstream's `gpu.subgroup_mma_*` ops describe the same subgroup-scoped
// matrices as this dialect, with the operand role ("AOp", "BOp", "COp") in
// place of the kind and a leading dimension in place of the stride. The
// rewrite is one-to-one, so code written for upstream's NVVM or SPIR-V
// lowering moves over with one pass and then reaches every path of this
// project (Vulkan, Intel, Metal).
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/Conversion/GPUToSubgroupMatrix/GPUToSubgroupMatrix.h"
#include "SubgroupMatrix/Conversion/Passes.h"
#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"

namespace mlir {
namespace subgroup_matrix {
#define GEN_PASS_DEF_CONVERTGPUMMAPASS
#include "SubgroupMatrix/Conversion/Passes.h.inc"
} // namespace subgroup_matrix
} // namespace mlir

using namespace mlir;
using namespace mlir::subgroup_matrix;

/// The component type of this dialect for an upstream element type: upstream
/// operands carry their signedness (`si8`, `ui8`, or signless `i8`, which
/// its lowerings treat as signed), and its accumulators are signless `i32`
/// meaning signed.
static Type getComponentType(Type element) {
  MLIRContext *context = element.getContext();
  if (element.isF16() || element.isF32())
    return element;
  auto integer = dyn_cast<IntegerType>(element);
  if (!integer || (integer.getWidth() != 8 && integer.getWidth() != 32))
    return {};
  return IntegerType::get(context, integer.getWidth(),
                          integer.isUnsigned() ? IntegerType::Unsigned
                                               : IntegerType::Signed);
}

/// The matrix type of this dialect for `type`, or null with the reason.
static Type convertMMAMatrixType(gpu::MMAMatrixType type,
                                 std::string *reason = nullptr) {
  MLIRContext *context = type.getContext();
  Type component = getComponentType(type.getElementType());
  if (!component) {
    if (reason)
      *reason = "its element type has no subgroup matrix component (f16, "
                "f32, 8- and 32-bit integers)";
    return {};
  }
  ArrayRef<int64_t> shape = type.getShape();
  StringRef role = type.getOperand();
  if (role == "AOp")
    return LeftMatrixType::get(context, shape[0], shape[1], component);
  if (role == "BOp")
    return RightMatrixType::get(context, shape[0], shape[1], component);
  return ResultMatrixType::get(context, shape[0], shape[1], component);
}

void mlir::subgroup_matrix::populateGPUMMAToSubgroupMatrixTypeConversion(
    TypeConverter &converter) {
  converter.addConversion([](gpu::MMAMatrixType type) -> std::optional<Type> {
    if (Type converted = convertMMAMatrixType(type))
      return converted;
    return std::nullopt;
  });
}

namespace {
template <typename SourceOp> struct MMAPattern : OpConversionPattern<SourceOp> {
  using OpConversionPattern<SourceOp>::OpConversionPattern;

  Value getStride(ConversionPatternRewriter &rewriter, Location loc,
                  IntegerAttr leadDimension) const {
    return arith::ConstantIndexOp::create(rewriter, loc,
                                          leadDimension.getInt());
  }
};

struct LoadMatrixLowering : MMAPattern<gpu::SubgroupMmaLoadMatrixOp> {
  using MMAPattern::MMAPattern;

  LogicalResult
  matchAndRewrite(gpu::SubgroupMmaLoadMatrixOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = getTypeConverter()->convertType(op.getType());
    if (!type)
      return failure();
    rewriter.replaceOpWithNewOp<LoadOp>(
        op, type, adaptor.getSrcMemref(), adaptor.getIndices(),
        getStride(rewriter, op.getLoc(), op.getLeadDimensionAttr()),
        op.getTranspose().has_value());
    return success();
  }
};

struct StoreMatrixLowering : MMAPattern<gpu::SubgroupMmaStoreMatrixOp> {
  using MMAPattern::MMAPattern;

  LogicalResult
  matchAndRewrite(gpu::SubgroupMmaStoreMatrixOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<StoreOp>(
        op, adaptor.getSrc(), adaptor.getDstMemref(), adaptor.getIndices(),
        getStride(rewriter, op.getLoc(), op.getLeadDimensionAttr()),
        op.getTranspose().has_value());
    return success();
  }
};

/// `a_transpose` and `b_transpose` only record how the operands were loaded
/// (upstream: they do not affect the result), so they are dropped.
struct ComputeLowering : MMAPattern<gpu::SubgroupMmaComputeOp> {
  using MMAPattern::MMAPattern;

  LogicalResult
  matchAndRewrite(gpu::SubgroupMmaComputeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto left = cast<LeftMatrixType>(adaptor.getOpA().getType());
    auto accumulatorType = cast<ResultMatrixType>(adaptor.getOpC().getType());
    Value accumulator = adaptor.getOpC();
    // Upstream accumulates unsigned 8-bit products into its signless i32
    // too; this dialect spells that accumulator ui32. The bits are the
    // same, so the conversions around the mma cost nothing.
    Type inputComponent = left.getElementType();
    bool reinterpret = inputComponent.isUnsignedInteger() &&
                       accumulatorType.getElementType().isSignedInteger();
    if (reinterpret) {
      auto unsignedType = ResultMatrixType::get(
          getContext(), accumulatorType.getRows(), accumulatorType.getColumns(),
          IntegerType::get(getContext(), 32, IntegerType::Unsigned));
      accumulator = ConvertOp::create(rewriter, loc, unsignedType, accumulator);
    }
    Value result =
        MmaOp::create(rewriter, loc, accumulator.getType(), adaptor.getOpA(),
                      adaptor.getOpB(), accumulator);
    if (reinterpret)
      result = ConvertOp::create(rewriter, loc, accumulatorType, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ConstantMatrixLowering : MMAPattern<gpu::SubgroupMmaConstantMatrixOp> {
  using MMAPattern::MMAPattern;

  LogicalResult
  matchAndRewrite(gpu::SubgroupMmaConstantMatrixOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast_or_null<SubgroupMatrixTypeInterface>(
        getTypeConverter()->convertType(op.getType()));
    if (!type ||
        adaptor.getValue().getType() != getScalarType(type.getElementType()))
      return rewriter.notifyMatchFailure(op, "a value of another type");
    rewriter.replaceOpWithNewOp<SplatOp>(op, type, adaptor.getValue());
    return success();
  }
};

/// Builds the scalar op that `kind` names on `operands`; `resultType` is the
/// element type of the result (which only `extf` changes).
static Value buildElementwise(OpBuilder &builder, Location loc,
                              gpu::MMAElementwiseOp kind, ValueRange operands,
                              Type resultType) {
  using Kind = gpu::MMAElementwiseOp;
  switch (kind) {
  case Kind::ADDF:
    return arith::AddFOp::create(builder, loc, operands[0], operands[1]);
  case Kind::MULF:
    return arith::MulFOp::create(builder, loc, operands[0], operands[1]);
  case Kind::SUBF:
    return arith::SubFOp::create(builder, loc, operands[0], operands[1]);
  case Kind::MAXF:
    return arith::MaximumFOp::create(builder, loc, operands[0], operands[1]);
  case Kind::MINF:
    return arith::MinimumFOp::create(builder, loc, operands[0], operands[1]);
  case Kind::DIVF:
    return arith::DivFOp::create(builder, loc, operands[0], operands[1]);
  case Kind::ADDI:
    return arith::AddIOp::create(builder, loc, operands[0], operands[1]);
  case Kind::MULI:
    return arith::MulIOp::create(builder, loc, operands[0], operands[1]);
  case Kind::SUBI:
    return arith::SubIOp::create(builder, loc, operands[0], operands[1]);
  case Kind::DIVS:
    return arith::DivSIOp::create(builder, loc, operands[0], operands[1]);
  case Kind::DIVU:
    return arith::DivUIOp::create(builder, loc, operands[0], operands[1]);
  case Kind::NEGATEF:
    return arith::NegFOp::create(builder, loc, operands[0]);
  case Kind::NEGATES: {
    Value zero = arith::ConstantOp::create(
        builder, loc, builder.getZeroAttr(operands[0].getType()));
    return arith::SubIOp::create(builder, loc, zero, operands[0]);
  }
  case Kind::EXTF:
    return arith::ExtFOp::create(builder, loc, resultType, operands[0]);
  }
  llvm_unreachable("unknown elementwise op");
}

struct ElementwiseLowering : MMAPattern<gpu::SubgroupMmaElementwiseOp> {
  using MMAPattern::MMAPattern;

  LogicalResult
  matchAndRewrite(gpu::SubgroupMmaElementwiseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast_or_null<SubgroupMatrixTypeInterface>(
        getTypeConverter()->convertType(op.getType()));
    if (!type)
      return failure();
    Location loc = op.getLoc();
    auto map = MapOp::create(rewriter, loc, type, adaptor.getArgs());
    Block *body = rewriter.createBlock(&map.getBody());
    Type index = rewriter.getIndexType();
    body->addArguments({index, index}, {loc, loc});
    SmallVector<Value> elements;
    for (Value input : adaptor.getArgs())
      elements.push_back(body->addArgument(
          getStorageType(cast<SubgroupMatrixTypeInterface>(input.getType())
                             .getElementType()),
          loc));
    Value result = buildElementwise(rewriter, loc, op.getOpType(), elements,
                                    getStorageType(type.getElementType()));
    YieldOp::create(rewriter, loc, result);
    rewriter.replaceOp(op, map);
    return success();
  }
};
} // namespace

void mlir::subgroup_matrix::populateGPUMMAToSubgroupMatrixPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<LoadMatrixLowering, StoreMatrixLowering, ComputeLowering,
               ConstantMatrixLowering, ElementwiseLowering>(
      converter, patterns.getContext());
}

namespace {
struct ConvertGPUMMAPass
    : public subgroup_matrix::impl::ConvertGPUMMAPassBase<ConvertGPUMMAPass> {
  void runOnOperation() override {
    Operation *root = getOperation();
    // What has no counterpart is reported, all of it, before any rewrite.
    bool convertible = true;
    root->walk([&](Operation *op) {
      if (isa<gpu::SubgroupMmaExtractThreadLocalOp,
              gpu::SubgroupMmaInsertThreadLocalOp>(op)) {
        op->emitOpError("reads or writes the elements one invocation holds, "
                        "which no portable layout defines: use "
                        "subgroup_matrix.map, which gives each element its "
                        "row and column");
        convertible = false;
        return;
      }
      auto reportType = [&](Type type) {
        auto mma = dyn_cast<gpu::MMAMatrixType>(type);
        if (!mma)
          return;
        std::string reason;
        if (convertMMAMatrixType(mma, &reason))
          return;
        op->emitOpError() << "uses " << type << ", which cannot become a "
                          << "subgroup matrix: " << reason;
        convertible = false;
      };
      for (Type type : op->getResultTypes())
        reportType(type);
      if (auto constant = dyn_cast<gpu::SubgroupMmaConstantMatrixOp>(op)) {
        Type component = getComponentType(constant.getType().getElementType());
        if (component &&
            constant.getValue().getType() != getScalarType(component)) {
          op->emitOpError()
              << "fills a matrix with a " << constant.getValue().getType()
              << " value; subgroup_matrix.splat takes "
              << getScalarType(component);
          convertible = false;
        }
      }
      // Functions are reported at their location alone: the whole function
      // printed after the message would bury it.
      if (auto function = dyn_cast<FunctionOpInterface>(op)) {
        auto isMMA = [](Type type) { return isa<gpu::MMAMatrixType>(type); };
        if (llvm::any_of(function.getArgumentTypes(), isMMA)) {
          emitError(op->getLoc())
              << "'" << op->getName() << "' @" << function.getName()
              << " takes a !gpu.mma_matrix argument; pass the memory and "
                 "load the matrix inside instead";
          convertible = false;
        }
        if (llvm::any_of(function.getResultTypes(), isMMA)) {
          emitError(op->getLoc())
              << "'" << op->getName() << "' @" << function.getName()
              << " returns a !gpu.mma_matrix; store the matrix to memory "
                 "the caller passes instead";
          convertible = false;
        }
        return;
      }
      // Values of matrices flow only through the ops that become subgroup
      // matrix ops and through scf's loops and branches, which are
      // converted with them; any other user would keep the old type. (A
      // return of one is reported at its function.)
      if (isa<gpu::SubgroupMmaLoadMatrixOp, gpu::SubgroupMmaStoreMatrixOp,
              gpu::SubgroupMmaComputeOp, gpu::SubgroupMmaElementwiseOp>(op) ||
          isa<scf::SCFDialect>(op->getDialect()) ||
          op->hasTrait<OpTrait::ReturnLike>())
        return;
      if (llvm::any_of(op->getOperandTypes(), [](Type type) {
            return isa<gpu::MMAMatrixType>(type);
          })) {
        op->emitOpError("takes a !gpu.mma_matrix value, which only the "
                        "gpu.subgroup_mma_* ops and scf control flow can "
                        "take when they become subgroup matrix ops; pass "
                        "memory instead");
        convertible = false;
      }
    });
    if (!convertible)
      return signalPassFailure();

    MLIRContext *context = &getContext();
    TypeConverter converter;
    converter.addConversion([](Type type) { return type; });
    populateGPUMMAToSubgroupMatrixTypeConversion(converter);
    ConversionTarget target(*context);
    target.addLegalDialect<SubgroupMatrixDialect, arith::ArithDialect>();
    target.addIllegalOp<
        gpu::SubgroupMmaLoadMatrixOp, gpu::SubgroupMmaStoreMatrixOp,
        gpu::SubgroupMmaComputeOp, gpu::SubgroupMmaConstantMatrixOp,
        gpu::SubgroupMmaElementwiseOp>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(context);
    populateGPUMMAToSubgroupMatrixPatterns(converter, patterns);
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                         target);
    if (failed(applyPartialConversion(root, target, std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
