// The serializer writes the SPV_NV_cooperative_matrix2 instruction each
// stand-in call stands for, declares its capability and the extension, and
// drops the stand-ins; the binary is valid. With nv-coopmat2=false the same
// kernel keeps to SPV_KHR_cooperative_matrix.
// RUN: sm-opt %s --sm-lower-to-vulkan | sm-translate --serialize-spirv -o %t.spv
// RUN: spirv-val --target-env vulkan1.3 %t.spv
// RUN: spirv-dis %t.spv | FileCheck %s
// RUN: sm-opt %s --sm-lower-to-vulkan="nv-coopmat2=false" | sm-translate --serialize-spirv -o %t.khr.spv
// RUN: spirv-val --target-env vulkan1.3 %t.khr.spv
// RUN: spirv-dis %t.khr.spv | FileCheck %s --check-prefix=KHR

// (SPIRV-Tools 2026 prints the capabilities and the reduce and per-element
// instructions by the names of SPV_EXT_cooperative_matrix_maintenance1,
// which has the same numbers.)
// CHECK-DAG: OpCapability CooperativeMatrixReductions{{NV|EXT}}
// CHECK-DAG: OpCapability CooperativeMatrixConversions{{NV|EXT}}
// CHECK-DAG: OpCapability CooperativeMatrixPerElementOperations{{NV|EXT}}
// CHECK: OpExtension "SPV_KHR_cooperative_matrix"
// CHECK: OpExtension "SPV_NV_cooperative_matrix2"
// CHECK-NOT: __sm_nv_coopmat2__
// CHECK: OpName %[[COMBINE:sm_nv_coopmat2_combine]] "sm_nv_coopmat2_combine"
// CHECK: OpName %[[ELEMENT:sm_nv_coopmat2_element]] "sm_nv_coopmat2_element"
// CHECK-NOT: __sm_nv_coopmat2__
// CHECK: %[[ACC:.*]] = OpTypeCooperativeMatrixKHR %float %uint_3 %uint_16 %uint_16 %uint_2
// CHECK: %[[A:.*]] = OpTypeCooperativeMatrixKHR %half %uint_3 %uint_16 %uint_16 %uint_0
// CHECK: %softmax = OpFunction
// CHECK: %[[S:.*]] = OpCooperativeMatrixLoadKHR %[[ACC]]
// CHECK: %[[MAX:.*]] = OpCooperativeMatrixReduce{{NV|EXT}} %[[ACC]] %[[S]] Row %[[COMBINE]]
// CHECK: %[[P:.*]] = OpCooperativeMatrixPerElementOp{{NV|EXT}} %[[ACC]] %[[S]] %[[ELEMENT]] %[[MAX]]
// CHECK: %[[LEFT:.*]] = OpFConvert %[[A]] %[[P]]
// CHECK: OpCooperativeMatrixStoreKHR %{{.*}} %[[LEFT]]
// CHECK-NOT: OpControlBarrier
// CHECK: OpFunctionEnd
// CHECK-NOT: OpFunctionCall
// CHECK: %[[COMBINE]] = OpFunction %float None
// CHECK: %[[ELEMENT]] = OpFunction %float None
// CHECK: OpExtInst %float %{{.*}} Exp

// KHR-NOT: SPV_NV_cooperative_matrix2
// KHR-NOT: __sm_nv_coopmat2__
// KHR: OpControlBarrier
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @softmax(%a: memref<1024xf32>, %b: memref<1024xf16>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %s = subgroup_matrix.load %a[%c0] stride %c16 : memref<1024xf32> -> !subgroup_matrix.result<16x16xf32>
    %max = subgroup_matrix.reduce max rows %s : !subgroup_matrix.result<16x16xf32>
    %p = subgroup_matrix.map %s, %max : !subgroup_matrix.result<16x16xf32>, !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.result<16x16xf32> {
    ^bb0(%row: index, %col: index, %x: f32, %m: f32):
      %d = arith.subf %x, %m : f32
      %e = math.exp %d : f32
      subgroup_matrix.yield %e : f32
    }
    %left = subgroup_matrix.convert %p : !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.left<16x16xf16>
    subgroup_matrix.store %left, %b[%c0] stride %c16 : !subgroup_matrix.left<16x16xf16>, memref<1024xf16>
    gpu.return
  }
}
