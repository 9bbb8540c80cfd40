//===- downstream-opt.cpp - a downstream compiler's driver ----------------===//
//
// What a graph compiler that adopts subgroup_matrix writes: its own opt
// tool, with the dialect and its passes registered beside upstream's, and a
// pipeline of its own, `downstream-linalg-to-vulkan`, that puts the
// project's graph-compiler entry (sm-linalg-to-gpu) and its Vulkan lowering
// (sm-lower-to-vulkan) behind its own options.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/InitAll.h"
#include "SubgroupMatrix/Pipelines/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

namespace {

/// The downstream compiler's own options: which device it compiles for.
struct DownstreamOptions : public mlir::PassPipelineOptions<DownstreamOptions> {
  Option<std::string> device{*this, "device",
                             llvm::cl::desc("the subgroup_matrix target"),
                             llvm::cl::init("nvidia-h100")};
};

void buildDownstreamPipeline(mlir::OpPassManager &pm,
                             const DownstreamOptions &options) {
  mlir::subgroup_matrix::LinalgToGPUOptions toKernels;
  toKernels.target = options.device;
  mlir::subgroup_matrix::buildLinalgToGPUPipeline(pm, toKernels);
  mlir::subgroup_matrix::LowerToVulkanOptions toVulkan;
  toVulkan.target = options.device;
  mlir::subgroup_matrix::buildLowerToVulkanPipeline(pm, toVulkan);
}

} // namespace

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::subgroup_matrix::registerSubgroupMatrixDialect(registry);
  mlir::registerAllPasses();
  mlir::subgroup_matrix::registerSubgroupMatrixPassesAndPipelines();
  mlir::PassPipelineRegistration<DownstreamOptions>(
      "downstream-linalg-to-vulkan",
      "linalg or TOSA to Vulkan SPIR-V kernels and their launches",
      buildDownstreamPipeline);
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "a downstream compiler on subgroup_matrix\n", registry));
}
