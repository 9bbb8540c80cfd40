// RUN: sm-opt %s --sm-expand-through-workgroup-memory --split-input-file --verify-diagnostics | FileCheck %s

// A map that reads its element's position goes through a scratch tile: the
// matrix is stored, each invocation rewrites its elements between subgroup
// barriers, and the result is loaded back.

// CHECK-LABEL: gpu.func @triangle
// CHECK: %[[SCRATCH:.*]] = memref.alloc() : memref<{{[0-9]+}}xf32, #gpu.address_space<workgroup>>
// CHECK: subgroup_matrix.store %{{.*}}, %[[SCRATCH]]
// CHECK: spirv.ControlBarrier <Subgroup>, <Subgroup>
// CHECK: scf.for
// CHECK: spirv.ControlBarrier <Subgroup>, <Subgroup>
// CHECK: subgroup_matrix.load %[[SCRATCH]]
// CHECK-NOT: subgroup_matrix.map
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @triangle(%buf: memref<256xf32>) kernel
      attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %m = subgroup_matrix.load %buf[%c0] stride %c16
        : memref<256xf32> -> !subgroup_matrix.result<16x16xf32>
    %r = subgroup_matrix.map %m : !subgroup_matrix.result<16x16xf32>
        -> !subgroup_matrix.result<16x16xf32> {
    ^bb0(%row: index, %col: index, %x: f32):
      %zero = arith.constant 0.0 : f32
      %below = arith.cmpi ule, %col, %row : index
      %y = arith.select %below, %x, %zero : f32
      subgroup_matrix.yield %y : f32
    }
    subgroup_matrix.store %r, %buf[%c0] stride %c16
        : !subgroup_matrix.result<16x16xf32>, memref<256xf32>
    gpu.return
  }
}

// -----

// Component-wise arithmetic stays: cooperative matrices do it directly.

// CHECK-LABEL: gpu.func @scale
// CHECK-NOT: memref.alloc
// CHECK: subgroup_matrix.map
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @scale(%buf: memref<256xf32>) kernel
      attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %m = subgroup_matrix.load %buf[%c0] stride %c16
        : memref<256xf32> -> !subgroup_matrix.result<16x16xf32>
    %r = subgroup_matrix.map %m : !subgroup_matrix.result<16x16xf32>
        -> !subgroup_matrix.result<16x16xf32> {
    ^bb0(%row: index, %col: index, %x: f32):
      %two = arith.constant 2.0 : f32
      %y = arith.mulf %x, %two : f32
      subgroup_matrix.yield %y : f32
    }
    subgroup_matrix.store %r, %buf[%c0] stride %c16
        : !subgroup_matrix.result<16x16xf32>, memref<256xf32>
    gpu.return
  }
}
