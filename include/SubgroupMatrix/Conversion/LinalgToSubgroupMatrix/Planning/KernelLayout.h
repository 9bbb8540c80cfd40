//===- KernelLayout.h - what a contraction kernel's plan implies -*- C++
//-*-===//
//
// The last step of planning a contraction: what its plan makes of the
// kernel before any of it is built - the problem the kernel computes (a
// split K's partial products), how each operand's tile is copied into
// workgroup memory, whether results go through a scratch, and how much
// workgroup memory that takes. Planning (sm-plan-kernels, and
// sm-contractions-to-kernels for a plan it reads) checks it, so that what
// the emitter would refuse is reported at the plan; the emitter builds the
// kernel from the same layout.
//
//===----------------------------------------------------------------------===//

#ifndef SUBGROUPMATRIX_CONVERSION_LINALGTOSUBGROUPMATRIX_PLANNING_KERNELLAYOUT_H
#define SUBGROUPMATRIX_CONVERSION_LINALGTOSUBGROUPMATRIX_PLANNING_KERNELLAYOUT_H

#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Planning/TilingPlan.h"

namespace mlir {
namespace subgroup_matrix {

/// One operand's copy from global to workgroup memory: a tile of
/// `tileRows` x `tileCols` elements out of a row-major global matrix of
/// `globalRows` x `globalCols` (ShapedType::kDynamic when known only at run
/// time), `width` elements at a time, into rows `sharedStride` apart; one
/// stage of the workgroup buffer holds `stageElements`.
struct TileCopyLayout {
  int64_t globalRows = 0, globalCols = 0;
  int64_t tileRows = 0, tileCols = 0;
  /// Whether the tile is transposed on its way (8-bit B only): the
  /// workgroup buffer holds `tileCols` rows of `tileRows`.
  bool transposes = false;
  int64_t width = 1, sharedStride = 0, stageElements = 0;
};

/// What a plan makes of a contraction's kernel.
struct ContractionKernelLayout {
  /// The product the kernel computes: the contraction itself, or with a
  /// split K one part's (`outputRowsPerPart` set, the epilogue left to run
  /// after the reduction of the parts).
  Contraction problem;
  TileCopyLayout a, b;
  /// Whether results go through each subgroup's scratch in workgroup
  /// memory (element by element, with bounds, the epilogue on scalars).
  bool storesThroughScratch = false;
  /// The workgroup memory the kernel declares: the stages of both copies
  /// and the scratch.
  int64_t workgroupBytes = 0;
};

/// Whether a C tile of `tiling` leaves rows or columns of `problem`'s
/// output partly outside it somewhere (ragged edges, dynamic sizes).
bool hasRaggedRows(const Contraction &problem, const MatmulTiling &tiling);
bool hasRaggedResult(const Contraction &problem, const MatmulTiling &tiling);

/// Whether `problem`'s epilogue can run as subgroup_matrix.map on whole
/// result matrices of `config` on `target` (every operand a full matrix of
/// a type the target has, and a body each component can compute alone,
/// unless the matrices are emulated).
bool epilogueMapsOnMatrices(const Contraction &problem, TargetAttr target,
                            MatrixConfigAttr config);

/// Lays out the kernel that `plan` makes of `contraction` on `target`,
/// reporting on the contraction's op what the kernel cannot do: a split of
/// K the product does not allow, a tile whose copies the invocations
/// cannot share, a transposing copy that does not fit, more workgroup
/// memory than the target's limit.
FailureOr<ContractionKernelLayout>
layOutContractionKernel(const Contraction &contraction, TargetAttr target,
                        const TilingPlan &plan);

} // namespace subgroup_matrix
} // namespace mlir

#endif // SUBGROUPMATRIX_CONVERSION_LINALGTOSUBGROUPMATRIX_PLANNING_KERNELLAYOUT_H
