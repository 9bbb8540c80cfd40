// RUN: sm-opt %s -canonicalize -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @identities_fold_away
// CHECK-SAME: (%[[M:.*]]: !subgroup_matrix.result<16x16xf32>, %[[I:.*]]: !subgroup_matrix.result<16x16xsi32>)
func.func @identities_fold_away(%m: !subgroup_matrix.result<16x16xf32>, %i: !subgroup_matrix.result<16x16xsi32>)
    -> (!subgroup_matrix.result<16x16xf32>, !subgroup_matrix.result<16x16xf32>,
        !subgroup_matrix.result<16x16xf32>, !subgroup_matrix.result<16x16xf32>,
        !subgroup_matrix.result<16x16xsi32>, !subgroup_matrix.result<16x16xsi32>) {
  %neg_zero = arith.constant -0.0 : f32
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %izero = arith.constant 0 : i32
  %ione = arith.constant 1 : i32
  %0 = subgroup_matrix.scalar_add %m, %neg_zero : !subgroup_matrix.result<16x16xf32>, f32
  %1 = subgroup_matrix.scalar_sub %m, %zero : !subgroup_matrix.result<16x16xf32>, f32
  %2 = subgroup_matrix.scalar_mul %m, %one : !subgroup_matrix.result<16x16xf32>, f32
  %3 = subgroup_matrix.scalar_div %m, %one : !subgroup_matrix.result<16x16xf32>, f32
  %4 = subgroup_matrix.scalar_add %i, %izero : !subgroup_matrix.result<16x16xsi32>, i32
  %5 = subgroup_matrix.scalar_mul %i, %ione : !subgroup_matrix.result<16x16xsi32>, i32
  // CHECK-NOT: subgroup_matrix.scalar
  // CHECK: return %[[M]], %[[M]], %[[M]], %[[M]], %[[I]], %[[I]]
  return %0, %1, %2, %3, %4, %5 : !subgroup_matrix.result<16x16xf32>, !subgroup_matrix.result<16x16xf32>,
      !subgroup_matrix.result<16x16xf32>, !subgroup_matrix.result<16x16xf32>,
      !subgroup_matrix.result<16x16xsi32>, !subgroup_matrix.result<16x16xsi32>
}

// -----

// x + 0.0 turns -0.0 into +0.0 and x - (-0.0) does too, so neither folds.
// CHECK-LABEL: func.func @signed_zero_is_not_an_identity
func.func @signed_zero_is_not_an_identity(%m: !subgroup_matrix.result<16x16xf32>)
    -> (!subgroup_matrix.result<16x16xf32>, !subgroup_matrix.result<16x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %neg_zero = arith.constant -0.0 : f32
  // CHECK: subgroup_matrix.scalar_add
  %0 = subgroup_matrix.scalar_add %m, %zero : !subgroup_matrix.result<16x16xf32>, f32
  // CHECK: subgroup_matrix.scalar_sub
  %1 = subgroup_matrix.scalar_sub %m, %neg_zero : !subgroup_matrix.result<16x16xf32>, f32
  return %0, %1 : !subgroup_matrix.result<16x16xf32>, !subgroup_matrix.result<16x16xf32>
}

// -----

// A ui8 scalar of -5 reads as 4294967291 and clamps to 255: not an identity.
// A si8 scalar of 300 clamps to 127: not an identity either.
// CHECK-LABEL: func.func @integer_scalars_are_clamped
func.func @integer_scalars_are_clamped(%u: !subgroup_matrix.left<16x32xui8>, %s: !subgroup_matrix.left<16x32xsi8>)
    -> (!subgroup_matrix.left<16x32xui8>, !subgroup_matrix.left<16x32xsi8>, !subgroup_matrix.left<16x32xsi8>) {
  %minus5 = arith.constant -5 : i32
  %c300 = arith.constant 300 : i32
  %c257 = arith.constant 257 : i32
  // CHECK: subgroup_matrix.scalar_add
  %0 = subgroup_matrix.scalar_add %u, %minus5 : !subgroup_matrix.left<16x32xui8>, i32
  // CHECK: subgroup_matrix.scalar_mul
  %1 = subgroup_matrix.scalar_mul %s, %c300 : !subgroup_matrix.left<16x32xsi8>, i32
  // 257 is 1 modulo 256, but clamping (not truncation) makes it 127.
  // CHECK: subgroup_matrix.scalar_mul
  %2 = subgroup_matrix.scalar_mul %s, %c257 : !subgroup_matrix.left<16x32xsi8>, i32
  return %0, %1, %2 : !subgroup_matrix.left<16x32xui8>, !subgroup_matrix.left<16x32xsi8>, !subgroup_matrix.left<16x32xsi8>
}

// -----

// CHECK-LABEL: func.func @scalar_op_of_constant_splat
func.func @scalar_op_of_constant_splat()
    -> (!subgroup_matrix.result<16x16xf32>, !subgroup_matrix.result<16x16xf16>,
        !subgroup_matrix.left<16x32xsi8>, !subgroup_matrix.right<32x16xui8>) {
  %three = arith.constant 3.0 : f32
  %half = arith.constant 0.5 : f32
  // CHECK-DAG: %[[F32:.*]] = arith.constant 1.500000e+00 : f32
  %f = subgroup_matrix.splat %three : f32 -> !subgroup_matrix.result<16x16xf32>
  %f2 = subgroup_matrix.scalar_mul %f, %half : !subgroup_matrix.result<16x16xf32>, f32

  // 2048 + 1 is not representable in f16 and rounds to even: 2048.
  // CHECK-DAG: %[[F16:.*]] = arith.constant 2.048000e+03 : f16
  %big = arith.constant 2048.0 : f16
  %one = arith.constant 1.0 : f16
  %h = subgroup_matrix.splat %big : f16 -> !subgroup_matrix.result<16x16xf16>
  %h2 = subgroup_matrix.scalar_add %h, %one : !subgroup_matrix.result<16x16xf16>, f16

  // si8: 100 + 100 wraps to -56.
  // CHECK-DAG: %[[S8:.*]] = arith.constant -56 : i32
  %c100 = arith.constant 100 : i32
  %s = subgroup_matrix.splat %c100 : i32 -> !subgroup_matrix.left<16x32xsi8>
  %s2 = subgroup_matrix.scalar_add %s, %c100 : !subgroup_matrix.left<16x32xsi8>, i32

  // ui8: 10 - 20 wraps to 246.
  // CHECK-DAG: %[[U8:.*]] = arith.constant 246 : i32
  %c10 = arith.constant 10 : i32
  %c20 = arith.constant 20 : i32
  %u = subgroup_matrix.splat %c10 : i32 -> !subgroup_matrix.right<32x16xui8>
  %u2 = subgroup_matrix.scalar_sub %u, %c20 : !subgroup_matrix.right<32x16xui8>, i32

  // CHECK-DAG: %[[R0:.*]] = subgroup_matrix.splat %[[F32]] : f32 -> !subgroup_matrix.result<16x16xf32>
  // CHECK-DAG: %[[R1:.*]] = subgroup_matrix.splat %[[F16]] : f16 -> !subgroup_matrix.result<16x16xf16>
  // CHECK-DAG: %[[R2:.*]] = subgroup_matrix.splat %[[S8]] : i32 -> !subgroup_matrix.left<16x32xsi8>
  // CHECK-DAG: %[[R3:.*]] = subgroup_matrix.splat %[[U8]] : i32 -> !subgroup_matrix.right<32x16xui8>
  // CHECK-NOT: subgroup_matrix.scalar
  // CHECK: return %[[R0]], %[[R1]], %[[R2]], %[[R3]]
  return %f2, %h2, %s2, %u2 : !subgroup_matrix.result<16x16xf32>, !subgroup_matrix.result<16x16xf16>,
      !subgroup_matrix.left<16x32xsi8>, !subgroup_matrix.right<32x16xui8>
}

// -----

// CHECK-LABEL: func.func @mma_with_zero_accumulator
// CHECK-SAME: (%[[A:.*]]: !subgroup_matrix.left<16x16xf16>, %[[B:.*]]: !subgroup_matrix.right<16x16xf16>
func.func @mma_with_zero_accumulator(%a: !subgroup_matrix.left<16x16xf16>, %b: !subgroup_matrix.right<16x16xf16>,
    %ia: !subgroup_matrix.left<16x32xsi8>, %ib: !subgroup_matrix.right<32x16xsi8>)
    -> (!subgroup_matrix.result<16x16xf32>, !subgroup_matrix.result<16x16xf32>, !subgroup_matrix.result<16x16xsi32>) {
  %zero = arith.constant 0.0 : f32
  %neg_zero = arith.constant -0.0 : f32
  %izero = arith.constant 0 : i32
  %c = subgroup_matrix.splat %zero : f32 -> !subgroup_matrix.result<16x16xf32>
  %nc = subgroup_matrix.splat %neg_zero : f32 -> !subgroup_matrix.result<16x16xf32>
  %ic = subgroup_matrix.splat %izero : i32 -> !subgroup_matrix.result<16x16xsi32>
  // CHECK: %[[D:.*]] = subgroup_matrix.multiply %[[A]], %[[B]] : !subgroup_matrix.left<16x16xf16>, !subgroup_matrix.right<16x16xf16> -> !subgroup_matrix.result<16x16xf32>
  %d = subgroup_matrix.mma %a, %b, %c : !subgroup_matrix.left<16x16xf16>, !subgroup_matrix.right<16x16xf16> -> !subgroup_matrix.result<16x16xf32>
  // multiply adds +0.0, so an accumulator of -0.0 stays an mma.
  // CHECK: %[[N:.*]] = subgroup_matrix.mma %[[A]], %[[B]], %{{.*}}
  %n = subgroup_matrix.mma %a, %b, %nc : !subgroup_matrix.left<16x16xf16>, !subgroup_matrix.right<16x16xf16> -> !subgroup_matrix.result<16x16xf32>
  // CHECK: %[[I:.*]] = subgroup_matrix.multiply %{{.*}}, %{{.*}} : !subgroup_matrix.left<16x32xsi8>
  %i = subgroup_matrix.mma %ia, %ib, %ic : !subgroup_matrix.left<16x32xsi8>, !subgroup_matrix.right<32x16xsi8> -> !subgroup_matrix.result<16x16xsi32>
  // CHECK: return %[[D]], %[[N]], %[[I]]
  return %d, %n, %i : !subgroup_matrix.result<16x16xf32>, !subgroup_matrix.result<16x16xf32>, !subgroup_matrix.result<16x16xsi32>
}

// -----

// Memory effects: an unused load or splat is dead, a store is not.
// CHECK-LABEL: func.func @dead_load_and_live_store
// CHECK-SAME: (%[[BUF:.*]]: memref<?xf32>, %[[I:.*]]: index, %[[S:.*]]: index, %[[M:.*]]: !subgroup_matrix.result<16x16xf32>)
func.func @dead_load_and_live_store(%buf: memref<?xf32>, %i: index, %s: index, %m: !subgroup_matrix.result<16x16xf32>) {
  // CHECK-NOT: subgroup_matrix.splat
  // CHECK-NOT: subgroup_matrix.load
  %x = arith.constant 1.0 : f32
  %unused = subgroup_matrix.splat %x : f32 -> !subgroup_matrix.result<16x16xf32>
  %loaded = subgroup_matrix.load %buf[%i] stride %s : memref<?xf32> -> !subgroup_matrix.result<16x16xf32>
  // CHECK: subgroup_matrix.store %[[M]], %[[BUF]][%[[I]]] stride %[[S]]
  subgroup_matrix.store %m, %buf[%i] stride %s : !subgroup_matrix.result<16x16xf32>, memref<?xf32>
  return
}

// -----

// CHECK-LABEL: func.func @convert_to_the_same_type_folds
// CHECK-SAME: (%[[M:.*]]: !subgroup_matrix.result<16x16xf32>)
// CHECK-NEXT: return %[[M]]
func.func @convert_to_the_same_type_folds(%m: !subgroup_matrix.result<16x16xf32>) -> !subgroup_matrix.result<16x16xf32> {
  %c = subgroup_matrix.convert %m : !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.result<16x16xf32>
  return %c : !subgroup_matrix.result<16x16xf32>
}

// -----

// Rounding through f16 is not the identity: the pair stays.
// CHECK-LABEL: func.func @convert_round_trip_stays
// CHECK: subgroup_matrix.convert
// CHECK: subgroup_matrix.convert
func.func @convert_round_trip_stays(%m: !subgroup_matrix.result<16x16xf32>) -> !subgroup_matrix.result<16x16xf32> {
  %h = subgroup_matrix.convert %m : !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.result<16x16xf16>
  %f = subgroup_matrix.convert %h : !subgroup_matrix.result<16x16xf16> -> !subgroup_matrix.result<16x16xf32>
  return %f : !subgroup_matrix.result<16x16xf32>
}

// -----

// CHECK-LABEL: func.func @map_yielding_an_input_folds
// CHECK-SAME: (%[[A:.*]]: !subgroup_matrix.result<16x16xf32>, %[[B:.*]]: !subgroup_matrix.result<16x16xf32>)
// CHECK-NEXT: return %[[B]]
func.func @map_yielding_an_input_folds(%a: !subgroup_matrix.result<16x16xf32>, %b: !subgroup_matrix.result<16x16xf32>) -> !subgroup_matrix.result<16x16xf32> {
  %r = subgroup_matrix.map %a, %b : !subgroup_matrix.result<16x16xf32>, !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.result<16x16xf32> {
  ^bb0(%row: index, %col: index, %x: f32, %y: f32):
    subgroup_matrix.yield %y : f32
  }
  return %r : !subgroup_matrix.result<16x16xf32>
}

// -----

// CHECK-LABEL: func.func @map_drops_unread_inputs
// CHECK-SAME: (%[[A:.*]]: !subgroup_matrix.result<16x16xf32>, %[[B:.*]]: !subgroup_matrix.result<16x16xf32>, %[[C:.*]]: !subgroup_matrix.result<16x16xf32>)
// CHECK: subgroup_matrix.map %[[A]], %[[C]] : !subgroup_matrix.result<16x16xf32>, !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.result<16x16xf32> {
// CHECK-NEXT: ^bb0(%{{.*}}: index, %{{.*}}: index, %[[X:.*]]: f32, %[[Z:.*]]: f32):
// CHECK-NEXT: arith.maximumf %[[X]], %[[Z]]
func.func @map_drops_unread_inputs(%a: !subgroup_matrix.result<16x16xf32>, %b: !subgroup_matrix.result<16x16xf32>, %c: !subgroup_matrix.result<16x16xf32>) -> !subgroup_matrix.result<16x16xf32> {
  %r = subgroup_matrix.map %a, %b, %c : !subgroup_matrix.result<16x16xf32>, !subgroup_matrix.result<16x16xf32>, !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.result<16x16xf32> {
  ^bb0(%row: index, %col: index, %x: f32, %y: f32, %z: f32):
    %m = arith.maximumf %x, %z : f32
    subgroup_matrix.yield %m : f32
  }
  return %r : !subgroup_matrix.result<16x16xf32>
}

// -----

// CHECK-LABEL: func.func @map_of_scalar_arithmetic_is_the_scalar_op
// CHECK-SAME: (%[[A:.*]]: !subgroup_matrix.result<16x16xf32>, %[[S:.*]]: f32)
// CHECK-NEXT: %[[R:.*]] = subgroup_matrix.scalar_mul %[[A]], %[[S]] : !subgroup_matrix.result<16x16xf32>, f32
// CHECK-NEXT: %[[D:.*]] = subgroup_matrix.scalar_div %[[R]], %[[S]] : !subgroup_matrix.result<16x16xf32>, f32
// CHECK-NEXT: return %[[D]]
func.func @map_of_scalar_arithmetic_is_the_scalar_op(%a: !subgroup_matrix.result<16x16xf32>, %s: f32) -> !subgroup_matrix.result<16x16xf32> {
  %r = subgroup_matrix.map %a : !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.result<16x16xf32> {
  ^bb0(%row: index, %col: index, %x: f32):
    %m = arith.mulf %x, %s : f32
    subgroup_matrix.yield %m : f32
  }
  %d = subgroup_matrix.map %r : !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.result<16x16xf32> {
  ^bb0(%row: index, %col: index, %x: f32):
    %q = arith.divf %x, %s : f32
    subgroup_matrix.yield %q : f32
  }
  return %d : !subgroup_matrix.result<16x16xf32>
}

// -----

// The scalar on the left (s - x) is no scalar op; neither is a map that
// uses the column.
// CHECK-LABEL: func.func @map_that_is_no_scalar_op_stays
// CHECK-COUNT-2: subgroup_matrix.map
func.func @map_that_is_no_scalar_op_stays(%a: !subgroup_matrix.result<16x16xf32>, %s: f32) -> !subgroup_matrix.result<16x16xf32> {
  %r = subgroup_matrix.map %a : !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.result<16x16xf32> {
  ^bb0(%row: index, %col: index, %x: f32):
    %m = arith.subf %s, %x : f32
    subgroup_matrix.yield %m : f32
  }
  %c = subgroup_matrix.map %r : !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.result<16x16xf32> {
  ^bb0(%row: index, %col: index, %x: f32):
    %i = arith.index_cast %col : index to i32
    %f = arith.sitofp %i : i32 to f32
    %m = arith.addf %x, %f : f32
    subgroup_matrix.yield %m : f32
  }
  return %c : !subgroup_matrix.result<16x16xf32>
}

// -----

// CHECK-LABEL: func.func @repeated_max_and_max_of_splat_fold
// CHECK-SAME: (%[[A:.*]]: !subgroup_matrix.result<16x16xf32>, %[[S:.*]]: f32)
// CHECK-NEXT: %[[MAX:.*]] = subgroup_matrix.reduce max rows %[[A]]
// CHECK-NEXT: %[[SPLAT:.*]] = subgroup_matrix.splat %[[S]]
// CHECK-NEXT: %[[SUM:.*]] = subgroup_matrix.reduce add rows %[[MAX]]
// CHECK-NEXT: %[[SUM2:.*]] = subgroup_matrix.reduce add rows %[[SUM]]
// CHECK-NEXT: return %[[MAX]], %[[SPLAT]], %[[SUM2]]
func.func @repeated_max_and_max_of_splat_fold(%a: !subgroup_matrix.result<16x16xf32>, %s: f32)
    -> (!subgroup_matrix.result<16x16xf32>, !subgroup_matrix.result<16x16xf32>, !subgroup_matrix.result<16x16xf32>) {
  %m1 = subgroup_matrix.reduce max rows %a : !subgroup_matrix.result<16x16xf32>
  %m2 = subgroup_matrix.reduce max rows %m1 : !subgroup_matrix.result<16x16xf32>
  %splat = subgroup_matrix.splat %s : f32 -> !subgroup_matrix.result<16x16xf32>
  %m3 = subgroup_matrix.reduce min all %splat : !subgroup_matrix.result<16x16xf32>
  // A sum of sums is not the sum: it stays.
  %s1 = subgroup_matrix.reduce add rows %m2 : !subgroup_matrix.result<16x16xf32>
  %s2 = subgroup_matrix.reduce add rows %s1 : !subgroup_matrix.result<16x16xf32>
  return %m2, %m3, %s2 : !subgroup_matrix.result<16x16xf32>, !subgroup_matrix.result<16x16xf32>, !subgroup_matrix.result<16x16xf32>
}
