//===- DecodeAttention.h - attention with a few queries -----*- C++ -*-===//
//
// An attention with a few query rows per head (a decode step against a KV
// cache) is bound by reading K and V once: its keys are split over
// workgroups, each computing the softmax's running maximum, sum and
// weighted values of its run of keys, and a second kernel combines the
// runs (split-K flash decoding). `#subgroup_matrix.decode_attention_plan`
// records the split.
//
//===----------------------------------------------------------------------===//

#ifndef SUBGROUPMATRIX_CONVERSION_LINALGTOSUBGROUPMATRIX_ATTENTION_DECODEATTENTION_H
#define SUBGROUPMATRIX_CONVERSION_LINALGTOSUBGROUPMATRIX_ATTENTION_DECODEATTENTION_H

#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Attention/Attention.h"

#include <string>

namespace mlir {
namespace subgroup_matrix {

/// Query rows per head up to which an attention gets the decode kernels.
constexpr int64_t kDecodeAttentionMaxQueries = 4;

/// Keys in flight per invocation unless a plan says otherwise.
constexpr int64_t kDecodeAttentionKeysInFlight = 4;

/// What `#subgroup_matrix.decode_attention_plan` holds.
struct DecodeAttentionPlan {
  /// The runs of a head's keys: `keysPerWorkgroup` keys each, or `runs` of
  /// them sharing the keys (the other one zero).
  int64_t keysPerWorkgroup = 0, runs = 0;
  int64_t subgroups = 0;
  /// Keys each invocation reads before using them.
  int64_t keysInFlight = kDecodeAttentionKeysInFlight;

  DecodeAttentionPlanAttr getAttr(MLIRContext *context) const;
  static DecodeAttentionPlan get(DecodeAttentionPlanAttr attr);
};

/// How the decode kernels read a key's row: `vectorWidth` elements per
/// invocation, `lanesPerKey` invocations per key (a power of two dividing
/// the subgroup), so a subgroup reads `keysPerSubgroup` keys at once; and
/// how many consecutive query heads (batch indices) read the same key and
/// value rows (grouped-query attention) and share a workgroup, which reads
/// them once for all.
struct DecodeAttentionLayout {
  int64_t vectorWidth = 0, lanesPerKey = 0, keysPerSubgroup = 0;
  int64_t headsPerWorkgroup = 1;
};

/// Why `attention` cannot get the decode kernels on `target` (empty: it
/// can), the number of its queries aside.
std::string whyNotDecodeAttention(const Attention &attention,
                                  TargetAttr target);
/// The layout of a key's row among invocations (whyNotDecodeAttention
/// empty).
DecodeAttentionLayout getDecodeAttentionLayout(const Attention &attention,
                                               TargetAttr target);

/// The decode plan of `attention` where it has at most `maxQueries` query
/// rows (-1: kDecodeAttentionMaxQueries) and the kernels can compute it.
std::optional<DecodeAttentionPlan>
planDecodeAttention(const Attention &attention, TargetAttr target,
                    int64_t maxQueries = -1);

/// Checks a plan written by hand; reports on the attention's first op.
LogicalResult checkDecodeAttentionPlan(const Attention &attention,
                                       TargetAttr target,
                                       const DecodeAttentionPlan &plan);

/// Writes the two decode kernels (`name` and `name`_combine) into
/// `kernels` and replaces the attention's ops by their launches, the
/// partial results in buffers allocated between them.
LogicalResult
emitDecodeAttentionKernels(RewriterBase &rewriter, const Attention &attention,
                           TargetAttr target, const DecodeAttentionPlan &plan,
                           gpu::GPUModuleOp kernels, StringRef name);

} // namespace subgroup_matrix
} // namespace mlir

#endif // SUBGROUPMATRIX_CONVERSION_LINALGTOSUBGROUPMATRIX_ATTENTION_DECODEATTENTION_H
