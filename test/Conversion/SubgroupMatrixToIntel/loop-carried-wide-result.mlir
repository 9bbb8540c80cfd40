// RUN: sm-opt %s --sm-lower-to-intel | sm-translate --emit-intel-spirv -o %t.spv
// RUN: spirv-val --target-env spv1.4 %t.spv
// RUN: spirv-dis %t.spv | FileCheck %s
// RUN: %if ocloc %{ %ocloc %t.spv dg2 | FileCheck %s --check-prefix=DG2 %}

// A 16x16 f32 accumulator carried around the K loop on a subgroup of 8 is
// 32 floats per invocation, wider than a SPIR-V vector: LLVM's SPIR-V
// backend used to abort on the loop's phi. The phi is carried as two
// 16-float halves instead.

// CHECK-DAG: OpEntryPoint Kernel %[[K:.*]] "tiled_gemm"
// CHECK-DAG: OpExecutionMode %[[K]] SubgroupSize 8
// CHECK-DAG: %[[V16:.*]] = OpTypeVector %float 16
// CHECK: %{{.*}} = OpPhi %[[V16]]
// CHECK: %{{.*}} = OpPhi %[[V16]]
// CHECK: OpSubgroupMatrixMultiplyAccumulateINTEL %v8float

// DG2: Build succeeded.
// DG2: dpas.8x8 (8|M0)
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"intel-xe-hpg">} {
  gpu.func @tiled_gemm(%A: memref<?xf16>, %B: memref<?xf16>, %C: memref<?xf32>, %K: index, %ld: index) kernel attributes {known_block_size = array<i32: 8, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %zero = arith.constant 0.0 : f32
    %init = subgroup_matrix.splat %zero : f32 -> !subgroup_matrix.result<16x16xf32>
    %acc = scf.for %k = %c0 to %K step %c16 iter_args(%c = %init) -> (!subgroup_matrix.result<16x16xf32>) {
      %b_offset = arith.muli %k, %ld : index
      %a = subgroup_matrix.load %A[%k] stride %ld : memref<?xf16> -> !subgroup_matrix.left<16x16xf16>
      %b = subgroup_matrix.load %B[%b_offset] stride %ld : memref<?xf16> -> !subgroup_matrix.right<16x16xf16>
      %d = subgroup_matrix.mma %a, %b, %c : !subgroup_matrix.left<16x16xf16>, !subgroup_matrix.right<16x16xf16> -> !subgroup_matrix.result<16x16xf32>
      scf.yield %d : !subgroup_matrix.result<16x16xf32>
    }
    subgroup_matrix.store %acc, %C[%c0] stride %ld : !subgroup_matrix.result<16x16xf32>, memref<?xf32>
    gpu.return
  }
}
