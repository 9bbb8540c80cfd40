// Subviews of memrefs with a dynamic outer dimension (memref<?x64xf16>,
// static strides): each subgroup takes its tiles of A, B and C as
// subviews and loads and stores at [0, 0] of them, with a robust-access
// variant that checks every matrix against its buffer.
// RUN: sm-opt %s --sm-lower-to-vulkan=target=nvidia-h100 | sm-translate --serialize-spirv -o %t.native.spv
// RUN: spirv-val --target-env vulkan1.3 %t.native.spv
// RUN: sm-opt %s --sm-lower-to-vulkan="target=nvidia-h100 emulation=all" | sm-translate --serialize-spirv -o %t.emulated.spv
// RUN: spirv-val --target-env vulkan1.3 %t.emulated.spv
// RUN: sm-opt %s --sm-lower-to-vulkan=target=cpu-lavapipe | sm-translate --serialize-spirv -o %t.lavapipe.spv
// RUN: spirv-val --target-env vulkan1.3 %t.lavapipe.spv
// RUN: %if lavapipe %{ %lavapipe %t.lavapipe.spv --arg f16:2048:random --arg f16:4096:random \
// RUN:   --arg f32:2048:poison --scalar i32:32 --grid 4,2 --check gemm:M=32,N=64,K=64,A=0,B=1,C=2 | FileCheck %s %}
// RUN: sm-opt %s --sm-lower-to-vulkan="target=cpu-lavapipe robust-access=1" | sm-translate --serialize-spirv -o %t.robust.spv
// RUN: spirv-val --target-env vulkan1.3 %t.robust.spv
// RUN: %if lavapipe %{ %lavapipe %t.robust.spv --arg f16:2048:random --arg f16:4096:random \
// RUN:   --arg f32:2048:poison --scalar i32:32 --grid 4,2 --append-lengths --check gemm:M=32,N=64,K=64,A=0,B=1,C=2 | FileCheck %s %}
// RUN: sm-opt %s --sm-lower-to-intel=target=intel-xe-hpc -o %t.intel.mlir
// RUN: sm-translate --emit-intel-spirv %t.intel.mlir -o %t.intel.spv
// RUN: spirv-val --target-env spv1.4 %t.intel.spv
// RUN: sm-translate --emit-intel-host-llvm %t.intel.mlir -o %t.ll
// RUN: sm-intel-host-runner %t.ll --entry subview_dynamic --arg f16:2048:random --arg f16:4096:random --arg f32:2048:poison --scalar i32:32 --grid 4,2 --check gemm:M=32,N=64,K=64,A=0,B=1,C=2 | FileCheck %s
// CHECK: check gemm 32x64x64 (C = argument 2, f32): PASSED: 2048 elements, 0 mismatches

// A is M x 64, B 64 x 64 and C M x 64 (M = 32 here, known only at run
// time). A workgroup of one H100 subgroup owns the 16x16 tile of C at
// (16 * block y, 16 * block x) and walks K in steps of 16.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @subview_dynamic(%A: memref<?x64xf16>, %B: memref<64x64xf16>,
                              %C: memref<?x64xf32>, %M: index) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c16 = arith.constant 16 : index
      %c64 = arith.constant 64 : index
      %zero = arith.constant 0.0 : f32
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %row = arith.muli %by, %c16 : index
      %col = arith.muli %bx, %c16 : index
      %aRows = memref.subview %A[%row, 0] [16, 64] [1, 1]
          : memref<?x64xf16> to memref<16x64xf16, strided<[64, 1], offset: ?>>
      %init = subgroup_matrix.splat %zero : f32 -> !subgroup_matrix.result<16x16xf32>
      %acc = scf.for %k = %c0 to %c64 step %c16
          iter_args(%c = %init) -> (!subgroup_matrix.result<16x16xf32>) {
        %bTile = memref.subview %B[%k, %col] [16, 16] [1, 1]
            : memref<64x64xf16> to memref<16x16xf16, strided<[64, 1], offset: ?>>
        %a = subgroup_matrix.load %aRows[%c0, %k] stride %c64
            : memref<16x64xf16, strided<[64, 1], offset: ?>> -> !subgroup_matrix.left<16x16xf16>
        %b = subgroup_matrix.load %bTile[%c0, %c0] stride %c64
            : memref<16x16xf16, strided<[64, 1], offset: ?>> -> !subgroup_matrix.right<16x16xf16>
        %d = subgroup_matrix.mma %a, %b, %c
            : !subgroup_matrix.left<16x16xf16>, !subgroup_matrix.right<16x16xf16>
              -> !subgroup_matrix.result<16x16xf32>
        scf.yield %d : !subgroup_matrix.result<16x16xf32>
      }
      %cTile = memref.subview %C[%row, %col] [16, 16] [1, 1]
          : memref<?x64xf32> to memref<16x16xf32, strided<[64, 1], offset: ?>>
      subgroup_matrix.store %acc, %cTile[%c0, %c0] stride %c64
          : !subgroup_matrix.result<16x16xf32>, memref<16x16xf32, strided<[64, 1], offset: ?>>
      gpu.return
    }
  }
}
