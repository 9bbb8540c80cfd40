// RUN: sm-opt %s --sm-check-target=target=nvidia-h100 --verify-diagnostics
// RUN: sm-opt %s --sm-check-target="target=nvidia-h100 allow-emulation=1" | FileCheck %s

// A shape the H100's matrix units lack is an error, unless the kernel may be
// emulated (what sm-lower-to-vulkan=emulation=unsupported lets it be).

// CHECK-LABEL: gpu.func @small
gpu.module @kernels {
  gpu.func @small(%buf: memref<256xf16>) kernel
      attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    // expected-error @below {{is not supported by target 'nvidia-h100'}}
    %a = subgroup_matrix.load %buf[%c0] stride %c8
        : memref<256xf16> -> !subgroup_matrix.left<8x8xf16>
    gpu.return
  }
}
