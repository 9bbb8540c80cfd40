// RUN: sm-opt %s -split-input-file --sm-compute-f64-in-f32=target=apple-m1 -verify-diagnostics | FileCheck %s

// A variance taken in f64 between f32 input and output (torch's
// `x.double().var()`): on apple-m1, which has no f64, the squares and their
// sum are f32, the widening and the narrowing gone, the constant rounded.
// Each op that changed carries a remark; the ops in its body are covered
// by it (compute-f64-in-f32-targets.mlir: other targets, the pipeline).
// CHECK-LABEL: func.func @sum_of_squares
// CHECK: %[[HALF:.*]] = arith.constant 5.000000e-01 : f16
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<4xf32>
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[FILL:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<4xf32>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<4x16xf32>) outs(%[[FILL]] : tensor<4xf32>)
// CHECK: ^bb0(%[[X:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT: %[[SQ:.*]] = arith.mulf %[[X]], %[[X]] : f32
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[ACC]], %[[SQ]] : f32
// CHECK-NEXT: linalg.yield %[[SUM]] : f32
// CHECK-NOT: f64
#map = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @sum_of_squares(%x: tensor<4x16xf32>) -> (tensor<4xf32>, f16) {
  // Constants of other types stay as they are.
  %half = arith.constant 0.5 : f16
  // expected-remark @below {{computes in f32, not f64: target 'apple-m1' has no f64 (f64=f32)}}
  %empty = tensor.empty() : tensor<4xf64>
  // expected-remark @below {{computes in f32, not f64}}
  %zero = arith.constant 0.0 : f64
  // expected-remark @below {{computes in f32, not f64}}
  %fill = linalg.fill ins(%zero : f64) outs(%empty : tensor<4xf64>) -> tensor<4xf64>
  // expected-remark @below {{computes in f32, not f64}}
  %sum = linalg.generic {indexing_maps = [#map, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x16xf32>) outs(%fill : tensor<4xf64>) {
  ^bb0(%in: f32, %acc: f64):
    %w = arith.extf %in : f32 to f64
    %sq = arith.mulf %w, %w : f64
    %s = arith.addf %acc, %sq : f64
    linalg.yield %s : f64
  } -> tensor<4xf64>
  %out = tensor.empty() : tensor<4xf32>
  // expected-remark @below {{computes in f32, not f64}}
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%sum : tensor<4xf64>) outs(%out : tensor<4xf32>) {
  ^bb0(%in: f64, %o: f32):
    %n = arith.truncf %in : f64 to f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  return %r, %half : tensor<4xf32>, f16
}

// -----

// f64 at the program's interface is the caller's to convert.
// expected-error @below {{'func.func' op takes or returns f64, but target 'apple-m1' has no f64: f64=f32 computes the program's own f64 in f32 but leaves its interface to the caller (pass f32)}}
func.func @f64_argument(%x: tensor<4xf64>) -> tensor<4xf64> {
  return %x : tensor<4xf64>
}
