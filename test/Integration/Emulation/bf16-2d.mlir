// A bf16 product on 2-D memrefs (bf16 x bf16 -> f32), natively, emulated
// on a target with matrix units, and on lavapipe, where bf16 is held as
// 16-bit integers and computed in f32.
// RUN: sm-opt %s --sm-lower-to-vulkan=target=nvidia-h100 | sm-translate --serialize-spirv -o %t.native.spv
// RUN: sm-opt %s --sm-lower-to-vulkan="target=nvidia-h100 emulation=all" | sm-translate --serialize-spirv -o %t.emulated.spv
// RUN: sm-opt %s --sm-lower-to-vulkan=target=cpu-lavapipe | sm-translate --serialize-spirv -o %t.lavapipe.spv
// RUN: %if spirv-val-bf16 %{ spirv-val --target-env vulkan1.3 %t.native.spv %}
// RUN: %if spirv-val-bf16 %{ spirv-val --target-env vulkan1.3 %t.emulated.spv %}
// RUN: spirv-val --target-env vulkan1.3 %t.lavapipe.spv
// RUN: %if lavapipe %{ %lavapipe %t.lavapipe.spv --arg bf16:256:random --arg bf16:256:random \
// RUN:   --arg f32:256:poison --check gemm:M=16,N=16,K=16,A=0,B=1,C=2 | FileCheck %s %}
// RUN: sm-opt %s --sm-lower-to-intel=target=intel-xe-hpc -o %t.intel.mlir
// RUN: sm-translate --emit-intel-spirv %t.intel.mlir -o %t.intel.spv
// RUN: spirv-val --target-env spv1.4 %t.intel.spv
// RUN: sm-translate --emit-intel-host-llvm %t.intel.mlir -o %t.ll
// RUN: sm-intel-host-runner %t.ll --entry bf16_2d --arg bf16:256:random --arg bf16:256:random --arg f32:256:poison --check gemm:M=16,N=16,K=16,A=0,B=1,C=2 | FileCheck %s
// CHECK: check gemm 16x16x16 (C = argument 2, f32): PASSED: 256 elements, 0 mismatches
// (The first two binaries hold bf16 types, which only a spirv-val that reads
// SPV_KHR_bfloat16, SPIRV-Tools 2026, can validate; the lavapipe one holds
// bf16 as integers.)

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @bf16_2d(%A: memref<16x16xbf16>, %B: memref<16x16xbf16>,
                      %C: memref<16x16xf32>) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c16 = arith.constant 16 : index
      %a = subgroup_matrix.load %A[%c0, %c0] stride %c16
          : memref<16x16xbf16> -> !subgroup_matrix.left<16x16xbf16>
      %b = subgroup_matrix.load %B[%c0, %c0] stride %c16
          : memref<16x16xbf16> -> !subgroup_matrix.right<16x16xbf16>
      %d = subgroup_matrix.multiply %a, %b
          : !subgroup_matrix.left<16x16xbf16>, !subgroup_matrix.right<16x16xbf16>
            -> !subgroup_matrix.result<16x16xf32>
      subgroup_matrix.store %d, %C[%c0, %c0] stride %c16
          : !subgroup_matrix.result<16x16xf32>, memref<16x16xf32>
      gpu.return
    }
  }
}
