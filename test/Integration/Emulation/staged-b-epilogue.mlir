// B staged through workgroup memory (a 2-D memref.alloc in the workgroup
// space), transposed as it is staged and read back column-major, with
// scalar ops as an epilogue: C = (A * B) * 0.5 + 0.25.
// RUN: sm-opt %s --sm-lower-to-vulkan=target=nvidia-h100 | sm-translate --serialize-spirv -o %t.native.spv
// RUN: spirv-val --target-env vulkan1.3 %t.native.spv
// RUN: sm-opt %s --sm-lower-to-vulkan="target=nvidia-h100 emulation=all" | sm-translate --serialize-spirv -o %t.emulated.spv
// RUN: spirv-val --target-env vulkan1.3 %t.emulated.spv
// RUN: sm-opt %s --sm-lower-to-vulkan=target=cpu-lavapipe | sm-translate --serialize-spirv -o %t.lavapipe.spv
// RUN: spirv-val --target-env vulkan1.3 %t.lavapipe.spv
// RUN: %if lavapipe %{ %lavapipe %t.lavapipe.spv --arg f16:2048:random --arg f16:2048:random \
// RUN:   --arg f32:1024:poison --grid 2,2 --check gemm:M=32,N=32,K=64,A=0,B=1,C=2,mul=0.5,add=0.25 | FileCheck %s %}
// RUN: sm-opt %s --sm-lower-to-intel=target=intel-xe-hpc -o %t.intel.mlir
// RUN: sm-translate --emit-intel-spirv %t.intel.mlir -o %t.intel.spv
// RUN: spirv-val --target-env spv1.4 %t.intel.spv
// RUN: sm-translate --emit-intel-host-llvm %t.intel.mlir -o %t.ll
// RUN: sm-intel-host-runner %t.ll --entry staged_b --arg f16:2048:random --arg f16:2048:random --arg f32:1024:poison --grid 2,2 --check gemm:M=32,N=32,K=64,A=0,B=1,C=2,mul=0.5,add=0.25 | FileCheck %s
// CHECK: check gemm 32x32x64 (C = argument 2, f32): PASSED: 1024 elements, 0 mismatches

// A is 32 x 64, B 64 x 32 (K x N), C 32 x 32, all row-major. A workgroup
// of one H100 subgroup owns a 16x16 tile of C; for each K step of 16 its
// invocations copy B's 16x16 block into workgroup memory as N x K, which
// the right matrix then reads column-major.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @staged_b(%A: memref<32x64xf16>, %B: memref<64x32xf16>,
                       %C: memref<32x32xf32>) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c16 = arith.constant 16 : index
      %c32 = arith.constant 32 : index
      %c64 = arith.constant 64 : index
      %c256 = arith.constant 256 : index
      %zero = arith.constant 0.0 : f32
      %half = arith.constant 0.5 : f32
      %quarter = arith.constant 0.25 : f32
      %staged = memref.alloc() : memref<16x16xf16, #gpu.address_space<workgroup>>
      %tid = gpu.thread_id x
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %row = arith.muli %by, %c16 : index
      %col = arith.muli %bx, %c16 : index
      %init = subgroup_matrix.splat %zero : f32 -> !subgroup_matrix.result<16x16xf32>
      %acc = scf.for %k = %c0 to %c64 step %c16
          iter_args(%c = %init) -> (!subgroup_matrix.result<16x16xf32>) {
        // Every invocation copies elements tid, tid + 32, ... of the block.
        scf.for %e = %tid to %c256 step %c32 {
          %kk = arith.divui %e, %c16 : index
          %nn = arith.remui %e, %c16 : index
          %gk = arith.addi %k, %kk : index
          %gn = arith.addi %col, %nn : index
          %v = memref.load %B[%gk, %gn] : memref<64x32xf16>
          memref.store %v, %staged[%nn, %kk] : memref<16x16xf16, #gpu.address_space<workgroup>>
        }
        gpu.barrier
        %a = subgroup_matrix.load %A[%row, %k] stride %c64
            : memref<32x64xf16> -> !subgroup_matrix.left<16x16xf16>
        %b = subgroup_matrix.load %staged[%c0, %c0] stride %c16 col_major
            : memref<16x16xf16, #gpu.address_space<workgroup>> -> !subgroup_matrix.right<16x16xf16>
        %d = subgroup_matrix.mma %a, %b, %c
            : !subgroup_matrix.left<16x16xf16>, !subgroup_matrix.right<16x16xf16>
              -> !subgroup_matrix.result<16x16xf32>
        gpu.barrier
        scf.yield %d : !subgroup_matrix.result<16x16xf32>
      }
      %scaled = subgroup_matrix.scalar_mul %acc, %half : !subgroup_matrix.result<16x16xf32>, f32
      %shifted = subgroup_matrix.scalar_add %scaled, %quarter : !subgroup_matrix.result<16x16xf32>, f32
      subgroup_matrix.store %shifted, %C[%row, %col] stride %c32
          : !subgroup_matrix.result<16x16xf32>, memref<32x32xf32>
      gpu.return
    }
  }
}
