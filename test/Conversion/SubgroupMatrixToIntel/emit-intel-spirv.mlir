// RUN: sm-opt %s --sm-lower-to-intel | sm-translate --emit-intel-spirv -o %t.spv
// RUN: spirv-val --target-env spv1.4 %t.spv
// RUN: spirv-dis %t.spv | FileCheck %s
// RUN: %if ocloc %{ %ocloc %t.spv pvc | FileCheck %s --check-prefix=PVC %}
// RUN: %if ocloc %{ %ocloc %t.spv bmg | FileCheck %s --check-prefix=PVC %}
// RUN: not sm-translate --emit-intel-spirv %s 2>&1 | FileCheck %s --check-prefix=UNLOWERED

// CHECK-DAG: OpCapability SubgroupMatrixMultiplyAccumulateINTEL
// CHECK-DAG: OpExtension "SPV_INTEL_subgroup_matrix_multiply_accumulate"
// CHECK-DAG: OpEntryPoint Kernel %[[K:.*]] "signed_int8"
// CHECK-DAG: OpExecutionMode %[[K]] SubgroupSize 16
// CHECK-DAG: OpExecutionMode %[[K]] LocalSize 32 1 1
// CHECK: OpSubgroupMatrixMultiplyAccumulateINTEL %v8uint %uint_32 %{{[0-9]+}} %{{[0-9]+}} %{{[0-9]+}} MatrixASignedComponentsINTEL|MatrixBSignedComponentsINTEL|MatrixAPackedInt8INTEL|MatrixBPackedInt8INTEL

// IGC builds it to dpas on signed bytes.
// PVC: Build succeeded.
// PVC: dpas.8x8 (16|M0) {{.*}}:d {{.*}}:b {{.*}}:b

// UNLOWERED: error: 'subgroup_matrix.load' op is still a subgroup matrix op: lower the module with sm-opt --sm-lower-to-intel first
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"intel-xe-hpc">} {
  gpu.func @signed_int8(%a: memref<?xi8>, %c: memref<?xi32>, %s: index) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %l = subgroup_matrix.load %a[%c0] stride %s : memref<?xi8> -> !subgroup_matrix.left<8x32xsi8>
    %r = subgroup_matrix.load %a[%c0] stride %s : memref<?xi8> -> !subgroup_matrix.right<32x16xsi8>
    %d = subgroup_matrix.multiply %l, %r : !subgroup_matrix.left<8x32xsi8>, !subgroup_matrix.right<32x16xsi8> -> !subgroup_matrix.result<8x16xsi32>
    subgroup_matrix.store %d, %c[%c0] stride %s : !subgroup_matrix.result<8x16xsi32>, memref<?xi32>
    gpu.return
  }
}
