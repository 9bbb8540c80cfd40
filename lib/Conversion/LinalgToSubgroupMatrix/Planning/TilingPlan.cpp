//===- TilingPlan.cpp - how a contraction is tiled ------------------------===//

#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Planning/TilingPlan.h"

#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Planning/KernelLayout.h"
#include "SubgroupMatrix/Conversion/LinalgToSubgroupMatrix/Planning/TuningTable.h"
#include "SubgroupMatrix/IR/TargetPresets.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <numeric>

using namespace mlir;
using namespace mlir::subgroup_matrix;

namespace {
/// The family of the device a target describes (its `vendor`), whose
/// measured tiling defaults apply; other vendors get the generic defaults.
enum class DeviceFamily { Nvidia, Amd, Lavapipe, Other };
} // namespace

static DeviceFamily getDeviceFamily(TargetAttr target) {
  switch (target.getVendor()) {
  case Vendor::Nvidia:
    return DeviceFamily::Nvidia;
  case Vendor::Amd:
    return DeviceFamily::Amd;
  case Vendor::Mesa:
    // Mesa's lavapipe with its KHR matrices (cpu-lavapipe-coopmat, or the
    // target --list-coopmat prints for it); cpu-lavapipe emulates them all.
    return target.getEmulated() ? DeviceFamily::Other : DeviceFamily::Lavapipe;
  default:
    return DeviceFamily::Other;
  }
}

bool mlir::subgroup_matrix::transposingCopyFits(int64_t bColumns, int64_t tileK,
                                                int64_t tileN,
                                                int64_t padding) {
  return !ShapedType::isDynamic(bColumns) &&
         bColumns % kTransposedBlockColumns == 0 &&
         tileN % kTransposedBlockColumns == 0 &&
         tileK % kTransposedBlockRows == 0 &&
         (tileK + padding) % kTransposedBlockRows == 0;
}

bool mlir::subgroup_matrix::isVulkanDevice(TargetAttr target) {
  DeviceFamily family = getDeviceFamily(target);
  return family == DeviceFamily::Nvidia || family == DeviceFamily::Amd ||
         family == DeviceFamily::Lavapipe;
}

int64_t mlir::subgroup_matrix::getPlannedComputeUnits(TargetAttr target) {
  return target.getComputeUnits() ? target.getComputeUnits() : 16;
}

bool mlir::subgroup_matrix::isEmulatedConfig(MatrixConfigAttr config,
                                             TargetAttr target) {
  return target.getEmulated() ||
         !llvm::is_contained(target.getConfigs(), config);
}

/// Whether `configs` has one of `input` into `result` elements.
static bool hasConfigFor(ArrayRef<MatrixConfigAttr> configs, Type input,
                         Type result) {
  return llvm::any_of(configs, [&](MatrixConfigAttr config) {
    return config.getComponentType() == input &&
           config.getResultType() == result;
  });
}

std::optional<ProductForm>
mlir::subgroup_matrix::chooseProductForm(Type input, Type result,
                                         TargetAttr target) {
  bool emulatable =
      hasConfigFor(getEmulationTarget(target).getConfigs(), input, result);
  if (target.getEmulated())
    return emulatable ? std::optional(ProductForm::Emulated) : std::nullopt;
  if (hasConfigFor(target.getConfigs(), input, result))
    return ProductForm::Native;
  Type f32 = Float32Type::get(target.getContext());
  if (isa<Float16Type, BFloat16Type>(input) && result == f32 &&
      hasConfigFor(target.getConfigs(), f32, f32))
    return ProductForm::Widened;
  if (emulatable)
    return ProductForm::Emulated;
  return std::nullopt;
}

/// The largest of `configs` for the problem's types that is at most
/// 16 x 16 (the first listed among equals): larger matrices take
/// registers that a block of several matrices per subgroup uses better.
static MatrixConfigAttr chooseAmong(ArrayRef<MatrixConfigAttr> configs,
                                    const Contraction &problem) {
  MatrixConfigAttr best;
  auto volume = [](MatrixConfigAttr config) {
    return int64_t(config.getM()) * config.getN() * config.getK();
  };
  for (MatrixConfigAttr config : configs)
    if (config.getComponentType() == problem.inputComponent &&
        config.getResultType() == problem.resultComponent &&
        config.getM() <= 16 && config.getN() <= 16 &&
        (!best || volume(config) > volume(best)))
      best = config;
  return best;
}

/// The configuration of the problem's product in the form chooseProductForm
/// picks: the target's, or its emulation's (exact, in ordinary arithmetic:
/// f32 products by the precision policy, docs/Precision.md; si32 and the
/// integer products the device's matrix units lack). A widened product has
/// its operands converted by sm-apply-precision-policy before it is
/// planned.
static FailureOr<MatrixConfigAttr>
chooseConfig(Operation *matmul, const Contraction &problem, TargetAttr target) {
  std::string targetName =
      target.getName() ? target.getName().str() : std::string("custom");
  std::optional<ProductForm> form = chooseProductForm(
      problem.inputComponent, problem.resultComponent, target);
  if (form == ProductForm::Native)
    if (MatrixConfigAttr best = chooseAmong(target.getConfigs(), problem))
      return best;
  if (form == ProductForm::Emulated)
    if (MatrixConfigAttr emulated =
            chooseAmong(getEmulationTarget(target).getConfigs(), problem))
      return emulated;
  if (form == ProductForm::Widened)
    return matmul->emitOpError()
               << "cannot be tiled for target '" << targetName
               << "' as it is: the target multiplies " << problem.inputComponent
               << " in f32 matrices, with the operands widened as they are "
                  "staged; sm-apply-precision-policy (a stage of "
                  "sm-linalg-to-gpu) widens them",
           failure();
  return matmul->emitOpError()
             << "cannot be tiled for target '" << targetName
             << "': it has no matrix configuration for "
             << problem.inputComponent << " -> " << problem.resultComponent
             << "; it supports " << target.describeConfigs(),
         failure();
}

/// Fills the defaults of `requested` for `config` on `target`.
static MatmulTiling fillTilingDefaults(const Contraction &problem,
                                       MatrixConfigAttr config,
                                       TargetAttr target,
                                       MatmulTiling requested) {
  MatmulTiling tiling = requested;
  int64_t elementBytes =
      getStorageType(problem.inputComponent).getIntOrFloatBitWidth() / 8;
  // The Vulkan devices (whose lowering turns 16-byte copies into 128-bit
  // accesses).
  DeviceFamily family = getDeviceFamily(target);
  bool amd = family == DeviceFamily::Amd;
  bool vulkan = isVulkanDevice(target);
  // Per subgroup, a block of result matrices. The H100 runs fastest with
  // 4 x 4 (64 x 64 of C with 16 x 16 matrices) in 2 x 2 subgroups. On RDNA3
  // that block needs more than the 256 VGPRs a lane has (RADV reports 138
  // spilled for f16 -> f32), so the AMD target takes 2 x 2 blocks in 4 x 4
  // subgroups (144 VGPRs, none spilled; not measured on hardware). Elsewhere
  // 2 x 2 blocks in 2 x 2 subgroups: on lavapipe's 8 x 8 matrices too, where
  // the CPU driver compiles each matrix operation into its own loops.
  int64_t blockM = vulkan && !amd && family != DeviceFamily::Lavapipe ? 4 : 2,
          blockN = blockM;
  // Emulated matrices are unrolled into scalar code: one matrix per subgroup
  // and one matrix deep per step keep a kernel small enough for a CPU
  // driver to compile in seconds (lavapipe takes 35 s for the 2 x 2 blocks
  // two matrices deep that it takes 4 s for here).
  // The RDNA3 register budget that asks for 4 x 4 subgroups there is the
  // matrix units'; emulated kernels keep 2 x 2, whose copies the
  // invocations share evenly at one matrix deep.
  bool emulated = isEmulatedConfig(config, target);
  if (emulated)
    blockM = blockN = 1;
  // On a GPU with matrix units an emulated kernel reads its operands in
  // place from workgroup memory (findOperandsReadInPlace, with the default
  // workgroup exchange; `emulated-exchange=subgroup` shuffles them instead
  // and was not measured with these blocks), and a block of
  // 2 x 4 matrices per subgroup (64 x 128 tiles) shares each read among
  // four or eight multiply-adds. On the H100, f32 -> f32 with the next step
  // prefetched: 1024x768x768 49.7 us, 1024x3072x768 125.7 us (38 TFLOP/s)
  // against 72.1 and 263.1 us with one matrix per subgroup, 167 registers
  // (docs/performance.md). Only Vulkan was measured so: Metal and Intel
  // keep one matrix per subgroup, whose unrolled code a compiler takes in
  // seconds (2 x 4 made 870 KB of MSL for one int8 GEMM, 25 s to compile
  // on the host).
  bool emulatedOnMatrixUnits = emulated && !target.getEmulated();
  if (emulatedOnMatrixUnits && vulkan) {
    blockM = 2;
    blockN = 4;
  }
  int64_t subgroups = amd && !emulated ? 4 : 2;
  if (!tiling.subgroupsM)
    tiling.subgroupsM = subgroups;
  if (!tiling.subgroupsN)
    tiling.subgroupsN = subgroups;
  // Small M (a decode step: M = 1..16 rows, static) is bound by reading B:
  // one result matrix per subgroup, four subgroups along N and deep K
  // steps, so that many workgroups stream B at once. On the H100 at
  // 16x4096x4096 f16 -> f32: 20.3 us against 51.2 us for the square
  // tiling's 16 workgroups (cuBLAS: 26.0 us); 1x4096x4096: 21.7 us against
  // 56.5 us (cuBLAS: 22.5 us).
  bool smallM = !problem.hasDynamicM() && problem.m <= config.getM() &&
                !requested.tileM && !requested.subgroupsM;
  if (smallM) {
    blockM = blockN = 1;
    tiling.subgroupsM = 1;
    if (!requested.subgroupsN)
      tiling.subgroupsN = 4;
  }
  if (!tiling.tileM)
    tiling.tileM = tiling.subgroupsM * blockM * config.getM();
  if (!tiling.tileN)
    tiling.tileN = tiling.subgroupsN * blockN * config.getN();
  // An emulated kernel on a GPU with matrix units copies 16 bytes at a
  // time: a step 64 bytes deep gives every invocation a copy.
  if (!tiling.tileK)
    tiling.tileK =
        target.getEmulated() ? config.getK()
        : emulated ? std::max<int64_t>(config.getK(), 64 / elementBytes)
                   : std::max<int64_t>(2 * config.getK(), 64 / elementBytes);
  if (tiling.padding < 0)
    tiling.padding = 16 / elementBytes;
  // On the H100, one buffer measured faster than two (268.7 against 165.1
  // TFLOP/s at 4096^3 f16 -> f32, both at 236 registers per invocation).
  if (!tiling.stages)
    tiling.stages = vulkan || emulated ? 1 : 2;
  if (tiling.prefetch < 0)
    tiling.prefetch = tiling.stages == 2 || emulatedOnMatrixUnits ? 1 : 0;
  if (tiling.preloadC < 0)
    tiling.preloadC = 0;
  // An 8-bit B given K x N is transposed as it is staged on the H100, where
  // it reaches the rate of a B given N x K: 4096^3 s8 -> s32 at the default
  // tiling 379 us against 489, and 332 us (414 TOP/s) against 419 at the
  // tuning table's 256x128 tiles. Decode shapes (small M) stream B with
  // wide copies instead, and a copy that does not split into whole blocks
  // is staged as it is.
  if (tiling.stageBTransposed < 0) {
    int64_t threads =
        tiling.subgroupsM * tiling.subgroupsN * target.getSubgroupSize();
    int64_t blocks = tiling.tileK / kTransposedBlockRows *
                     (tiling.tileN / kTransposedBlockColumns);
    tiling.stageBTransposed =
        getDeviceFamily(target) == DeviceFamily::Nvidia && elementBytes == 1 &&
                !problem.b.transposed && !problem.b.gathers && !smallM &&
                transposingCopyFits(problem.n, tiling.tileK, tiling.tileN,
                                    tiling.padding) &&
                threads > 0 && blocks % threads == 0
            ? 1
            : 0;
  }
  // 16-byte copies, but no wider than a matrix's row in the copies'
  // buffers: the matrices load from them at multiples of K and N, which
  // the copies' words must not straddle (8-bit 8x8x8 on lavapipe: 8 bytes).
  if (!tiling.vectorWidth)
    tiling.vectorWidth =
        vulkan ? std::min<int64_t>(16 / elementBytes,
                                   std::gcd(config.getK(), config.getN()))
               : 1;
  // Groups of 8 tile rows: 273.7 against 268.7 TFLOP/s at 4096^3 and 292.9
  // against 284.6 at 8192^3 on the H100.
  if (!tiling.groupM)
    tiling.groupM = vulkan ? 8 : 1;
  // A small-M tile of A is short: deepen K (128 bytes of a row per step,
  // halved per extra stage to stay within workgroup memory) until every
  // invocation has a copy of it. Shallower steps in more workgroups (see
  // chooseSplitK) keep more of B in flight: on the H100 at 16x4096x4096
  // (products, three runs each) 128 bytes in 8 parts take 10.2-10.4 us
  // with f16 weights, 11.0-11.1 with int8, 11.6-11.8 with int4, against
  // 10.4-10.6, 12.8 and 12.9-13.0 for 256 bytes in 4 parts.
  if (smallM && !requested.tileK && tiling.vectorWidth > 0 &&
      tiling.subgroupsN > 0 && tiling.stages > 0) {
    tiling.tileK =
        std::max<int64_t>(tiling.tileK, 128 / elementBytes / tiling.stages);
    int64_t threads =
        tiling.subgroupsM * tiling.subgroupsN * target.getSubgroupSize();
    auto copies = [&] {
      return tiling.tileM * tiling.tileK / tiling.vectorWidth;
    };
    // Bounded: a count of invocations with an odd factor never divides.
    while ((copies() < threads || copies() % threads) && tiling.tileK < 1024)
      tiling.tileK *= 2;
  }
  return tiling;
}

/// Checks a complete tiling of `problem` with `config`; reports on
/// `matmul` what does not fit.
static LogicalResult checkTiling(Operation *matmul, const Contraction &problem,
                                 MatrixConfigAttr config,
                                 const MatmulTiling &tiling) {
  int64_t elementBytes =
      getStorageType(problem.inputComponent).getIntOrFloatBitWidth() / 8;
  auto fail = [&](const Twine &message) {
    return matmul->emitOpError() << "cannot be tiled: " << message, failure();
  };
  if (tiling.tileM < 0 || tiling.tileN < 0 || tiling.tileK < 0 ||
      tiling.subgroupsM < 0 || tiling.subgroupsN < 0 ||
      tiling.vectorWidth < 0 || tiling.groupM < 0)
    return fail("tile sizes, subgroup counts, the vector width and the "
                "group size must be positive");
  if (tiling.tileM % (tiling.subgroupsM * config.getM()) ||
      tiling.tileN % (tiling.subgroupsN * config.getN()))
    return fail(llvm::formatv(
        "the workgroup tile {0}x{1} does not split into {2}x{3} subgroups of "
        "whole {4}x{5} result matrices",
        tiling.tileM, tiling.tileN, tiling.subgroupsM, tiling.subgroupsN,
        config.getM(), config.getN()));
  if (tiling.tileK % config.getK())
    return fail(llvm::formatv("tile-k = {0} is not a multiple of the "
                              "matrix depth K = {1}",
                              tiling.tileK, config.getK()));
  if (tiling.stages != 1 && tiling.stages != 2)
    return fail(llvm::formatv("stages = {0}; only 1 and 2 are supported",
                              tiling.stages));
  if (tiling.prefetch != 0 && tiling.prefetch != 1)
    return fail(llvm::formatv("prefetch = {0}; only 0 and 1 are supported",
                              tiling.prefetch));
  if (tiling.preloadC != 0 && tiling.preloadC != 1)
    return fail(llvm::formatv("preload-c = {0}; only 0 and 1 are supported",
                              tiling.preloadC));
  if (tiling.stageBTransposed != 0 && tiling.stageBTransposed != 1)
    return fail(
        llvm::formatv("stage-b-transposed = {0}; only 0 and 1 are supported",
                      tiling.stageBTransposed));
  if (tiling.stageBTransposed &&
      (elementBytes != 1 || problem.b.transposed || problem.b.gathers))
    return fail("stage-b-transposed = 1 needs 8-bit inputs with B given K x N "
                "(row-major) and no gathering prologue");
  if (tiling.stages == 2 && !tiling.prefetch)
    return fail("two stages always load the next step before multiplying "
                "this one; prefetch = 0 needs stages = 1");
  int64_t widthBits = tiling.vectorWidth * elementBytes * 8;
  if (tiling.vectorWidth != 1 && widthBits != 64 && widthBits != 128)
    return fail(llvm::formatv("vector-width = {0} copies {1} bits at once; "
                              "only 1 element, 64 or 128 bits are supported",
                              tiling.vectorWidth, widthBits));
  return success();
}

FailureOr<TilingPlan>
mlir::subgroup_matrix::planTiling(const Contraction &contraction,
                                  TargetAttr target,
                                  const MatmulTiling &requested) {
  Operation *op = contraction.op;
  FailureOr<MatrixConfigAttr> config = chooseConfig(op, contraction, target);
  if (failed(config))
    return failure();
  MatmulTiling tiling =
      fillTilingDefaults(contraction, *config, target, requested);
  if (failed(checkTiling(op, contraction, *config, tiling)))
    return failure();
  return TilingPlan{*config, tiling};
}

FailureOr<TilingPlan> mlir::subgroup_matrix::planContraction(
    const Contraction &contraction, TargetAttr target,
    const MatmulTiling &requested, const TuningTable *tuning) {
  FailureOr<TilingPlan> plan = planTiling(
      contraction, target, applyTuning(contraction, requested, tuning));
  if (failed(plan))
    return failure();
  int64_t &parts = plan->tiling.splitK;
  if (parts < 0)
    return contraction.op->emitOpError()
               << "cannot be tiled: split-k = " << parts
               << " must not be negative (0: where it fills the device)",
           failure();
  if (parts == 0)
    parts = chooseSplitK(contraction, *plan, target);
  // What the emitter would refuse of the kernel, reported here.
  if (failed(layOutContractionKernel(contraction, target, *plan)))
    return failure();
  return plan;
}

LogicalResult mlir::subgroup_matrix::checkPlan(const Contraction &contraction,
                                               TargetAttr target,
                                               const TilingPlan &plan) {
  Operation *op = contraction.op;
  MatrixConfigAttr config = plan.config;
  // Vulkan devices also take a plan that emulates what their matrix units
  // have (the emulation is chosen per kernel there).
  bool emulatable =
      (isVulkanDevice(target) ||
       chooseProductForm(config.getComponentType(), config.getResultType(),
                         target) == ProductForm::Emulated) &&
      llvm::is_contained(getEmulationTarget(target).getConfigs(), config);
  if ((!llvm::is_contained(target.getConfigs(), config) && !emulatable) ||
      config.getComponentType() != contraction.inputComponent ||
      config.getResultType() != contraction.resultComponent)
    return op->emitOpError()
               << "cannot be tiled by its plan: the configuration " << config
               << " is not one of the target's for "
               << contraction.inputComponent << " -> "
               << contraction.resultComponent << "; it supports "
               << target.describeConfigs(),
           failure();
  if (plan.tiling.splitK < 1)
    return op->emitOpError() << "cannot be tiled by its plan: split_k = "
                             << plan.tiling.splitK << " must be at least 1",
           failure();
  return checkTiling(op, contraction, config, plan.tiling);
}

ContractionPlanAttr TilingPlan::getAttr() const {
  return ContractionPlanAttr::get(
      config.getContext(), config, tiling.tileM, tiling.tileN, tiling.tileK,
      tiling.subgroupsM, tiling.subgroupsN, tiling.padding, tiling.stages,
      tiling.prefetch == 1, tiling.preloadC == 1, tiling.stageBTransposed == 1,
      tiling.vectorWidth, tiling.groupM, tiling.splitK);
}

TilingPlan TilingPlan::get(ContractionPlanAttr attr) {
  TilingPlan plan;
  plan.config = attr.getConfig();
  MatmulTiling &tiling = plan.tiling;
  tiling.tileM = attr.getTileM();
  tiling.tileN = attr.getTileN();
  tiling.tileK = attr.getTileK();
  tiling.subgroupsM = attr.getSubgroupsM();
  tiling.subgroupsN = attr.getSubgroupsN();
  tiling.padding = attr.getPadding();
  tiling.stages = attr.getStages();
  tiling.prefetch = attr.getPrefetch();
  tiling.preloadC = attr.getPreloadC();
  tiling.stageBTransposed = attr.getStageBTransposed();
  tiling.vectorWidth = attr.getVectorWidth();
  tiling.groupM = attr.getGroupM();
  tiling.splitK = attr.getSplitK();
  return plan;
}

int64_t mlir::subgroup_matrix::chooseSplitK(const Contraction &contraction,
                                            const TilingPlan &plan,
                                            TargetAttr target) {
  int64_t units = target.getComputeUnits();
  if (!units || contraction.batch != 1 || contraction.hasDynamicSizes())
    return 1;
  const MatmulTiling &tiling = plan.tiling;
  int64_t tiles = llvm::divideCeil(contraction.m, tiling.tileM) *
                  llvm::divideCeil(contraction.n, tiling.tileN);
  int64_t steps = llvm::divideCeil(contraction.k, tiling.tileK);
  if (tiles >= units)
    return 1;
  // The fewest parts that give every compute unit a workgroup, else as
  // many as K allows. On the H100 at 4096x512x14336 f16 -> f32 (128 tiles):
  // 2 parts 226 us (266 TFLOP/s), 4 parts 243 us, 8 parts 278 us, no split
  // 378 us (bench/split-k). A single row of tiles (a decode step) streams
  // B and nothing else: two workgroups per unit (see the small-M tile-k in
  // resolveMatmulTiling).
  int64_t wanted =
      llvm::divideCeil(contraction.m, tiling.tileM) == 1 ? 2 * units : units;
  int64_t chosen = 1;
  for (int64_t parts = 2; parts <= 8; parts *= 2) {
    if (steps % parts || steps / parts < 8)
      break;
    chosen = parts;
    if (tiles * parts >= wanted)
      break;
  }
  return chosen;
}
