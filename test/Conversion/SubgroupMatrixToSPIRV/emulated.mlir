// RUN: sm-opt %s --sm-lower-to-vulkan | FileCheck %s
// RUN: sm-opt %s --sm-lower-to-vulkan | sm-translate --serialize-spirv -o %t.spv
// RUN: spirv-val --target-env vulkan1.3 %t.spv
// RUN: %if lavapipe %{ %lavapipe %t.spv --arg f16:256:random --arg f16:256:random --arg f32:256:random \
// RUN:   --check gemm:M=16,N=16,K=16,A=0,B=1,C=2,acc=2,b-col-major | FileCheck %s --check-prefix=EXECUTED %}

// cpu-lavapipe has no cooperative matrices: each matrix is the 32 scalars
// an invocation holds (16 rows of its column in each of the two
// subgroup-wide column tiles), loaded and stored element by element; mma is
// f32 multiply-adds whose left-matrix elements are broadcast from the
// invocation holding them (one broadcast per element of the 16x16 left
// matrix, 512 products per invocation).

// CHECK: spirv.module @__spv__kernels Logical Vulkan requires #spirv.vce<v1.5, [
// CHECK-NOT: CooperativeMatrix
// CHECK-SAME: GroupNonUniformBallot
// CHECK-SAME: #spirv.resource_limits<subgroup_size = 8, min_subgroup_size = 8, max_subgroup_size = 8, cooperative_matrix_properties_khr = []
// CHECK-LABEL: spirv.func @mma
// CHECK: %[[LANE:.*]] = spirv.Load "Input" %{{.*}} : i32
// CHECK: %[[A0:.*]] = spirv.Load "StorageBuffer" %{{.*}} ["NonPrivatePointer"] : f16
// CHECK: %[[WORD:.*]] = spirv.UConvert %{{.*}} : i16 to i32
// CHECK: %[[BROADCAST:.*]] = spirv.GroupNonUniformBroadcast <Subgroup> %[[WORD]], %{{.*}} : i32, i32
// CHECK: spirv.FConvert %{{.*}} : f16 to f32
// CHECK: %[[PRODUCT:.*]] = spirv.FMul
// CHECK: spirv.FAdd %{{.*}}, %[[PRODUCT]] : f32
// CHECK-NOT: spirv.KHR.CooperativeMatrix
// CHECK: spirv.Return
// EXECUTED: check gemm 16x16x16 (C = argument 2, f32): PASSED: 256 elements, 0 mismatches
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"cpu-lavapipe">} {
  gpu.func @mma(%a: memref<256xf16>, %b: memref<256xf16>, %c: memref<256xf32>) kernel attributes {known_block_size = array<i32: 8, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %l = subgroup_matrix.load %a[%c0] stride %c16 : memref<256xf16> -> !subgroup_matrix.left<16x16xf16>
    %r = subgroup_matrix.load %b[%c0] stride %c16 col_major : memref<256xf16> -> !subgroup_matrix.right<16x16xf16>
    %acc = subgroup_matrix.load %c[%c0] stride %c16 : memref<256xf32> -> !subgroup_matrix.result<16x16xf32>
    %d = subgroup_matrix.mma %l, %r, %acc : !subgroup_matrix.left<16x16xf16>, !subgroup_matrix.right<16x16xf16> -> !subgroup_matrix.result<16x16xf32>
    subgroup_matrix.store %d, %c[%c0] stride %c16 : !subgroup_matrix.result<16x16xf32>, memref<256xf32>
    gpu.return
  }
}
