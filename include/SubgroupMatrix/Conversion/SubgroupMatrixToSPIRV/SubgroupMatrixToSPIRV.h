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

namespace mlir {
class SPIRVTypeConverter;

namespace subgroup_matrix {
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

} // namespace subgroup_matrix
} // namespace mlir

#endif // SUBGROUPMATRIX_CONVERSION_SUBGROUPMATRIXTOSPIRV_SUBGROUPMATRIXTOSPIRV_H
