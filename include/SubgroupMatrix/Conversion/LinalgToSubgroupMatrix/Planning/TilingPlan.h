//===- TilingPlan.h - how a contraction is tiled ----------------*- C++ -*-===//
//
// The second step from linalg to a kernel: for a `Contraction` and a target,
// the matrix configuration and the tiling (workgroup tile, subgroup grid, K
// depth, staging, copy width, launch order), from the user's options and
// the target's defaults, checked against the target's limits.
//
//===----------------------------------------------------------------------===//

#ifndef SUBGROUPMATRIX_CONVERSION_LINALGTOSUBGROUPMATRIX_PLANNING_TILINGPLAN_H
#define SUBGROUPMATRIX_CONVERSION_LINALGTOSUBGROUPMATRIX_PLANNING_TILINGPLAN_H

#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Contraction/Contraction.h"
#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"

namespace mlir {
namespace subgroup_matrix {

/// How a matmul is tiled. Zero (and -1 for `padding`, `prefetch`,
/// `preloadC` and `stageBTransposed`) means "the target's default";
/// `planTiling` fills those in.
struct MatmulTiling {
  /// The workgroup tile of C and the depth of one K step.
  int64_t tileM = 0, tileN = 0, tileK = 0;
  /// The grid of subgroups in a workgroup.
  int64_t subgroupsM = 0, subgroupsN = 0;
  /// Elements appended to every row of the workgroup copies of A and B.
  int64_t padding = -1;
  /// Workgroup buffers per operand: 1, or 2 for double buffering.
  int64_t stages = 0;
  /// With one stage, whether the next K step's copy is loaded into
  /// registers before this step is multiplied (1) or after (0); two stages
  /// always do.
  int64_t prefetch = -1;
  /// Whether the accumulators start as C's matrices, loaded before the K
  /// loop (1), or from zero with C added as they are stored (0): the first
  /// waits for C once, the second keeps C out of registers through the loop.
  int64_t preloadC = -1;
  /// Whether a row-major (K x N) B of 8-bit elements is transposed as it is
  /// staged (1), so that its matrices are read from workgroup memory
  /// column-major, as a B given N x K is, or staged as it is (0).
  int64_t stageBTransposed = -1;
  /// Elements one invocation copies at once from global to workgroup memory.
  int64_t vectorWidth = 0;
  /// Tile rows that consecutive workgroups walk down before the next tile
  /// column (1: row-major launch order).
  int64_t groupM = 0;
  /// Parts K is split into, each a workgroup of its own along the grid's z
  /// that writes a partial product (1: no split).
  int64_t splitK = 1;

  /// Whether this, read from a pass's options (readMatmulTilingOptions and
  /// its split K), asks for nothing: every option at its default.
  bool asksForNothing() const {
    return !tileM && !tileN && !tileK && !subgroupsM && !subgroupsN &&
           padding < 0 && !stages && prefetch < 0 && preloadC < 0 &&
           stageBTransposed < 0 && !vectorWidth && !groupM && !splitK;
  }
};

/// The tiling options of a pass that has them (`MatmulTilingOptions` in
/// Passes.td: sm-tile-matmul and sm-plan-kernels); split K stays 1 (none).
template <typename PassWithTilingOptions>
MatmulTiling readMatmulTilingOptions(const PassWithTilingOptions &pass) {
  MatmulTiling requested;
  requested.tileM = pass.tileM;
  requested.tileN = pass.tileN;
  requested.tileK = pass.tileK;
  requested.subgroupsM = pass.subgroupsM;
  requested.subgroupsN = pass.subgroupsN;
  requested.padding = pass.padding;
  requested.stages = pass.stages;
  requested.prefetch = pass.prefetch;
  requested.preloadC = pass.preloadC;
  requested.stageBTransposed = pass.stageBTransposed;
  requested.vectorWidth = pass.vectorWidth;
  requested.groupM = pass.groupM;
  return requested;
}

/// One block of the copy that transposes an 8-bit B as it is staged
/// (`stageBTransposed`): rows of B (as many bytes as 64 bits hold, so that
/// each column of the block is one 64-bit store; the Vulkan lowering
/// addresses a buffer that subgroup matrices read as 64- or 128-bit words)
/// by columns (one 32-bit load per row).
constexpr int64_t kTransposedBlockRows = 8;
constexpr int64_t kTransposedBlockColumns = 4;

/// Whether the transposing copy stages whole blocks only: B's rows (of
/// `bColumns` elements, ShapedType::kDynamic when unknown), its `tileK` x
/// `tileN` tile and its padded rows in workgroup memory (`tileK` +
/// `padding`) are multiples of the block's columns and rows.
bool transposingCopyFits(int64_t bColumns, int64_t tileK, int64_t tileN,
                         int64_t padding);

/// The chosen matrix configuration and the complete tiling: what
/// `#subgroup_matrix.contraction_plan` holds.
struct TilingPlan {
  MatrixConfigAttr config;
  MatmulTiling tiling;

  /// This plan as the attribute sm-plan-kernels attaches.
  ContractionPlanAttr getAttr() const;
  /// The plan `attr` holds (unchecked: see checkPlan).
  static TilingPlan get(ContractionPlanAttr attr);
};

class TuningTable;

/// Whether `target` is a Vulkan device with matrix units (the NVIDIA, AMD
/// and cpu-lavapipe-coopmat presets), whose
/// KHR cooperative matrices hide which elements an invocation holds: there,
/// maps that read positions, reductions and conversions of kind cost a
/// round trip through workgroup memory each.
bool isVulkanDevice(TargetAttr target);

/// The compute units a plan aims to fill: the target's, or where it gives
/// none, a small device's 16.
int64_t getPlannedComputeUnits(TargetAttr target);

/// How a target computes a matrix product of one element type into another.
enum class ProductForm {
  /// On its matrix units, in a configuration of those types.
  Native,
  /// On its matrix units in f32: the f16 or bf16 operands are converted to
  /// f32 (exactly) as the kernel stages them, for a target with f32 -> f32
  /// matrices and none of the operands' type into f32 (Metal's
  /// simdgroup_float8x8).
  Widened,
  /// In per-invocation arithmetic, in the configurations of the target's
  /// emulation (getEmulationTarget), on the paths that lower them (Vulkan
  /// and Metal; not Intel's).
  Emulated,
};

/// The nearest form `target` has for products of `input` elements into
/// `result` ones: its own matrices, else its f32 matrices on widened
/// operands, else the emulated form; none when not even the emulation has
/// those types. Every stage and path that picks a configuration asks here.
std::optional<ProductForm> chooseProductForm(Type input, Type result,
                                             TargetAttr target);

/// Whether a kernel multiplying with `config` on `target` emulates its
/// matrices: on an emulated target, or with a configuration only the
/// target's emulation has (getEmulationTarget).
bool isEmulatedConfig(MatrixConfigAttr config, TargetAttr target);

/// The split of K that gives every compute unit of `target` a workgroup when
/// the tiles of C alone cannot (at most 8 parts, each at least 8 whole K
/// steps): 1 where no split helps or the target's `compute_units` are
/// unknown.
int64_t chooseSplitK(const Contraction &contraction, const TilingPlan &plan,
                     TargetAttr target);

/// Chooses the configuration and fills the defaults of `requested`;
/// reports on the contraction's op what does not fit.
FailureOr<TilingPlan> planTiling(const Contraction &contraction,
                                 TargetAttr target,
                                 const MatmulTiling &requested);

/// The plan of `contraction` on `target`: `requested`, or where it asks for
/// nothing `tuning`'s tiling, with the defaults filled in (planTiling) and
/// K's split chosen where `requested.splitK` is 0 (chooseSplitK). Reports
/// on the contraction's op what does not fit, the kernel's layout included
/// (layOutContractionKernel).
FailureOr<TilingPlan> planContraction(const Contraction &contraction,
                                      TargetAttr target,
                                      const MatmulTiling &requested,
                                      const TuningTable *tuning);

/// Checks a complete plan (one written by hand, or by an earlier run) as
/// planTiling checks the options: its configuration is the target's for the
/// contraction's types, and its tiling fits it. What the kernel it describes
/// could not do is reported by layOutContractionKernel, which building the
/// kernel (tileContraction) starts from.
LogicalResult checkPlan(const Contraction &contraction, TargetAttr target,
                        const TilingPlan &plan);

} // namespace subgroup_matrix
} // namespace mlir

#endif // SUBGROUPMATRIX_CONVERSION_LINALGTOSUBGROUPMATRIX_PLANNING_TILINGPLAN_H
