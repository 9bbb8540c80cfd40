//===- DecodeAttentionPlan.cpp - splitting a decode step's keys -----------===//
//
// Whether an attention with a few queries gets the decode kernels
// (DecodeAttention.h), and how its keys are split.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Attention/DecodeAttention.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Planning/TilingPlan.h"

using namespace mlir;
using namespace mlir::subgroup_matrix;

/// Workgroups of the first kernel per compute unit that the planned runs
/// of keys aim at (measured: docs/performance.md, decode attention).
static constexpr int64_t kDecodeWorkgroupsPerUnit = 2;
/// The shortest planned run of keys.
static constexpr int64_t kDecodeMinKeysPerWorkgroup = 64;
/// The most keys an invocation reads at once (each holds a part of a key's
/// row and of a value's).
static constexpr int64_t kDecodeMaxKeysInFlight = 16;

DecodeAttentionPlanAttr
DecodeAttentionPlan::getAttr(MLIRContext *context) const {
  return DecodeAttentionPlanAttr::get(context, keysPerWorkgroup, subgroups,
                                      keysInFlight, runs);
}

DecodeAttentionPlan DecodeAttentionPlan::get(DecodeAttentionPlanAttr attr) {
  return {attr.getKeysPerWorkgroup(), attr.getRuns(), attr.getSubgroups(),
          attr.getKeysInFlight()};
}

DecodeAttentionLayout
mlir::subgroup_matrix::getDecodeAttentionLayout(const Attention &attention,
                                                TargetAttr target) {
  int64_t subgroupSize = target.getSubgroupSize();
  int64_t bits = getStorageType(attention.inputType).getIntOrFloatBitWidth();
  // 128 bits per read on Vulkan devices, whose lowering moves vectors;
  // elsewhere four elements, read one at a time.
  int64_t width = isVulkanDevice(target) ? 128 / bits : 4;
  while (width > 1 && attention.headDim % width)
    width /= 2;
  // At most a subgroup per key.
  while (subgroupSize && attention.headDim / width > subgroupSize &&
         attention.headDim % (width * 2) == 0)
    width *= 2;
  DecodeAttentionLayout layout;
  layout.vectorWidth = width;
  layout.lanesPerKey = attention.headDim / width;
  layout.keysPerSubgroup =
      layout.lanesPerKey ? subgroupSize / layout.lanesPerKey : 0;
  // Consecutive query heads whose K and V rows coincide: every batch term
  // of K and V divides the batch index by a multiple of their count. At
  // most eight query rows per workgroup (each keeps its running state in
  // registers).
  auto sharedBy = [](const AttentionOperand &operand, int64_t heads) {
    return llvm::all_of(operand.batchTerms,
                        [&](const AttentionOperand::BatchTerm &term) {
                          return term.divisor % heads == 0;
                        });
  };
  int64_t heads = 8;
  while (heads > 1 && (attention.batch % heads != 0 ||
                       heads * std::max<int64_t>(1, attention.queryCount) > 8 ||
                       !sharedBy(attention.keys, heads) ||
                       !sharedBy(attention.values, heads)))
    heads /= 2;
  layout.headsPerWorkgroup = heads;
  return layout;
}

std::string
mlir::subgroup_matrix::whyNotDecodeAttention(const Attention &attention,
                                             TargetAttr target) {
  if (!target.getSubgroupSize())
    return "the target has no subgroup size";
  if (ShapedType::isDynamic(attention.queryCount))
    return "its query count is dynamic (the decode kernels keep a state per "
           "query row in registers)";
  if (attention.keyCount == 0)
    return "it has no keys";
  if (!attention.inputType.isF16() && !attention.inputType.isF32())
    return "its Q, K and V are not f16 or f32";
  DecodeAttentionLayout layout = getDecodeAttentionLayout(attention, target);
  if (!llvm::isPowerOf2_64(layout.lanesPerKey) ||
      layout.lanesPerKey > target.getSubgroupSize())
    return "its head dimension is not a power of two times the elements an "
           "invocation reads, up to a subgroup";
  return "";
}

/// The workgroup memory the first kernel takes: each state (a subgroup's
/// key slot) keeps, per workgroup row, a maximum, a sum and the head's
/// weighted values, in f32.
static int64_t
getDecodeAttentionWorkgroupBytes(const Attention &attention,
                                 const DecodeAttentionLayout &layout,
                                 int64_t subgroups) {
  int64_t rows = layout.headsPerWorkgroup * attention.queryCount;
  return subgroups * layout.keysPerSubgroup * rows * (attention.headDim + 2) *
         4;
}

std::optional<DecodeAttentionPlan> mlir::subgroup_matrix::planDecodeAttention(
    const Attention &attention, TargetAttr target, int64_t maxQueries) {
  if (maxQueries < 0)
    maxQueries = kDecodeAttentionMaxQueries;
  if (ShapedType::isDynamic(attention.queryCount) ||
      attention.queryCount > maxQueries ||
      !whyNotDecodeAttention(attention, target).empty())
    return std::nullopt;
  // Four subgroups, and runs of keys as short as keep the workgroups at
  // most kDecodeWorkgroupsPerUnit per compute unit: longer runs leave units
  // idle, shorter ones add partials to combine and a workgroup's fixed
  // costs for no more reads in flight. (On the H100 and H200, 132 units:
  // runs of 128 keys at 4096 keys and 8 key-value heads, 1024 at 32768.)
  // A dynamic key count gets that many workgroups whatever the count: the
  // runs share the keys.
  DecodeAttentionPlan plan;
  plan.subgroups = 4;
  DecodeAttentionLayout layout = getDecodeAttentionLayout(attention, target);
  int64_t units = getPlannedComputeUnits(target);
  int64_t workgroupRows = attention.batch / layout.headsPerWorkgroup;
  if (ShapedType::isDynamic(attention.keyCount)) {
    plan.runs =
        std::max<int64_t>(1, kDecodeWorkgroupsPerUnit * units / workgroupRows);
  } else {
    plan.keysPerWorkgroup = kDecodeMinKeysPerWorkgroup;
    while (plan.keysPerWorkgroup < attention.keyCount &&
           workgroupRows *
                   llvm::divideCeil(attention.keyCount, plan.keysPerWorkgroup) >
               kDecodeWorkgroupsPerUnit * units)
      plan.keysPerWorkgroup *= 2;
  }
  while (plan.subgroups > 1 &&
         getDecodeAttentionWorkgroupBytes(attention, layout, plan.subgroups) >
             target.getWorkgroupMemoryLimit())
    plan.subgroups /= 2;
  if (getDecodeAttentionWorkgroupBytes(attention, layout, plan.subgroups) >
      target.getWorkgroupMemoryLimit())
    return std::nullopt;
  return plan;
}

LogicalResult mlir::subgroup_matrix::checkDecodeAttentionPlan(
    const Attention &attention, TargetAttr target,
    const DecodeAttentionPlan &plan) {
  Operation *op = attention.ops.front();
  std::string why = whyNotDecodeAttention(attention, target);
  if (!why.empty())
    return op->emitOpError() << "cannot get the decode attention kernels of "
                                "its plan: "
                             << why;
  if ((plan.keysPerWorkgroup > 0) == (plan.runs > 0) ||
      plan.keysPerWorkgroup < 0 || plan.runs < 0)
    return op->emitOpError()
           << "cannot get the decode attention kernels of its plan: it must "
              "give one of keys_per_workgroup and runs, positive";
  if (plan.keysPerWorkgroup && ShapedType::isDynamic(attention.keyCount))
    return op->emitOpError()
           << "cannot get the decode attention kernels of its plan: its key "
              "count is dynamic, so the plan must give runs, not "
              "keys_per_workgroup";
  if (plan.subgroups < 1 || plan.subgroups * target.getSubgroupSize() > 1024)
    return op->emitOpError()
           << "cannot get the decode attention kernels of its plan: "
              "subgroups must be from 1 to "
           << 1024 / target.getSubgroupSize();
  if (plan.keysInFlight < 1 || plan.keysInFlight > kDecodeMaxKeysInFlight)
    return op->emitOpError()
           << "cannot get the decode attention kernels of its plan: "
              "keys_in_flight must be from 1 to "
           << kDecodeMaxKeysInFlight;
  int64_t bytes = getDecodeAttentionWorkgroupBytes(
      attention, getDecodeAttentionLayout(attention, target), plan.subgroups);
  if (bytes > target.getWorkgroupMemoryLimit())
    return op->emitOpError()
           << "cannot get the decode attention kernels of its plan: its "
           << plan.subgroups << " subgroups would keep " << bytes
           << " bytes of states in workgroup memory, more than the target's "
           << target.getWorkgroupMemoryLimit();
  return success();
}
