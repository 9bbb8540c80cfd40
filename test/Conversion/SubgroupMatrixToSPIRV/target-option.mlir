// RUN: not sm-opt %s --sm-lower-to-vulkan=target=nvidia-h200 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: sm-opt %s --sm-lower-to-vulkan=target=amd-rdna3 | FileCheck %s
// RUN: sm-opt %s --sm-lower-to-vulkan=target=amd-rdna3 | sm-translate --serialize-spirv -o %t.spv
// RUN: spirv-val --target-env vulkan1.3 %t.spv
// RUN: %if radv %{ %radv %t.spv 2>&1 | FileCheck %s --check-prefix=RADV %}
// RUN: not sm-opt %s --sm-lower-to-vulkan=target=apple-m1 2>&1 | FileCheck %s --check-prefix=APPLE

// RADV: pipeline: created for entry point 'k'
// UNKNOWN: error: unknown target preset 'nvidia-h200'; known presets: nvidia-h100, amd-rdna3, intel-xe-hpc, intel-xe-hpg, apple-m1
// UNKNOWN-NOT: spirv.module
// APPLE: error: '!subgroup_matrix.left<16x16xf16>' is not supported by target 'apple-m1'
// APPLE-NOT: spirv.module

// The option gives the target environment: the RDNA3 configurations and
// subgroup size.
// CHECK: spirv.module @__spv__kernels
// CHECK-SAME: #spirv.resource_limits<min_subgroup_size = 32, max_subgroup_size = 32, cooperative_matrix_properties_khr = [#spirv.coop_matrix_props_khr<m_size = 16, n_size = 16, k_size = 16, a_type = f16, b_type = f16, c_type = f16, result_type = f16, acc_sat = false, scope = <Subgroup>>
gpu.module @kernels {
  gpu.func @k(%a: memref<1024xf16>, %s: index) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %l = subgroup_matrix.load %a[%c0] stride %s : memref<1024xf16> -> !subgroup_matrix.left<16x16xf16>
    subgroup_matrix.store %l, %a[%c0] stride %s : !subgroup_matrix.left<16x16xf16>, memref<1024xf16>
    gpu.return
  }
}
