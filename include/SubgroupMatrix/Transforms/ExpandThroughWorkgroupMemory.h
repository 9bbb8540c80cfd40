//===- ExpandThroughWorkgroupMemory.h - ops done through memory -*- C++ -*-===//
//
// Subgroup matrices of some targets cannot say which elements an invocation
// holds; the ops that need an element's position, its neighbours or a
// register form the target lacks go through a per-subgroup tile of
// workgroup memory instead. Shared by the Vulkan and Metal lowerings.
//
//===----------------------------------------------------------------------===//

#ifndef SUBGROUPMATRIX_TRANSFORMS_EXPANDTHROUGHWORKGROUPMEMORY_H
#define SUBGROUPMATRIX_TRANSFORMS_EXPANDTHROUGHWORKGROUPMEMORY_H

#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir {
namespace subgroup_matrix {

/// What a target's subgroup matrices compute in registers, besides loads,
/// stores, splats, multiplications and the scalar ops; every other map,
/// reduce and convert goes through workgroup memory.
enum class MatrixRegisterOps {
  /// Component-wise arithmetic maps (isComponentWiseMap) and changes of
  /// component type within a kind: SPV_KHR_cooperative_matrix, whose
  /// matrices have a type per use.
  ComponentWise,
  /// Only changes of kind that keep the component type: Metal, whose
  /// simdgroup matrices have no element-wise operations and one type for
  /// every kind.
  KindChanges,
};

/// Whether the ops of `body` (its terminator aside) are arithmetic that
/// cooperative matrices do component-wise, on matrices whose components
/// have the scalar `storageTypes`: constants, add/sub/mul/div/neg without
/// fast-math or overflow flags, and extension or truncation between f16
/// and f32, every value of one of `storageTypes` (several only when they
/// are f16 and f32).
bool isComponentWiseBody(Block &body, ArrayRef<Type> storageTypes);

/// Whether `map` is component-wise arithmetic that cooperative matrices do
/// directly: a component-wise body (isComponentWiseBody) over the storage
/// types of its inputs and result (float matrices where they differ), no
/// use of the row or column.
bool isComponentWiseMap(MapOp map);

/// Whether `op` (a map, reduce or convert, a load or store with bounds, or
/// a decode load, which always does) goes through workgroup memory on a target
/// whose matrices compute `registerOps` in registers.
bool needsWorkgroupMemory(Operation *op, MatrixRegisterOps registerOps);

/// Rewrites the ops of `function` that need workgroup memory
/// (needsWorkgroupMemory) into stores to a per-subgroup scratch tile, loops
/// of each invocation over its share of the elements between
/// `subgroup_matrix.subgroup_barrier`s, and a load. Allocates the tiles (one
/// slice per subgroup of the kernel's known workgroup size, of
/// `subgroupSize` invocations); does nothing to kernels without such ops.
/// Such ops in functions other than kernels (which cannot allocate
/// workgroup memory) are reported.
LogicalResult expandThroughWorkgroupMemory(FunctionOpInterface function,
                                           unsigned subgroupSize,
                                           MatrixRegisterOps registerOps);

} // namespace subgroup_matrix
} // namespace mlir

#endif // SUBGROUPMATRIX_TRANSFORMS_EXPANDTHROUGHWORKGROUPMEMORY_H
