// RUN: sm-opt %s --sm-check-target=composed-shapes=1 --split-input-file --verify-diagnostics
// RUN: not sm-opt %s --sm-check-target --split-input-file 2>&1 | FileCheck %s --check-prefix=EXACT

// With composed-shapes, a matrix built of several of a configuration's
// (every dimension a multiple, the same types) passes, as Metal's arrays of
// 8x8 simdgroup matrices do; without it, only the configurations' own
// shapes do.
// EXACT: '!subgroup_matrix.left<16x32xf16>' is not supported by target 'apple-m1'; it supports left<8x8xf32>, left<8x8xf16>
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"apple-m1">} {
  gpu.func @composed(%a: memref<1024xf16>) kernel
      attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %l = subgroup_matrix.load %a[%c0] stride %c32
        : memref<1024xf16> -> !subgroup_matrix.left<16x32xf16>
    %r = subgroup_matrix.load %a[%c0] stride %c32
        : memref<1024xf16> -> !subgroup_matrix.right<32x24xf16>
    %d = subgroup_matrix.multiply %l, %r : !subgroup_matrix.left<16x32xf16>, !subgroup_matrix.right<32x24xf16> -> !subgroup_matrix.result<16x24xf16>
    gpu.return
  }
}

// -----

// Shapes that are not whole numbers of the configuration's, and products
// whose shapes do not multiply, are still errors.
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"apple-m1">} {
  gpu.func @uneven(%a: memref<1024xf16>) kernel
      attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    // expected-error @+1 {{'!subgroup_matrix.left<12x16xf16>' is not supported by target 'apple-m1'; it supports left<8x8xf32>, left<8x8xf16>, and matrices built of several of them}}
    %l = subgroup_matrix.load %a[%c0] stride %c32
        : memref<1024xf16> -> !subgroup_matrix.left<12x16xf16>
    gpu.return
  }
}
