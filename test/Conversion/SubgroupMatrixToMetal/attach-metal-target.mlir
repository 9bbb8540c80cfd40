// RUN: sm-opt %s --sm-attach-metal-target --split-input-file --verify-diagnostics | FileCheck %s
// RUN: sm-opt %s --sm-attach-metal-target=target=apple-m1 --split-input-file | FileCheck %s --check-prefix=PRESET

// With no target anywhere, a gpu.module lowers for what Metal Shading
// Language expresses (with its 32 KiB of threadgroup memory); a named preset
// replaces it.

// CHECK-LABEL: gpu.module @plain
// CHECK-SAME: subgroup_matrix.target = #subgroup_matrix.target<"metal", subgroup_size = 32, configs = [<8x8x8, f32 -> f32>, <8x8x8, f16 -> f16>, <8x8x8, f16 -> f32>, <8x8x8, bf16 -> bf16>, <8x8x8, bf16 -> f32>], workgroup_memory = 32768, int64, vendor = apple, backend = metal>
// PRESET-LABEL: gpu.module @plain
// PRESET-SAME: subgroup_matrix.target = #subgroup_matrix.target<"apple-m1">
gpu.module @plain {
  gpu.func @fill(%out: memref<64xf32>) kernel
      attributes {known_block_size = array<i32: 32, 1, 1>} {
    gpu.return
  }
}

// -----

// The target of the enclosing module is the gpu.module's own.

// CHECK-LABEL: gpu.module @inherits
// CHECK-SAME: subgroup_matrix.target = #subgroup_matrix.target<"apple-m1">
module attributes {subgroup_matrix.target = #subgroup_matrix.target<"apple-m1">} {
  gpu.module @inherits {
    gpu.func @fill(%out: memref<64xf32>) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>} {
      gpu.return
    }
  }
}

// -----

// Metal's simdgroups have 32 threads: a target of other subgroups cannot
// describe a Metal GPU.

module attributes {subgroup_matrix.target = #subgroup_matrix.target<"intel-xe-hpc">} {
  // expected-error @+1 {{cannot be lowered to Metal for a target with subgroups of 16 invocations: Metal simdgroups have 32 threads}}
  gpu.module @narrow_subgroups {
    gpu.func @fill(%out: memref<64xf32>) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>} {
      gpu.return
    }
  }
}
