// REQUIRES: lavapipe
// RUN: sm-opt %s --sm-lower-to-vulkan=target=nvidia-h100 | sm-translate --serialize-spirv -o %t.spv
// RUN: spirv-val --target-env vulkan1.3 %t.spv
// RUN: %lavapipe %t.spv --arg f32:96:random --arg f32:160:random --arg i32:320:random --arg f32:192:poison \
// RUN:   --grid 2,12 --check gemm:M=12,N=16,K=8,A=0,B=1,C=3,lda=8,ldb=20,b-offset=4,ldc=16 \
// RUN:   --repeat 5 | FileCheck %s
// RUN: %if radv %{ %radv %t.spv 2>&1 | FileCheck %s --check-prefix=RADV %}
// A reference that disagrees with the kernel (K = 7) must fail the check.
// RUN: not %lavapipe %t.spv --arg f32:96:random --arg f32:160:random --arg i32:320:random --arg f32:192:poison \
// RUN:   --grid 2,12 --check gemm:M=12,N=16,K=7,A=0,B=1,C=3,lda=8,ldb=20,b-offset=4,ldc=16 \
// RUN:   | FileCheck %s --check-prefix=WRONG
// Leaving part of C unwritten (a grid one workgroup short) must fail too.
// RUN: not %lavapipe %t.spv --arg f32:96:random --arg f32:160:random --arg i32:320:random --arg f32:192:poison \
// RUN:   --grid 1,12 --check gemm:M=12,N=16,K=8,A=0,B=1,C=3,lda=8,ldb=20,b-offset=4,ldc=16 \
// RUN:   | FileCheck %s --check-prefix=UNWRITTEN

// The runner itself, on Mesa's CPU Vulkan device (which has no cooperative
// matrices): an ordinary GEMM kernel, one invocation per element of C, with
// B at an offset and a wider leading dimension. The unused i32 argument
// checks that arguments map to bindings in order.

// CHECK: device: llvmpipe
// CHECK: pipeline: created for entry point 'naive_gemm'
// CHECK: check gemm 12x16x8 (C = argument 3, f32): PASSED: 192 elements, 0 mismatches, 0 written outside C
// CHECK: time: median {{[0-9.]+}} us, min {{[0-9.]+}} us, max {{[0-9.]+}} us over 5 dispatches (GPU timestamps)
// CHECK: rate: {{[0-9.]+}} TFLOP/s for 12x16x8
// RADV: pipeline: created for entry point 'naive_gemm'
// WRONG: check gemm 12x16x7 (C = argument 3, f32): FAILED
// UNWRITTEN: FAILED: 192 elements, 96 mismatches
// UNWRITTEN-NEXT: 96 of the mismatches were never written (they still hold C's poison), the first at C[0][8] C[0][9] C[0][10] C[0][11] C[0][12] C[0][13] C[0][14] C[0][15] ...

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @naive_gemm(%A: memref<96xf32>, %B: memref<160xf32>, %unused: memref<320xi32>, %C: memref<192xf32>) kernel
        attributes {known_block_size = array<i32: 8, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %c20 = arith.constant 20 : index
      %zero = arith.constant 0.0 : f32
      %tid = gpu.thread_id x
      %bx = gpu.block_id x
      %row = gpu.block_id y
      %colBase = arith.muli %bx, %c8 : index
      %col = arith.addi %colBase, %tid : index
      %sum = scf.for %k = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (f32) {
        %aRow = arith.muli %row, %c8 : index
        %aIndex = arith.addi %aRow, %k : index
        %a = memref.load %A[%aIndex] : memref<96xf32>
        %bRow = arith.muli %k, %c20 : index
        %bCol = arith.addi %bRow, %col : index
        %bIndex = arith.addi %bCol, %c4 : index
        %b = memref.load %B[%bIndex] : memref<160xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %acc, %p : f32
        scf.yield %s : f32
      }
      %cRow = arith.muli %row, %c16 : index
      %cIndex = arith.addi %cRow, %col : index
      memref.store %sum, %C[%cIndex] : memref<192xf32>
      gpu.return
    }
  }
}
