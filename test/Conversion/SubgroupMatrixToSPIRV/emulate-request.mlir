// RUN: sm-opt %s --sm-lower-to-vulkan | FileCheck %s
// RUN: sm-opt %s --sm-lower-to-vulkan | sm-translate --serialize-spirv -o %t.spv
// RUN: spirv-val --target-env vulkan1.3 %t.spv
// Without the request, the H100 rejects f32 matrices, as its driver would.
// RUN: sed 's/, subgroup_matrix.emulate}/}/' %s | not sm-opt --sm-lower-to-vulkan 2>&1 | FileCheck %s --check-prefix=UNREQUESTED

// A kernel that asks for emulation (sm-contractions-to-kernels marks f32
// products on the H100 so) is checked against the target's emulation and
// emulated, whatever the emulation option; the kernel beside it keeps its
// cooperative matrices.

// UNREQUESTED: error: '!subgroup_matrix.left<16x16xf32>' is not supported by target 'nvidia-h100'

// CHECK: spirv.module @__spv__kernels
// CHECK-LABEL: spirv.func @f32_product
// CHECK-NOT: spirv.KHR.CooperativeMatrix
// CHECK: spirv.FMul
// CHECK-NOT: spirv.KHR.CooperativeMatrix
// CHECK: spirv.Return
// CHECK-LABEL: spirv.func @f16_product
// CHECK: spirv.KHR.CooperativeMatrixMulAdd
module attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.module @kernels {
    gpu.func @f32_product(%a: memref<256xf32>, %b: memref<256xf32>, %c: memref<256xf32>) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>, subgroup_matrix.emulate} {
      %c0 = arith.constant 0 : index
      %c16 = arith.constant 16 : index
      %l = subgroup_matrix.load %a[%c0] stride %c16 : memref<256xf32> -> !subgroup_matrix.left<16x16xf32>
      %r = subgroup_matrix.load %b[%c0] stride %c16 : memref<256xf32> -> !subgroup_matrix.right<16x16xf32>
      %acc = subgroup_matrix.load %c[%c0] stride %c16 : memref<256xf32> -> !subgroup_matrix.result<16x16xf32>
      %p = subgroup_matrix.mma %l, %r, %acc : !subgroup_matrix.left<16x16xf32>, !subgroup_matrix.right<16x16xf32> -> !subgroup_matrix.result<16x16xf32>
      subgroup_matrix.store %p, %c[%c0] stride %c16 : !subgroup_matrix.result<16x16xf32>, memref<256xf32>
      gpu.return
    }
    gpu.func @f16_product(%a: memref<256xf16>, %b: memref<256xf16>, %c: memref<256xf32>) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c16 = arith.constant 16 : index
      %l = subgroup_matrix.load %a[%c0] stride %c16 : memref<256xf16> -> !subgroup_matrix.left<16x16xf16>
      %r = subgroup_matrix.load %b[%c0] stride %c16 : memref<256xf16> -> !subgroup_matrix.right<16x16xf16>
      %acc = subgroup_matrix.load %c[%c0] stride %c16 : memref<256xf32> -> !subgroup_matrix.result<16x16xf32>
      %p = subgroup_matrix.mma %l, %r, %acc : !subgroup_matrix.left<16x16xf16>, !subgroup_matrix.right<16x16xf16> -> !subgroup_matrix.result<16x16xf32>
      subgroup_matrix.store %p, %c[%c0] stride %c16 : !subgroup_matrix.result<16x16xf32>, memref<256xf32>
      gpu.return
    }
  }
}
