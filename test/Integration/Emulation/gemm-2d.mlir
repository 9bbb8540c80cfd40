// A GEMM over static 2-D memrefs, as hand-written kernels are: loads at
// [row, k] with the leading dimension as stride, an scf.for over K. It runs
// natively on the H100, emulated there (emulation=all) and emulated on
// lavapipe (cpu-lavapipe), each checked against the runner's reference.
// RUN: sm-opt %s --sm-lower-to-vulkan=target=nvidia-h100 | sm-translate --serialize-spirv -o %t.native.spv
// RUN: spirv-val --target-env vulkan1.3 %t.native.spv
// RUN: sm-opt %s --sm-lower-to-vulkan="target=nvidia-h100 emulation=all" | sm-translate --serialize-spirv -o %t.emulated.spv
// RUN: spirv-val --target-env vulkan1.3 %t.emulated.spv
// RUN: sm-opt %s --sm-lower-to-vulkan=target=cpu-lavapipe | sm-translate --serialize-spirv -o %t.lavapipe.spv
// RUN: spirv-val --target-env vulkan1.3 %t.lavapipe.spv
// RUN: %if lavapipe %{ %lavapipe %t.lavapipe.spv --arg f16:16384:random --arg f16:16384:random \
// RUN:   --arg f32:4096:poison --grid 4,4 --check gemm:M=64,N=64,K=256,A=0,B=1,C=2 | FileCheck %s %}
// RUN: sm-opt %s --sm-lower-to-intel=target=intel-xe-hpc -o %t.intel.mlir
// RUN: sm-translate --emit-intel-spirv %t.intel.mlir -o %t.intel.spv
// RUN: spirv-val --target-env spv1.4 %t.intel.spv
// RUN: sm-translate --emit-intel-host-llvm %t.intel.mlir -o %t.ll
// RUN: sm-intel-host-runner %t.ll --entry gemm_2d --arg f16:16384:random --arg f16:16384:random --arg f32:4096:poison --grid 4,4 --check gemm:M=64,N=64,K=256,A=0,B=1,C=2 | FileCheck %s
// CHECK: check gemm 64x64x256 (C = argument 2, f32): PASSED: 4096 elements, 0 mismatches

// Each workgroup is one subgroup of the H100 (32 invocations; four
// subgroups of 8 on lavapipe, which compute the same tile) and owns the
// 16x16 tile of C at (16 * block y, 16 * block x).
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @gemm_2d(%A: memref<64x256xf16>, %B: memref<256x64xf16>,
                      %C: memref<64x64xf32>) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c16 = arith.constant 16 : index
      %c64 = arith.constant 64 : index
      %c256 = arith.constant 256 : index
      %zero = arith.constant 0.0 : f32
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %row = arith.muli %by, %c16 : index
      %col = arith.muli %bx, %c16 : index
      %init = subgroup_matrix.splat %zero : f32 -> !subgroup_matrix.result<16x16xf32>
      %acc = scf.for %k = %c0 to %c256 step %c16
          iter_args(%c = %init) -> (!subgroup_matrix.result<16x16xf32>) {
        %a = subgroup_matrix.load %A[%row, %k] stride %c256
            : memref<64x256xf16> -> !subgroup_matrix.left<16x16xf16>
        %b = subgroup_matrix.load %B[%k, %col] stride %c64
            : memref<256x64xf16> -> !subgroup_matrix.right<16x16xf16>
        %d = subgroup_matrix.mma %a, %b, %c
            : !subgroup_matrix.left<16x16xf16>, !subgroup_matrix.right<16x16xf16>
              -> !subgroup_matrix.result<16x16xf32>
        scf.yield %d : !subgroup_matrix.result<16x16xf32>
      }
      subgroup_matrix.store %acc, %C[%row, %col] stride %c64
          : !subgroup_matrix.result<16x16xf32>, memref<64x64xf32>
      gpu.return
    }
  }
}
