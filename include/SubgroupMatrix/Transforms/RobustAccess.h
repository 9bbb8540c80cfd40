//===- RobustAccess.h - bounds-checked matrix loads and stores --*- C++ -*-===//

#ifndef SUBGROUPMATRIX_TRANSFORMS_ROBUSTACCESS_H
#define SUBGROUPMATRIX_TRANSFORMS_ROBUSTACCESS_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir {
namespace subgroup_matrix {

/// Guards every subgroup matrix load and store of `kernel` with a check
/// that the whole matrix lies inside its memref: a load out of range yields
/// zeros, a store out of range does nothing. The check only reads uniform
/// values, so the guarded ops stay in uniform control flow.
///
/// Statically shaped memrefs are bounded by their shape. Runtime-sized ones
/// (1-D `memref<?xT>` kernel arguments) are bounded by their length, which
/// SPIR-V's logical addressing cannot query: as WebGPU implementations do
/// for such backends, the kernel gets one more argument, a `memref<?xi32>`
/// holding the length in elements of every argument, by position
/// (`sm-vulkan-runner --append-lengths` passes it).
LogicalResult addRobustAccessGuards(gpu::GPUFuncOp kernel);

} // namespace subgroup_matrix
} // namespace mlir

#endif // SUBGROUPMATRIX_TRANSFORMS_ROBUSTACCESS_H
