//===- Pipelines.cpp - the driver pipelines -------------------------------===//

#include "SubgroupMatrix/Pipelines/Pipelines.h"

#include "SubgroupMatrix/Conversion/Passes.h"
#include "SubgroupMatrix/Transforms/Passes.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::subgroup_matrix;

void mlir::subgroup_matrix::buildLowerToVulkanPipeline(
    OpPassManager &pm, const LowerToVulkanOptions &options) {
  // Nothing is emitted for a program that the device would reject.
  pm.addPass(createCheckTargetPass(
      {options.target, /*allowEmulation=*/options.emulation != "none"}));
  pm.addPass(createCheckUniformityPass());
  pm.addPass(createAttachVulkanTargetPass({options.target}));
  pm.addPass(createNormalizeKernelMemoryPass());
  pm.addPass(createExpandMathPass());
  pm.addPass(createEmulateMatricesPass(
      {options.robustAccess, options.emulation, options.emulatedExchange}));
  pm.addPass(createExpandThroughWorkgroupMemoryPass());
  pm.addPass(createPackWideAccessesPass());
  if (options.robustAccess)
    pm.addPass(createRobustAccessPass());
  pm.addPass(createHoldBFloat16AsBitsPass());
  pm.addPass(createConvertKernelsToSPIRVPass());
  OpPassManager &spirvModule = pm.nest<spirv::ModuleOp>();
  spirvModule.addPass(spirv::createSPIRVLowerABIAttributesPass());
  // After the ABI lowering, which adds the loads of scalar arguments.
  spirvModule.addPass(createMarkSharedAccessesNonPrivatePass());
  spirvModule.addPass(spirv::createSPIRVUpdateVCEPass());
  spirvModule.addPass(createAddVulkanCapabilitiesPass());
}

void mlir::subgroup_matrix::buildLowerToMetalPipeline(
    OpPassManager &pm, const LowerToMetalOptions &options) {
  pm.addPass(createAttachMetalTargetPass({options.target}));
  CheckTargetPassOptions check;
  check.composedShapes = true;
  pm.addPass(createCheckTargetPass(check));
  pm.addPass(createCheckUniformityPass());
  pm.addPass(createExpandMathPass());
  ExpandThroughWorkgroupMemoryPassOptions expansion;
  expansion.registerOps = MatrixRegisterOps::KindChanges;
  pm.addPass(createExpandThroughWorkgroupMemoryPass(expansion));
}

void mlir::subgroup_matrix::buildLinalgToGPUPipeline(
    OpPassManager &pm, const LinalgToGPUOptions &options) {
  pm.addPass(createFoldBatchLoopsPass());
  pm.addPass(createBufferizeProgramPass());
  pm.addPass(createInsertShapeChecksPass());
  pm.addPass(createUnitConvolutionsToContractionsPass());

  AttentionToKernelsPassOptions attention;
  attention.targetName = options.target;
  attention.attentionSubgroups = options.attentionSubgroups;
  attention.attentionKeyBlock = options.attentionKeyBlock;
  attention.attentionSoftmax = options.attentionSoftmax;
  pm.addPass(createAttentionToKernelsPass(attention));

  ContractionsToKernelsPassOptions contractions;
  contractions.targetName = options.target;
  contractions.tileM = options.tileM;
  contractions.tileN = options.tileN;
  contractions.tileK = options.tileK;
  contractions.subgroupsM = options.subgroupsM;
  contractions.subgroupsN = options.subgroupsN;
  contractions.padding = options.padding;
  contractions.stages = options.stages;
  contractions.prefetch = options.prefetch;
  contractions.preloadC = options.preloadC;
  contractions.stageBTransposed = options.stageBTransposed;
  contractions.vectorWidth = options.vectorWidth;
  contractions.groupM = options.groupM;
  contractions.splitK = options.splitK;
  contractions.tuningTable = options.tuningTable;
  pm.addPass(createContractionsToKernelsPass(contractions));

  pm.addPass(createElementwiseToKernelsPass({options.target}));
}

void mlir::subgroup_matrix::registerSubgroupMatrixPipelines() {
  PassPipelineRegistration<LinalgToGPUOptions>(
      "sm-linalg-to-gpu",
      "Turn a linalg program into subgroup-matrix kernels and their launches "
      "(the stages are listed in docs/Design.md)",
      buildLinalgToGPUPipeline);
  PassPipelineRegistration<LowerToVulkanOptions>(
      "sm-lower-to-vulkan",
      "Lower the gpu.modules of a dialect-level module to Vulkan SPIR-V "
      "(the stages are listed in docs/Design.md)",
      buildLowerToVulkanPipeline);
  PassPipelineRegistration<LowerToMetalOptions>(
      "sm-lower-to-metal",
      "Lower the gpu.modules of a dialect-level module to the form the MSL "
      "emitter prints (the stages are listed in docs/Design.md)",
      buildLowerToMetalPipeline);
}
