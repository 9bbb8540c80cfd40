// RUN: sm-opt %s --sm-lower-to-vulkan | FileCheck %s
// RUN: sm-opt %s --sm-lower-to-vulkan | sm-translate --serialize-spirv -o %t.spv
// RUN: spirv-val --target-env vulkan1.3 %t.spv
// RUN: %if radv %{ %radv %t.spv 2>&1 | FileCheck %s --check-prefix=RADV %}

// Every op of the dialect on the RDNA3 target (16x16x16 only), in one
// kernel that the null-hardware RADV device compiles to WMMA.

// CHECK-LABEL: spirv.module @__spv__kernels Logical Vulkan
// CHECK-SAME: VulkanMemoryModel
// CHECK-SAME: CooperativeMatrixKHR
// CHECK-SAME: SPV_KHR_cooperative_matrix
// CHECK-DAG: spirv.GlobalVariable @{{.*}} : !spirv.ptr<!spirv.struct<(!spirv.array<1024 x f16>)>, Workgroup>
// CHECK: spirv.func @ops
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"amd-rdna3">} {
  gpu.func @ops(%a: memref<1024xf16>, %c: memref<1024xf32>, %h: memref<1024xf16>,
                %s: index, %bias: f32, %x: f16)
      workgroup(%wg: memref<1024xf16, #gpu.address_space<workgroup>>) kernel
      attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    // CHECK: %[[A:.*]] = spirv.KHR.CooperativeMatrixLoad %{{.*}}, %{{.*}}, <RowMajor>, <NonPrivatePointer> : !spirv.ptr<f16, StorageBuffer>, i32 -> !spirv.coopmatrix<16x16xf16, Subgroup, MatrixA>
    %l = subgroup_matrix.load %a[%c16] stride %s : memref<1024xf16> -> !subgroup_matrix.left<16x16xf16>
    // CHECK: spirv.KHR.CooperativeMatrixStore %{{.*}}, %[[A]], %{{.*}}, <RowMajor>, <NonPrivatePointer> : !spirv.ptr<f16, Workgroup>, !spirv.coopmatrix<16x16xf16, Subgroup, MatrixA>
    subgroup_matrix.store %l, %wg[%c0] stride %c16 : !subgroup_matrix.left<16x16xf16>, memref<1024xf16, #gpu.address_space<workgroup>>
    gpu.barrier
    // CHECK: %[[B:.*]] = spirv.KHR.CooperativeMatrixLoad %{{.*}}, %{{.*}}, <ColumnMajor>, <NonPrivatePointer> : !spirv.ptr<f16, Workgroup>, i32 -> !spirv.coopmatrix<16x16xf16, Subgroup, MatrixB>
    %r = subgroup_matrix.load %wg[%c0] stride %c32 col_major : memref<1024xf16, #gpu.address_space<workgroup>> -> !subgroup_matrix.right<16x16xf16>
    // A constant splat is a constant composite.
    // CHECK: %[[ZERO:.*]] = spirv.Constant dense<0.000000e+00> : !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>
    %zero = arith.constant 0.0 : f32
    %acc = subgroup_matrix.splat %zero : f32 -> !subgroup_matrix.result<16x16xf32>
    // CHECK: %[[D:.*]] = spirv.KHR.CooperativeMatrixMulAdd %[[A]], %[[B]], %[[ZERO]] : !spirv.coopmatrix<16x16xf16, Subgroup, MatrixA>, !spirv.coopmatrix<16x16xf16, Subgroup, MatrixB> -> !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>
    %d = subgroup_matrix.mma %l, %r, %acc : !subgroup_matrix.left<16x16xf16>, !subgroup_matrix.right<16x16xf16> -> !subgroup_matrix.result<16x16xf32>
    // A splat of a run-time value is a composite construct.
    // CHECK: %[[BIAS:.*]] = spirv.CompositeConstruct %{{.*}} : (f32) -> !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>
    // CHECK: %[[ADDED:.*]] = spirv.FAdd %[[D]], %[[BIAS]] : !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>
    %e = subgroup_matrix.scalar_add %d, %bias : !subgroup_matrix.result<16x16xf32>, f32
    // CHECK: spirv.CompositeConstruct
    // CHECK: %[[SUBBED:.*]] = spirv.FSub %[[ADDED]], %{{.*}} : !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>
    %f = subgroup_matrix.scalar_sub %e, %bias : !subgroup_matrix.result<16x16xf32>, f32
    // CHECK: %[[SCALED:.*]] = spirv.MatrixTimesScalar %[[SUBBED]], %{{.*}} : !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>, f32
    %g = subgroup_matrix.scalar_mul %f, %bias : !subgroup_matrix.result<16x16xf32>, f32
    // CHECK: spirv.CompositeConstruct
    // CHECK: %[[DIVIDED:.*]] = spirv.FDiv %[[SCALED]], %{{.*}} : !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>
    %k = subgroup_matrix.scalar_div %g, %bias : !subgroup_matrix.result<16x16xf32>, f32
    // CHECK: spirv.KHR.CooperativeMatrixStore %{{.*}}, %[[DIVIDED]], %{{.*}}, <RowMajor>, <NonPrivatePointer> : !spirv.ptr<f32, StorageBuffer>
    subgroup_matrix.store %k, %c[%c0] stride %s : !subgroup_matrix.result<16x16xf32>, memref<1024xf32>
    // multiply adds a zero accumulator; f16 accumulates into f16.
    // CHECK: %[[HZERO:.*]] = spirv.Constant dense<0.000000e+00> : !spirv.coopmatrix<16x16xf16, Subgroup, MatrixAcc>
    // CHECK: spirv.KHR.CooperativeMatrixMulAdd %[[A]], %[[B]], %[[HZERO]]
    %m = subgroup_matrix.multiply %l, %r : !subgroup_matrix.left<16x16xf16>, !subgroup_matrix.right<16x16xf16> -> !subgroup_matrix.result<16x16xf16>
    %n = subgroup_matrix.scalar_mul %m, %x : !subgroup_matrix.result<16x16xf16>, f16
    subgroup_matrix.store %n, %h[%c0] stride %c16 col_major : !subgroup_matrix.result<16x16xf16>, memref<1024xf16>
    gpu.return
  }
}
// The gpu.module stays for the host code.
// CHECK: gpu.module @kernels

// RADV-DAG: v_wmma_f32_16x16x16_f16
// RADV-DAG: v_wmma_f16_16x16x16_f16
// RADV: pipeline: created for entry point 'ops', subgroup size 32 (required, full subgroups)
