//===- LowerToIntel.cpp - the sm-lower-to-intel pass ----------------------===//

#include "SubgroupMatrix/Conversion/Passes.h"
#include "SubgroupMatrix/Conversion/SubgroupMatrixToInvocations/SubgroupMatrixToInvocations.h"
#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"
#include "SubgroupMatrix/IR/TargetPresets.h"
#include "SubgroupMatrix/Transforms/Checks.h"
#include "SubgroupMatrix/Transforms/FlattenBuffers.h"
#include "SubgroupMatrix/Transforms/PerInvocationAllocations.h"
#include "SubgroupMatrix/Transforms/PromoteBFloat16Maps.h"

#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace subgroup_matrix {
#define GEN_PASS_DEF_LOWERTOINTELPASS
#include "SubgroupMatrix/Conversion/Passes.h.inc"
} // namespace subgroup_matrix
} // namespace mlir

using namespace mlir;
using namespace mlir::subgroup_matrix;

/// Workgroup attributions, and `memref.alloc`s in workgroup memory (which
/// mean the same: one buffer per workgroup), become workgroup-memory
/// globals: OpenCL kernels keep workgroup memory in module-scope variables,
/// which is how MLIR's LLVM lowering for SPIR-V can express it. (An alloc
/// left as it is would be private to each invocation there.)
static void turnWorkgroupMemoryIntoGlobals(gpu::GPUModuleOp module) {
  SymbolTable symbols(module);
  OpBuilder moduleBuilder = OpBuilder::atBlockBegin(module.getBody());
  auto createGlobal = [&](gpu::GPUFuncOp function, Location loc,
                          MemRefType type, unsigned index) {
    auto global = memref::GlobalOp::create(
        moduleBuilder, loc,
        (function.getName() + "_workgroup_" + Twine(index)).str(),
        moduleBuilder.getStringAttr("private"), type, Attribute(),
        /*constant=*/false, IntegerAttr());
    symbols.insert(global);
    return global;
  };
  module.walk([&](gpu::GPUFuncOp function) {
    Block &entry = function.getBody().front();
    OpBuilder builder = OpBuilder::atBlockBegin(&entry);
    unsigned count = function.getNumWorkgroupAttributions();
    unsigned first = function.getFunctionType().getNumInputs();
    for (unsigned i = 0; i < count; ++i) {
      BlockArgument attribution = entry.getArgument(first + i);
      auto type = cast<MemRefType>(attribution.getType());
      auto global = createGlobal(function, attribution.getLoc(), type, i);
      Value value = memref::GetGlobalOp::create(builder, attribution.getLoc(),
                                                type, global.getSymName());
      attribution.replaceAllUsesWith(value);
    }
    if (count) {
      entry.eraseArguments(first, count);
      function->setAttr(gpu::GPUFuncOp::getNumWorkgroupAttributionsAttrName(),
                        builder.getI64IntegerAttr(0));
    }
    SmallVector<memref::AllocOp> allocations;
    function.walk([&](memref::AllocOp alloc) {
      auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(
          alloc.getType().getMemorySpace());
      if (space && space.getValue() == gpu::AddressSpace::Workgroup &&
          alloc.getType().hasStaticShape() && alloc.getDynamicSizes().empty())
        allocations.push_back(alloc);
    });
    for (auto [i, alloc] : llvm::enumerate(allocations)) {
      auto global =
          createGlobal(function, alloc.getLoc(), alloc.getType(), count + i);
      OpBuilder allocBuilder(alloc);
      Value value = memref::GetGlobalOp::create(
          allocBuilder, alloc.getLoc(), alloc.getType(), global.getSymName());
      alloc.replaceAllUsesWith(value);
      alloc.erase();
    }
  });
}

/// Rewrites the matrices of the functions in `module` marked
/// `subgroup_matrix.emulate` into their emulated form, marking them
/// `subgroup_matrix.emulated` instead.
static LogicalResult emulateMarkedKernels(gpu::GPUModuleOp module,
                                          unsigned subgroupSize) {
  MLIRContext *context = module.getContext();
  WalkResult walk = module.walk([&](FunctionOpInterface function) {
    if (!function->hasAttr(SubgroupMatrixDialect::getEmulateAttrName()))
      return WalkResult::advance();
    // The emulation addresses every element by its linear index into a 1-D
    // buffer of the matrices' storage type.
    flattenBuffers(function);
    unpackWordBuffers(function);
    if (failed(emulateSubgroupMatrices(function, subgroupSize,
                                       /*exchangeThroughWorkgroup=*/false)))
      return WalkResult::interrupt();
    // MLIR's OpenCL lowering has shuffles but no broadcasts: a shuffle
    // from one lane for all is the same.
    function.walk([&](gpu::SubgroupBroadcastOp broadcast) {
      OpBuilder builder(broadcast);
      Location loc = broadcast.getLoc();
      Value width = arith::ConstantIntOp::create(
          builder, loc, builder.getI32Type(), subgroupSize);
      Value shuffled = gpu::ShuffleOp::create(builder, loc, broadcast.getSrc(),
                                              broadcast.getLane(), width,
                                              gpu::ShuffleMode::IDX)
                           .getShuffleResult();
      broadcast.replaceAllUsesWith(shuffled);
      broadcast.erase();
    });
    function->removeAttr(SubgroupMatrixDialect::getEmulateAttrName());
    function->setAttr(SubgroupMatrixDialect::getEmulatedAttrName(),
                      UnitAttr::get(context));
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

namespace {
struct LowerToIntelPass
    : public subgroup_matrix::impl::LowerToIntelPassBase<LowerToIntelPass> {
  using LowerToIntelPassBase::LowerToIntelPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<TargetAttr> overrideTarget =
        resolveTargetOption(module.getLoc(), targetName);
    if (failed(overrideTarget))
      return signalPassFailure();
    FailureOr<SmallVector<gpu::GPUModuleOp>> gpuModules =
        collectKernelModules(module, getArgument());
    if (failed(gpuModules) ||
        failed(checkTarget(module, *overrideTarget,
                           /*allowEmulation=*/false,
                           /*composedShapes=*/false,
                           /*emulationRequests=*/true)) ||
        failed(checkUniformity(module)))
      return signalPassFailure();

    for (gpu::GPUModuleOp gpuModule : *gpuModules) {
      TargetAttr target = getLoweringTargetOrError(gpuModule, *overrideTarget);
      if (!target)
        return signalPassFailure();
      unsigned subgroupSize = target.getSubgroupSize();
      // Kernels whose products the target's matrices lack (the kernel stage
      // marks them, chooseProductForm) take the emulated form: scalars per
      // invocation, operands exchanged by subgroup shuffles.
      if (failed(emulateMarkedKernels(gpuModule, subgroupSize)))
        return signalPassFailure();
      // Each element is addressed through the buffer a view shows, in the
      // storage type of its matrices (not packed words).
      foldSubViewsIntoAccesses(gpuModule);
      gpuModule.walk(
          [](FunctionOpInterface function) { unpackWordBuffers(function); });
      if (failed(checkPerInvocationForm(gpuModule, subgroupSize,
                                        /*emulated=*/false)))
        return signalPassFailure();
      turnWorkgroupMemoryIntoGlobals(gpuModule);
      // Memory of one invocation lives on its stack, not on a heap the
      // device does not have (no memory space would mean global memory).
      if (failed(hoistPerInvocationAllocations(
              gpuModule, gpu::AddressSpaceAttr::get(
                             &getContext(), gpu::AddressSpace::Private))))
        return signalPassFailure();
      // Kernels run with the subgroup size the instructions assume.
      gpuModule.walk([&](gpu::GPUFuncOp function) {
        if (function.isKernel())
          function->setAttr(
              "intel_reqd_sub_group_size",
              IntegerAttr::get(IntegerType::get(&getContext(), 32),
                               subgroupSize));
      });

      TypeConverter converter;
      converter.addConversion([](Type type) { return type; });
      populateSubgroupMatrixToIntelTypeConversion(converter, subgroupSize);
      ConversionTarget conversionTarget(getContext());
      conversionTarget.addIllegalDialect<SubgroupMatrixDialect>();
      conversionTarget.markUnknownOpDynamicallyLegal(
          [](Operation *) { return true; });
      RewritePatternSet patterns(&getContext());
      populateSubgroupMatrixToIntelPatterns(converter, patterns, subgroupSize);
      scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                           conversionTarget);
      // Map bodies compute bf16 in f32 (see promoteBFloat16Arithmetic).
      promoteBFloat16Arithmetic(gpuModule);
      if (failed(applyPartialConversion(gpuModule, conversionTarget,
                                        std::move(patterns))))
        return signalPassFailure();
      // Intel's compiler takes no bf16 type, so bf16 <-> f32 conversions
      // become integer arithmetic on the bits; erf and erfc (which the LLVM
      // lowering leaves alone) upstream's f32 polynomial, as on Vulkan.
      RewritePatternSet expansions(&getContext());
      arith::populateExpandBFloat16Patterns(expansions);
      populatePolynomialApproximateErfPattern(expansions);
      populatePolynomialApproximateErfcPattern(expansions);
      if (failed(applyPatternsGreedily(gpuModule, std::move(expansions))))
        return signalPassFailure();
    }
  }
};
} // namespace
