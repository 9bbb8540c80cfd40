// RUN: sm-opt %s -split-input-file --sm-scalar-accesses-to-generics | FileCheck %s

// A host store of an element computed from loads becomes a generic of no
// loops that writes the element; the loads are the kernel's (a buffer
// without dimensions read through a one-element view).
// CHECK: #[[ONE:.+]] = affine_map<() -> (1)>
// CHECK-LABEL: func.func @store_from_loads
// CHECK-SAME: (%[[X:.*]]: memref<4xi64>, %[[S:.*]]: memref<i64>, %[[Y:.*]]: memref<2xi64>)
// CHECK: %[[SV:.*]] = memref.expand_shape %[[S]] [] output_shape [1] : memref<i64> into memref<1xi64>
// CHECK: linalg.generic {indexing_maps = [#[[ONE]]], iterator_types = []} outs(%[[Y]] : memref<2xi64>)
// CHECK-NEXT: ^bb0(%{{.*}}: i64):
// CHECK-NEXT: %[[A:.*]] = memref.load %[[X]][%{{.*}}] : memref<4xi64>
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[B:.*]] = memref.load %[[SV]][%[[ZERO]]] : memref<1xi64>
// CHECK-NEXT: %[[SUM:.*]] = arith.addi %[[A]], %[[B]] : i64
// CHECK-NEXT: linalg.yield %[[SUM]] : i64
// CHECK-NOT: memref.load
// CHECK-NOT: memref.store
func.func @store_from_loads(%x: memref<4xi64>, %s: memref<i64>, %y: memref<2xi64>) {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %a = memref.load %x[%c3] : memref<4xi64>
  %b = memref.load %s[] : memref<i64>
  %sum = arith.addi %a, %b : i64
  memref.store %sum, %y[%c1] : memref<2xi64>
  return
}

// -----

// A value a linalg body uses from outside, computed from a load, is
// computed in the body; a fill of a loaded value reads the buffer at the
// constant position instead.
// CHECK: #[[AT2:.+]] = affine_map<(d0) -> (2)>
// CHECK-LABEL: func.func @readers
// CHECK-SAME: (%[[W:.*]]: memref<8x4xi8>, %[[ZP:.*]]: memref<2xi8>, %[[OUT:.*]]: memref<8x4xi32>, %[[START:.*]]: memref<8xf32>, %[[INIT:.*]]: memref<3xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[W]] : memref<8x4xi8>) outs(%[[OUT]] : memref<8x4xi32>)
// CHECK-NEXT: ^bb0(%[[Q:.*]]: i8, %{{.*}}: i32):
// CHECK-NEXT: %[[Z:.*]] = memref.load %[[ZP]][%{{.*}}] : memref<2xi8>
// CHECK-NEXT: %[[ZW:.*]] = arith.extsi %[[Z]] : i8 to i32
// CHECK: arith.subi %{{.*}}, %[[ZW]] : i32
// CHECK: linalg.generic {indexing_maps = [#[[AT2]], #{{.+}}], iterator_types = ["parallel"]} ins(%[[INIT]] : memref<3xf32>) outs(%[[START]] : memref<8xf32>)
func.func @readers(%w: memref<8x4xi8>, %zp: memref<2xi8>, %out: memref<8x4xi32>,
                   %start: memref<8xf32>, %init: memref<3xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %z = memref.load %zp[%c1] : memref<2xi8>
  %zw = arith.extsi %z : i8 to i32
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%w : memref<8x4xi8>) outs(%out : memref<8x4xi32>) {
  ^bb0(%q: i8, %o: i32):
    %qw = arith.extsi %q : i8 to i32
    %c = arith.subi %qw, %zw : i32
    linalg.yield %c : i32
  }
  %v = memref.load %init[%c2] : memref<3xf32>
  linalg.fill ins(%v : f32) outs(%start : memref<8xf32>)
  return
}

// -----

// What cannot move stays: a load read after a write to memory, a store at
// a computed position.
// CHECK-LABEL: func.func @stays
// CHECK: memref.load
// CHECK: linalg.fill
// CHECK: memref.store
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<4xf32>
func.func @stays(%x: memref<4xf32>, %y: memref<4xf32>, %i: index) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %v = memref.load %x[%c0] : memref<4xf32>
  linalg.fill ins(%zero : f32) outs(%x : memref<4xf32>)
  memref.store %v, %y[%c0] : memref<4xf32>
  memref.store %zero, %y[%i] : memref<4xf32>
  return
}
