//===- VulkanTargetEnv.cpp - SPIR-V target environment of a target --------===//

#include "SubgroupMatrix/Conversion/SubgroupMatrixToSPIRV/SubgroupMatrixToSPIRV.h"

#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVAttributes.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::subgroup_matrix;

spirv::TargetEnvAttr
mlir::subgroup_matrix::getVulkanTargetEnv(TargetAttr target) {
  MLIRContext *context = target.getContext();
  Builder builder(context);
  using spirv::Capability;
  using spirv::Extension;
  // Everything a subgroup matrix kernel may use; spirv-update-vce keeps only
  // what the module needs. The cooperative-matrix ops require SPIR-V 1.6.
  // A device without matrix units (an emulated target) has neither
  // cooperative matrices nor bf16.
  SmallVector<Capability> capabilities = {
      Capability::Shader,
      Capability::VulkanMemoryModel,
      Capability::Float16,
      Capability::Int8,
      Capability::Int16,
      Capability::StorageBuffer8BitAccess,
      Capability::StorageBuffer16BitAccess,
      Capability::GroupNonUniform,
      Capability::GroupNonUniformArithmetic,
      Capability::GroupNonUniformShuffle,
      Capability::GroupNonUniformBallot,
  };
  SmallVector<Extension> extensions = {
      Extension::SPV_KHR_vulkan_memory_model,
      Extension::SPV_KHR_8bit_storage,
      Extension::SPV_KHR_16bit_storage,
      Extension::SPV_KHR_storage_buffer_storage_class,
  };
  if (target.getFloat64())
    capabilities.push_back(Capability::Float64);
  if (target.getInt64())
    capabilities.push_back(Capability::Int64);
  if (!target.getEmulated()) {
    capabilities.append({Capability::CooperativeMatrixKHR,
                         Capability::BFloat16TypeKHR,
                         Capability::BFloat16CooperativeMatrixKHR});
    extensions.append(
        {Extension::SPV_KHR_cooperative_matrix, Extension::SPV_KHR_bfloat16});
  }
  auto triple = spirv::VerCapExtAttr::get(spirv::Version::V_1_6, capabilities,
                                          extensions, context);

  auto subgroupScope = spirv::ScopeAttr::get(context, spirv::Scope::Subgroup);
  SmallVector<Attribute> properties;
  for (MatrixConfigAttr config : target.getEmulated()
                                     ? ArrayRef<MatrixConfigAttr>()
                                     : target.getConfigs()) {
    Type component = getStorageType(config.getComponentType());
    Type result = getStorageType(config.getResultType());
    properties.push_back(spirv::CooperativeMatrixPropertiesKHRAttr::get(
        context, config.getM(), config.getN(), config.getK(), component,
        component, result, result, /*acc_sat=*/false, subgroupScope));
  }
  int subgroupSize = target.getSubgroupSize();
  // Vulkan's required minimums, except for the subgroup size, which the
  // runtime requests explicitly (required subgroup size, full subgroups).
  auto limits = spirv::ResourceLimitsAttr::get(
      context, /*max_compute_shared_memory_size=*/16384,
      /*max_compute_workgroup_invocations=*/128,
      builder.getI32ArrayAttr({128, 128, 64}), subgroupSize,
      /*min_subgroup_size=*/subgroupSize, /*max_subgroup_size=*/subgroupSize,
      builder.getArrayAttr(properties),
      /*cooperative_matrix_properties_nv=*/builder.getArrayAttr({}));
  return spirv::TargetEnvAttr::get(triple, limits, spirv::ClientAPI::Vulkan);
}
