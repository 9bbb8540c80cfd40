//===- Pipelines.cpp - the driver pipelines -------------------------------===//

#include "SubgroupMatrix/Pipelines/Pipelines.h"

#include "SubgroupMatrix/Conversion/Passes.h"
#include "SubgroupMatrix/Transforms/Passes.h"

#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::subgroup_matrix;

void mlir::subgroup_matrix::buildLowerToVulkanPipeline(
    OpPassManager &pm, const LowerToVulkanOptions &options) {
  // Nothing is emitted for a program that the device would reject.
  CheckTargetPassOptions check;
  check.targetName = options.target;
  check.allowEmulation = options.emulation != "none";
  check.emulationRequests = true;
  pm.addPass(createCheckTargetPass(check));
  pm.addPass(createCheckUniformityPass());
  pm.addPass(createAttachVulkanTargetPass({options.target}));
  pm.addPass(createNormalizeKernelMemoryPass());
  pm.addPass(createExpandMathPass());
  pm.addPass(createEmulateMatricesPass(
      {options.robustAccess, options.emulation, options.emulatedExchange}));
  if (options.nvCoopmat2)
    pm.addPass(createUseNVCooperativeMatrix2Pass());
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
  spirvModule.addPass(createPreserveInfNanPass());
  spirvModule.addPass(createAddVulkanCapabilitiesPass());
}

void mlir::subgroup_matrix::buildLowerToMetalPipeline(
    OpPassManager &pm, const LowerToMetalOptions &options) {
  pm.addPass(createAttachMetalTargetPass({options.target}));
  CheckTargetPassOptions check;
  check.composedShapes = true;
  check.emulationRequests = true;
  pm.addPass(createCheckTargetPass(check));
  pm.addPass(createCheckUniformityPass());
  pm.addPass(createExpandMathPass());
  // MSL's min and max ignore a NaN where arith's minimumf and maximumf
  // return it: upstream's expansion spells out both (and the rest of
  // arith's composite ops) in comparisons and selects.
  pm.nest<gpu::GPUModuleOp>().addPass(arith::createArithExpandOpsPass());
  // Kernels with matrices the target lacks (sm-contractions-to-kernels
  // marks them) take the emulated form, which the emitter prints as it
  // prints any per-invocation code.
  pm.addPass(createEmulateMatricesPass({false, "none", "auto"}));
  ExpandThroughWorkgroupMemoryPassOptions expansion;
  expansion.registerOps = MatrixRegisterOps::KindChanges;
  pm.addPass(createExpandThroughWorkgroupMemoryPass(expansion));
}

void mlir::subgroup_matrix::buildLinalgToGPUPipeline(
    OpPassManager &pm, const LinalgToGPUOptions &options) {
  // A TOSA program becomes linalg first; a linalg program is untouched.
  pm.addPass(createTosaToLinalgPass());
  // Calls are inlined first so that dispatch formation sees across them; no
  // simplification runs on the result (the stages after it normalize).
  pm.addPass(createInlinerPass(/*opPipelines=*/{},
                               /*defaultPipelineBuilder=*/nullptr));
  pm.addPass(createComputeF64InF32Pass({options.target, options.f64}));
  pm.addPass(createWarnUninitializedReductionsPass());
  pm.addPass(createRaiseSoftmaxPass());
  pm.addPass(createFuseElementwisePass());
  pm.addPass(createFoldBatchLoopsPass());
  pm.addPass(createNormalizeContractionsPass());
  pm.addPass(createBufferizeProgramPass());
  pm.addPass(createScalarAccessesToGenericsPass());
  pm.addPass(createInsertShapeChecksPass());
  pm.addPass(createUnitConvolutionsToContractionsPass());
  pm.addPass(createApplyPrecisionPolicyPass(
      {options.accumulate, options.f32Matmul, options.target, options.report}));

  PlanKernelsPassOptions plan;
  plan.targetName = options.target;
  plan.tileM = options.tileM;
  plan.tileN = options.tileN;
  plan.tileK = options.tileK;
  plan.subgroupsM = options.subgroupsM;
  plan.subgroupsN = options.subgroupsN;
  plan.padding = options.padding;
  plan.stages = options.stages;
  plan.prefetch = options.prefetch;
  plan.preloadC = options.preloadC;
  plan.stageBTransposed = options.stageBTransposed;
  plan.vectorWidth = options.vectorWidth;
  plan.groupM = options.groupM;
  plan.splitK = options.splitK;
  plan.dotProductRows = options.dotProductRows;
  plan.decodeAttentionQueries = options.decodeAttentionQueries;
  plan.tuningTable = options.tuningTable;
  plan.attentionSubgroups = options.attentionSubgroups;
  plan.attentionSubgroupRows = options.attentionSubgroupRows;
  plan.attentionKeyBlock = options.attentionKeyBlock;
  plan.attentionSoftmax = options.attentionSoftmax;
  plan.nvCoopmat2 = options.nvCoopmat2;
  pm.addPass(createPlanKernelsPass(plan));

  pm.addPass(createAttentionToKernelsPass({options.target, options.report}));
  pm.addPass(createContractionsToKernelsPass({options.target, options.report}));
  pm.addPass(createElementwiseToKernelsPass({options.target, options.report}));
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
