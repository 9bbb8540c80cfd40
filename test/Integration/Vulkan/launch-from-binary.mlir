// REQUIRES: lavapipe
// RUN: sm-opt %s --sm-lower-to-vulkan=target=nvidia-h100 | sm-translate --serialize-spirv -o %t.spv
// RUN: spirv-val --target-env vulkan1.3 %t.spv
// RUN: %lavapipe %t.spv --repeat 3 | FileCheck %s
// Arguments on the command line replace the recorded launch entirely.
// RUN: %lavapipe %t.spv --arg f32:96:random --arg f32:128:random --arg f32:192:random \
// RUN:   --grid 2,12 --check gemm:M=12,N=16,K=8,A=0,B=1,C=2,acc=2 | FileCheck %s --check-prefix=EXPLICIT
// A kernel whose recorded grid is one workgroup short fails its own check.
// RUN: sed 's/grid = \[2, 12, 1\]/grid = [1, 12, 1]/' %s \
// RUN:   | sm-opt --sm-lower-to-vulkan=target=nvidia-h100 | sm-translate --serialize-spirv -o %t.short.spv
// RUN: not %lavapipe %t.short.spv | FileCheck %s --check-prefix=SHORT

// The kernel records its launch (as sm-tile-matmul's kernels do): the
// runner reads grid, arguments and check from the binary. An ordinary GEMM
// (C += A * B, one invocation per element), since lavapipe has no
// cooperative matrices.

// CHECK: launch: from the kernel: --grid 2,12,1 --arg f32:96:random --arg f32:128:random --arg f32:192:random --check gemm:M=12,N=16,K=8,A=0,B=1,C=2,acc=2
// CHECK: check gemm 12x16x8 (C = argument 2, f32): PASSED: 192 elements, 0 mismatches, 0 written outside C
// CHECK: time: median
// EXPLICIT-NOT: launch: from the kernel
// EXPLICIT: check gemm 12x16x8 (C = argument 2, f32): PASSED
// SHORT: launch: from the kernel: --grid 1,12,1
// Half the grid leaves the 96 elements of columns 8..15 unwritten; one of
// them may still match when its random product sum is within the check's
// tolerance of zero (seen once in CI: 95).
// SHORT: FAILED: 192 elements, {{9[0-6]}} mismatches

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @accumulate(%A: memref<96xf32>, %B: memref<128xf32>, %C: memref<192xf32>) kernel
        attributes {known_block_size = array<i32: 8, 1, 1>,
                    subgroup_matrix.launch = #subgroup_matrix.launch<grid = [2, 12, 1],
                        arguments = ["f32:96:random", "f32:128:random", "f32:192:random"],
                        check = "gemm:M=12,N=16,K=8,A=0,B=1,C=2,acc=2">} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %tid = gpu.thread_id x
      %bx = gpu.block_id x
      %row = gpu.block_id y
      %colBase = arith.muli %bx, %c8 : index
      %col = arith.addi %colBase, %tid : index
      %cRow = arith.muli %row, %c16 : index
      %cIndex = arith.addi %cRow, %col : index
      %initial = memref.load %C[%cIndex] : memref<192xf32>
      %sum = scf.for %k = %c0 to %c8 step %c1 iter_args(%acc = %initial) -> (f32) {
        %aRow = arith.muli %row, %c8 : index
        %aIndex = arith.addi %aRow, %k : index
        %a = memref.load %A[%aIndex] : memref<96xf32>
        %bRow = arith.muli %k, %c16 : index
        %bIndex = arith.addi %bRow, %col : index
        %b = memref.load %B[%bIndex] : memref<128xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %acc, %p : f32
        scf.yield %s : f32
      }
      memref.store %sum, %C[%cIndex] : memref<192xf32>
      gpu.return
    }
  }
}
