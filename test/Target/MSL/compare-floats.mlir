// RUN: sm-translate --emit-msl %s | FileCheck %s
// The emitted source compiles against the host metal_stdlib and runs.
// RUN: sm-translate --emit-msl %s -o %t.metal
// RUN: sm-msl-host-runner %t.metal --entry compare --arg f32:2:random --arg i32:9:poison --grid 1 | FileCheck %s --check-prefix=HOST
// HOST: check bounds: PASSED

// Metal's comparisons are ordered except `!=`: an unordered predicate is
// the negation of its ordered opposite, so a NaN operand makes it true.

// CHECK-LABEL: kernel void compare(
// CHECK: bool [[OLT:v[_0-9]*]] = [[A:v[_0-9]*]] < [[B:v[_0-9]*]];
// CHECK: bool {{v[_0-9]*}} = !([[A]] >= [[B]]);
// CHECK: bool {{v[_0-9]*}} = !([[A]] > [[B]]);
// CHECK: bool {{v[_0-9]*}} = !([[A]] <= [[B]]);
// CHECK: bool {{v[_0-9]*}} = !([[A]] < [[B]]);
// CHECK: bool {{v[_0-9]*}} = !(([[A]] < [[B]]) || ([[A]] > [[B]]));
// CHECK: bool {{v[_0-9]*}} = ([[A]] < [[B]]) || ([[A]] > [[B]]);
// CHECK: bool {{v[_0-9]*}} = isnan([[A]]) || isnan([[B]]);
// CHECK: bool {{v[_0-9]*}} = !isnan([[A]]) && !isnan([[B]]);
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"apple-m1">} {
  gpu.func @compare(%x: memref<2xf32>, %y: memref<9xi32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %a = memref.load %x[%c0] : memref<2xf32>
    %b = memref.load %x[%c1] : memref<2xf32>
    %p0 = arith.cmpf olt, %a, %b : f32
    %p1 = arith.cmpf ult, %a, %b : f32
    %p2 = arith.cmpf ule, %a, %b : f32
    %p3 = arith.cmpf ugt, %a, %b : f32
    %p4 = arith.cmpf uge, %a, %b : f32
    %p5 = arith.cmpf ueq, %a, %b : f32
    %p6 = arith.cmpf one, %a, %b : f32
    %p7 = arith.cmpf uno, %a, %b : f32
    %p8 = arith.cmpf ord, %a, %b : f32
    %i0 = arith.extui %p0 : i1 to i32
    memref.store %i0, %y[%c0] : memref<9xi32>
    %i1 = arith.extui %p1 : i1 to i32
    memref.store %i1, %y[%c0] : memref<9xi32>
    %i2 = arith.extui %p2 : i1 to i32
    memref.store %i2, %y[%c0] : memref<9xi32>
    %i3 = arith.extui %p3 : i1 to i32
    memref.store %i3, %y[%c0] : memref<9xi32>
    %i4 = arith.extui %p4 : i1 to i32
    memref.store %i4, %y[%c0] : memref<9xi32>
    %i5 = arith.extui %p5 : i1 to i32
    memref.store %i5, %y[%c0] : memref<9xi32>
    %i6 = arith.extui %p6 : i1 to i32
    memref.store %i6, %y[%c0] : memref<9xi32>
    %i7 = arith.extui %p7 : i1 to i32
    memref.store %i7, %y[%c0] : memref<9xi32>
    %i8 = arith.extui %p8 : i1 to i32
    memref.store %i8, %y[%c0] : memref<9xi32>
    gpu.return
  }
}
