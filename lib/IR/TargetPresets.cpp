//===- TargetPresets.cpp - named device descriptions ----------------------===//
//
// Each preset records where its configurations come from; docs/Targets.md
// explains them in more detail.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/IR/TargetPresets.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::subgroup_matrix;

namespace {
/// The component spellings of the preset tables.
enum class Component { F16, BF16, F32, S8, U8, S32, U32 };

/// One row of a preset table: M x N x K, component -> result.
struct ConfigRow {
  unsigned m, n, k;
  Component component, result;
  /// For a workgroup-scope flexible granularity, the workgroup size it
  /// holds for; 0 for subgroup scope.
  unsigned workgroupInvocations = 0;
};

struct PresetDescription {
  llvm::StringLiteral name;
  /// Who makes the device, and what its kernels are lowered to and run by.
  Vendor vendor;
  TargetBackend backend;
  unsigned subgroupSize;
  /// Fixed configurations, listed in the order the device reports them.
  llvm::ArrayRef<ConfigRow> rows;
  /// Builds the configurations of presets that are a product of shapes and
  /// types rather than a measured list.
  void (*generate)(llvm::SmallVectorImpl<ConfigRow> &rows);
  /// Whether the device has no matrix units (every matrix is emulated).
  bool emulated = false;
  /// Whether kernels may compute in f64 and i64 (Vulkan's shaderFloat64 and
  /// shaderInt64 on the device's driver).
  bool float64 = false, int64 = false;
  /// Streaming multiprocessors or compute units; 0 where the preset names
  /// a family of devices of different sizes.
  unsigned computeUnits = 0;
  /// Bytes of workgroup memory one workgroup may use.
  unsigned workgroupMemory = 0;
  /// The VK_NV_cooperative_matrix2 features of the device's driver.
  CooperativeMatrix2Feature coopmat2Features = CooperativeMatrix2Feature::None;
  /// The subgroup-scope granularities of its flexible dimensions, and the
  /// largest dimension.
  llvm::ArrayRef<ConfigRow> flexibleGranularities = {};
  unsigned flexibleMaxDimension = 0;
};
} // namespace

using C = Component;

/// data/nvidia-h100-vulkan-coopmat.txt: vkGetPhysicalDevice-
/// CooperativeMatrixPropertiesKHR on an H100 80GB HBM3, driver 580.159.04,
/// in the reported order. All are subgroup scope without saturation.
static const ConfigRow nvidiaH100Rows[] = {
    {16, 16, 16, C::F16, C::F16},  {16, 8, 16, C::F16, C::F16},
    {16, 8, 8, C::F16, C::F16},    {16, 16, 16, C::F16, C::F32},
    {16, 8, 16, C::F16, C::F32},   {16, 8, 8, C::F16, C::F32},
    {16, 16, 32, C::U8, C::U32},   {16, 16, 32, C::S8, C::S32},
    {16, 8, 32, C::U8, C::U32},    {16, 8, 32, C::S8, C::S32},
    {16, 16, 16, C::BF16, C::F32},
};

/// data/nvidia-h100-list-coopmat.txt: the flexible-dimension granularities of
/// driver 580.159.04 (vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensions-
/// PropertiesNV) in the reported order, up to 1024: subgroup scope, then
/// workgroup scope for workgroups of 32, 64, 128 and 256 invocations.
static const ConfigRow nvidiaH100FlexibleRows[] = {
    {16, 16, 16, C::F16, C::F16},       {16, 16, 16, C::F16, C::F32},
    {16, 16, 32, C::U8, C::U32},        {16, 16, 32, C::S8, C::S32},
    {16, 16, 16, C::BF16, C::F32},      {16, 16, 16, C::F16, C::F16, 32},
    {16, 16, 16, C::F16, C::F32, 32},   {16, 16, 32, C::U8, C::U32, 32},
    {16, 16, 32, C::S8, C::S32, 32},    {16, 16, 16, C::BF16, C::F32, 32},
    {16, 16, 16, C::F16, C::F16, 64},   {16, 16, 16, C::F16, C::F32, 64},
    {16, 16, 32, C::U8, C::U32, 64},    {16, 16, 32, C::S8, C::S32, 64},
    {16, 16, 16, C::BF16, C::F32, 64},  {32, 16, 16, C::F16, C::F16, 128},
    {32, 16, 16, C::F16, C::F32, 128},  {32, 16, 32, C::U8, C::U32, 128},
    {32, 16, 32, C::S8, C::S32, 128},   {32, 16, 16, C::BF16, C::F32, 128},
    {32, 32, 16, C::F16, C::F16, 256},  {32, 32, 16, C::F16, C::F32, 256},
    {32, 32, 32, C::U8, C::U32, 256},   {32, 32, 32, C::S8, C::S32, 256},
    {32, 32, 16, C::BF16, C::F32, 256},
};

/// data/amd-navi31-radv-coopmat.txt: Mesa 25.0.7 RADV on NAVI31 (gfx1100),
/// keeping the configurations without saturating accumulation whose A and B
/// types are equal, as the WGSL proposal filters them. The mixed-signedness
/// ones (si8 -> ui32, ui8 -> si32) are kept because the device reports them,
/// although no `mma` can name them.
static const ConfigRow amdRdna3Rows[] = {
    {16, 16, 16, C::F16, C::F16}, {16, 16, 16, C::F16, C::F32},
    {16, 16, 16, C::U8, C::U32},  {16, 16, 16, C::U8, C::S32},
    {16, 16, 16, C::S8, C::U32},  {16, 16, 16, C::S8, C::S32},
};

/// The WGSL proposal's hard-coded Metal configurations (simdgroup_float8x8
/// and simdgroup_half8x8).
static const ConfigRow appleM1Rows[] = {
    {8, 8, 8, C::F32, C::F32},
    {8, 8, 8, C::F16, C::F16},
};

/// Apple GPUs with Metal Shading Language 3.1's `bfloat` (M3, Apple family
/// 9): apple-m1's configurations and `simdgroup_bfloat8x8` multiplied into
/// `simdgroup_float8x8`.
static const ConfigRow appleM3Rows[] = {
    {8, 8, 8, C::F32, C::F32},
    {8, 8, 8, C::F16, C::F16},
    {8, 8, 8, C::BF16, C::F32},
};

/// SPV_INTEL_subgroup_matrix_multiply_accumulate: one instruction has M of
/// 1, 2, 4 or 8 rows, N equal to the subgroup size and a K fixed by the
/// component type (16 for 16-bit floats, 32 for 8-bit integers, 8 for tf32).
/// Larger matrices (M of 16 or 32, N of twice the subgroup size) are split
/// into several instructions by the Intel lowering.
///
/// Xe-HPC (PVC, and BMG) also accumulates f16 into f16 and multiplies tf32;
/// Intel's compiler (IGC 2.40) has no f16-accumulator variant of the
/// instruction for Xe-HPG (DG2): it leaves the builtin undefined.
static void generateIntelRows(llvm::SmallVectorImpl<ConfigRow> &rows,
                              unsigned subgroupSize, bool isXeHPC) {
  struct TypePair {
    Component component, result;
    unsigned k;
  };
  llvm::SmallVector<TypePair> types = {{C::F16, C::F32, 16},
                                       {C::BF16, C::F32, 16},
                                       {C::S8, C::S32, 32},
                                       {C::U8, C::U32, 32}};
  if (isXeHPC) {
    types.insert(types.begin() + 1, {C::F16, C::F16, 16});
    types.push_back({C::F32, C::F32, 8});
  }
  for (TypePair type : types)
    for (unsigned n : {subgroupSize, 2 * subgroupSize})
      for (unsigned m : {1u, 2u, 4u, 8u, 16u, 32u})
        rows.push_back({m, n, type.k, type.component, type.result});
}

/// Mesa's lavapipe (llvmpipe's Vulkan driver on the CPU) has no
/// VK_KHR_cooperative_matrix and a fixed subgroup size of 8: every matrix is
/// emulated, so the configurations are the type combinations the emulation
/// computes, at the shapes the tiling should prefer (the target also takes
/// any other multiple of 8).
static void generateEmulatedRows(llvm::SmallVectorImpl<ConfigRow> &rows) {
  struct TypePair {
    Component component, result;
  };
  const TypePair types[] = {
      {C::F16, C::F16}, {C::F16, C::F32}, {C::BF16, C::F32}, {C::F32, C::F32},
      {C::S8, C::S32},  {C::U8, C::U32},  {C::S32, C::S32},  {C::U32, C::U32}};
  for (TypePair type : types)
    for (unsigned size : {16u, 8u})
      rows.push_back({size, size, size, type.component, type.result});
}

/// data/cpu-lavapipe-coopmat.txt: Mesa 26.1.6's lavapipe (llvmpipe, from
/// trixie-backports), in the reported order: four subgroup-scope 8x8x8
/// configurations. Its VK_NV_cooperative_matrix2 has flexible dimensions
/// (the same four rows are its granularities, up to 1024), reductions,
/// conversions and per-element operations, but not workgroup scope, tensor
/// addressing or block loads.
static const ConfigRow lavapipeCoopmatRows[] = {
    {8, 8, 8, C::F16, C::F16},
    {8, 8, 8, C::F16, C::F32},
    {8, 8, 8, C::U8, C::U32},
    {8, 8, 8, C::S8, C::S32},
};

/// The scalar-type features follow each device's Vulkan driver: NVIDIA's,
/// RADV, Intel's on Ponte Vecchio and Mesa's lavapipe report shaderFloat64
/// and shaderInt64; Alchemist (Xe-HPG) has no f64 hardware and Apple GPUs
/// no double type, but both have 64-bit integers.
static const PresetDescription presets[] = {
    {"nvidia-h100", Vendor::Nvidia, TargetBackend::Vulkan, 32, nvidiaH100Rows,
     nullptr, /*emulated=*/false,
     /*float64=*/true, /*int64=*/true, /*computeUnits=*/132,
     /*workgroupMemory=*/48 * 1024,
     CooperativeMatrix2Feature::WorkgroupScope |
         CooperativeMatrix2Feature::FlexibleDimensions |
         CooperativeMatrix2Feature::Reductions |
         CooperativeMatrix2Feature::Conversions |
         CooperativeMatrix2Feature::PerElementOperations |
         CooperativeMatrix2Feature::TensorAddressing |
         CooperativeMatrix2Feature::BlockLoads,
     nvidiaH100FlexibleRows, /*flexibleMaxDimension=*/1024},
    {"amd-rdna3", Vendor::Amd, TargetBackend::Vulkan, 32, amdRdna3Rows, nullptr,
     /*emulated=*/false,
     /*float64=*/true, /*int64=*/true, /*computeUnits=*/96,
     /*workgroupMemory=*/64 * 1024},
    {"intel-xe-hpc",
     Vendor::Intel,
     TargetBackend::OpenCL,
     16,
     {},
     [](llvm::SmallVectorImpl<ConfigRow> &rows) {
       generateIntelRows(rows, /*subgroupSize=*/16, /*isXeHPC=*/true);
     },
     /*emulated=*/false,
     /*float64=*/true,
     /*int64=*/true},
    {"intel-xe-hpg",
     Vendor::Intel,
     TargetBackend::OpenCL,
     8,
     {},
     [](llvm::SmallVectorImpl<ConfigRow> &rows) {
       generateIntelRows(rows, /*subgroupSize=*/8, /*isXeHPC=*/false);
     },
     /*emulated=*/false,
     /*float64=*/false,
     /*int64=*/true},
    {"apple-m1", Vendor::Apple, TargetBackend::Metal, 32, appleM1Rows, nullptr,
     /*emulated=*/false,
     /*float64=*/false, /*int64=*/true, /*computeUnits=*/0,
     /*workgroupMemory=*/32 * 1024},
    {"apple-m3", Vendor::Apple, TargetBackend::Metal, 32, appleM3Rows, nullptr,
     /*emulated=*/false,
     /*float64=*/false, /*int64=*/true, /*computeUnits=*/0,
     /*workgroupMemory=*/32 * 1024},
    {"cpu-lavapipe",
     Vendor::Mesa,
     TargetBackend::Vulkan,
     8,
     {},
     generateEmulatedRows,
     /*emulated=*/true,
     /*float64=*/true,
     /*int64=*/true},
    {"cpu-lavapipe-coopmat", Vendor::Mesa, TargetBackend::Vulkan, 8,
     lavapipeCoopmatRows, nullptr,
     /*emulated=*/false, /*float64=*/true, /*int64=*/true,
     /*computeUnits=*/0, /*workgroupMemory=*/32 * 1024,
     CooperativeMatrix2Feature::FlexibleDimensions |
         CooperativeMatrix2Feature::Reductions |
         CooperativeMatrix2Feature::Conversions |
         CooperativeMatrix2Feature::PerElementOperations,
     lavapipeCoopmatRows, /*flexibleMaxDimension=*/1024},
};

static Type getComponentType(MLIRContext *context, Component component) {
  Builder builder(context);
  switch (component) {
  case C::F16:
    return builder.getF16Type();
  case C::BF16:
    return builder.getBF16Type();
  case C::F32:
    return builder.getF32Type();
  case C::S8:
    return IntegerType::get(context, 8, IntegerType::Signed);
  case C::U8:
    return IntegerType::get(context, 8, IntegerType::Unsigned);
  case C::S32:
    return IntegerType::get(context, 32, IntegerType::Signed);
  case C::U32:
    return IntegerType::get(context, 32, IntegerType::Unsigned);
  }
  llvm_unreachable("unknown component");
}

static llvm::SmallVector<MatrixConfigAttr>
getConfigs(MLIRContext *context, ArrayRef<ConfigRow> rows) {
  llvm::SmallVector<MatrixConfigAttr> configs;
  for (const ConfigRow &row : rows)
    configs.push_back(MatrixConfigAttr::get(
        context, row.m, row.n, row.k, getComponentType(context, row.component),
        getComponentType(context, row.result), row.workgroupInvocations));
  return configs;
}

ArrayRef<StringRef> mlir::subgroup_matrix::getTargetPresetNames() {
  static const llvm::SmallVector<StringRef> names = [] {
    llvm::SmallVector<StringRef> result;
    for (const PresetDescription &preset : presets)
      result.push_back(preset.name);
    return result;
  }();
  return names;
}

TargetAttr mlir::subgroup_matrix::lookupTargetPreset(MLIRContext *context,
                                                     StringRef name) {
  const PresetDescription *preset =
      llvm::find_if(presets, [&](const PresetDescription &candidate) {
        return candidate.name == name;
      });
  if (preset == std::end(presets))
    return {};
  // Callers may run before anything of the dialect was parsed.
  context->getOrLoadDialect<SubgroupMatrixDialect>();
  llvm::SmallVector<ConfigRow> rows(preset->rows.begin(), preset->rows.end());
  if (preset->generate)
    preset->generate(rows);
  llvm::SmallVector<MatrixConfigAttr> configs = getConfigs(context, rows);
  return TargetAttr::get(
      context, StringAttr::get(context, preset->name), preset->subgroupSize,
      configs, preset->emulated, preset->float64, preset->int64,
      preset->computeUnits, preset->workgroupMemory, preset->coopmat2Features,
      getConfigs(context, preset->flexibleGranularities),
      preset->flexibleMaxDimension, preset->vendor, preset->backend);
}

TargetAttr mlir::subgroup_matrix::getEmulationTarget(TargetAttr target) {
  MLIRContext *context = target.getContext();
  llvm::SmallVector<ConfigRow> rows;
  generateEmulatedRows(rows);
  llvm::SmallVector<MatrixConfigAttr> configs = getConfigs(context, rows);
  return TargetAttr::get(
      context, target.getName(), target.getSubgroupSize(), configs,
      /*emulated=*/true, target.getFloat64(), target.getInt64(),
      target.getComputeUnits(), target.getWorkgroupMemory(),
      CooperativeMatrix2Feature::None, /*flexibleGranularities=*/{},
      /*flexibleMaxDimension=*/0, target.getVendor(), target.getBackend());
}

TargetAttr mlir::subgroup_matrix::getTargetPresetOrError(Location loc,
                                                         StringRef name) {
  if (TargetAttr target = lookupTargetPreset(loc.getContext(), name))
    return target;
  emitError(loc) << "unknown target preset '" << name << "'; known presets: "
                 << llvm::join(getTargetPresetNames(), ", ");
  return {};
}

TargetAttr mlir::subgroup_matrix::findEnclosingTarget(Operation *op) {
  for (; op; op = op->getParentOp())
    if (auto target = op->getAttrOfType<TargetAttr>(
            SubgroupMatrixDialect::getTargetAttrName()))
      return target;
  return {};
}

FailureOr<TargetAttr>
mlir::subgroup_matrix::resolveTargetOption(Location loc, StringRef name) {
  if (name.empty())
    return TargetAttr();
  if (TargetAttr target = getTargetPresetOrError(loc, name))
    return target;
  return failure();
}

TargetAttr
mlir::subgroup_matrix::getLoweringTargetOrError(Operation *op,
                                                TargetAttr overrideTarget) {
  if (TargetAttr target =
          overrideTarget ? overrideTarget : findEnclosingTarget(op))
    return target;
  emitError(op->getLoc()) << "no target to lower for: attach a '"
                          << SubgroupMatrixDialect::getTargetAttrName()
                          << "' attribute or name a preset with target=NAME";
  return {};
}
