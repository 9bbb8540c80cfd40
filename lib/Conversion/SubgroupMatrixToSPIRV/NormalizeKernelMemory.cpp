//===- NormalizeKernelMemory.cpp - memory SPIR-V can address --------------===//
//
// `sm-normalize-kernel-memory`: workgroup attributions as allocations,
// accesses through subviews folded, and a report of what is left that
// SPIR-V cannot address.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/Conversion/Passes.h"
#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"
#include "SubgroupMatrix/Transforms/Checks.h"
#include "SubgroupMatrix/Transforms/FlattenBuffers.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir {
namespace subgroup_matrix {
#define GEN_PASS_DEF_NORMALIZEKERNELMEMORYPASS
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

namespace {
struct NormalizeKernelMemoryPass
    : public subgroup_matrix::impl::NormalizeKernelMemoryPassBase<
          NormalizeKernelMemoryPass> {
  using NormalizeKernelMemoryPassBase::NormalizeKernelMemoryPassBase;

  void runOnOperation() override {
    for (gpu::GPUModuleOp kernels : getModulesBeingLowered(getOperation())) {
      turnWorkgroupAttributionsIntoAllocations(kernels);
      // Accesses through subviews address the viewed buffer directly, the
      // only form SPIR-V's access chains (and the emulation) take; what is
      // left must have static strides.
      foldSubViewsIntoAccesses(kernels);
      if (failed(checkAddressableMemRefs(kernels)))
        return signalPassFailure();
    }
  }
};
} // namespace
