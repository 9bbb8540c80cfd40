// RUN: sm-opt %s -split-input-file -verify-diagnostics --sm-check-target=target=intel-xe-hpc


// The option overrides the attribute: this module is checked as Xe-HPC.
gpu.module @intel attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @k(%a: memref<?xf16>, %f: memref<?xf32>, %s: index) kernel attributes {known_block_size = array<i32: 16, 1, 1>} {
    %c0 = arith.constant 0 : index
    // Xe-HPC: N of 16 or 32, M from 1 to 32, K = 16 for f16 and 8 for tf32.
    %l = subgroup_matrix.load %a[%c0] stride %s : memref<?xf16> -> !subgroup_matrix.left<8x16xf16>
    %r = subgroup_matrix.load %a[%c0] stride %s : memref<?xf16> -> !subgroup_matrix.right<16x16xf16>
    %d = subgroup_matrix.multiply %l, %r : !subgroup_matrix.left<8x16xf16>, !subgroup_matrix.right<16x16xf16> -> !subgroup_matrix.result<8x16xf32>
    %tl = subgroup_matrix.load %f[%c0] stride %s : memref<?xf32> -> !subgroup_matrix.left<32x8xf32>
    %tr = subgroup_matrix.load %f[%c0] stride %s : memref<?xf32> -> !subgroup_matrix.right<8x32xf32>
    %t = subgroup_matrix.multiply %tl, %tr : !subgroup_matrix.left<32x8xf32>, !subgroup_matrix.right<8x32xf32> -> !subgroup_matrix.result<32x32xf32>
    gpu.return
  }
}

// -----

gpu.module @intel_bad {
  // expected-error @+1 {{kernel 'k' uses subgroup matrices with a workgroup size x of 24, which is not a multiple of the subgroup size 16 of target 'intel-xe-hpc'}}
  gpu.func @k(%a: memref<?xf16>, %s: index) kernel attributes {known_block_size = array<i32: 24, 1, 1>} {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{'!subgroup_matrix.left<3x16xf16>' is not supported by target 'intel-xe-hpc'; it supports left<1x16xf16>, left<2x16xf16>, left<4x16xf16>, left<8x16xf16>, left<16x16xf16>, left<32x16xf16>, left<1x16xbf16>}}
    %l = subgroup_matrix.load %a[%c0] stride %s : memref<?xf16> -> !subgroup_matrix.left<3x16xf16>
    gpu.return
  }
}
