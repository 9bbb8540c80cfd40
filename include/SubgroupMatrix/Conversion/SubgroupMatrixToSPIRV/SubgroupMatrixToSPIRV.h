//===- SubgroupMatrixToSPIRV.h - subgroup_matrix to SPIR-V ------*- C++ -*-===//
//
// Patterns that lower subgroup_matrix ops to SPV_KHR_cooperative_matrix ops
// of MLIR's SPIR-V dialect, for graph compilers that assemble their own
// SPIR-V conversions.
//
//===----------------------------------------------------------------------===//

#ifndef SUBGROUPMATRIX_CONVERSION_SUBGROUPMATRIXTOSPIRV_SUBGROUPMATRIXTOSPIRV_H
#define SUBGROUPMATRIX_CONVERSION_SUBGROUPMATRIXTOSPIRV_SUBGROUPMATRIXTOSPIRV_H

#include "mlir/Dialect/SPIRV/IR/SPIRVAttributes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir {
class SPIRVTypeConverter;
namespace gpu {
class GPUFuncOp;
} // namespace gpu

namespace subgroup_matrix {
class MapOp;
class TargetAttr;

/// Teaches `typeConverter` the matrix types: each becomes a
/// `!spirv.coopmatrix` of Subgroup scope with the use of its kind and the
/// signless storage type of its components.
void populateSubgroupMatrixToSPIRVTypeConversion(
    SPIRVTypeConverter &typeConverter);

/// Adds the patterns lowering every subgroup_matrix op to SPIR-V.
void populateSubgroupMatrixToSPIRVPatterns(
    const SPIRVTypeConverter &typeConverter, RewritePatternSet &patterns);

/// Builds the Vulkan SPIR-V target environment of `target`: SPIR-V 1.6 with
/// the Vulkan memory model, cooperative matrices, 8- and 16-bit storage and
/// arithmetic, bf16, the device's cooperative-matrix properties and its
/// subgroup size. `spirv-update-vce` later trims what a module does not use.
spirv::TargetEnvAttr getVulkanTargetEnv(TargetAttr target);

/// What the name of a gpu.module's SPIR-V module starts with: upstream's
/// GPU-to-SPIR-V conversion names the module of gpu.module @NAME
/// `__spv__NAME`, and hosts find the module of a launch by that name.
inline llvm::StringLiteral getSPIRVModulePrefix() { return "__spv__"; }

/// The Vulkan storage class of a memref memory space: the GPU dialect's
/// address spaces (global memory is a storage buffer, workgroup memory a
/// workgroup variable, private memory private), which upstream's map of
/// numeric memory spaces does not know, and the numeric ones.
std::optional<spirv::StorageClass> getVulkanStorageClass(Attribute memorySpace);

/// Retypes the 1-D buffers of `kernel` (arguments and workgroup
/// `memref.alloc`s) that are accessed only `W` elements at a time, by
/// `vector.load`/`vector.store` of 32, 64 or 128 bits bit-cast to i32 words
/// and by subgroup matrix loads and stores at multiples of `W`, into memrefs
/// of those words; every access then becomes one wide access in SPIR-V,
/// which has no pointer casts to do it otherwise. When a buffer's vector
/// accesses cannot be packed, reports on the access and fails, or, with
/// `scalarizeUnpackable` (kernels whose vector accesses are an optimisation,
/// as the emulated matrices'), splits them into scalar accesses.
LogicalResult packWideAccesses(gpu::GPUFuncOp kernel,
                               bool scalarizeUnpackable = false);

/// Splits every `vector.load`/`vector.store` of a buffer of scalars in
/// `function` into scalar accesses (for functions other than kernels, whose
/// buffers are not retyped).
void scalarizeWideAccesses(Operation *function);

} // namespace subgroup_matrix
} // namespace mlir

#endif // SUBGROUPMATRIX_CONVERSION_SUBGROUPMATRIXTOSPIRV_SUBGROUPMATRIXTOSPIRV_H
