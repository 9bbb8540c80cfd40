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
  PassOptions::Option<bool> nvCoopmat2{
      *this, "nv-coopmat2",
      llvm::cl::desc(
          "Use the VK_NV_cooperative_matrix2 features the target "
          "lists for reductions, maps and conversions of kind "
          "(false: every kernel keeps to SPV_KHR_cooperative_matrix)"),
      llvm::cl::init(true)};
};

/// Adds the stages of `sm-lower-to-vulkan` to `pm` (on builtin.module): the
/// target and uniformity checks, a copy of each gpu.module carrying its
/// SPIR-V target environment, the preparations of its kernels, the
/// conversion to a spirv.module and Vulkan's finishing touches. docs/Design.md
/// lists what each stage does.
void buildLowerToVulkanPipeline(OpPassManager &pm,
                                const LowerToVulkanOptions &options);

/// The options of `sm-lower-to-metal`.
struct LowerToMetalOptions : public PassPipelineOptions<LowerToMetalOptions> {
  PassOptions::Option<std::string> target{
      *this, "target",
      llvm::cl::desc("Preset to lower for, overriding any target attribute "
                     "(without either: what Metal Shading Language "
                     "expresses)"),
      llvm::cl::init("")};
};

/// Adds the stages of `sm-lower-to-metal` to `pm` (on builtin.module): the
/// target of each gpu.module, the target and uniformity checks, the math
/// expansions and the workgroup-memory expansion shared with Vulkan, after
/// which the MSL emitter only prints. docs/Design.md lists the stages.
void buildLowerToMetalPipeline(OpPassManager &pm,
                               const LowerToMetalOptions &options);

/// The options of `sm-linalg-to-gpu`: the target, the tiling of matrix
/// products (as `sm-contractions-to-kernels` takes them) and of attention.
struct LinalgToGPUOptions : public PassPipelineOptions<LinalgToGPUOptions> {
  PassOptions::Option<std::string> target{
      *this, "target",
      llvm::cl::desc(
          "Preset to generate for (else the module's target attribute)"),
      llvm::cl::init("")};
  PassOptions::Option<int64_t> tileM{*this, "tile-m",
                                     llvm::cl::desc("Rows of C per workgroup"),
                                     llvm::cl::init(0)};
  PassOptions::Option<int64_t> tileN{
      *this, "tile-n", llvm::cl::desc("Columns of C per workgroup"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> tileK{
      *this, "tile-k", llvm::cl::desc("Depth of one step of the K loop"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> subgroupsM{
      *this, "subgroups-m", llvm::cl::desc("Subgroups per workgroup along M"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> subgroupsN{
      *this, "subgroups-n", llvm::cl::desc("Subgroups per workgroup along N"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> padding{
      *this, "padding",
      llvm::cl::desc("Elements added to each row of the workgroup copies "
                     "(-1: target default)"),
      llvm::cl::init(-1)};
  PassOptions::Option<int64_t> stages{
      *this, "stages",
      llvm::cl::desc("Workgroup buffers per operand: 1, or 2 for double "
                     "buffering"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> prefetch{
      *this, "prefetch",
      llvm::cl::desc("With one stage, load the next K step into registers "
                     "before multiplying this one (1) or after (0); -1: "
                     "target default"),
      llvm::cl::init(-1)};
  PassOptions::Option<int64_t> preloadC{
      *this, "preload-c",
      llvm::cl::desc("Start the accumulators from C loaded before the K "
                     "loop (1), or from zero with C added as they are "
                     "stored (0); -1: target default (0)"),
      llvm::cl::init(-1)};
  PassOptions::Option<int64_t> stageBTransposed{
      *this, "stage-b-transposed",
      llvm::cl::desc("Transpose a row-major 8-bit B as it is staged, so "
                     "that its matrices are read column-major (1), or stage "
                     "it as it is (0); -1: target default (0)"),
      llvm::cl::init(-1)};
  PassOptions::Option<int64_t> vectorWidth{
      *this, "vector-width",
      llvm::cl::desc("Elements each invocation copies at once"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> groupM{
      *this, "group-m",
      llvm::cl::desc("Tile rows consecutive workgroups walk down before "
                     "moving to the next tile column (1: row-major order)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> splitK{
      *this, "split-k",
      llvm::cl::desc("Parts K is split into (0: enough to fill the device "
                     "where the tiles of C cannot, 1: no split)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> dotProductRows{
      *this, "dot-product-rows",
      llvm::cl::desc("Products of at most this many rows (M, static) take "
                     "dot products instead of a tiled product, where B is "
                     "stored N x K (-1: the target's crossover, 0: never)"),
      llvm::cl::init(-1)};
  PassOptions::Option<int64_t> decodeAttentionQueries{
      *this, "decode-attention-queries",
      llvm::cl::desc("Attentions of at most this many query rows per head "
                     "(static) split their keys over workgroups and combine "
                     "the runs in a second kernel (-1: 4, 0: never)"),
      llvm::cl::init(-1)};
  PassOptions::Option<std::string> tuningTable{
      *this, "tuning-table",
      llvm::cl::desc("Tuning table the tiling of a problem comes from "
                     "where no tiling option is given: a file "
                     "(data/tuning/*.tuning format), 'none', or empty for "
                     "the target's shipped table"),
      llvm::cl::init("")};
  PassOptions::Option<int64_t> attentionSubgroups{
      *this, "attention-subgroups",
      llvm::cl::desc("Subgroups per attention workgroup, each a matrix "
                     "height of queries (0: 8 on Vulkan where every block "
                     "of queries is whole, 16 at head dimension 64; else "
                     "4)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> attentionSubgroupRows{
      *this, "attention-subgroup-rows",
      llvm::cl::desc("Queries per subgroup of an attention workgroup, a "
                     "multiple of the matrix height: above the target's "
                     "configurations only with VK_NV_cooperative_matrix2 "
                     "flexible dimensions (0: the planner's choice)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> attentionKeyBlock{
      *this, "attention-key-block",
      llvm::cl::desc("Keys per step of the attention loop, a multiple of "
                     "the matrix width (0: 64, fewer where workgroup memory "
                     "is short)"),
      llvm::cl::init(0)};
  PassOptions::Option<std::string> attentionSoftmax{
      *this, "attention-softmax",
      llvm::cl::desc("Where attention's online softmax runs: 'registers' "
                     "(map, reduce and convert of result matrices) or "
                     "'workgroup-memory' (scalars, one round trip per key "
                     "block); empty: registers where the matrices do "
                     "reductions, maps and conversions of kind themselves "
                     "(VK_NV_cooperative_matrix2 on Vulkan, every other "
                     "backend), else workgroup memory"),
      llvm::cl::init("")};
  PassOptions::Option<bool> nvCoopmat2{
      *this, "nv-coopmat2",
      llvm::cl::desc("Plan for the VK_NV_cooperative_matrix2 features the "
                     "target lists (false: for SPV_KHR_cooperative_matrix "
                     "alone, as sm-lower-to-vulkan=nv-coopmat2=false "
                     "lowers)"),
      llvm::cl::init(true)};
  PassOptions::Option<std::string> accumulate{
      *this, "accumulate",
      llvm::cl::desc("What f16 products into f16 accumulate in: 'f32' "
                     "(rounded once, on store) or 'f16' (the target's f16 "
                     "accumulators); bf16 outputs always accumulate in f32"),
      llvm::cl::init("f32")};
  PassOptions::Option<std::string> f32Matmul{
      *this, "f32-matmul",
      llvm::cl::desc("How f32 products run on targets without f32 matrices: "
                     "'emulate' (exact, in ordinary arithmetic) or 'f16' / "
                     "'bf16' (inputs rounded to that type, multiplied by the "
                     "matrix units into f32)"),
      llvm::cl::init("emulate")};
  PassOptions::Option<std::string> f64{
      *this, "f64",
      llvm::cl::desc("f64 arithmetic on a target without f64 (Metal, "
                     "Xe-HPG): 'native' (refused there, the op named) or "
                     "'f32' (computed in f32, a remark on each op changed; "
                     "sm-compute-f64-in-f32)"),
      llvm::cl::init("native")};
  PassOptions::Option<bool> report{
      *this, "report",
      llvm::cl::desc("Attach to each linalg op a remark that names the "
                     "kernel it became and why that kind of kernel"),
      llvm::cl::init(false)};
};

/// Adds the stages of `sm-linalg-to-gpu` to `pm` (on builtin.module): batch
/// loops folded, bufferization, shape checks, 1x1 convolutions as products,
/// the precision policy, then attention, contraction and element-wise
/// kernels.
void buildLinalgToGPUPipeline(OpPassManager &pm,
                              const LinalgToGPUOptions &options);

/// Registers the pipelines with the pass registry (sm-opt, pipeline text).
void registerSubgroupMatrixPipelines();

} // namespace subgroup_matrix
} // namespace mlir

#endif // SUBGROUPMATRIX_PIPELINES_PIPELINES_H
