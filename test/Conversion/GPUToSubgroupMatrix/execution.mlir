// Upstream gpu.subgroup_mma code, moved over by --sm-convert-gpu-mma, runs
// on this project's paths: Intel's form executed on the CPU against the
// runner's GEMM reference (D = 2 (A B + C), C random, f16 inputs), and the
// Vulkan binary for the H100 validated by spirv-val (and compiled by RADV
// for RDNA3 where it is installed).
// RUN: sm-opt %s --sm-convert-gpu-mma --sm-lower-to-intel=target=intel-xe-hpc | sm-translate --emit-intel-host-llvm -o %t.ll
// RUN: sm-intel-host-runner %t.ll --entry gemm --arg f16:2048:random --arg f16:2048:random --arg f32:1024:random --grid 2 \
// RUN:   --check gemm:M=32,N=32,K=64,A=0,B=1,C=2,acc=2,mul=2 | FileCheck %s
// RUN: sm-opt %s --sm-convert-gpu-mma --sm-lower-to-intel=target=intel-xe-hpc | sm-translate --emit-intel-spirv -o %t.intel.spv
// RUN: spirv-val %t.intel.spv
// RUN: sm-opt %s --sm-convert-gpu-mma --sm-lower-to-vulkan=target=nvidia-h100 | sm-translate --serialize-spirv -o %t.spv
// RUN: spirv-val --target-env vulkan1.3 %t.spv
// RUN: sm-opt %s --sm-convert-gpu-mma --sm-lower-to-vulkan=target=amd-rdna3 | sm-translate --serialize-spirv -o %t.rdna3.spv
// RUN: %if radv %{ %radv %t.rdna3.spv | FileCheck %s --check-prefix=RADV %}

// CHECK: check bounds: PASSED
// CHECK: check gemm 32x32x64 (C = argument 2, f32): PASSED: 1024 elements, 0 mismatches
// RADV: pipeline: created for entry point 'gemm'

// Four 16x16 tiles of C, one per subgroup.
gpu.module @kernels {
  gpu.func @gemm(%a: memref<32x64xf16>, %b: memref<64x32xf16>, %c: memref<32x32xf32>) kernel
      attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %two = arith.constant 2.0 : f32
    %block = gpu.block_id x
    %subgroups = gpu.num_subgroups : index
    %subgroup = gpu.subgroup_id : index
    %first = arith.muli %block, %subgroups : index
    %tile = arith.addi %first, %subgroup : index
    %tile_row = arith.divui %tile, %c2 : index
    %tile_col = arith.remui %tile, %c2 : index
    %row = arith.muli %tile_row, %c16 : index
    %col = arith.muli %tile_col, %c16 : index
    %init = gpu.subgroup_mma_load_matrix %c[%row, %col] {leadDimension = 32 : index} : memref<32x32xf32> -> !gpu.mma_matrix<16x16xf32, "COp">
    %acc = scf.for %k = %c0 to %c64 step %c16 iter_args(%sum = %init) -> (!gpu.mma_matrix<16x16xf32, "COp">) {
      %l = gpu.subgroup_mma_load_matrix %a[%row, %k] {leadDimension = 64 : index} : memref<32x64xf16> -> !gpu.mma_matrix<16x16xf16, "AOp">
      %r = gpu.subgroup_mma_load_matrix %b[%k, %col] {leadDimension = 32 : index} : memref<64x32xf16> -> !gpu.mma_matrix<16x16xf16, "BOp">
      %d = gpu.subgroup_mma_compute %l, %r, %sum : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
      scf.yield %d : !gpu.mma_matrix<16x16xf32, "COp">
    }
    %twos = gpu.subgroup_mma_constant_matrix %two : !gpu.mma_matrix<16x16xf32, "COp">
    %scaled = gpu.subgroup_mma_elementwise mulf %acc, %twos : (!gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">) -> !gpu.mma_matrix<16x16xf32, "COp">
    gpu.subgroup_mma_store_matrix %scaled, %c[%row, %col] {leadDimension = 32 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<32x32xf32>
    gpu.return
  }
}
