// RUN: sm-opt %s -split-input-file -verify-diagnostics --sm-check-target

// Workgroup-scope matrices on the H100: its driver lists 32x16x16 f16 -> f32
// granularities for workgroups of 128 invocations, so a 64x64 product of a
// 128-invocation workgroup is a native matrix of the target.
gpu.module @h100_workgroup attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @gemm(%a: memref<?xf16>, %c: memref<?xf32>, %s: index) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %l = subgroup_matrix.load %a[%c0] stride %s : memref<?xf16> -> !subgroup_matrix.left<64x32xf16, workgroup>
    %r = subgroup_matrix.load %a[%c0] stride %s : memref<?xf16> -> !subgroup_matrix.right<32x64xf16, workgroup>
    %acc = subgroup_matrix.splat %zero : f32 -> !subgroup_matrix.result<64x64xf32, workgroup>
    %d = subgroup_matrix.mma %l, %r, %acc : !subgroup_matrix.left<64x32xf16, workgroup>, !subgroup_matrix.right<32x64xf16, workgroup> -> !subgroup_matrix.result<64x64xf32, workgroup>
    subgroup_matrix.store %d, %c[%c0] stride %s : !subgroup_matrix.result<64x64xf32, workgroup>, memref<?xf32>
    gpu.return
  }
}

// -----

// The H100's workgroup-scope granularities are for workgroups of 32, 64,
// 128 and 256 invocations, and no other size.
gpu.module @h100_wrong_size attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @k(%a: memref<?xf16>, %s: index) kernel
      attributes {known_block_size = array<i32: 96, 1, 1>} {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{'!subgroup_matrix.left<64x32xf16, workgroup>' is held by a workgroup of 96 invocations, but target 'nvidia-h100' has workgroup-scope matrices of this shape in workgroups of 32, 64, 128 or 256 invocations}}
    %l = subgroup_matrix.load %a[%c0] stride %s : memref<?xf16> -> !subgroup_matrix.left<64x32xf16, workgroup>
    gpu.return
  }
}

// -----

gpu.module @h100_unknown_size attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @k(%a: memref<?xf16>, %s: index) kernel {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{'!subgroup_matrix.left<32x16xf16, workgroup>' is held by a workgroup of unknown size (give the kernel 'known_block_size'), but target 'nvidia-h100' has workgroup-scope matrices of this shape in workgroups of 32, 64, 128 or 256 invocations}}
    %l = subgroup_matrix.load %a[%c0] stride %s : memref<?xf16> -> !subgroup_matrix.left<32x16xf16, workgroup>
    gpu.return
  }
}

// -----

// No granularity of the H100 has 48 rows' multiples at 128 invocations.
gpu.module @h100_not_multiple attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @k(%a: memref<?xf16>, %s: index) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{'!subgroup_matrix.left<48x16xf16, workgroup>' is held by a workgroup of 128 invocations, but target 'nvidia-h100' has workgroup-scope matrices of this shape in workgroups of 32 or 64 invocations}}
    %l = subgroup_matrix.load %a[%c0] stride %s : memref<?xf16> -> !subgroup_matrix.left<48x16xf16, workgroup>
    gpu.return
  }
}

// -----

// Mesa 26's lavapipe has VK_NV_cooperative_matrix2 without workgroup scope.
gpu.module @lavapipe attributes {subgroup_matrix.target = #subgroup_matrix.target<"cpu-lavapipe-coopmat">} {
  gpu.func @k(%a: memref<?xf16>, %s: index) kernel
      attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{'!subgroup_matrix.left<8x8xf16, workgroup>' is a workgroup-scope matrix, but target 'cpu-lavapipe-coopmat' has none: they need VK_NV_cooperative_matrix2's 'workgroup_scope' (nv_coopmat2) and a flexible granularity of workgroup scope}}
    %l = subgroup_matrix.load %a[%c0] stride %s : memref<?xf16> -> !subgroup_matrix.left<8x8xf16, workgroup>
    gpu.return
  }
}

// -----

// A subgroup matrix of a workgroup-scope granularity's shape is no matrix
// of that granularity: the H100's subgroup matrices are multiples of 16.
gpu.module @scope_matters attributes {subgroup_matrix.target = #subgroup_matrix.target<"custom", subgroup_size = 32, configs = [<16x16x16, f16 -> f32>], nv_coopmat2 = [workgroup_scope, flexible_dimensions], flexible_granularities = [<32x16x16, f16 -> f32, workgroup = 128>], flexible_max_dimension = 256>} {
  gpu.func @k(%a: memref<?xf16>, %s: index) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{'!subgroup_matrix.left<32x16xf16>' is not supported by target 'custom'; it supports left<16x16xf16>}}
    %l = subgroup_matrix.load %a[%c0] stride %s : memref<?xf16> -> !subgroup_matrix.left<32x16xf16>
    %w = subgroup_matrix.load %a[%c0] stride %s : memref<?xf16> -> !subgroup_matrix.left<32x16xf16, workgroup>
    gpu.return
  }
}

// -----

// No workgroup-scope granularity of the H100 has 24 rows' multiples.
gpu.module @h100_no_granularity attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @k(%a: memref<?xf16>, %s: index) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{'!subgroup_matrix.left<24x16xf16, workgroup>' is not supported by target 'nvidia-h100'; it supports left<16x16xf16, workgroup> multiples up to 1024 in workgroups of 32 or 64 invocations, left<16x32xui8, workgroup> multiples up to 1024 in workgroups of 32 or 64 invocations, left<16x32xsi8, workgroup> multiples up to 1024 in workgroups of 32 or 64 invocations, left<16x16xbf16, workgroup> multiples up to 1024 in workgroups of 32 or 64 invocations, left<32x16xf16, workgroup> multiples up to 1024 in workgroups of 128 or 256 invocations, left<32x32xui8, workgroup> multiples up to 1024 in workgroups of 128 or 256 invocations, left<32x32xsi8, workgroup> multiples up to 1024 in workgroups of 128 or 256 invocations, left<32x16xbf16, workgroup> multiples up to 1024 in workgroups of 128 or 256 invocations}}
    %l = subgroup_matrix.load %a[%c0] stride %s : memref<?xf16> -> !subgroup_matrix.left<24x16xf16, workgroup>
    gpu.return
  }
}
