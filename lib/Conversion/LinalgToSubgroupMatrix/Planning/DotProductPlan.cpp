//===- DotProductPlan.cpp - when and how products take dot products -------===//
//
// Products with a few rows read every element of B once and multiply it by
// only a few elements of A: their speed is the rate at which B is read. A
// tiled product stages B through workgroup memory into matrices that are
// mostly padding, and splits K into parts added by a second kernel; the dot
// products read B straight into registers, in one launch.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Planning/DotProductPlan.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Planning/TilingPlan.h"
#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::subgroup_matrix;

/// The most rows a product takes dot products for by default. Above it the
/// tiled product's matrix units win: each element of B read is multiplied
/// by M elements of A, which the dot products do one at a time. On the H100
/// at 4096 x 14336 (docs/performance.md, us, dot products against the tiled
/// product): f16 45.1 / 53.6 at one row, 49.6 / 53.6 at two, 69.8 / 53.5 at
/// four, 123.3 / 54.1 at eight; int8 in groups of 32 43.9 / 58.5 at two,
/// 58.1 / 58.7 at four; int4 40.5 / 43.1 at two, 67.3 / 43.1 at four.
constexpr int64_t kDotProductMaxRows = 2;

/// The most elements of K an invocation reads at once.
constexpr int64_t kMaxDotProductVectorWidth = 64;

DotProductPlanAttr DotProductPlan::getAttr(MLIRContext *context) const {
  return DotProductPlanAttr::get(context, subgroups, columns, vectorWidth,
                                 unroll);
}

DotProductPlan DotProductPlan::get(DotProductPlanAttr attr) {
  return {attr.getSubgroups(), attr.getColumns(), attr.getVectorWidth(),
          attr.getUnroll()};
}

/// Whether `type` is an element type the dot products take: f16, bf16, f32
/// and integers of at most 32 bits.
static bool isDotProductElement(Type type) {
  if (auto integer = dyn_cast<IntegerType>(type))
    return integer.getWidth() <= 32;
  return type.isF16() || type.isBF16() || type.isF32();
}

std::string
mlir::subgroup_matrix::whyNotDotProducts(const Contraction &contraction) {
  if (contraction.hasDynamicM())
    return "M is known only at run time";
  if (contraction.batch != 1 || contraction.reducesBatch)
    return "it has a batch";
  if (contraction.a.transposed)
    return "A is stored K x M";
  if (!contraction.b.transposed)
    return "B is stored K x N (the dot products read B stored N x K, as a "
           "linear layer's weight is)";
  if (contraction.a.gathers)
    return "A is computed by a gathering prologue";
  if (!isDotProductElement(contraction.inputComponent) ||
      !isDotProductElement(contraction.resultComponent) ||
      isa<FloatType>(contraction.inputComponent) !=
          isa<FloatType>(contraction.resultComponent))
    return "its element types are not f16, bf16, f32 or integers";
  Type storage = getStorageType(contraction.inputComponent);
  for (const ContractionInput *input : {&contraction.a, &contraction.b}) {
    if (input->gathers)
      continue;
    if (cast<MemRefType>(input->buffer.getType()).getElementType() != storage)
      return "an input is stored in another type than it is multiplied in";
  }
  if (contraction.b.gathers &&
      llvm::any_of(contraction.b.gatherMaps,
                   [](AffineMap map) { return map.getNumDims() != 2; }))
    return "B's prologue reads its inputs with a batch";
  return "";
}

/// Bits of storage per element of B: its element's, or where a gathering
/// prologue computes B, its first input's divided by the elements of a row
/// that share one of them (two 4-bit values packed in a byte along K).
static int64_t getStoredBitsPerElement(const Contraction &contraction) {
  Type storage = getStorageType(contraction.inputComponent);
  if (!contraction.b.gathers)
    return storage.getIntOrFloatBitWidth();
  int64_t bits = cast<MemRefType>(contraction.b.buffer.getType())
                     .getElementType()
                     .getIntOrFloatBitWidth();
  int64_t sharing = 1;
  for (AffineExpr expr : contraction.b.gatherMaps.front().getResults()) {
    auto binary = dyn_cast<AffineBinaryOpExpr>(expr);
    auto column = binary ? dyn_cast<AffineDimExpr>(binary.getLHS()) : nullptr;
    auto divisor =
        binary ? dyn_cast<AffineConstantExpr>(binary.getRHS()) : nullptr;
    if (binary && binary.getKind() == AffineExprKind::FloorDiv && column &&
        column.getPosition() == 1 && divisor && divisor.getValue() > 0)
      sharing = divisor.getValue();
  }
  return std::max<int64_t>(1, bits / sharing);
}

std::optional<DotProductPlan>
mlir::subgroup_matrix::planDotProducts(const Contraction &contraction,
                                       TargetAttr target, int64_t maxRows) {
  if (maxRows < 0)
    maxRows = kDotProductMaxRows;
  if (!target.getSubgroupSize() || contraction.hasDynamicM() ||
      contraction.m > maxRows || !whyNotDotProducts(contraction).empty())
    return std::nullopt;
  DotProductPlan plan;
  // A column per subgroup, eight subgroups per workgroup, two reads in
  // flight per invocation: on the H100 at 1x4096x14336 (bench/runtime,
  // weights in the L2) f16 45.1 us, int8 in groups of 32 31.7, int4 26.0,
  // against 50.1, 43.0 and 26.2 with two columns per subgroup and four
  // subgroups, and 45.1, 32.3 and 35.3 with four reads in flight.
  plan.subgroups = 8;
  plan.columns = 1;
  plan.unroll = 2;
  // 128 bits of B per read on Vulkan devices, whose lowering moves vectors;
  // elsewhere a few elements, read one at a time.
  plan.vectorWidth =
      isVulkanDevice(target)
          ? std::min(kMaxDotProductVectorWidth,
                     std::max<int64_t>(
                         1, 128 / getStoredBitsPerElement(contraction)))
          : 4;
  if (contraction.hasDynamicK())
    plan.vectorWidth = 1;
  while (contraction.k % plan.vectorWidth)
    plan.vectorWidth /= 2;
  // Where a read of B holds 32 elements or more (nibbles), converting A's
  // elements costs as much as dequantizing B's, so each read of A serves two
  // columns: int4 19.8 us against 22.5 with one (two bytes dequantized at
  // once, PairedDequantization.cpp), 23.8 with four columns; int8 is slower
  // with two (39.9 against 29.6).
  if (plan.vectorWidth >= 32) {
    plan.subgroups = 4;
    plan.columns = 2;
  }
  return plan;
}

LogicalResult
mlir::subgroup_matrix::checkDotProductPlan(const Contraction &contraction,
                                           TargetAttr target,
                                           const DotProductPlan &plan) {
  Operation *op = contraction.op;
  std::string why = whyNotDotProducts(contraction);
  if (!why.empty())
    return op->emitOpError()
               << "cannot take the dot products of its plan: " << why,
           failure();
  int64_t threads = plan.subgroups * target.getSubgroupSize();
  if (plan.subgroups < 1 || plan.columns < 1 || plan.unroll < 1 ||
      plan.vectorWidth < 1 || plan.vectorWidth > kMaxDotProductVectorWidth ||
      threads > 1024)
    return op->emitOpError()
               << "cannot take the dot products of its plan: subgroups, "
                  "columns and unroll must be positive, vector_width from 1 "
                  "to "
               << kMaxDotProductVectorWidth
               << ", and a workgroup at most 1024 invocations (" << threads
               << ")",
           failure();
  if (contraction.hasDynamicK() ? plan.vectorWidth != 1
                                : contraction.k % plan.vectorWidth != 0)
    return op->emitOpError() << "cannot take the dot products of its plan: "
                                "vector_width = "
                             << plan.vectorWidth << " does not divide K ("
                             << (contraction.hasDynamicK()
                                     ? std::string("known only at run time")
                                     : std::to_string(contraction.k))
                             << ")",
           failure();
  return success();
}
