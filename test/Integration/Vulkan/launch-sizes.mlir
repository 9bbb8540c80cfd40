// REQUIRES: lavapipe
// RUN: sm-opt %s --sm-lower-to-vulkan=target=nvidia-h100 | sm-translate --serialize-spirv -o %t.spv
// RUN: spirv-val --target-env vulkan1.3 %t.spv
// RUN: %lavapipe %t.spv --size M=12 --size N=16 --size K=8 | FileCheck %s --check-prefix=SMALL
// RUN: %lavapipe %t.spv --size M=37 --size N=21 --size K=5 | FileCheck %s --check-prefix=RAGGED
// RUN: not %lavapipe %t.spv --size M=12 --size K=8 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not %lavapipe %t.spv --size M=12 --size N=x 2>&1 | FileCheck %s --check-prefix=MALFORMED
// The grid expression is what covers C: a kernel recorded one column of
// workgroups short fails its own check. Its inputs are seeded: C starts
// random and is accumulated into, so with fresh inputs an unwritten element
// can, rarely, already hold its expected value and the count would vary.
// RUN: sed -e 's/"ceildiv(N,8)"/"ceildiv(N,16)"/' -e 's/:random"/:random:1"/g' %s \
// RUN:   | sm-opt --sm-lower-to-vulkan=target=nvidia-h100 | sm-translate --serialize-spirv -o %t.short.spv
// RUN: not %lavapipe %t.short.spv --size M=12 --size N=16 --size K=8 | FileCheck %s --check-prefix=SHORT

// A kernel built for sizes known only at run time (as sm-linalg-to-gpu
// builds them for dynamic M, N and K) records its launch with size
// expressions; the runner evaluates them from --size: the grid, the
// buffers' lengths, the size arguments and the check. An ordinary GEMM
// (one invocation per element of C, bounded by M and N), since lavapipe
// has no cooperative matrices.

// SMALL: launch: from the kernel: --grid 2,12,1 --arg f32:96:random --arg f32:128:random --arg f32:192:random --scalar i32:12 --scalar i32:16 --scalar i32:8 --check gemm:M=12,N=16,K=8,A=0,B=1,C=2,acc=2
// SMALL: check gemm 12x16x8 (C = argument 2, f32): PASSED: 192 elements, 0 mismatches, 0 written outside C
// RAGGED: launch: from the kernel: --grid 3,37,1 --arg f32:185:random --arg f32:105:random --arg f32:777:random --scalar i32:37 --scalar i32:21 --scalar i32:5
// RAGGED: check gemm 37x21x5 (C = argument 2, f32): PASSED: 777 elements, 0 mismatches, 0 written outside C
// MISSING: error: the kernel's launch needs the size N (pass --size N=VALUE)
// MALFORMED: error: --size needs NAME=VALUE with an integer from 0 to 4294967296, got 'N=x'
// SHORT: launch: from the kernel: --grid 1,12,1 --arg f32:96:random:1 --arg f32:128:random:1 --arg f32:192:random:1
// SHORT: check gemm 12x16x8 (C = argument 2, f32): FAILED: 192 elements, 96 mismatches

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @accumulate(%A: memref<?xf32>, %B: memref<?xf32>, %C: memref<?xf32>,
                         %M: index, %N: index, %K: index) kernel
        attributes {known_block_size = array<i32: 8, 1, 1>,
                    subgroup_matrix.launch = #subgroup_matrix.launch<grid = ["ceildiv(N,8)", "M", 1],
                        arguments = ["f32:{M*K}:random", "f32:{K*N}:random", "f32:{M*N}:random"],
                        sizes = ["M", "N", "K"],
                        check = "gemm:M={M},N={N},K={K},A=0,B=1,C=2,acc=2">} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %tid = gpu.thread_id x
      %bx = gpu.block_id x
      %row = gpu.block_id y
      %colBase = arith.muli %bx, %c8 : index
      %col = arith.addi %colBase, %tid : index
      %inside = arith.cmpi ult, %col, %N : index
      scf.if %inside {
        %cRow = arith.muli %row, %N : index
        %cIndex = arith.addi %cRow, %col : index
        %initial = memref.load %C[%cIndex] : memref<?xf32>
        %sum = scf.for %k = %c0 to %K step %c1 iter_args(%acc = %initial) -> (f32) {
          %aRow = arith.muli %row, %K : index
          %aIndex = arith.addi %aRow, %k : index
          %a = memref.load %A[%aIndex] : memref<?xf32>
          %bRow = arith.muli %k, %N : index
          %bIndex = arith.addi %bRow, %col : index
          %b = memref.load %B[%bIndex] : memref<?xf32>
          %p = arith.mulf %a, %b : f32
          %s = arith.addf %acc, %p : f32
          scf.yield %s : f32
        }
        memref.store %sum, %C[%cIndex] : memref<?xf32>
      }
      gpu.return
    }
  }
}
