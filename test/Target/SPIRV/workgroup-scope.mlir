// Matrices held by a workgroup of 128 invocations (the H100's 32x16x16
// granularity): every matrix type is a cooperative matrix of Workgroup
// scope (2), the product one OpCooperativeMatrixMulAddKHR, the row maximum
// an OpCooperativeMatrixReduceNV, the masked exponential a per-element
// operation and the conversion of the accumulator into an f16 left matrix
// one OpFConvert (which the extension lets change the use), with no
// barrier or workgroup memory of ours. The binary is valid.
// RUN: sm-opt %s --sm-lower-to-vulkan | sm-translate --serialize-spirv -o %t.spv
// RUN: spirv-val --target-env vulkan1.3 %t.spv
// RUN: spirv-dis %t.spv | FileCheck %s

// Without VK_NV_cooperative_matrix2's instructions the reduction has no
// lowering at workgroup scope.
// RUN: not sm-opt %s --sm-lower-to-vulkan="nv-coopmat2=false" -o /dev/null 2>&1 | FileCheck %s --check-prefix=KHR

// CHECK: OpExtension "SPV_NV_cooperative_matrix2"
// CHECK: OpExecutionMode %softmax_step LocalSize 128 1 1
// CHECK-DAG: %[[LEFT:.*]] = OpTypeCooperativeMatrixKHR %half %uint_2 %uint_64 %uint_32 %uint_0
// CHECK-DAG: %[[RIGHT:.*]] = OpTypeCooperativeMatrixKHR %half %uint_2 %uint_32 %uint_64 %uint_1
// CHECK-DAG: %[[ACC:.*]] = OpTypeCooperativeMatrixKHR %float %uint_2 %uint_64 %uint_64 %uint_2
// CHECK-DAG: %[[P:.*]] = OpTypeCooperativeMatrixKHR %half %uint_2 %uint_64 %uint_64 %uint_0
// CHECK: %softmax_step = OpFunction
// CHECK-NOT: OpControlBarrier
// CHECK: %[[A:.*]] = OpCooperativeMatrixLoadKHR %[[LEFT]]
// CHECK: %[[B:.*]] = OpCooperativeMatrixLoadKHR %[[RIGHT]]
// CHECK: %[[S:.*]] = OpCooperativeMatrixMulAddKHR %[[ACC]] %[[A]] %[[B]]
// CHECK: OpCooperativeMatrixReduce{{NV|EXT}} %[[ACC]] %[[S]] Row
// CHECK: %[[E:.*]] = OpCooperativeMatrixPerElementOp{{NV|EXT}} %[[ACC]] %[[S]]
// CHECK: OpFConvert %[[P]] %[[E]]
// CHECK: OpCooperativeMatrixStoreKHR
// CHECK-NOT: OpControlBarrier
// CHECK: OpFunctionEnd

// KHR: error: 'subgroup_matrix.reduce' op on a workgroup-scope matrix has no lowering: VK_NV_cooperative_matrix2 reduces and maps result matrices, converts them into left and right ones, and loads and stores within bounds (sm-use-nv-cooperative-matrix2, where the target lists the feature), and the workgroup-memory form of the rest works on subgroup matrices only
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @softmax_step(%q: memref<2048xf16>, %k: memref<2048xf16>, %out: memref<4096xf16>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %zero = arith.constant 0.0 : f32
    %a = subgroup_matrix.load %q[%c0] stride %c32 : memref<2048xf16> -> !subgroup_matrix.left<64x32xf16, workgroup>
    %b = subgroup_matrix.load %k[%c0] stride %c64 : memref<2048xf16> -> !subgroup_matrix.right<32x64xf16, workgroup>
    %acc = subgroup_matrix.splat %zero : f32 -> !subgroup_matrix.result<64x64xf32, workgroup>
    %s = subgroup_matrix.mma %a, %b, %acc : !subgroup_matrix.left<64x32xf16, workgroup>, !subgroup_matrix.right<32x64xf16, workgroup> -> !subgroup_matrix.result<64x64xf32, workgroup>
    %m = subgroup_matrix.reduce max rows %s : !subgroup_matrix.result<64x64xf32, workgroup>
    // exp(s - m) above the diagonal, 0 below: the position of each element.
    %p = subgroup_matrix.map %s, %m : !subgroup_matrix.result<64x64xf32, workgroup>, !subgroup_matrix.result<64x64xf32, workgroup> -> !subgroup_matrix.result<64x64xf32, workgroup> {
    ^bb0(%row: index, %col: index, %x: f32, %y: f32):
      %d = arith.subf %x, %y : f32
      %e = math.exp %d : f32
      %above = arith.cmpi ugt, %col, %row : index
      %z = arith.constant 0.0 : f32
      %v = arith.select %above, %z, %e : f32
      subgroup_matrix.yield %v : f32
    }
    %l = subgroup_matrix.convert %p : !subgroup_matrix.result<64x64xf32, workgroup> -> !subgroup_matrix.left<64x64xf16, workgroup>
    subgroup_matrix.store %l, %out[%c0] stride %c64 : !subgroup_matrix.left<64x64xf16, workgroup>, memref<4096xf16>
    gpu.return
  }
}
