// RUN: sm-opt %s -split-input-file -verify-diagnostics --sm-check-target

// With VK_NV_cooperative_matrix2's flexible dimensions, Mesa 26's lavapipe
// takes any multiple of its 8x8x8 granularities up to 1024: these matrices
// and the 16x24x32 multiplication are native, not emulated.
gpu.module @lavapipe_flexible attributes {subgroup_matrix.target = #subgroup_matrix.target<"cpu-lavapipe-coopmat">} {
  gpu.func @gemm(%a: memref<?xf16>, %c: memref<?xf32>, %s: index) kernel
      attributes {known_block_size = array<i32: 16, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %l = subgroup_matrix.load %a[%c0] stride %s : memref<?xf16> -> !subgroup_matrix.left<16x32xf16>
    %r = subgroup_matrix.load %a[%c0] stride %s : memref<?xf16> -> !subgroup_matrix.right<32x24xf16>
    %acc = subgroup_matrix.splat %zero : f32 -> !subgroup_matrix.result<16x24xf32>
    %d = subgroup_matrix.mma %l, %r, %acc : !subgroup_matrix.left<16x32xf16>, !subgroup_matrix.right<32x24xf16> -> !subgroup_matrix.result<16x24xf32>
    subgroup_matrix.store %d, %c[%c0] stride %s : !subgroup_matrix.result<16x24xf32>, memref<?xf32>
    gpu.return
  }
}

// -----

gpu.module @lavapipe_not_multiples attributes {subgroup_matrix.target = #subgroup_matrix.target<"cpu-lavapipe-coopmat">} {
  gpu.func @k(%a: memref<?xf16>, %s: index) kernel {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{'!subgroup_matrix.left<12x8xf16>' is not supported by target 'cpu-lavapipe-coopmat'; it supports left<8x8xf16>, left<8x8xui8>, left<8x8xsi8>, left<8x8xf16> multiples up to 1024, left<8x8xui8> multiples up to 1024, left<8x8xsi8> multiples up to 1024}}
    %l = subgroup_matrix.load %a[%c0] stride %s : memref<?xf16> -> !subgroup_matrix.left<12x8xf16>
    // Beyond the largest dimension.
    // expected-error @+1 {{'!subgroup_matrix.right<8x2048xf16>' is not supported by target 'cpu-lavapipe-coopmat'}}
    %r = subgroup_matrix.load %a[%c0] stride %s : memref<?xf16> -> !subgroup_matrix.right<8x2048xf16>
    gpu.return
  }
}

// -----

// Every type is a flexible matrix of some granularity, but no granularity
// holds all three: K = 8 is no multiple of the f32 granularity's 16, and
// the 16x8x8 one accumulates in f16.
gpu.module @mixed_granularities attributes {subgroup_matrix.target = #subgroup_matrix.target<"two-granularities", subgroup_size = 32, configs = [<16x16x16, f16 -> f32>], nv_coopmat2 = [flexible_dimensions], flexible_granularities = [<16x16x16, f16 -> f32>, <16x8x8, f16 -> f16>], flexible_max_dimension = 256>} {
  gpu.func @k(%l: !subgroup_matrix.left<16x8xf16>, %r: !subgroup_matrix.right<8x16xf16>, %c: !subgroup_matrix.result<16x16xf32>) kernel {
    // expected-error @+1 {{the multiplication of '!subgroup_matrix.left<16x8xf16>' by '!subgroup_matrix.right<8x16xf16>' into '!subgroup_matrix.result<16x16xf32>' is not a configuration of target 'two-granularities'; its configurations (M x N x K, component -> result) are: 16x16x16 f16 -> f32, multiples of 16x16x16 f16 -> f32 up to 256 (flexible dimensions), multiples of 16x8x8 f16 -> f16 up to 256 (flexible dimensions)}}
    %d = subgroup_matrix.mma %l, %r, %c : !subgroup_matrix.left<16x8xf16>, !subgroup_matrix.right<8x16xf16> -> !subgroup_matrix.result<16x16xf32>
    gpu.return
  }
}

// -----

// A target of the same configurations without the granularities keeps to
// 8x8x8.
gpu.module @lavapipe_without_flexible attributes {subgroup_matrix.target = #subgroup_matrix.target<"no-flexible", subgroup_size = 8, configs = [<8x8x8, f16 -> f32>], nv_coopmat2 = [flexible_dimensions]>} {
  gpu.func @k(%a: memref<?xf16>, %s: index) kernel {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{'!subgroup_matrix.left<16x16xf16>' is not supported by target 'no-flexible'; it supports left<8x8xf16>}}
    %l = subgroup_matrix.load %a[%c0] stride %s : memref<?xf16> -> !subgroup_matrix.left<16x16xf16>
    gpu.return
  }
}
