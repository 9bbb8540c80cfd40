//===- LowerToVulkan.cpp - gpu.modules to Vulkan SPIR-V -------------------===//
//
// The `sm-lower-to-vulkan` pipeline: checks, target environment, MLIR's own
// conversions for everything that is not a subgroup matrix, and the fixes
// that Vulkan with cooperative matrices needs on top of them.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/Conversion/Passes.h"
#include "SubgroupMatrix/Conversion/SubgroupMatrixToIntel/SubgroupMatrixToIntel.h"
#include "SubgroupMatrix/Conversion/SubgroupMatrixToSPIRV/SubgroupMatrixToSPIRV.h"
#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"
#include "SubgroupMatrix/IR/TargetPresets.h"
#include "SubgroupMatrix/Transforms/Checks.h"
#include "SubgroupMatrix/Transforms/FlattenBuffers.h"
#include "SubgroupMatrix/Transforms/PerInvocationAllocations.h"
#include "SubgroupMatrix/Transforms/PromoteBFloat16Maps.h"
#include "SubgroupMatrix/Transforms/RobustAccess.h"

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
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/Dialect/SPIRV/Transforms/Passes.h"
#include "mlir/Dialect/SPIRV/Transforms/SPIRVConversion.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"
#include "llvm/ADT/StringSwitch.h"

namespace mlir {
namespace subgroup_matrix {
#define GEN_PASS_DEF_LOWERTOVULKANPASS
#include "SubgroupMatrix/Conversion/Passes.h.inc"
} // namespace subgroup_matrix
} // namespace mlir

using namespace mlir;
using namespace mlir::subgroup_matrix;

/// SPIR-V addresses a memref through its static strides; dynamic ones (as in
/// memref<?x?xf16>) cannot be lowered, which is reported here rather than as
/// a failure to legalize.
static LogicalResult checkAddressableMemRefs(Operation *gpuModule) {
  bool failed = false;
  gpuModule->walk([&](Operation *op) {
    MemRefType type;
    if (auto load = dyn_cast<LoadOp>(op))
      type = load.getMemRefType();
    else if (auto store = dyn_cast<StoreOp>(op))
      type = store.getMemRefType();
    else
      return;
    SmallVector<int64_t> strides;
    int64_t offset;
    if (succeeded(type.getStridesAndOffset(strides, offset)) &&
        !llvm::is_contained(strides, ShapedType::kDynamic) &&
        offset != ShapedType::kDynamic)
      return;
    op->emitOpError() << "cannot be lowered to SPIR-V: " << type
                      << " has dynamic strides or offset, and SPIR-V "
                         "addresses memrefs through static ones (use a "
                         "1-D memref and the stride operand)";
    failed = true;
  });
  return failure(failed);
}

/// Vulkan storage classes for the GPU dialect's address spaces, which the
/// upstream map (numeric memory spaces only) does not know.
static std::optional<spirv::StorageClass>
mapMemorySpaceToStorageClass(Attribute memorySpace) {
  if (auto gpuSpace = dyn_cast_or_null<gpu::AddressSpaceAttr>(memorySpace)) {
    switch (gpuSpace.getValue()) {
    case gpu::AddressSpace::Global:
      return spirv::StorageClass::StorageBuffer;
    case gpu::AddressSpace::Workgroup:
      return spirv::StorageClass::Workgroup;
    case gpu::AddressSpace::Private:
      return spirv::StorageClass::Private;
    }
  }
  return spirv::mapMemorySpaceToVulkanStorageClass(memorySpace);
}

/// A Vulkan kernel's memref arguments are storage buffers (descriptor
/// bindings): memory the host hands over. A memref argument in workgroup or
/// private memory has no such form, and declaring it as a binding would make
/// an invalid binary.
static LogicalResult checkKernelArgumentsAreGlobal(gpu::GPUModuleOp gpuModule) {
  bool failed = false;
  gpuModule.walk([&](gpu::GPUFuncOp function) {
    if (!function.isKernel())
      return;
    for (auto [index, type] : llvm::enumerate(function.getArgumentTypes())) {
      auto memref = dyn_cast<MemRefType>(type);
      if (!memref)
        continue;
      std::optional<spirv::StorageClass> storage =
          mapMemorySpaceToStorageClass(memref.getMemorySpace());
      if (storage == spirv::StorageClass::StorageBuffer)
        continue;
      emitError(function.getLoc())
          << "kernel '" << function.getName() << "' takes argument " << index
          << " of type " << memref
          << ", which is not in global memory: Vulkan "
             "kernel arguments are storage buffers";
      failed = true;
    }
  });
  return failure(failed);
}

/// Gives every kernel of `gpuModule` the entry-point ABI that carries its
/// workgroup size, which a Vulkan compute shader must declare.
static LogicalResult setEntryPointABIs(gpu::GPUModuleOp gpuModule) {
  bool failed = false;
  gpuModule.walk(
      [&](gpu::GPUFuncOp function) {
        if (!function.isKernel() ||
            function->hasAttr(spirv::getEntryPointABIAttrName()))
          return;
        std::optional<ArrayRef<int32_t>> blockSize =
            function.getKnownBlockSize();
        if (!blockSize) {
          function.emitError()
              << "kernel '" << function.getName()
              << "' needs a known workgroup size (known_block_size): a Vulkan "
                 "compute shader declares its workgroup size";
          failed = true;
          return;
        }
        function->setAttr(
            spirv::getEntryPointABIAttrName(),
            spirv::getEntryPointABIAttr(function.getContext(), *blockSize));
      });
  return failure(failed);
}

/// Maps memref memory spaces to storage classes: global memory to storage
/// buffers, workgroup memory to workgroup variables.
/// MLIR's GPU-to-SPIR-V conversion has no workgroup attributions; a
/// workgroup `memref.alloc` at the start of the kernel means the same (one
/// workgroup variable per workgroup) and becomes a Workgroup global.
static void turnWorkgroupAttributionsIntoAllocations(Operation *gpuModule) {
  gpuModule->walk([](gpu::GPUFuncOp function) {
    unsigned count = function.getNumWorkgroupAttributions();
    if (count == 0)
      return;
    Block &entry = function.getBody().front();
    OpBuilder builder = OpBuilder::atBlockBegin(&entry);
    unsigned first = function.getNumArguments();
    for (unsigned i = 0; i < count; ++i) {
      BlockArgument attribution = entry.getArgument(first + i);
      Value allocation =
          memref::AllocOp::create(builder, attribution.getLoc(),
                                  cast<MemRefType>(attribution.getType()));
      attribution.replaceAllUsesWith(allocation);
    }
    entry.eraseArguments(first, count);
    function->setAttr(gpu::GPUFuncOp::getNumWorkgroupAttributionsAttrName(),
                      builder.getI64IntegerAttr(0));
  });
}

static void mapMemorySpaces(Operation *gpuModule) {
  spirv::MemorySpaceToStorageClassConverter converter(
      mapMemorySpaceToStorageClass);
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

/// Whether `function` uses a matrix type or multiplication that `target`
/// has no matrix-unit configuration for.
static bool usesUnsupportedMatrices(Operation *function, TargetAttr target) {
  auto unsupported = [&](Type type) {
    auto matrix = dyn_cast<SubgroupMatrixTypeInterface>(type);
    return matrix && !target.supportsType(matrix);
  };
  WalkResult walk = function->walk([&](Operation *op) {
    if (llvm::any_of(op->getResultTypes(), unsupported) ||
        llvm::any_of(op->getOperandTypes(), unsupported))
      return WalkResult::interrupt();
    Value left, right, result;
    if (auto mma = dyn_cast<MmaOp>(op))
      left = mma.getLeft(), right = mma.getRight(), result = mma.getResult();
    else if (auto multiply = dyn_cast<MultiplyOp>(op))
      left = multiply.getLeft(), right = multiply.getRight(),
      result = multiply.getResult();
    if (left && !target.supportsMultiply(left.getType(), right.getType(),
                                         result.getType()))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return walk.wasInterrupted();
}

/// Rewrites the matrices of `function` into their emulated form (scalars per
/// invocation, see populateEmulatedSubgroupMatrixPatterns); reports each op
/// whose matrices have none.
/// A subgroup-scope barrier ordering workgroup memory: what the emulated
/// multiplications need around their exchange, since only one subgroup
/// shares each scratch region (the gpu dialect's barrier is workgroup-wide).
static void buildSubgroupBarrier(OpBuilder &builder, Location loc) {
  spirv::ControlBarrierOp::create(builder, loc, spirv::Scope::Subgroup,
                                  spirv::Scope::Subgroup,
                                  spirv::MemorySemantics::AcquireRelease |
                                      spirv::MemorySemantics::WorkgroupMemory);
}

/// How emulated multiplications share operand elements between invocations
/// (the `emulated-exchange` option).
enum class EmulatedExchangeKind {
  /// Workgroup memory on targets with matrix units when the kernel's
  /// workgroup size is known, broadcasts and shuffles otherwise.
  Auto,
  /// Subgroup broadcasts and shuffles.
  Subgroup,
  /// Workgroup memory between subgroup barriers.
  Workgroup,
};

/// Gives `function` the workgroup scratch its emulated multiplications
/// exchange operands through: one region per subgroup of the workgroup
/// (its size from `known_block_size`). Returns an empty exchange when the
/// function multiplies nothing; fails when its workgroup size is unknown.
static FailureOr<EmulatedOperandExchange>
createWorkgroupExchange(Operation *function, unsigned subgroupSize) {
  int64_t words = getEmulatedExchangeWords(function, subgroupSize);
  if (!words)
    return EmulatedOperandExchange();
  auto kernel = dyn_cast<gpu::GPUFuncOp>(function);
  std::optional<ArrayRef<int32_t>> blockSize =
      kernel ? kernel.getKnownBlockSize() : std::nullopt;
  if (!blockSize)
    return function->emitOpError(
               "cannot exchange emulated operands through workgroup memory "
               "without a known_block_size, which sizes the scratch buffer; "
               "use emulated-exchange=subgroup"),
           failure();
  int64_t invocations = 1;
  for (int32_t size : *blockSize)
    invocations *= size;
  int64_t subgroups = llvm::divideCeil(invocations, subgroupSize);
  OpBuilder builder = OpBuilder::atBlockBegin(&kernel.getBody().front());
  MLIRContext *context = function->getContext();
  auto type = MemRefType::get(
      {subgroups * words}, IntegerType::get(context, 32),
      MemRefLayoutAttrInterface(),
      gpu::AddressSpaceAttr::get(context, gpu::AddressSpace::Workgroup));
  EmulatedOperandExchange exchange;
  exchange.scratch = memref::AllocOp::create(builder, kernel.getLoc(), type);
  exchange.wordsPerSubgroup = words;
  exchange.buildSubgroupBarrier = buildSubgroupBarrier;
  return exchange;
}

/// Whether `function`'s emulated multiplications exchange operands through
/// workgroup memory. Measured on the H100 (docs/performance.md), where a
/// 16-column matrix spreads over two lanes, workgroup memory is 1.7-4x
/// faster than shuffles with per-lane indices; on lavapipe, where a
/// subgroup is one thread's SIMD lanes, a broadcast is a register move and
/// a barrier costly, so broadcasts are 2.8x faster. Hence `auto` picks
/// workgroup memory on targets with matrix units (a kernel falling back to
/// emulation) and broadcasts on emulated targets.
static bool exchangesThroughWorkgroup(Operation *function, TargetAttr target,
                                      EmulatedExchangeKind kind) {
  switch (kind) {
  case EmulatedExchangeKind::Subgroup:
    return false;
  case EmulatedExchangeKind::Workgroup:
    return true;
  case EmulatedExchangeKind::Auto:
    break;
  }
  auto kernel = dyn_cast<gpu::GPUFuncOp>(function);
  return !target.getEmulated() && kernel && kernel.getKnownBlockSize();
}

static LogicalResult emulateMatrices(Operation *function, unsigned subgroupSize,
                                     bool exchangeThroughWorkgroup) {
  if (failed(checkPerInvocationForm(function, subgroupSize,
                                    /*emulated=*/true)))
    return failure();
  EmulatedOperandExchange exchange;
  if (exchangeThroughWorkgroup) {
    FailureOr<EmulatedOperandExchange> created =
        createWorkgroupExchange(function, subgroupSize);
    if (failed(created))
      return failure();
    exchange = *created;
  }

  MLIRContext *context = function->getContext();
  TypeConverter converter;
  converter.addConversion([](Type type) { return type; });
  populateEmulatedSubgroupMatrixTypeConversion(converter, subgroupSize);
  ConversionTarget target(*context);
  target.addIllegalDialect<SubgroupMatrixDialect>();
  target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
  RewritePatternSet patterns(context);
  populateEmulatedSubgroupMatrixPatterns(converter, patterns, subgroupSize,
                                         exchange);
  scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                       target);
  if (failed(applyPartialConversion(function, target, std::move(patterns))))
    return failure();
  // The emulation computes bf16 in f32; its conversions become integer
  // arithmetic on the bits, since devices without matrix units have no bf16.
  RewritePatternSet expansions(context);
  arith::populateExpandBFloat16Patterns(expansions);
  return applyPatternsGreedily(function, std::move(expansions));
}

/// Devices without bf16 (the emulated targets) hold bf16 values and buffers
/// as 16-bit integers. By now every bf16 computation of an emulated kernel
/// is integer arithmetic on the bits (upstream's bf16 expansion), so only
/// types, constants and the bitcasts between bits and bf16 change; anything
/// else that still computes in bf16 is reported.
static LogicalResult holdBFloat16AsBits(Operation *root) {
  MLIRContext *context = root->getContext();
  Type bits = IntegerType::get(context, 16);
  auto convert = [&](Type type) -> Type {
    if (type.isBF16())
      return bits;
    if (auto memref = dyn_cast<MemRefType>(type))
      if (memref.getElementType().isBF16())
        return memref.clone(bits);
    if (auto vector = dyn_cast<VectorType>(type))
      if (vector.getElementType().isBF16())
        return vector.clone(bits);
    return type;
  };
  auto toBits = [&](Attribute value) -> Attribute {
    if (auto floatValue = dyn_cast<FloatAttr>(value))
      if (floatValue.getType().isBF16())
        return IntegerAttr::get(bits, floatValue.getValue().bitcastToAPInt());
    if (auto elements = dyn_cast<DenseFPElementsAttr>(value))
      if (elements.getElementType().isBF16())
        return elements.bitcast(bits);
    return value;
  };
  SmallVector<arith::BitcastOp> bitcasts;
  bool failed = false;
  root->walk([&](Operation *op) {
    if (auto function = dyn_cast<FunctionOpInterface>(op)) {
      auto type = dyn_cast<FunctionType>(function.getFunctionType());
      if (type)
        function.setType(FunctionType::get(
            context, llvm::map_to_vector(type.getInputs(), convert),
            llvm::map_to_vector(type.getResults(), convert)));
    }
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument argument : block.getArguments())
          argument.setType(convert(argument.getType()));
    bool hadBFloat16 = false;
    for (OpResult result : op->getResults()) {
      Type converted = convert(result.getType());
      hadBFloat16 |= converted != result.getType();
      result.setType(converted);
    }
    if (auto constant = dyn_cast<arith::ConstantOp>(op))
      constant.setValueAttr(cast<TypedAttr>(toBits(constant.getValue())));
    else if (auto bitcast = dyn_cast<arith::BitcastOp>(op))
      bitcasts.push_back(bitcast);
    else if (hadBFloat16 &&
             isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) &&
             !isa<arith::SelectOp>(op)) {
      op->emitOpError("computes in bf16, which the device lacks");
      failed = true;
    }
  });
  for (arith::BitcastOp bitcast : bitcasts)
    if (bitcast.getIn().getType() == bitcast.getType()) {
      bitcast.replaceAllUsesWith(bitcast.getIn());
      bitcast.erase();
    }
  return failure(failed);
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
  populateMathToSPIRVPatterns(typeConverter, patterns);
  populateMemRefToSPIRVPatterns(typeConverter, patterns);
  index::populateIndexToSPIRVPatterns(typeConverter, patterns);
  ub::populateUBToSPIRVConversionPatterns(typeConverter, patterns);
  // The few vector ops left after packing wide accesses (a prologue's
  // unpacking of staged words into elements).
  populateVectorToSPIRVPatterns(typeConverter, patterns);
  populateSubgroupMatrixToSPIRVPatterns(typeConverter, patterns);
  patterns.add<SubgroupBroadcastLowering>(typeConverter, context);

  std::unique_ptr<ConversionTarget> target =
      SPIRVConversionTarget::get(targetEnv);
  return applyFullConversion(gpuModule, *target, std::move(patterns));
}

/// Under the Vulkan memory model, plain loads and stores are private to the
/// invocation and barriers do not order them; memory that other invocations
/// read (workgroup and storage buffers) must be accessed as non-private.
static void markSharedAccessesNonPrivate(spirv::ModuleOp module) {
  auto isShared = [](Value pointer) {
    auto type = dyn_cast<spirv::PointerType>(pointer.getType());
    return type &&
           (type.getStorageClass() == spirv::StorageClass::Workgroup ||
            type.getStorageClass() == spirv::StorageClass::StorageBuffer);
  };
  auto addNonPrivate = [](Operation *op, spirv::MemoryAccessAttr current) {
    auto access = current ? current.getValue() : spirv::MemoryAccess::None;
    op->setAttr(
        "memory_access",
        spirv::MemoryAccessAttr::get(
            op->getContext(), access | spirv::MemoryAccess::NonPrivatePointer));
  };
  module.walk([&](Operation *op) {
    if (auto load = dyn_cast<spirv::LoadOp>(op)) {
      if (isShared(load.getPtr()))
        addNonPrivate(op, load.getMemoryAccessAttr());
    } else if (auto store = dyn_cast<spirv::StoreOp>(op)) {
      if (isShared(store.getPtr()))
        addNonPrivate(op, store.getMemoryAccessAttr());
    }
  });
}

/// Adds what spirv-update-vce does not derive: the Vulkan memory model
/// capability (from the module's memory model) and GroupNonUniform (from
/// the subgroup built-ins, which SPIR-V only allows with it).
static void addUnderivedCapabilities(spirv::ModuleOp module) {
  std::optional<spirv::VerCapExtAttr> triple = module.getVceTriple();
  if (!triple)
    return;
  SmallVector<spirv::Capability> capabilities(triple->getCapabilities());
  auto require = [&](spirv::Capability capability) {
    if (!llvm::is_contained(capabilities, capability))
      capabilities.push_back(capability);
  };
  require(spirv::Capability::VulkanMemoryModel);
  module.walk([&](spirv::GlobalVariableOp variable) {
    std::optional<StringRef> builtIn = variable.getBuiltIn();
    if (builtIn &&
        llvm::is_contained({"SubgroupId", "NumSubgroups", "SubgroupSize",
                            "SubgroupLocalInvocationId"},
                           *builtIn))
      require(spirv::Capability::GroupNonUniform);
  });
  SmallVector<spirv::Extension> extensions(triple->getExtensions());
  module.setVceTripleAttr(spirv::VerCapExtAttr::get(
      triple->getVersion(), capabilities, extensions, module.getContext()));
}

namespace {
struct LowerToVulkanPass
    : public subgroup_matrix::impl::LowerToVulkanPassBase<LowerToVulkanPass> {
  using LowerToVulkanPassBase::LowerToVulkanPassBase;

  void runOnOperation() override;
};
} // namespace

void LowerToVulkanPass::runOnOperation() {
  ModuleOp module = getOperation();
  FailureOr<TargetAttr> overrideTarget =
      resolveTargetOption(module.getLoc(), targetName);
  if (failed(overrideTarget))
    return signalPassFailure();
  if (!llvm::is_contained({"none", "unsupported", "all"}, emulation)) {
    emitError(module.getLoc()) << "unknown emulation '" << emulation
                               << "'; expected 'none', 'unsupported' or 'all'";
    return signalPassFailure();
  }
  std::optional<EmulatedExchangeKind> exchangeKind =
      llvm::StringSwitch<std::optional<EmulatedExchangeKind>>(emulatedExchange)
          .Case("auto", EmulatedExchangeKind::Auto)
          .Case("subgroup", EmulatedExchangeKind::Subgroup)
          .Case("workgroup", EmulatedExchangeKind::Workgroup)
          .Default(std::nullopt);
  if (!exchangeKind) {
    emitError(module.getLoc())
        << "unknown emulated-exchange '" << emulatedExchange
        << "'; expected 'auto', 'subgroup' or 'workgroup'";
    return signalPassFailure();
  }
  FailureOr<SmallVector<gpu::GPUModuleOp>> gpuModules =
      collectKernelModules(module, getArgument());
  if (failed(gpuModules))
    return signalPassFailure();
  // Nothing is emitted for a program that the device would reject.
  if (failed(checkTarget(module, *overrideTarget,
                         /*allowEmulation=*/emulation != "none")) ||
      failed(checkUniformity(module)))
    return signalPassFailure();

  for (gpu::GPUModuleOp gpuModule : *gpuModules) {
    TargetAttr target = getLoweringTargetOrError(gpuModule, *overrideTarget);
    if (!target)
      return signalPassFailure();
    if (failed(checkKernelArgumentsAreGlobal(gpuModule)) ||
        failed(setEntryPointABIs(gpuModule)))
      return signalPassFailure();

    // The gpu.module stays for the host code that launches its kernels; the
    // SPIR-V module is built from a copy placed before it.
    OpBuilder builder(gpuModule);
    Operation *copy = builder.clone(*gpuModule);
    spirv::TargetEnvAttr targetEnv = getVulkanTargetEnv(target);
    copy->setAttr(spirv::getTargetEnvAttrName(), targetEnv);
    turnWorkgroupAttributionsIntoAllocations(copy);
    // Accesses through subviews address the viewed buffer directly, the
    // only form SPIR-V's access chains (and the emulation) take; what is
    // left must have static strides.
    foldSubViewsIntoAccesses(copy);
    if (failed(checkAddressableMemRefs(copy)))
      return signalPassFailure();
    // SPIR-V converts bf16 but has no bf16 arithmetic.
    promoteBFloat16MapBodies(copy);
    // Nor erf (the GLSL extended set lacks it): upstream's f32 polynomial.
    // Nor ceil/floor division (bounds of dynamic sizes): upstream's
    // expansion into plain divisions.
    RewritePatternSet expansions(&getContext());
    populatePolynomialApproximateErfPattern(expansions);
    populatePolynomialApproximateErfcPattern(expansions);
    arith::populateCeilFloorDivExpandOpsPatterns(expansions);
    walkAndApplyPatterns(copy, std::move(expansions));
    // Emulated kernels get their bounds checks first, on the matrix loads
    // and stores that the emulation then takes apart.
    llvm::SmallPtrSet<Operation *, 4> emulatedFunctions;
    WalkResult emulated = copy->walk([&](FunctionOpInterface function) {
      bool emulate = target.getEmulated() || emulation == "all" ||
                     (emulation == "unsupported" &&
                      usesUnsupportedMatrices(function, target));
      if (!emulate)
        return WalkResult::advance();
      // The emulation addresses every element by its linear index into a
      // 1-D buffer of the matrices' storage type.
      flattenBuffers(function);
      unpackWordBuffers(function);
      auto kernel = dyn_cast<gpu::GPUFuncOp>(function.getOperation());
      if (robustAccess && kernel && kernel.isKernel() &&
          failed(addRobustAccessGuards(kernel)))
        return WalkResult::interrupt();
      if (failed(emulateMatrices(
              function, target.getSubgroupSize(),
              exchangesThroughWorkgroup(function, target, *exchangeKind))))
        return WalkResult::interrupt();
      emulatedFunctions.insert(function);
      return WalkResult::advance();
    });
    if (emulated.wasInterrupted())
      return signalPassFailure();
    WalkResult expanded = copy->walk([&](FunctionOpInterface function) {
      if (failed(
              expandThroughWorkgroupMemory(function, target.getSubgroupSize())))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (expanded.wasInterrupted())
      return signalPassFailure();
    // The emulation's vector accesses are worth having only where the
    // buffer can be retyped; elsewhere they become scalars.
    WalkResult packed = copy->walk([&](gpu::GPUFuncOp function) {
      if (function.isKernel() &&
          failed(
              packWideAccesses(function, emulatedFunctions.contains(function))))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (packed.wasInterrupted())
      return signalPassFailure();
    for (Operation *function : emulatedFunctions) {
      auto kernel = dyn_cast<gpu::GPUFuncOp>(function);
      if (!kernel || !kernel.isKernel())
        scalarizeWideAccesses(function);
    }
    if (robustAccess) {
      WalkResult guarded = copy->walk([&](gpu::GPUFuncOp function) {
        if (function.isKernel() && !emulatedFunctions.contains(function) &&
            failed(addRobustAccessGuards(function)))
          return WalkResult::interrupt();
        return WalkResult::advance();
      });
      if (guarded.wasInterrupted())
        return signalPassFailure();
    }
    if (target.getEmulated() && failed(holdBFloat16AsBits(copy)))
      return signalPassFailure();
    // Per-invocation allocations become Function-storage variables, which
    // only loads and stores may use.
    if (failed(hoistPerInvocationAllocations(
            copy, spirv::StorageClassAttr::get(&getContext(),
                                               spirv::StorageClass::Function))))
      return signalPassFailure();
    mapMemorySpaces(copy);
    if (failed(convertToSPIRV(copy, targetEnv)))
      return signalPassFailure();

    auto spirvModule =
        dyn_cast_or_null<spirv::ModuleOp>(gpuModule->getPrevNode());
    if (!spirvModule) {
      gpuModule.emitError("conversion to SPIR-V produced no spirv.module");
      return signalPassFailure();
    }
    spirvModule.setMemoryModel(spirv::MemoryModel::Vulkan);
    OpPassManager abiPipeline(spirv::ModuleOp::getOperationName());
    abiPipeline.addPass(spirv::createSPIRVLowerABIAttributesPass());
    if (failed(runPipeline(abiPipeline, spirvModule)))
      return signalPassFailure();
    // After the ABI lowering, which adds the loads of scalar arguments.
    markSharedAccessesNonPrivate(spirvModule);
    OpPassManager vcePipeline(spirv::ModuleOp::getOperationName());
    vcePipeline.addPass(spirv::createSPIRVUpdateVCEPass());
    if (failed(runPipeline(vcePipeline, spirvModule)))
      return signalPassFailure();
    addUnderivedCapabilities(spirvModule);
  }
}
