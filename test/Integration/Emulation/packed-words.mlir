// Matrices read from and written to buffers of packed i32 words (a form
// the native lowering takes: memref<Nxvector<4xi32>>, eight f16 per word)
// are emulated through a buffer of their storage type holding the same
// bytes; a whole word copied through workgroup memory keeps its bits.
// RUN: sm-opt %s --sm-lower-to-vulkan=target=nvidia-h100 | sm-translate --serialize-spirv -o %t.native.spv
// RUN: spirv-val --target-env vulkan1.3 %t.native.spv
// RUN: sm-opt %s --sm-lower-to-vulkan="target=nvidia-h100 emulation=all" | sm-translate --serialize-spirv -o %t.emulated.spv
// RUN: spirv-val --target-env vulkan1.3 %t.emulated.spv
// RUN: sm-opt %s --sm-lower-to-vulkan=target=cpu-lavapipe | sm-translate --serialize-spirv -o %t.lavapipe.spv
// RUN: spirv-val --target-env vulkan1.3 %t.lavapipe.spv
// RUN: %if lavapipe %{ %lavapipe %t.lavapipe.spv --arg f16:256:random --arg f16:256:random \
// RUN:   --arg f32:256:poison --check gemm:M=16,N=16,K=16,A=0,B=1,C=2 | FileCheck %s %}
// RUN: sm-opt %s --sm-lower-to-intel=target=intel-xe-hpc -o %t.intel.mlir
// RUN: sm-translate --emit-intel-spirv %t.intel.mlir -o %t.intel.spv
// RUN: spirv-val --target-env spv1.4 %t.intel.spv
// RUN: sm-translate --emit-intel-host-llvm %t.intel.mlir -o %t.ll
// RUN: sm-intel-host-runner %t.ll --entry packed --arg f16:256:random --arg f16:256:random --arg f32:256:poison --check gemm:M=16,N=16,K=16,A=0,B=1,C=2 | FileCheck %s
// CHECK: check gemm 16x16x16 (C = argument 2, f32): PASSED: 256 elements, 0 mismatches

// A (16 x 16 f16, row-major) is 32 words of eight elements; B is staged
// word by word into workgroup words and read from there.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @packed(%A: memref<32xvector<4xi32>>, %B: memref<32xvector<4xi32>>,
                     %C: memref<256xf32>) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      %c16 = arith.constant 16 : index
      %staged = memref.alloc() : memref<32xvector<4xi32>, #gpu.address_space<workgroup>>
      %tid = gpu.thread_id x
      %word = memref.load %B[%tid] : memref<32xvector<4xi32>>
      memref.store %word, %staged[%tid] : memref<32xvector<4xi32>, #gpu.address_space<workgroup>>
      gpu.barrier
      // Strides count words: a row of 16 f16 is two words.
      %a = subgroup_matrix.load %A[%c0] stride %c2
          : memref<32xvector<4xi32>> -> !subgroup_matrix.left<16x16xf16>
      %b = subgroup_matrix.load %staged[%c0] stride %c2
          : memref<32xvector<4xi32>, #gpu.address_space<workgroup>> -> !subgroup_matrix.right<16x16xf16>
      %d = subgroup_matrix.multiply %a, %b
          : !subgroup_matrix.left<16x16xf16>, !subgroup_matrix.right<16x16xf16>
            -> !subgroup_matrix.result<16x16xf32>
      subgroup_matrix.store %d, %C[%c0] stride %c16
          : !subgroup_matrix.result<16x16xf32>, memref<256xf32>
      gpu.return
    }
  }
}
