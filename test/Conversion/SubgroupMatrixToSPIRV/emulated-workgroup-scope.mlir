// A workgroup's matrix has no emulated form: emulation spreads a matrix over
// the invocations of one subgroup. A kernel that asks for emulation is
// refused by the target check; one that emulation=all would emulate, by the
// emulation.
// RUN: sm-opt %s -split-input-file -verify-diagnostics --sm-lower-to-vulkan
// RUN: not sm-opt %s -split-input-file --sm-lower-to-vulkan="emulation=all" 2>&1 | FileCheck %s --check-prefix=ALL

gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @asks_for_emulation(%a: memref<4096xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, subgroup_matrix.emulate} {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    // expected-error @+1 {{'!subgroup_matrix.result<32x32xf32, workgroup>' is a workgroup-scope matrix, which kernels emulated for target 'nvidia-h100' cannot hold: emulation spreads each matrix over one subgroup's invocations}}
    %m = subgroup_matrix.load %a[%c0] stride %c64 : memref<4096xf32> -> !subgroup_matrix.result<32x32xf32, workgroup>
    subgroup_matrix.store %m, %a[%c0] stride %c64 : !subgroup_matrix.result<32x32xf32, workgroup>, memref<4096xf32>
    gpu.return
  }
}

// -----

// ALL: error: 'subgroup_matrix.load' op uses a workgroup-scope matrix in a kernel being emulated: emulation spreads each matrix over one subgroup's invocations, so only the device's own workgroup-scope matrices hold it (lower with emulation=none or emulation=unsupported)
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @native(%a: memref<4096xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %m = subgroup_matrix.load %a[%c0] stride %c64 : memref<4096xf32> -> !subgroup_matrix.result<32x32xf32, workgroup>
    subgroup_matrix.store %m, %a[%c0] stride %c64 : !subgroup_matrix.result<32x32xf32, workgroup>, memref<4096xf32>
    gpu.return
  }
}
