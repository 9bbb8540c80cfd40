// RUN: sm-opt %s --sm-accumulate-in-f32 -split-input-file | FileCheck %s

// An f16 product into f16: extended, summed in f32, rounded once.
// CHECK-LABEL: func.func @product_f16
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf16>, %[[B:.*]]: tensor<8x4xf16>, %[[C:.*]]: tensor<4x4xf16>)
// CHECK: %[[WIDE:.*]] = tensor.empty() : tensor<4x4xf32>
// CHECK: %[[START:.*]] = linalg.generic {{.*}} ins(%[[C]] : tensor<4x4xf16>) outs(%[[WIDE]] : tensor<4x4xf32>)
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[A]], %[[B]] : tensor<4x8xf16>, tensor<8x4xf16>) outs(%[[START]] : tensor<4x4xf32>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: f16, %[[Y:.*]]: f16, %[[ACC:.*]]: f32):
// CHECK-DAG: %[[XW:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-DAG: %[[YW:.*]] = arith.extf %[[Y]] : f16 to f32
// CHECK: %[[P:.*]] = arith.mulf %[[XW]], %[[YW]] : f32
// CHECK: %[[S:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK: linalg.yield %[[S]] : f32
// CHECK: %[[ROUNDED:.*]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<4x4xf32>) outs(%{{.*}} : tensor<4x4xf16>)
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: return %[[ROUNDED]]
#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
func.func @product_f16(%a: tensor<4x8xf16>, %b: tensor<8x4xf16>, %c: tensor<4x4xf16>) -> tensor<4x4xf16> {
  %r = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<4x8xf16>, tensor<8x4xf16>) outs(%c : tensor<4x4xf16>) {
  ^bb0(%x: f16, %y: f16, %acc: f16):
    %p = arith.mulf %x, %y : f16
    %s = arith.addf %acc, %p : f16
    linalg.yield %s : f16
  } -> tensor<4x4xf16>
  return %r : tensor<4x4xf16>
}

// -----

// A bf16 row sum on buffers whose body widens and narrows itself: the
// conversions go, a captured bf16 constant is extended, and the f32 buffer
// is rounded into the output and freed.
// CHECK-LABEL: func.func @row_sum_bf16
// CHECK-SAME: (%[[X:.*]]: memref<?x16xbf16>, %[[OUT:.*]]: memref<?xbf16>)
// CHECK: %[[DIM:.*]] = memref.dim %[[OUT]], %{{.*}} : memref<?xbf16>
// CHECK: %[[WIDE:.*]] = memref.alloc(%[[DIM]]) : memref<?xf32>
// CHECK: linalg.generic {{.*}} ins(%[[OUT]] : memref<?xbf16>) outs(%[[WIDE]] : memref<?xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[X]] : memref<?x16xbf16>) outs(%[[WIDE]] : memref<?xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: bf16, %[[ACC:.*]]: f32):
// CHECK-NOT: arith.truncf
// CHECK: %[[INW:.*]] = arith.extf %[[IN]] : bf16 to f32
// CHECK: %[[SCALED:.*]] = arith.mulf %[[INW]], %{{.*}} : f32
// CHECK: %[[SUM:.*]] = arith.addf %[[ACC]], %[[SCALED]] : f32
// CHECK-NEXT: linalg.yield %[[SUM]] : f32
// CHECK: linalg.generic {{.*}} ins(%[[WIDE]] : memref<?xf32>) outs(%[[OUT]] : memref<?xbf16>)
// CHECK: memref.dealloc %[[WIDE]]
func.func @row_sum_bf16(%x: memref<?x16xbf16>, %out: memref<?xbf16>) {
  %half = arith.constant 0.5 : bf16
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<?x16xbf16>) outs(%out : memref<?xbf16>) {
  ^bb0(%in: bf16, %acc: bf16):
    %w = arith.extf %in : bf16 to f32
    %n = arith.truncf %w : f32 to bf16
    %s = arith.mulf %n, %half : bf16
    %r = arith.addf %acc, %s : bf16
    linalg.yield %r : bf16
  }
  return
}

// -----

// Left alone: element-wise ops (no reduction), reductions into f32, and a
// body that reinterprets f16 bits.
// CHECK-LABEL: func.func @untouched
// CHECK-NOT: f32
// CHECK: arith.bitcast %{{.*}} : f16 to i16
// CHECK: arith.addf %{{.*}}, %{{.*}} : f16
func.func @untouched(%x: tensor<8xf16>, %acc: tensor<f16>) -> (tensor<f16>, tensor<8xf16>) {
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>],
                       iterator_types = ["reduction"]}
      ins(%x : tensor<8xf16>) outs(%acc : tensor<f16>) {
  ^bb0(%in: f16, %a: f16):
    %bits = arith.bitcast %in : f16 to i16
    %back = arith.bitcast %bits : i16 to f16
    %s = arith.maximumf %a, %back : f16
    linalg.yield %s : f16
  } -> tensor<f16>
  %e = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<8xf16>) outs(%x : tensor<8xf16>) {
  ^bb0(%in: f16, %o: f16):
    %s = arith.addf %in, %in : f16
    linalg.yield %s : f16
  } -> tensor<8xf16>
  return %r, %e : tensor<f16>, tensor<8xf16>
}
