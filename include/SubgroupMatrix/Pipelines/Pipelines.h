//===- Pipelines.h - the driver pipelines -----------------------*- C++ -*-===//
//
// The pipelines users run (`sm-opt --sm-lower-to-vulkan`): each is a list of
// registered stage passes, which `--mlir-print-ir-after-all` shows by name
// and `sm-opt --<stage>` runs alone.
//
//===----------------------------------------------------------------------===//

#ifndef SUBGROUPMATRIX_PIPELINES_PIPELINES_H
#define SUBGROUPMATRIX_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;
namespace subgroup_matrix {

/// The options of `sm-lower-to-vulkan`.
struct LowerToVulkanOptions : public PassPipelineOptions<LowerToVulkanOptions> {
  PassOptions::Option<std::string> target{
      *this, "target",
      llvm::cl::desc("Preset to lower for, overriding any target attribute"),
      llvm::cl::init("")};
  PassOptions::Option<bool> robustAccess{
      *this, "robust-access",
      llvm::cl::desc("Bounds-check subgroup matrix loads and stores against "
                     "the buffer length"),
      llvm::cl::init(false)};
  PassOptions::Option<std::string> emulation{
      *this, "emulation",
      llvm::cl::desc("Which kernels emulate their matrices with ordinary "
                     "SPIR-V: 'none' (only on targets without matrix units), "
                     "'unsupported' (also kernels using shapes or types the "
                     "target lacks) or 'all'"),
      llvm::cl::init("none")};
  PassOptions::Option<std::string> emulatedExchange{
      *this, "emulated-exchange",
      llvm::cl::desc("How emulated mma and multiply share operand elements "
                     "between invocations: 'subgroup' (broadcasts and "
                     "shuffles), 'workgroup' (through workgroup memory between "
                     "subgroup barriers) or 'auto' (workgroup on targets with "
                     "matrix units when the workgroup size is known, else "
                     "subgroup)"),
      llvm::cl::init("auto")};
};

/// Adds the stages of `sm-lower-to-vulkan` to `pm` (on builtin.module): the
/// target and uniformity checks, a copy of each gpu.module carrying its
/// SPIR-V target environment, the preparations of its kernels, the
/// conversion to a spirv.module and Vulkan's finishing touches. docs/Design.md
/// lists what each stage does.
void buildLowerToVulkanPipeline(OpPassManager &pm,
                                const LowerToVulkanOptions &options);

/// Registers the pipelines with the pass registry (sm-opt, pipeline text).
void registerSubgroupMatrixPipelines();

} // namespace subgroup_matrix
} // namespace mlir

#endif // SUBGROUPMATRIX_PIPELINES_PIPELINES_H
