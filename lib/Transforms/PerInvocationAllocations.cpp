//===- PerInvocationAllocations.cpp - kernel allocations of one invocation ===//

#include "SubgroupMatrix/Transforms/PerInvocationAllocations.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;

/// Whether `type` is memory of one invocation: private, or in no space.
static bool isPerInvocation(MemRefType type) {
  Attribute space = type.getMemorySpace();
  auto gpuSpace = dyn_cast_or_null<gpu::AddressSpaceAttr>(space);
  return !space ||
         (gpuSpace && gpuSpace.getValue() == gpu::AddressSpace::Private);
}

LogicalResult
mlir::subgroup_matrix::hoistPerInvocationAllocations(Operation *root,
                                                     Attribute memorySpace) {
  bool failed = false;
  root->walk([&](FunctionOpInterface function) {
    SmallVector<memref::AllocOp> allocations;
    function->walk([&](memref::AllocOp alloc) {
      if (isPerInvocation(alloc.getType()))
        allocations.push_back(alloc);
    });
    bool functionFailed = false;
    for (memref::AllocOp alloc : allocations) {
      MemRefType type = alloc.getType();
      if (!type.hasStaticShape() || !type.getLayout().isIdentity()) {
        emitError(alloc.getLoc())
            << "a per-invocation allocation of type " << type
            << " cannot be lowered: memory of one invocation is a stack "
               "array of static size and no layout; allocate the largest "
               "size instead";
        functionFailed = true;
        continue;
      }
      for (Operation *user : alloc->getUsers()) {
        if (isa<memref::LoadOp, memref::StoreOp, memref::DeallocOp,
                vector::LoadOp, vector::StoreOp>(user))
          continue;
        emitError(user->getLoc())
            << "'" << user->getName()
            << "' uses a per-invocation allocation, which the kernel holds "
               "on its stack (a SPIR-V Function variable): only loads and "
               "stores may use it";
        functionFailed = true;
      }
    }
    failed |= functionFailed;
    if (functionFailed || allocations.empty())
      return;
    OpBuilder builder =
        OpBuilder::atBlockBegin(&function.getFunctionBody().front());
    for (memref::AllocOp alloc : allocations) {
      MemRefType type = alloc.getType();
      auto stackType =
          MemRefType::get(type.getShape(), type.getElementType(),
                          MemRefLayoutAttrInterface(), memorySpace);
      Value stack =
          memref::AllocaOp::create(builder, alloc.getLoc(), stackType);
      for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
        if (isa<memref::DeallocOp>(user))
          user->erase();
      alloc.getResult().replaceAllUsesWith(stack);
      alloc.erase();
    }
  });
  return failure(failed);
}
