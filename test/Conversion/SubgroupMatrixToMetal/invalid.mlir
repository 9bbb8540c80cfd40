// RUN: sm-opt %s --sm-lower-to-metal --split-input-file --verify-diagnostics

// Matrices are checked against the target, with the larger shapes Metal
// builds of 8x8 simdgroup matrices accepted (the 16x16 operands here) and
// other shapes, type combinations and integer components reported as a
// driver would.

gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"apple-m1">} {
  gpu.func @mixed(%a: memref<512xf16>, %c: memref<256xf32>) kernel
      attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %l = subgroup_matrix.load %a[%c0] stride %c16
        : memref<512xf16> -> !subgroup_matrix.left<16x16xf16>
    %r = subgroup_matrix.load %a[%c0] stride %c16
        : memref<512xf16> -> !subgroup_matrix.right<16x16xf16>
    // expected-error @+1 {{into '!subgroup_matrix.result<16x16xf32>' is not a configuration of target 'apple-m1'; its configurations (M x N x K, component -> result) are: 8x8x8 f32 -> f32, 8x8x8 f16 -> f16, and multiplications built of several of one of them}}
    %d = subgroup_matrix.multiply %l, %r : !subgroup_matrix.left<16x16xf16>, !subgroup_matrix.right<16x16xf16> -> !subgroup_matrix.result<16x16xf32>
    gpu.return
  }
}

// -----

gpu.module @kernels {
  gpu.func @integers(%a: memref<256xi8>) kernel
      attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    // expected-error @+1 {{'!subgroup_matrix.left<16x16xsi8>' is not supported by target 'metal'}}
    %l = subgroup_matrix.load %a[%c0] stride %c16
        : memref<256xi8> -> !subgroup_matrix.left<16x16xsi8>
    gpu.return
  }
}

// -----

gpu.module @kernels {
  gpu.func @uneven(%a: memref<256xf16>) kernel
      attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    // expected-error @+1 {{'!subgroup_matrix.left<12x16xf16>' is not supported by target 'metal'}}
    %l = subgroup_matrix.load %a[%c0] stride %c16
        : memref<256xf16> -> !subgroup_matrix.left<12x16xf16>
    gpu.return
  }
}

// -----

// A kernel of matrices needs whole simdgroups.

gpu.module @kernels {
  // expected-error @+1 {{kernel 'partial' uses subgroup matrices with a workgroup size x of 48}}
  gpu.func @partial(%a: memref<256xf16>) kernel
      attributes {known_block_size = array<i32: 48, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %l = subgroup_matrix.load %a[%c0] stride %c16
        : memref<256xf16> -> !subgroup_matrix.left<16x16xf16>
    gpu.return
  }
}
