// RUN: sm-opt %s --sm-lower-to-vulkan | FileCheck %s
// RUN: sm-opt %s --sm-lower-to-vulkan | sm-translate --serialize-spirv -o %t.spv
// RUN: spirv-val --target-env vulkan1.3 %t.spv
// RUN: spirv-dis %t.spv | FileCheck %s --check-prefix=BINARY
// RUN: not sm-opt %s --sm-lower-to-vulkan=target=amd-rdna3 2>&1 | FileCheck %s --check-prefix=NO-FLEXIBLE

// Matrices of flexible dimensions (multiples of the device's granularities,
// VK_NV_cooperative_matrix2) are cooperative matrices of those dimensions:
// one multiply-add of 16x24x32, not twelve of 8x8x8, and no emulation.
// VK_NV_cooperative_matrix2 needs no SPIR-V capability for them; the
// device's flexibleDimensions feature is what allows the shapes.

// CHECK-LABEL: spirv.func @gemm
// CHECK:         %[[L:.*]] = spirv.KHR.CooperativeMatrixLoad {{.*}} -> !spirv.coopmatrix<16x32xf16, Subgroup, MatrixA>
// CHECK:         %[[R:.*]] = spirv.KHR.CooperativeMatrixLoad {{.*}} -> !spirv.coopmatrix<32x24xf16, Subgroup, MatrixB>
// CHECK:         %[[D:.*]] = spirv.KHR.CooperativeMatrixMulAdd %[[L]], %[[R]], %{{.*}} : !spirv.coopmatrix<16x32xf16, Subgroup, MatrixA>, !spirv.coopmatrix<32x24xf16, Subgroup, MatrixB> -> !spirv.coopmatrix<16x24xf32, Subgroup, MatrixAcc>
// CHECK:         spirv.KHR.CooperativeMatrixStore %{{.*}}, %[[D]], %{{.*}}, <RowMajor>
// CHECK-NOT:     spirv.GroupNonUniformBroadcast
// CHECK-NOT:     spirv.GroupNonUniformShuffle

// BINARY-DAG: OpTypeCooperativeMatrixKHR %half %uint_3 %uint_16 %uint_32 %uint_0
// BINARY-DAG: OpTypeCooperativeMatrixKHR %half %uint_3 %uint_32 %uint_24 %uint_1
// BINARY-DAG: OpTypeCooperativeMatrixKHR %float %uint_3 %uint_16 %uint_24 %uint_2
// BINARY:     OpCooperativeMatrixMulAddKHR

// A device without flexible dimensions refuses the shapes by name.
// NO-FLEXIBLE: error: '!subgroup_matrix.left<16x32xf16>' is not supported by target 'amd-rdna3'
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"cpu-lavapipe-coopmat">} {
  gpu.func @gemm(%a: memref<512xf16>, %b: memref<768xf16>, %c: memref<384xf32>) kernel
      attributes {known_block_size = array<i32: 8, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c24 = arith.constant 24 : index
    %c32 = arith.constant 32 : index
    %zero = arith.constant 0.0 : f32
    %l = subgroup_matrix.load %a[%c0] stride %c32 : memref<512xf16> -> !subgroup_matrix.left<16x32xf16>
    %r = subgroup_matrix.load %b[%c0] stride %c24 : memref<768xf16> -> !subgroup_matrix.right<32x24xf16>
    %acc = subgroup_matrix.splat %zero : f32 -> !subgroup_matrix.result<16x24xf32>
    %d = subgroup_matrix.mma %l, %r, %acc : !subgroup_matrix.left<16x32xf16>, !subgroup_matrix.right<32x24xf16> -> !subgroup_matrix.result<16x24xf32>
    subgroup_matrix.store %d, %c[%c0] stride %c24 : !subgroup_matrix.result<16x24xf32>, memref<384xf32>
    gpu.return
  }
}
