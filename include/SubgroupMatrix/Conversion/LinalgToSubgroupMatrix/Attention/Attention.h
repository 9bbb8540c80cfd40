//===- Attention.h - scaled dot-product attention as one kernel -*- C++ -*-===//
//
// softmax(scale(Q K^T)) V, as front-ends write it on linalg (two batched
// products around a linalg.softmax, element-wise scaling and masking of the
// scores, casts of the probabilities and of the output), becomes one
// flash-attention kernel: the scores and probabilities of a block of keys
// live as subgroup matrices in registers and never reach memory.
//
//===----------------------------------------------------------------------===//

#ifndef SUBGROUPMATRIX_CONVERSION_LINALGTOSUBGROUPMATRIX_ATTENTION_ATTENTION_H
#define SUBGROUPMATRIX_CONVERSION_LINALGTOSUBGROUPMATRIX_ATTENTION_ATTENTION_H

#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Contraction/Contraction.h"
#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace subgroup_matrix {

/// Where Q, K, V or the output keeps element (batch n, row r, column c) of
/// the attention: in `buffer`, read as a flat array, at
///   sum over `batchTerms` of ((n / divisor) % modulus) * stride
///     + r * rowStride + c.
/// The batch terms read the folded batch index n as the dimensions the
/// buffer keeps apart: [batch, seq, heads, dim] layouts, and the key and
/// value heads that grouped-query attention shares (a term a query head
/// does not change: the program's repeat of them is never made).
///
/// A buffer of dynamic shape has one dynamic dimension, which holds the
/// rows (a KV cache's length, a prompt's): strides beyond it count rows.
struct AttentionOperand {
  struct BatchTerm {
    int64_t divisor = 1, modulus = 1;
    /// Elements between consecutive values of the term: `stride`, times
    /// the operand's row count where `timesRows` (a term outside a dynamic
    /// row dimension).
    int64_t stride = 0;
    bool timesRows = false;
  };
  Value buffer;
  SmallVector<BatchTerm, 2> batchTerms;
  int64_t rowStride = 0;

  /// The operand as `buffer` holds it: batch x rows x columns, contiguous.
  static AttentionOperand getContiguous(Value buffer);

  /// Where the rows of batch index `batch` (of `batchCount`) start, for
  /// `rows` rows per batch index.
  Value getBatchBase(OpBuilder &builder, Location loc, Value batch,
                     int64_t batchCount, Value rows) const;
  /// The row count at run time: the size of the buffer's dynamic
  /// dimension.
  Value getRowCount(OpBuilder &builder, Location loc) const;
};

/// One attention found in a program on buffers: O = softmax(f(Q K^T)) V
/// per batch, where f is a chain of element-wise ops on the scores.
struct Attention {
  /// The ops the kernel replaces, in program order.
  SmallVector<Operation *> ops;
  /// Buffers that only those ops used, erased with them.
  SmallVector<Operation *> deadAllocations;
  /// Q (batch x queries x head), K and V (batch x keys x head), and the
  /// output (batch x queries x head), where the kernel finds them: the
  /// program's copies of them (transposes, repeats) are read through.
  AttentionOperand queries, keys, values, output;
  int64_t batch = 0, queryCount = 0, keyCount = 0, headDim = 0;
  /// The element-wise ops on the scores (a scale, a mask), applied in order;
  /// their bodies may read the position through linalg.index.
  SmallVector<linalg::GenericOp> scoreSteps;
  /// For each step, which of its inputs is the scores; its other inputs
  /// (an additive mask, a bias) are read at the position the step's
  /// indexing map gives them from (batch, query, key).
  SmallVector<unsigned> scoreInputs;
  /// Those other inputs, once each: f32 or f16 buffers the kernel takes as
  /// arguments after the output.
  SmallVector<Value> scoreOperands;
  /// The last score step yields -inf where key > query: key blocks past a
  /// workgroup's last query are skipped (they would add nothing).
  bool causal = false;
  /// The component type of Q, K and V, and the storage type of the
  /// probabilities' product (P is cast to the input type first).
  Type inputType, outputType;
};

/// How the attention kernel is tiled; zeros and `Default` leave the choice
/// to the target's defaults.
struct AttentionTiling {
  /// Subgroups per workgroup, each a matrix height of queries (default 4;
  /// on Vulkan 8, or 16 at head dimension 64, where every block of queries
  /// is whole).
  int64_t subgroups = 0;
  /// Queries per subgroup: the height of the matrices of S and O (default
  /// the target's configuration, 16 where it has one); above the target's
  /// configurations a flexible-dimension height (VK_NV_cooperative_matrix2).
  int64_t subgroupRows = 0;
  /// Keys per step of the loop: a multiple of the matrix width (default 64,
  /// halved while workgroup memory is short).
  int64_t keyBlock = 0;
  /// Where the online softmax of a key block is computed: on result
  /// matrices (map, reduce, convert), or on per-invocation scalars through
  /// workgroup memory (the default on Vulkan, where each map or reduction
  /// would cost such a round trip of its own).
  enum class Softmax { Default, Registers, WorkgroupMemory };
  Softmax softmax = Softmax::Default;
  /// Whether the kernel may count on the VK_NV_cooperative_matrix2 features
  /// the target lists (sm-lower-to-vulkan's `nv-coopmat2`).
  bool nvCooperativeMatrix2 = true;

  bool isDefault() const {
    return !subgroups && !subgroupRows && !keyBlock &&
           softmax == Softmax::Default;
  }
};

/// The tiling of an attention's kernel, complete: what
/// `#subgroup_matrix.attention_plan` holds.
struct AttentionPlan {
  /// The configuration of both products (P V reads P as a left matrix, so
  /// its N equals its K).
  MatrixConfigAttr config;
  /// Subgroups per workgroup and keys per step of the loop.
  int64_t subgroups = 0, keyBlock = 0;
  /// Whether the online softmax runs on per-invocation scalars through
  /// workgroup memory (else on result matrices).
  bool softmaxInWorkgroupMemory = false;

  /// Query rows per workgroup: one matrix height per subgroup.
  int64_t getQueryBlock() const { return subgroups * config.getM(); }
  /// This plan as the attribute sm-plan-kernels attaches.
  AttentionPlanAttr getAttr() const;
  /// The plan `attr` holds (unchecked: see checkAttentionPlan).
  static AttentionPlan get(AttentionPlanAttr attr);
};

/// Whether the kernel stages Q through workgroup memory: only where some
/// workgroup's block of `queryBlock` queries runs past the end (dynamic or
/// ragged lengths), whose rows past the end must read as zeros. Whole
/// blocks load Q's matrices from the buffer directly.
inline bool stagesQueries(const Attention &attention, int64_t queryBlock) {
  return ShapedType::isDynamic(attention.queryCount) ||
         attention.queryCount % queryBlock != 0;
}

/// Elements each row of staged Q, K and V takes in workgroup memory: the
/// head dimension padded by 16 bytes against bank conflicts.
inline int64_t getAttentionRowStride(const Attention &attention) {
  return attention.headDim +
         16 * 8 / getStorageType(attention.inputType).getIntOrFloatBitWidth();
}
/// Row strides of the per-subgroup scores (f32) and probabilities (input
/// type) of a key block: padded by 16 bytes against bank conflicts.
inline int64_t getAttentionScoreStride(int64_t keyBlock) {
  return keyBlock + 4;
}
inline int64_t getAttentionProbabilityStride(const Attention &attention,
                                             int64_t keyBlock) {
  return keyBlock +
         16 * 8 / getStorageType(attention.inputType).getIntOrFloatBitWidth();
}

/// The distance, in elements, between consecutive queries' elements of
/// The loop that result `i` of `map` (a score step's indexing map of one of
/// its other inputs) reads, or none for a constant zero: the index of a
/// size-1 dimension broadcast over the loops, as front-ends write a
/// [1, 1, queries, keys] mask (torch-mlir's `(b, h, i, j) -> (0, 0, i, j)`).
std::optional<unsigned> getScoreOperandLoop(AffineMap map, unsigned i);

/// The offset in its (flat) buffer of score operand `input` of `step` at
/// `position`, the program's (batch, query, key).
Value getScoreOperandOffset(OpBuilder &b, Location loc, linalg::GenericOp step,
                            OpOperand *input, ArrayRef<Value> position);

/// `input`, one of score step `step`'s other inputs (a mask), where the
/// step reads it at consecutive elements for consecutive keys: a matrix of
/// a block of scores then reads its elements of `input` as one load of that
/// stride. None where the step reads it otherwise (keys strided, one
/// element for every query, a dynamic shape).
std::optional<int64_t> getScoreOperandTileStride(linalg::GenericOp step,
                                                 OpOperand *input);

/// Whether the kernel may read every score step's other inputs as matrices
/// of the scores' shape (getScoreOperandTileStride), each input through one
/// indexing map, in blocks of `queryBlock` queries and `keyBlock` keys that
/// all lie inside the sequences, as result matrices `target` holds. The
/// softmax on result matrices then takes them as a map's inputs.
bool readsScoreOperandsAsMatrices(const Attention &attention, TargetAttr target,
                                  MatrixConfigAttr config, int64_t queryBlock,
                                  int64_t keyBlock);

/// Reads the attention whose softmax is `softmax`, if the program around it
/// is one this kernel computes; silent otherwise (the ops then get kernels
/// of their own).
std::optional<Attention> matchAttention(linalg::SoftmaxOp softmax);

/// Chooses the configuration, the softmax's form, the subgroups and the key
/// block, as `tiling` asks where it does; fails where the target has no
/// configuration for the products, `tiling` cannot be honoured, or no key
/// block fits the target's workgroup memory, reporting why on the first op
/// of the attention if `report`. Where the defaults fail, the attention's
/// ops become kernels of their own.
FailureOr<AttentionPlan> planAttention(const Attention &attention,
                                       TargetAttr target,
                                       const AttentionTiling &tiling,
                                       bool report);

/// Checks a complete plan (written by hand, or by an earlier run) as
/// planAttention checks the options; reports on the attention's first op.
LogicalResult checkAttentionPlan(const Attention &attention, TargetAttr target,
                                 const AttentionPlan &plan);

/// Writes the flash-attention kernel `name`, tiled by `plan`, into `kernels`
/// and replaces the attention's ops by its launch.
LogicalResult emitAttentionKernel(RewriterBase &rewriter,
                                  const Attention &attention, TargetAttr target,
                                  const AttentionPlan &plan,
                                  gpu::GPUModuleOp kernels, StringRef name);

/// A score through the attention's score steps (a scale, a mask) at
/// `position` (batch, query, key), built with `builder`: each step's body
/// cloned on `score`, its other inputs what `readOperand` gives for the
/// step, the input and its index among the attention's score operands, and
/// its linalg.index the position. Without `keepCausalSelect`, a causal mask's
/// final select is left out (the position is known to be below the
/// diagonal).
Value applyScoreStepsAt(
    OpBuilder &builder, Location loc, const Attention &attention, Value score,
    ArrayRef<Value> position,
    function_ref<Value(linalg::GenericOp step, OpOperand *input,
                       int64_t operandIndex)>
        readOperand,
    bool keepCausalSelect = true);

/// Erases the attention's ops, which its kernels' launches replaced, and
/// the buffers only they used.
void eraseAttentionOps(RewriterBase &rewriter, const Attention &attention);

} // namespace subgroup_matrix
} // namespace mlir

#endif // SUBGROUPMATRIX_CONVERSION_LINALGTOSUBGROUPMATRIX_ATTENTION_ATTENTION_H
