//===- AttentionPlan.cpp - how an attention kernel is tiled ---------------===//
//
// The second step from linalg to an attention kernel: the matrix
// configuration, the subgroups, the key block and where the online softmax
// runs, from the options and the target's workgroup memory.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Attention/Attention.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Planning/TilingPlan.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::subgroup_matrix;

/// A configuration for the products whose result matrices are as wide as a
/// left matrix is deep (P becomes the left operand of P V), as high as
/// `tiling.subgroupRows` where that is given; null if none. Heights above the
/// target's configurations are flexible-dimension matrices of one of its
/// granularities, which VK_NV_cooperative_matrix2 lowers as one matrix: a
/// subgroup of 32 queries reads each K and V matrix from workgroup memory once
/// for both halves. Only asked for: on the H200 (driver 580.159.04,
/// docs/performance.md) 32 rows ran at 145.7 TFLOP/s against 205.0 for 16, the
/// default.
static MatrixConfigAttr chooseAttentionConfig(const Attention &attention,
                                              TargetAttr target,
                                              const AttentionTiling &tiling) {
  MatrixConfigAttr config;
  Type f32 = Float32Type::get(target.getContext());
  auto fits = [&](MatrixConfigAttr candidate) {
    return candidate.getComponentType() == attention.inputType &&
           candidate.getResultType() == f32 &&
           candidate.getN() == candidate.getK() && candidate.getN() <= 16 &&
           64 % candidate.getN() == 0 &&
           attention.headDim % candidate.getN() == 0;
  };
  for (MatrixConfigAttr candidate : target.getConfigs())
    if (fits(candidate) && candidate.getM() <= 16 &&
        (!tiling.subgroupRows || candidate.getM() == tiling.subgroupRows) &&
        (!config ||
         candidate.getM() * candidate.getN() > config.getM() * config.getN()))
      config = candidate;
  if (config || !tiling.subgroupRows || !tiling.nvCooperativeMatrix2 ||
      !bitEnumContainsAll(target.getCoopmat2Features(),
                          CooperativeMatrix2Feature::FlexibleDimensions))
    return config;
  for (MatrixConfigAttr granularity : target.getFlexibleGranularities())
    if (!granularity.getWorkgroupInvocations() && fits(granularity) &&
        tiling.subgroupRows % granularity.getM() == 0 &&
        tiling.subgroupRows <= target.getFlexibleMaxDimension() &&
        (!config || granularity.getN() > config.getN()))
      config = MatrixConfigAttr::get(target.getContext(), tiling.subgroupRows,
                                     granularity.getN(), granularity.getK(),
                                     granularity.getComponentType(), f32);
  return config;
}

FailureOr<AttentionPlan> mlir::subgroup_matrix::planAttention(
    const Attention &attention, TargetAttr target,
    const AttentionTiling &tiling, bool report) {
  Operation *anchor = attention.ops.front();
  AttentionPlan plan;
  if (tiling.subgroupRows < 0) {
    if (report)
      anchor->emitOpError() << "cannot become an attention kernel: "
                               "attention-subgroup-rows must not be negative";
    return failure();
  }
  plan.config = chooseAttentionConfig(attention, target, tiling);
  if (!plan.config) {
    if (report) {
      InFlightDiagnostic diagnostic = anchor->emitOpError();
      diagnostic << "cannot become an attention kernel for target '"
                 << (target.getName() ? target.getName().getValue() : "custom")
                 << "': it has no " << attention.inputType << " -> f32 ";
      if (tiling.subgroupRows)
        diagnostic << "configuration " << tiling.subgroupRows
                   << " rows high (or flexible dimensions of a granularity "
                      "dividing it, with nv-coopmat2)";
      else
        diagnostic << "configuration";
      diagnostic << " with N = K dividing 64 and the head dimension "
                 << attention.headDim << "; it supports "
                 << target.describeConfigs();
    }
    return failure();
  }
  auto fail = [&](const std::string &problem) -> FailureOr<AttentionPlan> {
    if (report)
      anchor->emitOpError() << "cannot become an attention kernel: " << problem;
    return failure();
  };
  MatrixConfigAttr config = plan.config;
  int64_t fm = config.getM(), fn = config.getN(), fk = config.getK();
  int64_t headDim = attention.headDim;
  int64_t subgroupSize = target.getSubgroupSize();
  Type inputStorage = getStorageType(attention.inputType);
  bool vulkan = isVulkanDevice(target);
  int64_t elementBytes = inputStorage.getIntOrFloatBitWidth() / 8;
  int64_t stride = getAttentionRowStride(attention);
  int64_t limit = target.getWorkgroupMemoryLimit();

  // VK_NV_cooperative_matrix2 reduces rows, maps with positions and turns
  // P into a left matrix in registers (sm-use-nv-cooperative-matrix2); with
  // SPV_KHR_cooperative_matrix alone each of those is a round trip through
  // workgroup memory.
  bool coopmat2Softmax =
      tiling.nvCooperativeMatrix2 &&
      bitEnumContainsAll(target.getCoopmat2Features(),
                         CooperativeMatrix2Feature::Reductions |
                             CooperativeMatrix2Feature::PerElementOperations |
                             CooperativeMatrix2Feature::Conversions);
  // On Vulkan a workgroup of 8 subgroups (128 queries at 16 per matrix)
  // shares each staged K and V block between twice the queries of 4, where
  // every block of its queries is whole (Q then loads from its buffer and
  // takes no workgroup memory); at head dimension 64 (half the registers
  // per subgroup for Q and O) 16 subgroups. Measured on an H200
  // (docs/performance.md, 32 heads x 4096 x 4096, cooperative matrix 2):
  // at head dimension 128, 193.5 TFLOP/s against 121.7 with 4, causal
  // (softmax in registers) 155.1 against 102.0, KHR only 119.2 against
  // 106.5; at 64, 166.1 with 16 against 144.5 with 8 and 153.0 with 4.
  int64_t wideSubgroups = 0;
  if (vulkan)
    for (int64_t candidate :
         {headDim <= 64 ? int64_t(16) : int64_t(8), int64_t(8)})
      if (!stagesQueries(attention, candidate * fm)) {
        wideSubgroups = candidate;
        break;
      }
  bool wide = wideSubgroups != 0;
  // With cooperative matrix 2 the softmax in registers is faster (119
  // TFLOP/s against 106 in workgroup memory at 4 subgroups), but a causal
  // one only at 8 subgroups (87 against 100 at 4).
  bool registerSoftmax =
      !vulkan || (coopmat2Softmax && (!attention.causal || wide));
  // Elsewhere the softmax goes through workgroup memory where the matrices
  // are opaque, if the rows of a subgroup's scores split evenly over its
  // invocations.
  bool rowsSplit = subgroupSize % fm == 0 && fn % (subgroupSize / fm) == 0;
  // Score steps that read other tensors (a mask) need the scalar form (a
  // map's body does not read memory), unless those are read as matrices of
  // the scores' shape, in whole blocks of queries and keys: then the
  // softmax on matrices takes them as the map's inputs.
  int64_t plannedSubgroups =
      tiling.subgroups ? tiling.subgroups : (wide ? wideSubgroups : 4);
  int64_t plannedKeyBlock = tiling.keyBlock ? tiling.keyBlock : 64;
  bool readsTensors =
      !attention.scoreOperands.empty() &&
      !readsScoreOperandsAsMatrices(attention, target, config,
                                    plannedSubgroups * fm, plannedKeyBlock);
  switch (tiling.softmax) {
  case AttentionTiling::Softmax::Default:
    if (readsTensors && !rowsSplit)
      return fail(
          llvm::formatv("its score steps read other tensors, which needs "
                        "the softmax in workgroup memory, and the {0} "
                        "rows of a subgroup's scores do not split over "
                        "its {1} invocations",
                        fm, subgroupSize)
              .str());
    plan.softmaxInWorkgroupMemory =
        (!registerSoftmax || readsTensors) && rowsSplit;
    break;
  case AttentionTiling::Softmax::Registers:
    if (readsTensors)
      return fail("its score steps read other tensors (a mask) other than "
                  "as matrices in whole blocks of queries and keys: the "
                  "softmax on result matrices cannot (a map does not "
                  "read memory); use attention-softmax=workgroup-memory");
    plan.softmaxInWorkgroupMemory = false;
    break;
  case AttentionTiling::Softmax::WorkgroupMemory:
    if (!rowsSplit)
      return fail(
          llvm::formatv("a softmax in workgroup memory splits each of the "
                        "{0} rows of a subgroup's scores over {1} / {0} "
                        "invocations, which does not divide the matrix "
                        "width {2}",
                        fm, subgroupSize, fn)
              .str());
    plan.softmaxInWorkgroupMemory = true;
    break;
  }
  if (tiling.subgroups < 0 || tiling.keyBlock < 0)
    return fail("attention-subgroups and attention-key-block must not "
                "be negative");
  plan.subgroups =
      tiling.subgroups ? tiling.subgroups : (wide ? wideSubgroups : 4);
  if (tiling.keyBlock &&
      (tiling.keyBlock % fn != 0 || tiling.keyBlock % fk != 0))
    return fail(
        llvm::formatv("a key block of {0} is not a multiple of the matrix "
                      "width {1} and depth {2}",
                      tiling.keyBlock, fn, fk)
            .str());

  int64_t queryBlock = plan.getQueryBlock();
  auto sharedBytesFor = [&](int64_t block) {
    int64_t rows = stagesQueries(attention, queryBlock)
                       ? std::max(queryBlock, block)
                       : block;
    if (plan.softmaxInWorkgroupMemory) {
      // V follows K through one buffer. Per subgroup: its scores (f32),
      // its probabilities (input type), and a matrix of per-row factors
      // (f32).
      int64_t perSubgroup =
          fm * (getAttentionScoreStride(block) * 4 +
                getAttentionProbabilityStride(attention, block) * elementBytes +
                fn * 4);
      return rows * stride * elementBytes + plan.subgroups * perSubgroup;
    }
    // On Vulkan without cooperative matrix 2, maps and reductions of result
    // matrices go through workgroup memory too (sm-lower-to-vulkan adds
    // three f32 tiles and one of the inputs per subgroup here): that is
    // reserved.
    int64_t expansionBytes =
        !vulkan || coopmat2Softmax
            ? 0
            : (3 * 4 + elementBytes) * plan.subgroups * fm * fn;
    return (rows + block) * stride * elementBytes +
           plan.subgroups * fm * fn * 4 + expansionBytes;
  };
  auto chooseKeyBlock = [&] {
    plan.keyBlock = tiling.keyBlock ? tiling.keyBlock : 64;
    while (!tiling.keyBlock && plan.keyBlock > fn &&
           plan.keyBlock / 2 % fn == 0 && sharedBytesFor(plan.keyBlock) > limit)
      plan.keyBlock /= 2;
  };
  chooseKeyBlock();
  // A wide workgroup that does not fit halves, down to 4 subgroups.
  while (!tiling.subgroups && plan.subgroups > 4 &&
         sharedBytesFor(plan.keyBlock) > limit) {
    plan.subgroups /= 2;
    chooseKeyBlock();
  }
  if (sharedBytesFor(plan.keyBlock) > limit)
    return fail(
        llvm::formatv("head dimension {0} with {1} subgroups of {2} "
                      "queries and {3} keys per step needs {4} bytes of "
                      "workgroup memory, more than the {5} a kernel may "
                      "use",
                      headDim, plan.subgroups, fm, plan.keyBlock,
                      sharedBytesFor(plan.keyBlock), limit)
            .str());
  // Halving the subgroups or the key block keeps whole blocks whole.
  if (!plan.softmaxInWorkgroupMemory && !attention.scoreOperands.empty() &&
      !readsScoreOperandsAsMatrices(attention, target, config,
                                    plan.getQueryBlock(), plan.keyBlock))
    return fail(llvm::formatv("with the softmax on result matrices its mask "
                              "is read in blocks of {0} queries and {1} "
                              "keys, which must lie inside the sequences",
                              plan.getQueryBlock(), plan.keyBlock)
                    .str());
  return plan;
}

LogicalResult mlir::subgroup_matrix::checkAttentionPlan(
    const Attention &attention, TargetAttr target, const AttentionPlan &plan) {
  // Planned with every choice given, a plan comes back as it is, or the
  // reason it does not fit is reported.
  AttentionTiling given;
  given.subgroups = plan.subgroups;
  given.subgroupRows = plan.config.getM();
  given.keyBlock = plan.keyBlock;
  given.softmax = plan.softmaxInWorkgroupMemory
                      ? AttentionTiling::Softmax::WorkgroupMemory
                      : AttentionTiling::Softmax::Registers;
  FailureOr<AttentionPlan> replanned =
      planAttention(attention, target, given, /*report=*/true);
  if (failed(replanned))
    return failure();
  if (replanned->config != plan.config)
    return attention.ops.front()->emitOpError()
               << "cannot become an attention kernel by its plan: the "
                  "configuration "
               << plan.config << " is not the target's for it ("
               << replanned->config << ")",
           failure();
  return success();
}

AttentionPlanAttr AttentionPlan::getAttr() const {
  return AttentionPlanAttr::get(config.getContext(), config, subgroups,
                                keyBlock, softmaxInWorkgroupMemory);
}

AttentionPlan AttentionPlan::get(AttentionPlanAttr attr) {
  AttentionPlan plan;
  plan.config = attr.getConfig();
  plan.subgroups = attr.getSubgroups();
  plan.keyBlock = attr.getKeyBlock();
  plan.softmaxInWorkgroupMemory = attr.getSoftmaxInWorkgroupMemory();
  return plan;
}
