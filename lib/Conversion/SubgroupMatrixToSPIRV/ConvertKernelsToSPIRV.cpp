//===- ConvertKernelsToSPIRV.cpp - gpu.modules to spirv.modules -----------===//
//
// `sm-convert-kernels-to-spirv`: MLIR's own SPIR-V conversions for what is
// not a subgroup matrix, this project's cooperative-matrix patterns for
// what is.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/Conversion/Passes.h"
#include "SubgroupMatrix/Conversion/SubgroupMatrixToSPIRV/CooperativeMatrix2StandIns.h"
#include "SubgroupMatrix/Conversion/SubgroupMatrixToSPIRV/SubgroupMatrixToSPIRV.h"
#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"
#include "SubgroupMatrix/Transforms/Checks.h"
#include "SubgroupMatrix/Transforms/PerInvocationAllocations.h"

#include "mlir/Conversion/ArithToSPIRV/ArithToSPIRV.h"
#include "mlir/Conversion/ControlFlowToSPIRV/ControlFlowToSPIRV.h"
#include "mlir/Conversion/FuncToSPIRV/FuncToSPIRV.h"
#include "mlir/Conversion/GPUToSPIRV/GPUToSPIRV.h"
#include "mlir/Conversion/IndexToSPIRV/IndexToSPIRV.h"
#include "mlir/Conversion/MathToSPIRV/MathToSPIRV.h"
#include "mlir/Conversion/MemRefToSPIRV/MemRefToSPIRV.h"
#include "mlir/Conversion/SCFToSPIRV/SCFToSPIRV.h"
#include "mlir/Conversion/UBToSPIRV/UBToSPIRV.h"
#include "mlir/Conversion/VectorToSPIRV/VectorToSPIRV.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/Dialect/SPIRV/Transforms/SPIRVConversion.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace subgroup_matrix {
#define GEN_PASS_DEF_CONVERTKERNELSTOSPIRVPASS
#include "SubgroupMatrix/Conversion/Passes.h.inc"
} // namespace subgroup_matrix
} // namespace mlir

using namespace mlir;
using namespace mlir::subgroup_matrix;

/// Maps memref memory spaces to storage classes: global memory to storage
/// buffers, workgroup memory to workgroup variables.
static void mapMemorySpaces(Operation *gpuModule) {
  spirv::MemorySpaceToStorageClassConverter converter(getVulkanStorageClass);
  // The upstream helper converts one op's results and attributes; block
  // arguments (kernel arguments, workgroup attributions) are updated here.
  gpuModule->walk([&](Operation *op) {
    spirv::convertMemRefTypesAndAttrs(op, converter);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument argument : block.getArguments())
          if (Type converted = converter.convertType(argument.getType()))
            argument.setType(converted);
  });
}

/// Makes the results of scf.for loops that may run no iteration defined.
/// Upstream's SCF-to-SPIR-V lowering keeps a loop's results in Function
/// variables stored only by the body, so a loop that runs no iteration (an
/// invocation past the end of a row it strides over) yields undefined
/// values (NVIDIA's driver gave NaN and stale values) instead of its
/// initial ones. Each scalar or vector result becomes `lb < ub ? result :
/// init`. A loop with other results (cooperative matrices, which OpSelect
/// cannot take: the key loop of a causal attention's blocks below the
/// diagonal, which the first workgroups do not enter) that may run no
/// iteration goes inside `scf.if lb < ub`, whose else branch yields the
/// initial values: the conversion stores both branches' values in the
/// variables it reads.
static void defineZeroTripLoopResults(Operation *gpuModule) {
  SmallVector<scf::ForOp> loops;
  gpuModule->walk([&](scf::ForOp loop) { loops.push_back(loop); });
  for (scf::ForOp loop : loops) {
    if (loop.getNumResults() == 0)
      continue;
    std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound()),
                           upper = getConstantIntValue(loop.getUpperBound());
    if (lower && upper && *lower < *upper)
      continue;
    OpBuilder builder(loop->getContext());
    builder.setInsertionPoint(loop);
    Location loc = loop.getLoc();
    Value runs =
        arith::CmpIOp::create(builder, loc,
                              loop.getUnsignedCmp() ? arith::CmpIPredicate::ult
                                                    : arith::CmpIPredicate::slt,
                              loop.getLowerBound(), loop.getUpperBound());
    bool scalarResults = llvm::all_of(loop.getResultTypes(), [](Type type) {
      return type.isIntOrIndexOrFloat() || isa<VectorType>(type);
    });
    if (!scalarResults) {
      auto guard = scf::IfOp::create(builder, loc, loop.getResultTypes(), runs,
                                     /*withElseRegion=*/true);
      loop->replaceAllUsesWith(guard.getResults());
      builder.setInsertionPointToStart(&guard.getThenRegion().front());
      loop->moveBefore(builder.getInsertionBlock(),
                       builder.getInsertionPoint());
      scf::YieldOp::create(builder, loc, loop.getResults());
      builder.setInsertionPointToStart(&guard.getElseRegion().front());
      scf::YieldOp::create(builder, loc, loop.getInits());
      continue;
    }
    builder.setInsertionPointAfter(loop);
    for (auto [result, init] : llvm::zip(loop.getResults(), loop.getInits())) {
      if (!result.getType().isIntOrIndexOrFloat() &&
          !isa<VectorType>(result.getType()))
        continue;
      auto chosen = arith::SelectOp::create(builder, loc, runs, result, init);
      result.replaceAllUsesExcept(chosen, chosen);
    }
  }
}

namespace {
/// gpu.subgroup_broadcast from a given lane, which upstream's GPU-to-SPIR-V
/// patterns do not lower (the emulated matrices broadcast every left-matrix
/// element): OpGroupNonUniformBroadcast, which drivers compile to a single
/// register read where a shuffle may become a gather.
struct SubgroupBroadcastLowering
    : OpConversionPattern<gpu::SubgroupBroadcastOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(gpu::SubgroupBroadcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getBroadcastType() != gpu::BroadcastType::specific_lane)
      return rewriter.notifyMatchFailure(op, "not from a given lane");
    Type type = getTypeConverter()->convertType(op.getType());
    if (!type)
      return failure();
    rewriter.replaceOpWithNewOp<spirv::GroupNonUniformBroadcastOp>(
        op, type, spirv::Scope::Subgroup, adaptor.getSrc(), adaptor.getLane());
    return success();
  }
};

/// math.exp2 on 16- and 32-bit floats as GLSL.std.450's Exp2, which MLIR
/// 22's math-to-SPIR-V patterns leave out (f64 is expanded before, by
/// sm-expand-math).
struct Exp2Lowering : OpConversionPattern<math::Exp2Op> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(math::Exp2Op op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = getTypeConverter()->convertType(op.getType());
    if (!type || getElementTypeOrSelf(type).getIntOrFloatBitWidth() > 32)
      return failure();
    rewriter.replaceOpWithNewOp<spirv::GLExp2Op>(op, type,
                                                 adaptor.getOperand());
    return success();
  }
};

/// arith.maximumf and arith.minimumf, which return NaN when either operand
/// is NaN, as `isnan(a) || isnan(b) ? a + b : FMax(a, b)`. Upstream's
/// lowering selects the NaN operand itself around the FMax, a form that
/// lavapipe (Mesa 22's LLVM) compiles to FMax's own NaN behaviour: it
/// returned the other operand (nan_in_maximum_reduction.mlir). The sum of
/// the operands is NaN whenever one of them is, whatever a compiler makes
/// of the selects.
template <typename MinMaxOp, typename GLSLOp>
struct NaNPropagatingMinMaxLowering : OpConversionPattern<MinMaxOp> {
  using OpConversionPattern<MinMaxOp>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(MinMaxOp op, typename MinMaxOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Where the op may assume no NaN, upstream's lowering is enough.
    if (bitEnumContainsAll(op.getFastmath(), arith::FastMathFlags::nnan))
      return rewriter.notifyMatchFailure(op, "assumes no NaN");
    Type type = this->getTypeConverter()->convertType(op.getType());
    if (!type)
      return failure();
    Location loc = op.getLoc();
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    Value ordered = GLSLOp::create(rewriter, loc, type, lhs, rhs);
    Value lhsNaN = spirv::IsNanOp::create(rewriter, loc, lhs);
    Value rhsNaN = spirv::IsNanOp::create(rewriter, loc, rhs);
    Value eitherNaN = spirv::LogicalOrOp::create(rewriter, loc, lhsNaN, rhsNaN);
    Value sum = spirv::FAddOp::create(rewriter, loc, lhs, rhs);
    rewriter.replaceOpWithNewOp<spirv::SelectOp>(op, eitherNaN, sum, ordered);
    return success();
  }
};
} // namespace

static LogicalResult convertToSPIRV(Operation *gpuModule,
                                    spirv::TargetEnvAttr targetEnv) {
  MLIRContext *context = gpuModule->getContext();
  SPIRVConversionOptions conversionOptions;
  // Narrow types stay narrow: emulating f16 or i8 memrefs through 32-bit
  // pointers would silently change the meaning of matrix strides.
  conversionOptions.emulateLT32BitScalarTypes = false;
  conversionOptions.emulateUnsupportedFloatTypes = false;
  SPIRVTypeConverter typeConverter(targetEnv, conversionOptions);
  populateSubgroupMatrixToSPIRVTypeConversion(typeConverter);

  RewritePatternSet patterns(context);
  ScfToSPIRVContext scfContext;
  populateGPUToSPIRVPatterns(typeConverter, patterns);
  populateSCFToSPIRVPatterns(typeConverter, scfContext, patterns);
  arith::populateArithToSPIRVPatterns(typeConverter, patterns);
  cf::populateControlFlowToSPIRVPatterns(typeConverter, patterns);
  populateFuncToSPIRVPatterns(typeConverter, patterns);
  // The functions kernels call (VK_NV_cooperative_matrix2's callbacks and
  // stand-ins).
  populateBuiltinFuncToSPIRVPatterns(typeConverter, patterns);
  populateMathToSPIRVPatterns(typeConverter, patterns);
  populateMemRefToSPIRVPatterns(typeConverter, patterns);
  index::populateIndexToSPIRVPatterns(typeConverter, patterns);
  ub::populateUBToSPIRVConversionPatterns(typeConverter, patterns);
  // The few vector ops left after packing wide accesses (a prologue's
  // unpacking of staged words into elements).
  populateVectorToSPIRVPatterns(typeConverter, patterns);
  populateSubgroupMatrixToSPIRVPatterns(typeConverter, patterns);
  patterns.add<SubgroupBroadcastLowering>(typeConverter, context);
  if (spirv::TargetEnv(targetEnv).allows(spirv::Capability::Shader))
    patterns.add<Exp2Lowering>(typeConverter, context);
  // Ahead of upstream's lowering of the same ops.
  patterns
      .add<NaNPropagatingMinMaxLowering<arith::MaximumFOp, spirv::GLFMaxOp>,
           NaNPropagatingMinMaxLowering<arith::MinimumFOp, spirv::GLFMinOp>>(
          typeConverter, context, /*benefit=*/2);

  std::unique_ptr<ConversionTarget> target =
      SPIRVConversionTarget::get(targetEnv);
  return applyFullConversion(gpuModule, *target, std::move(patterns));
}

/// Prepares the functions that kernels call (helpers of the program, and
/// the callbacks and stand-ins of VK_NV_cooperative_matrix2) for their
/// conversion to spirv.funcs: those no kernel reaches are dropped (nothing
/// could run them), and one that takes or returns a buffer is an error,
/// since Vulkan's logical addressing gives buffers only to entry points (a
/// function parameter would need variable pointers).
static LogicalResult prepareCalledFunctions(gpu::GPUModuleOp kernels) {
  SymbolTable symbols(kernels);
  llvm::SetVector<func::FuncOp> reached;
  SmallVector<Operation *> worklist;
  kernels.walk([&](gpu::GPUFuncOp function) {
    if (function.isKernel())
      worklist.push_back(function);
  });
  while (!worklist.empty()) {
    Operation *caller = worklist.pop_back_val();
    caller->walk([&](func::CallOp call) {
      auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
      if (callee && reached.insert(callee))
        worklist.push_back(callee);
    });
  }
  for (auto function :
       llvm::make_early_inc_range(kernels.getOps<func::FuncOp>()))
    if (!reached.contains(function))
      function.erase();
  bool failed = false;
  for (func::FuncOp function : reached) {
    FunctionType type = function.getFunctionType();
    // A tensor load's stand-in takes its buffer, and the serializer
    // replaces its calls by instructions that take the variable itself; it
    // gives a decode function the variables in place of its buffers.
    bool standIn =
        getCooperativeMatrix2StandIn(function.getSymName()).has_value() ||
        function.getSymName().starts_with(
            getCooperativeMatrix2DecodeFunctionPrefix());
    for (auto [index, argument] : llvm::enumerate(type.getInputs()))
      if (isa<MemRefType>(argument) && !standIn) {
        function.emitError()
            << "takes a buffer (argument " << index << " of type " << argument
            << "), which a SPIR-V function for Vulkan cannot: only kernels "
               "receive buffers (a function would need variable pointers); "
               "inline it into the kernel that calls it";
        failed = true;
      }
    if (llvm::any_of(type.getResults(),
                     [](Type result) { return isa<MemRefType>(result); })) {
      function.emitError() << "returns a buffer, which a SPIR-V function for "
                              "Vulkan cannot; inline it into its kernel";
      failed = true;
    }
  }
  return success(!failed);
}

namespace {
struct ConvertKernelsToSPIRVPass
    : public subgroup_matrix::impl::ConvertKernelsToSPIRVPassBase<
          ConvertKernelsToSPIRVPass> {
  using ConvertKernelsToSPIRVPassBase::ConvertKernelsToSPIRVPassBase;

  void runOnOperation() override;
};
} // namespace

void ConvertKernelsToSPIRVPass::runOnOperation() {
  MLIRContext *context = &getContext();
  for (gpu::GPUModuleOp kernels : getModulesBeingLowered(getOperation())) {
    auto targetEnv = kernels->getAttrOfType<spirv::TargetEnvAttr>(
        spirv::getTargetEnvAttrName());
    if (!targetEnv) {
      kernels.emitError() << "has no '" << spirv::getTargetEnvAttrName()
                          << "' to convert for (sm-attach-vulkan-target "
                             "attaches one)";
      return signalPassFailure();
    }
    // Arguments that would make an invalid binary: a storage buffer of
    // 3-component vectors has no layout of 12-byte elements (each takes 16
    // bytes), and a boolean none at all (a scalar argument is a storage
    // buffer of one element).
    bool invalidArgument = false;
    kernels.walk([&](gpu::GPUFuncOp function) {
      if (!function.isKernel())
        return;
      for (auto [index, type] : llvm::enumerate(function.getArgumentTypes())) {
        if (auto memref = dyn_cast<MemRefType>(type))
          if (auto vector = dyn_cast<VectorType>(memref.getElementType());
              vector && vector.getNumElements() == 3) {
            function.emitError()
                << "argument " << index << " of type " << memref
                << " cannot be a Vulkan storage buffer: its elements of 3 "
                   "components would each take 16 bytes; use 1, 2 or 4";
            invalidArgument = true;
          }
        // (Buffers of booleans are stored as bytes by the conversion.)
        if (!isa<MemRefType>(type) && getElementTypeOrSelf(type).isInteger(1)) {
          function.emitError()
              << "argument " << index << " of type " << type
              << " cannot be a Vulkan kernel argument: a boolean has no "
                 "layout in a storage buffer; pass an i32 and compare it "
                 "with zero";
          invalidArgument = true;
        }
      }
    });
    if (invalidArgument)
      return signalPassFailure();
    // Per-invocation allocations become Function-storage variables, which
    // only loads and stores may use.
    if (failed(hoistPerInvocationAllocations(
            kernels, spirv::StorageClassAttr::get(
                         context, spirv::StorageClass::Function))))
      return signalPassFailure();
    if (failed(prepareCalledFunctions(kernels)))
      return signalPassFailure();
    // The mark of emulated functions has served the earlier stages.
    kernels.walk([](FunctionOpInterface function) {
      function->removeAttr(SubgroupMatrixDialect::getEmulatedAttrName());
    });
    defineZeroTripLoopResults(kernels);
    mapMemorySpaces(kernels);
    // The conversion replaces the gpu.module by a spirv.module in its place.
    Block *block = kernels->getBlock();
    Operation *next = kernels->getNextNode();
    Location location = kernels.getLoc();
    std::string name = kernels.getSymName().str();
    if (failed(convertToSPIRV(kernels, targetEnv)))
      return signalPassFailure();
    auto spirvModule = dyn_cast_or_null<spirv::ModuleOp>(
        next ? next->getPrevNode() : &block->back());
    if (!spirvModule) {
      emitError(location, "conversion to SPIR-V produced no spirv.module");
      return signalPassFailure();
    }
    spirvModule.setMemoryModel(spirv::MemoryModel::Vulkan);
    // Upstream names the SPIR-V module of gpu.module @NAME "__spv__NAME"; a
    // copy that sm-attach-vulkan-target made already has that name.
    if (StringRef(name).starts_with(getSPIRVModulePrefix()))
      spirvModule.setSymName(name);
  }
}
