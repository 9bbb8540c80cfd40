// RUN: sm-opt %s -split-input-file -verify-diagnostics --sm-lower-to-intel

// The target check runs first: shapes the preset does not list are errors.
gpu.module @m12 attributes {subgroup_matrix.target = #subgroup_matrix.target<"intel-xe-hpc">} {
  gpu.func @k(%a: memref<?xf16>, %s: index) kernel attributes {known_block_size = array<i32: 16, 1, 1>} {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{'!subgroup_matrix.left<12x16xf16>' is not supported by target 'intel-xe-hpc'}}
    %l = subgroup_matrix.load %a[%c0] stride %s : memref<?xf16> -> !subgroup_matrix.left<12x16xf16>
    gpu.return
  }
}

// -----

// A custom target may list more than the extension can express: the
// lowering names the rule.
gpu.module @custom attributes {subgroup_matrix.target = #subgroup_matrix.target<"custom", subgroup_size = 16, configs = [<12x16x16, f16 -> f32>]>} {
  gpu.func @k(%a: memref<?xf16>, %s: index) kernel attributes {known_block_size = array<i32: 16, 1, 1>} {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{'subgroup_matrix.load' op !subgroup_matrix.left<12x16xf16>: M = 12 is above 8 and not a multiple of 8, so it cannot be split into instructions of M = 8}}
    %l = subgroup_matrix.load %a[%c0] stride %s : memref<?xf16> -> !subgroup_matrix.left<12x16xf16>
    gpu.return
  }
}

// -----

gpu.module @k_mismatch attributes {subgroup_matrix.target = #subgroup_matrix.target<"custom", subgroup_size = 16, configs = [<8x16x8, f16 -> f32>]>} {
  gpu.func @k(%a: memref<?xf16>, %s: index) kernel attributes {known_block_size = array<i32: 16, 1, 1>} {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{!subgroup_matrix.left<8x8xf16>: K = 8 but the instruction's K for this component type is 16}}
    %l = subgroup_matrix.load %a[%c0] stride %s : memref<?xf16> -> !subgroup_matrix.left<8x8xf16>
    gpu.return
  }
}

// -----

gpu.module @int32 attributes {subgroup_matrix.target = #subgroup_matrix.target<"custom", subgroup_size = 16, configs = [<8x16x16, si32 -> si32>]>} {
  gpu.func @k(%a: memref<?xi32>, %s: index) kernel attributes {known_block_size = array<i32: 16, 1, 1>} {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{!subgroup_matrix.left<8x16xsi32>: the extension multiplies f16, bf16, 8-bit integers and tf32 (f32), not si32}}
    %l = subgroup_matrix.load %a[%c0] stride %s : memref<?xi32> -> !subgroup_matrix.left<8x16xsi32>
    gpu.return
  }
}

// -----

gpu.module @n_not_multiple attributes {subgroup_matrix.target = #subgroup_matrix.target<"custom", subgroup_size = 16, configs = [<8x24x16, f16 -> f32>]>} {
  gpu.func @k(%c: memref<?xf32>, %s: index) kernel attributes {known_block_size = array<i32: 16, 1, 1>} {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{!subgroup_matrix.result<8x24xf32>: N = 24 is not a multiple of the subgroup size 16, which is the N of the instruction}}
    %r = subgroup_matrix.load %c[%c0] stride %s : memref<?xf32> -> !subgroup_matrix.result<8x24xf32>
    gpu.return
  }
}

// -----

// Found by utils/fuzz.py: an empty workgroup dimension became a SPIR-V
// LocalSize that spirv-val rejects.
gpu.module @empty_workgroup attributes {subgroup_matrix.target = #subgroup_matrix.target<"intel-xe-hpc">} {
  // expected-error @+1 {{kernel 'k' has a workgroup size of 16x1x0: every dimension must be at least 1}}
  gpu.func @k(%a: memref<1024xf32>) kernel attributes {known_block_size = array<i32: 16, 1, 0>} {
    gpu.return
  }
}

