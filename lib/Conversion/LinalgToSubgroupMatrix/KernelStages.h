//===- KernelStages.h - what the kernel stages share ------------*- C++ -*-===//
//
// Shared by sm-plan-kernels (Planning/PlanKernels.cpp) and the stages that
// make kernels (Attention/, Contraction/, Elementwise/ ...ToKernels.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef LIB_CONVERSION_LINALGTOSUBGROUPMATRIX_KERNELSTAGES_H
#define LIB_CONVERSION_LINALGTOSUBGROUPMATRIX_KERNELSTAGES_H

#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Contraction/Contraction.h"
#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>
#include <string>

namespace mlir {
namespace subgroup_matrix {

/// The program's gpu.module of kernels, if an earlier stage made it.
gpu::GPUModuleOp findProgramKernels(ModuleOp module);

/// The target a kernel stage generates for: the `target` option's preset,
/// else the module's attribute, else that of the kernels an earlier stage
/// made; reports its absence.
FailureOr<TargetAttr> getProgramTarget(ModuleOp module, StringRef targetName);

/// Whether `op` is host code (not already in a kernel).
bool isOnHost(Operation *op);

/// The remark `report=1` attaches to an op of the program: the kernel it
/// became (or was fused into) and why that kind of kernel.
void reportKernel(Operation *op, StringRef verb, StringRef kernel,
                  const Twine &why);

/// The buffer that `view` is a chain of views of, and the map from the
/// view's indices to the buffer's; none unless every view is a
/// memref.subview with static offsets and strides that keeps every
/// dimension, a static memref.expand_shape, or a memref.collapse_shape
/// that only drops dimensions of size 1 (a batch of one folded away), and
/// the buffer is row-major.
std::optional<std::pair<Value, AffineMap>> getViewedBuffer(Value view);

/// Gives `op` contiguous copies of its operands that are static strided
/// views of a row-major buffer (a slice of a wider matrix): a matrix
/// product's kernels read and write dense row-major matrices, and a
/// reduction over a slice cannot fold the view into its maps. The copies
/// are strided copies, kernels of their own (sm-elementwise-to-kernels);
/// an output is copied in and, after `op`, back. Other views stay, to be
/// reported.
void copyStridedOperands(RewriterBase &rewriter, linalg::LinalgOp op);

/// The kernel that the contraction `op` becomes: its strided operands
/// copied (copyStridedOperands), `op` matched, and its element-wise
/// neighbours fused in. The one analysis both sm-plan-kernels and
/// sm-contractions-to-kernels start from. The plan stage decides the
/// fusion and records it (recordFusion); emission reads that record
/// (`subgroup_matrix.fusion_group`) and fuses those ops and no others, and
/// checkPlan confirms that the plan (and the kernel's layout) fits what
/// it read.
FailureOr<Contraction> analyzeContractionKernel(RewriterBase &rewriter,
                                                linalg::LinalgOp op,
                                                TargetAttr target);

/// Where the kernel stages put their kernels: all kernels of a program go
/// into one gpu.module @kernels (one SPIR-V module, one Metal library)
/// before the first function, made by the first stage that needs it, and
/// are numbered in the order they are made, whichever stage makes them.
class ProgramKernels {
public:
  ProgramKernels(ModuleOp module, TargetAttr target);

  /// The program's gpu.module @kernels, made before its first function
  /// when no stage has made it yet.
  gpu::GPUModuleOp get();

  /// The name of the next kernel: `stem_N`, N counting every kernel made.
  std::string nextName(StringRef stem) {
    return (stem + "_" + Twine(count++)).str();
  }

private:
  ModuleOp module;
  TargetAttr target;
  gpu::GPUModuleOp kernels;
  unsigned count = 0;
};

} // namespace subgroup_matrix
} // namespace mlir

#endif // LIB_CONVERSION_LINALGTOSUBGROUPMATRIX_KERNELSTAGES_H
