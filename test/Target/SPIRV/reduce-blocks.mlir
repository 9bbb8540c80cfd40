// A reduction over 2x2 blocks: with VK_NV_cooperative_matrix2's reductions
// one OpCooperativeMatrixReduceNV (Reduce = 2x2) from the 32x32 accumulator
// into a 16x16 one; with nv-coopmat2=false the matrix goes through the
// subgroup's workgroup-memory tile instead. Both binaries are valid.
// RUN: sm-opt %s --sm-lower-to-vulkan | sm-translate --serialize-spirv -o %t.spv
// RUN: spirv-val --target-env vulkan1.3 %t.spv
// RUN: spirv-dis %t.spv | FileCheck %s
// RUN: sm-opt %s --sm-lower-to-vulkan="nv-coopmat2=false" | sm-translate --serialize-spirv -o %t.khr.spv
// RUN: spirv-val --target-env vulkan1.3 %t.khr.spv
// RUN: spirv-dis %t.khr.spv | FileCheck %s --check-prefix=KHR

// (SPIRV-Tools 2026 prints the reduce instruction by the name of
// SPV_EXT_cooperative_matrix_maintenance1, which has the same number.)
// CHECK-DAG: OpCapability CooperativeMatrixReductions{{NV|EXT}}
// CHECK: OpExtension "SPV_NV_cooperative_matrix2"
// CHECK-NOT: __sm_nv_coopmat2__
// CHECK: OpName %[[COMBINE:sm_nv_coopmat2_combine]] "sm_nv_coopmat2_combine"
// CHECK-DAG: %[[WIDE:.*]] = OpTypeCooperativeMatrixKHR %float %uint_3 %uint_32 %uint_32 %uint_2
// CHECK-DAG: %[[POOLED:.*]] = OpTypeCooperativeMatrixKHR %float %uint_3 %uint_16 %uint_16 %uint_2
// CHECK: %pool = OpFunction
// CHECK: %[[M:.*]] = OpCooperativeMatrixLoadKHR %[[WIDE]]
// CHECK: %[[R:.*]] = OpCooperativeMatrixReduce{{NV|EXT}} %[[POOLED]] %[[M]] 2x2 %[[COMBINE]]
// CHECK: OpCooperativeMatrixStoreKHR %{{.*}} %[[R]]
// CHECK-NOT: OpControlBarrier
// CHECK: OpFunctionEnd
// CHECK: %[[COMBINE]] = OpFunction %float None
// CHECK: OpExtInst %float %{{.*}} FMax

// KHR-NOT: SPV_NV_cooperative_matrix2
// KHR-NOT: OpCooperativeMatrixReduce
// KHR: OpCooperativeMatrixStoreKHR
// KHR: OpControlBarrier
// KHR: OpCooperativeMatrixLoadKHR
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @pool(%a: memref<1024xf32>, %b: memref<256xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %m = subgroup_matrix.load %a[%c0] stride %c32 : memref<1024xf32> -> !subgroup_matrix.result<32x32xf32>
    %pooled = subgroup_matrix.reduce max blocks2x2 %m : !subgroup_matrix.result<32x32xf32> -> !subgroup_matrix.result<16x16xf32>
    subgroup_matrix.store %pooled, %b[%c0] stride %c16 : !subgroup_matrix.result<16x16xf32>, memref<256xf32>
    gpu.return
  }
}
