// RUN: sm-opt %s --sm-lower-to-vulkan | FileCheck %s
// RUN: sm-opt %s --sm-lower-to-vulkan | sm-translate --serialize-spirv -o %t.spv
// RUN: %if spirv-val-bf16 %{ spirv-val --target-env vulkan1.3 %t.spv %}
// RDNA3 has no bf16 matrices; the H100 conformance suite runs the bf16
// kernels (docs/conformance.md).

// CHECK: spirv.module @__spv__kernels Logical Vulkan requires #spirv.vce<v1.6,
// CHECK-SAME: BFloat16TypeKHR
// CHECK-SAME: BFloat16CooperativeMatrixKHR
// CHECK-SAME: SPV_KHR_bfloat16
// CHECK: spirv.KHR.CooperativeMatrixLoad {{.*}} : !spirv.ptr<bf16, StorageBuffer>, i32 -> !spirv.coopmatrix<16x16xbf16, Subgroup, MatrixA>
// CHECK: spirv.KHR.CooperativeMatrixMulAdd {{.*}} -> !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @bf16(%a: memref<?xbf16>, %c: memref<?xf32>, %s: index) kernel
      attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %l = subgroup_matrix.load %a[%c0] stride %s : memref<?xbf16> -> !subgroup_matrix.left<16x16xbf16>
    %r = subgroup_matrix.load %a[%c0] stride %s : memref<?xbf16> -> !subgroup_matrix.right<16x16xbf16>
    %d = subgroup_matrix.multiply %l, %r : !subgroup_matrix.left<16x16xbf16>, !subgroup_matrix.right<16x16xbf16> -> !subgroup_matrix.result<16x16xf32>
    subgroup_matrix.store %d, %c[%c0] stride %s : !subgroup_matrix.result<16x16xf32>, memref<?xf32>
    gpu.return
  }
}
