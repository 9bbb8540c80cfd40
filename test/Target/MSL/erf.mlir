// RUN: sm-translate --emit-msl %s | FileCheck %s
// The helpers compile against the host metal_stdlib and run.
// RUN: sm-translate --emit-msl %s -o %t.metal
// RUN: sm-msl-host-runner %t.metal --entry gelu --arg f32:2:random --grid 1 | FileCheck %s --check-prefix=HOST
// HOST: check bounds: PASSED
// (The values are checked by test/Integration/MatrixFunctions,
// map_gelu_erf_*, and the linalg suite's gelu_erf programs.)

// Metal has no erf: sm-lower-to-metal expands erf and erfc into upstream's
// polynomial approximations (sm-expand-math), as the Vulkan and Intel
// lowerings do, so the kernels compute the same values on every backend.

// CHECK-LABEL: kernel void gelu(
// CHECK-NOT: erf
// CHECK: float {{v[_0-9]*}} = fma(
// CHECK-NOT: erf
// CHECK: #ifdef SM_MSL_HOST
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"apple-m1">} {
  gpu.func @gelu(%a: memref<2xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %x = memref.load %a[%c0] : memref<2xf32>
    %e = math.erf %x : f32
    %f = math.erfc %x : f32
    memref.store %e, %a[%c0] : memref<2xf32>
    memref.store %f, %a[%c1] : memref<2xf32>
    gpu.return
  }
}
