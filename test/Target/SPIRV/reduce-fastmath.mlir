// A float maximum that propagates NaN costs Vulkan a NaN test of each
// operand and a select at every combining step (GLSL.std.450's FMax is
// undefined for NaN); a reduction with fastmath<nnan> may assume no NaN and
// combines with FMax alone. Both serialize to valid binaries.
// RUN: sm-opt %s --sm-lower-to-vulkan | sm-translate --serialize-spirv -o %t.spv
// RUN: spirv-val --target-env vulkan1.3 %t.spv
// RUN: spirv-dis %t.spv | FileCheck %s

// CHECK: OpName %[[PROPAGATING:sm_nv_coopmat2_combine]] "sm_nv_coopmat2_combine"
// CHECK: OpName %[[ASSUMING:sm_nv_coopmat2_combine_0]] "sm_nv_coopmat2_combine_0"
// CHECK: OpCooperativeMatrixReduce{{NV|EXT}} %{{.*}} Row %[[PROPAGATING]]
// CHECK: OpCooperativeMatrixReduce{{NV|EXT}} %{{.*}} Row %[[ASSUMING]]
// CHECK: %[[PROPAGATING]] = OpFunction %float None
// CHECK: OpExtInst %float %{{.*}} FMax
// CHECK: OpIsNan
// CHECK: OpSelect
// CHECK: OpFunctionEnd
// CHECK: %[[ASSUMING]] = OpFunction %float None
// CHECK-NEXT: OpFunctionParameter
// CHECK-NEXT: OpFunctionParameter
// CHECK-NEXT: OpLabel
// CHECK-NEXT: %[[MAX:.*]] = OpExtInst %float %{{.*}} FMax
// CHECK-NEXT: OpReturnValue %[[MAX]]
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @maxima(%a: memref<1024xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %c256 = arith.constant 256 : index
    %s = subgroup_matrix.load %a[%c0] stride %c16 : memref<1024xf32> -> !subgroup_matrix.result<16x16xf32>
    %propagating = subgroup_matrix.reduce max rows %s : !subgroup_matrix.result<16x16xf32>
    %assuming = subgroup_matrix.reduce max rows %s fastmath<nnan> : !subgroup_matrix.result<16x16xf32>
    subgroup_matrix.store %propagating, %a[%c0] stride %c16 : !subgroup_matrix.result<16x16xf32>, memref<1024xf32>
    subgroup_matrix.store %assuming, %a[%c256] stride %c16 : !subgroup_matrix.result<16x16xf32>, memref<1024xf32>
    gpu.return
  }
}
