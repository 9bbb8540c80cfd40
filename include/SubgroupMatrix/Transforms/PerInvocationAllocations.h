//===- PerInvocationAllocations.h - kernel allocations of one invocation -*- C++
//-*-===//
//
// A `memref.alloc` in private memory (or in no memory space) inside a kernel
// is memory of each invocation, which GPUs hold in registers or stack, not
// on a heap: the lowerings make it a stack allocation at the start of its
// function.
//
//===----------------------------------------------------------------------===//

#ifndef SUBGROUPMATRIX_TRANSFORMS_PERINVOCATIONALLOCATIONS_H
#define SUBGROUPMATRIX_TRANSFORMS_PERINVOCATIONALLOCATIONS_H

#include "mlir/IR/Operation.h"

namespace mlir {
namespace subgroup_matrix {

/// Replaces every per-invocation `memref.alloc` of a function inside `root`
/// by a `memref.alloca` at the start of the function (allocations are
/// uninitialised, so one serves an allocation made inside a loop as well)
/// and erases its deallocations. `memorySpace` becomes the allocation's
/// memory space (SPIR-V's Function storage class, or private memory where
/// no space would mean global memory). Reports, at their location, and
/// fails for allocations of run-time size or with a layout, and for users
/// other than loads and stores, which could not take the new type (a SPIR-V
/// variable cannot leave its function either).
LogicalResult hoistPerInvocationAllocations(Operation *root,
                                            Attribute memorySpace);

} // namespace subgroup_matrix
} // namespace mlir

#endif // SUBGROUPMATRIX_TRANSFORMS_PERINVOCATIONALLOCATIONS_H
