// RUN: sm-translate --emit-msl %s | FileCheck %s
// The helpers compile against the host metal_stdlib and run.
// RUN: sm-translate --emit-msl %s -o %t.metal
// RUN: sm-msl-host-runner %t.metal --entry gelu --arg f32:2:random --grid 1 | FileCheck %s --check-prefix=HOST
// HOST: check bounds: PASSED
// (The values are checked by test/Integration/MatrixFunctions,
// map_gelu_erf_*, and the linalg suite's gelu_erf programs.)

// Metal has no erf: the source defines a helper once, before the kernels,
// and the kernels call it; erfc likewise.

// CHECK: static inline float sm_erf(float x) {
// CHECK: static inline float sm_erfc(float x)
// CHECK-LABEL: kernel void gelu(
// CHECK: float {{v[_0-9]*}} = sm_erf({{v[_0-9]*}});
// CHECK: float {{v[_0-9]*}} = sm_erfc({{v[_0-9]*}});
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
