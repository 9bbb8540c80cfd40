// RUN: sm-opt %s | sm-opt | FileCheck %s

// A preset is printed by name while it is unchanged.
// CHECK: module @preset attributes {subgroup_matrix.target = #subgroup_matrix.target<"amd-rdna3">}
module @preset attributes {subgroup_matrix.target = #subgroup_matrix.target<"amd-rdna3">} {}

// Spelling out a preset's contents gives the preset.
// CHECK: module @apple_spelled_out attributes {subgroup_matrix.target = #subgroup_matrix.target<"apple-m1">}
module @apple_spelled_out attributes {subgroup_matrix.target = #subgroup_matrix.target<"apple-m1", subgroup_size = 32, configs = [<8x8x8, f32 -> f32>, <8x8x8, f16 -> f16>], workgroup_memory = 32768, int64, vendor = apple, backend = metal>} {}

// A preset name with other contents is a custom target.
// CHECK: module @changed attributes {subgroup_matrix.target = #subgroup_matrix.target<"apple-m1", subgroup_size = 32, configs = [<8x8x8, f32 -> f32>]>}
module @changed attributes {subgroup_matrix.target = #subgroup_matrix.target<"apple-m1", subgroup_size = 32, configs = [<8x8x8, f32 -> f32>]>} {}

// CHECK: module @custom attributes {subgroup_matrix.target = #subgroup_matrix.target<"my-device", subgroup_size = 64, configs = [<16x16x16, f16 -> f32>, <16x16x32, si8 -> si32>]>}
module @custom attributes {subgroup_matrix.target = #subgroup_matrix.target<"my-device", subgroup_size = 64, configs = [<16x16x16, f16 -> f32>, <16x16x32, si8 -> si32>]>} {}

// The flags follow the configurations, in the order emulated, float64, int64.
// CHECK: module @flags attributes {subgroup_matrix.target = #subgroup_matrix.target<"my-cpu", subgroup_size = 8, configs = [<8x8x8, f16 -> f32>], emulated, float64, int64>}
module @flags attributes {subgroup_matrix.target = #subgroup_matrix.target<"my-cpu", subgroup_size = 8, configs = [<8x8x8, f16 -> f32>], emulated, float64, int64>} {}
// CHECK: module @int64_only attributes {subgroup_matrix.target = #subgroup_matrix.target<"my-gpu", subgroup_size = 32, configs = [<8x8x8, f16 -> f32>], int64>}
module @int64_only attributes {subgroup_matrix.target = #subgroup_matrix.target<"my-gpu", subgroup_size = 32, configs = [<8x8x8, f16 -> f32>], int64>} {}

// The device's sizes come between the configurations and the flags; sizes
// left out are unknown and not printed.
// CHECK: module @sizes attributes {subgroup_matrix.target = #subgroup_matrix.target<"my-gpu", subgroup_size = 32, configs = [<16x16x16, f16 -> f32>], compute_units = 108, workgroup_memory = 49152, float64, int64>}
module @sizes attributes {subgroup_matrix.target = #subgroup_matrix.target<"my-gpu", subgroup_size = 32, configs = [<16x16x16, f16 -> f32>], compute_units = 108, workgroup_memory = 49152, float64, int64>} {}
// CHECK: module @memory_only attributes {subgroup_matrix.target = #subgroup_matrix.target<"my-gpu", subgroup_size = 32, configs = [<16x16x16, f16 -> f32>], workgroup_memory = 16384>}
module @memory_only attributes {subgroup_matrix.target = #subgroup_matrix.target<"my-gpu", subgroup_size = 32, configs = [<16x16x16, f16 -> f32>], workgroup_memory = 16384>} {}
// The presets carry the sizes of their devices: spelled out, the H100 has
// 132 SMs and 48 KiB of shared memory per workgroup.
// CHECK: module @h100_spelled_out attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">}
module @h100_spelled_out attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100", subgroup_size = 32, configs = [<16x16x16, f16 -> f16>, <16x8x16, f16 -> f16>, <16x8x8, f16 -> f16>, <16x16x16, f16 -> f32>, <16x8x16, f16 -> f32>, <16x8x8, f16 -> f32>, <16x16x32, ui8 -> ui32>, <16x16x32, si8 -> si32>, <16x8x32, ui8 -> ui32>, <16x8x32, si8 -> si32>, <16x16x16, bf16 -> f32>], compute_units = 132, workgroup_memory = 49152, float64, int64, nv_coopmat2 = [workgroup_scope, flexible_dimensions, reductions, conversions, per_element_operations, tensor_addressing, block_loads], flexible_granularities = [<16x16x16, f16 -> f16>, <16x16x16, f16 -> f32>, <16x16x32, ui8 -> ui32>, <16x16x32, si8 -> si32>, <16x16x16, bf16 -> f32>, <16x16x16, f16 -> f16, workgroup = 32>, <16x16x16, f16 -> f32, workgroup = 32>, <16x16x32, ui8 -> ui32, workgroup = 32>, <16x16x32, si8 -> si32, workgroup = 32>, <16x16x16, bf16 -> f32, workgroup = 32>, <16x16x16, f16 -> f16, workgroup = 64>, <16x16x16, f16 -> f32, workgroup = 64>, <16x16x32, ui8 -> ui32, workgroup = 64>, <16x16x32, si8 -> si32, workgroup = 64>, <16x16x16, bf16 -> f32, workgroup = 64>, <32x16x16, f16 -> f16, workgroup = 128>, <32x16x16, f16 -> f32, workgroup = 128>, <32x16x32, ui8 -> ui32, workgroup = 128>, <32x16x32, si8 -> si32, workgroup = 128>, <32x16x16, bf16 -> f32, workgroup = 128>, <32x32x16, f16 -> f16, workgroup = 256>, <32x32x16, f16 -> f32, workgroup = 256>, <32x32x32, ui8 -> ui32, workgroup = 256>, <32x32x32, si8 -> si32, workgroup = 256>, <32x32x16, bf16 -> f32, workgroup = 256>], flexible_max_dimension = 1024, vendor = nvidia>} {}

// The VK_NV_cooperative_matrix2 features come last, printed in a fixed order.
// CHECK: module @coopmat2 attributes {subgroup_matrix.target = #subgroup_matrix.target<"my-cpu", subgroup_size = 8, configs = [<8x8x8, f16 -> f32>], int64, nv_coopmat2 = [flexible_dimensions, reductions, per_element_operations]>}
module @coopmat2 attributes {subgroup_matrix.target = #subgroup_matrix.target<"my-cpu", subgroup_size = 8, configs = [<8x8x8, f16 -> f32>], int64, nv_coopmat2 = [per_element_operations, reductions, flexible_dimensions]>} {}
// Spelled out, Mesa 26's lavapipe with its native matrices is its preset.
// CHECK: module @lavapipe_coopmat_spelled_out attributes {subgroup_matrix.target = #subgroup_matrix.target<"cpu-lavapipe-coopmat">}
module @lavapipe_coopmat_spelled_out attributes {subgroup_matrix.target = #subgroup_matrix.target<"cpu-lavapipe-coopmat", subgroup_size = 8, configs = [<8x8x8, f16 -> f16>, <8x8x8, f16 -> f32>, <8x8x8, ui8 -> ui32>, <8x8x8, si8 -> si32>], workgroup_memory = 32768, float64, int64, nv_coopmat2 = [flexible_dimensions, reductions, conversions, per_element_operations], flexible_granularities = [<8x8x8, f16 -> f16>, <8x8x8, f16 -> f32>, <8x8x8, ui8 -> ui32>, <8x8x8, si8 -> si32>], flexible_max_dimension = 1024, vendor = mesa>} {}
// Without its flexible dimensions, it is a custom target.
// CHECK: module @lavapipe_coopmat_without_flexible attributes {subgroup_matrix.target = #subgroup_matrix.target<"cpu-lavapipe-coopmat", subgroup_size = 8, {{.*}}nv_coopmat2 = [flexible_dimensions, reductions, conversions, per_element_operations], vendor = mesa>}
module @lavapipe_coopmat_without_flexible attributes {subgroup_matrix.target = #subgroup_matrix.target<"cpu-lavapipe-coopmat", subgroup_size = 8, configs = [<8x8x8, f16 -> f16>, <8x8x8, f16 -> f32>, <8x8x8, ui8 -> ui32>, <8x8x8, si8 -> si32>], workgroup_memory = 32768, float64, int64, nv_coopmat2 = [flexible_dimensions, reductions, conversions, per_element_operations], vendor = mesa>} {}

// The flexible granularities and their largest dimension follow the
// features, and precede the vendor.
// CHECK: module @flexible attributes {subgroup_matrix.target = #subgroup_matrix.target<"my-gpu", subgroup_size = 32, configs = [<16x16x16, f16 -> f32>], nv_coopmat2 = [flexible_dimensions], flexible_granularities = [<16x16x16, f16 -> f32>, <16x8x32, si8 -> si32>], flexible_max_dimension = 256, vendor = nvidia>}
module @flexible attributes {subgroup_matrix.target = #subgroup_matrix.target<"my-gpu", subgroup_size = 32, configs = [<16x16x16, f16 -> f32>], nv_coopmat2 = [flexible_dimensions], flexible_granularities = [<16x16x16, f16 -> f32>, <16x8x32, si8 -> si32>], flexible_max_dimension = 256, vendor = nvidia>} {}

// The vendor and the backend come last of all; Vulkan, the default backend,
// is not printed.
// CHECK: module @facts attributes {subgroup_matrix.target = #subgroup_matrix.target<"my-gpu", subgroup_size = 32, configs = [<16x16x16, f16 -> f32>], int64, vendor = intel, backend = opencl>}
module @facts attributes {subgroup_matrix.target = #subgroup_matrix.target<"my-gpu", subgroup_size = 32, configs = [<16x16x16, f16 -> f32>], int64, vendor = intel, backend = opencl>} {}
// CHECK: module @vulkan_backend attributes {subgroup_matrix.target = #subgroup_matrix.target<"my-gpu", subgroup_size = 32, configs = [<16x16x16, f16 -> f32>], nv_coopmat2 = [reductions], vendor = amd>}
module @vulkan_backend attributes {subgroup_matrix.target = #subgroup_matrix.target<"my-gpu", subgroup_size = 32, configs = [<16x16x16, f16 -> f32>], nv_coopmat2 = [reductions], vendor = amd, backend = vulkan>} {}
// A preset's contents without its vendor are a custom target.
// CHECK: module @h100_without_vendor attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100", subgroup_size = 32,
module @h100_without_vendor attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100", subgroup_size = 32, configs = [<16x16x16, f16 -> f32>]>} {}

// CHECK: module @anonymous attributes {subgroup_matrix.target = #subgroup_matrix.target<subgroup_size = 16, configs = [<8x16x16, bf16 -> f32>]>}
module @anonymous attributes {subgroup_matrix.target = #subgroup_matrix.target<subgroup_size = 16, configs = [<8x16x16, bf16 -> f32>]>} {}

// CHECK: module @config attributes {test.config = #subgroup_matrix.config<16x8x32, ui8 -> ui32>}
module @config attributes {test.config = #subgroup_matrix.config<16x8x32, ui8 -> ui32>} {}

// A flexible granularity of workgroup scope names the workgroup size it
// holds for.
// CHECK: module @workgroup_granularity attributes {subgroup_matrix.target = #subgroup_matrix.target<"wg", subgroup_size = 32, configs = [<16x16x16, f16 -> f32>], nv_coopmat2 = [workgroup_scope, flexible_dimensions], flexible_granularities = [<16x16x16, f16 -> f32>, <32x16x16, f16 -> f32, workgroup = 128>], flexible_max_dimension = 256>}
module @workgroup_granularity attributes {subgroup_matrix.target = #subgroup_matrix.target<"wg", subgroup_size = 32, configs = [<16x16x16, f16 -> f32>], nv_coopmat2 = [workgroup_scope, flexible_dimensions], flexible_granularities = [<16x16x16, f16 -> f32>, <32x16x16, f16 -> f32, workgroup = 128>], flexible_max_dimension = 256>} {}
