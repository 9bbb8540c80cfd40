//===- AttachVulkanTarget.cpp - copies of gpu.modules to lower ------------===//
//
// `sm-attach-vulkan-target`: what Vulkan requires of kernels, checked, and
// the copy of each gpu.module that the later stages of sm-lower-to-vulkan
// lower, carrying its target and SPIR-V target environment.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/Conversion/Passes.h"
#include "SubgroupMatrix/Conversion/SubgroupMatrixToSPIRV/SubgroupMatrixToSPIRV.h"
#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"
#include "SubgroupMatrix/IR/TargetPresets.h"
#include "SubgroupMatrix/Transforms/Checks.h"

#include "mlir/Conversion/MemRefToSPIRV/MemRefToSPIRV.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/Dialect/SPIRV/Transforms/SPIRVConversion.h"

namespace mlir {
namespace subgroup_matrix {
#define GEN_PASS_DEF_ATTACHVULKANTARGETPASS
#include "SubgroupMatrix/Conversion/Passes.h.inc"
} // namespace subgroup_matrix
} // namespace mlir

using namespace mlir;
using namespace mlir::subgroup_matrix;

std::optional<spirv::StorageClass>
mlir::subgroup_matrix::getVulkanStorageClass(Attribute memorySpace) {
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
          getVulkanStorageClass(memref.getMemorySpace());
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

namespace {
struct AttachVulkanTargetPass
    : public subgroup_matrix::impl::AttachVulkanTargetPassBase<
          AttachVulkanTargetPass> {
  using AttachVulkanTargetPassBase::AttachVulkanTargetPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<TargetAttr> overrideTarget =
        resolveTargetOption(module.getLoc(), targetName);
    if (failed(overrideTarget))
      return signalPassFailure();
    // Messages name the pipeline, which is what users run.
    FailureOr<SmallVector<gpu::GPUModuleOp>> gpuModules =
        collectKernelModules(module, "sm-lower-to-vulkan");
    if (failed(gpuModules))
      return signalPassFailure();
    for (gpu::GPUModuleOp gpuModule : *gpuModules) {
      TargetAttr target = getLoweringTargetOrError(gpuModule, *overrideTarget);
      if (!target || failed(checkKernelArgumentsAreGlobal(gpuModule)) ||
          failed(setEntryPointABIs(gpuModule)))
        return signalPassFailure();
      // The gpu.module stays for the host code that launches its kernels;
      // the SPIR-V module is built from a copy placed before it, under the
      // name the SPIR-V module will have (two symbols cannot share one).
      // Only the copy carries a target environment, which is how the later
      // stages tell it from the original (whose own, if any, the target's
      // replaces).
      gpuModule->removeAttr(spirv::getTargetEnvAttrName());
      OpBuilder builder(gpuModule);
      auto copy = cast<gpu::GPUModuleOp>(builder.clone(*gpuModule));
      copy.setSymName((getSPIRVModulePrefix() + gpuModule.getSymName()).str());
      copy->setAttr(spirv::getTargetEnvAttrName(), getVulkanTargetEnv(target));
      copy->setAttr(SubgroupMatrixDialect::getTargetAttrName(), target);
    }
  }
};
} // namespace
