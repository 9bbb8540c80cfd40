// RUN: not sm-opt %s --sm-check-target=target=intel-xe-hpg 2>&1 | FileCheck %s --check-prefix=HPG
// RUN: sm-opt %s --sm-check-target=target=intel-xe-hpc | FileCheck %s --check-prefix=HPC
// RUN: not sm-opt %s --sm-check-target=target=nvidia-h200 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not sm-opt %s --sm-check-target 2>&1 | FileCheck %s --check-prefix=NOTARGET

// The same module against both Intel presets: Xe-HPC (subgroup 16) has tf32
// and runs it; Xe-HPG (subgroup 8) has no tf32.

// UNKNOWN: error: unknown target preset 'nvidia-h200'; known presets: nvidia-h100, amd-rdna3, intel-xe-hpc, intel-xe-hpg, apple-m1
// NOTARGET: error: no target to check subgroup matrices against: attach a 'subgroup_matrix.target' attribute to the enclosing gpu.module or module, or name a preset with target=NAME
// NOTARGET-NOT: error

// HPC: gpu.func @k
gpu.module @intel {
  gpu.func @k(%f: memref<?xf32>, %s: index) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    // HPG: error: '!subgroup_matrix.left<8x8xf32>' is not supported by target 'intel-xe-hpg'; it supports left<1x16xf16>, left<2x16xf16>, left<4x16xf16>, left<8x16xf16>, left<16x16xf16>, left<32x16xf16>, left<1x16xbf16>
    %tl = subgroup_matrix.load %f[%c0] stride %s : memref<?xf32> -> !subgroup_matrix.left<8x8xf32>
    // HPG: error: '!subgroup_matrix.right<8x16xf32>' is not supported by target 'intel-xe-hpg'
    %tr = subgroup_matrix.load %f[%c0] stride %s : memref<?xf32> -> !subgroup_matrix.right<8x16xf32>
    // HPG: error: the multiplication of '!subgroup_matrix.left<8x8xf32>' by '!subgroup_matrix.right<8x16xf32>' into '!subgroup_matrix.result<8x16xf32>' is not a configuration of target 'intel-xe-hpg'
    %t = subgroup_matrix.multiply %tl, %tr : !subgroup_matrix.left<8x8xf32>, !subgroup_matrix.right<8x16xf32> -> !subgroup_matrix.result<8x16xf32>
    gpu.return
  }
  // 48 is a multiple of both subgroup sizes.
  // HPG-NOT: error: kernel
  // HPC: gpu.func @odd
  gpu.func @odd(%f: memref<?xf32>, %s: index) kernel attributes {known_block_size = array<i32: 48, 1, 1>} {
    %c0 = arith.constant 0 : index
    %tl = subgroup_matrix.load %f[%c0] stride %s : memref<?xf32> -> !subgroup_matrix.left<8x8xf32>
    gpu.return
  }
}
