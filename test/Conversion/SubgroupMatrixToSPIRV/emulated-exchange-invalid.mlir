// RUN: sm-opt %s -split-input-file -verify-diagnostics --sm-lower-to-vulkan=emulated-exchange=workgroup

// A function other than a kernel has no workgroup size to size the
// scratch buffer of its exchange.

gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"cpu-lavapipe">} {
  // expected-error @+1 {{cannot exchange emulated operands through workgroup memory without a known_block_size, which sizes the scratch buffer; use emulated-exchange=subgroup}}
  gpu.func @helper(%a: memref<256xf16>, %c: memref<256xf32>) {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %l = subgroup_matrix.load %a[%c0] stride %c16 : memref<256xf16> -> !subgroup_matrix.left<16x16xf16>
    %r = subgroup_matrix.load %a[%c0] stride %c16 : memref<256xf16> -> !subgroup_matrix.right<16x16xf16>
    %d = subgroup_matrix.multiply %l, %r : !subgroup_matrix.left<16x16xf16>, !subgroup_matrix.right<16x16xf16> -> !subgroup_matrix.result<16x16xf32>
    subgroup_matrix.store %d, %c[%c0] stride %c16 : !subgroup_matrix.result<16x16xf32>, memref<256xf32>
    gpu.return
  }
}
