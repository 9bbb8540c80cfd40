// RUN: sm-opt %s --sm-compute-f64-in-f32=target=nvidia-h100 | FileCheck %s --check-prefix=KEPT
// RUN: sm-opt %s --sm-linalg-to-gpu="target=apple-m1 f64=f32" 2>%t.remarks | FileCheck %s --check-prefix=KERNEL
// RUN: FileCheck %s --check-prefix=REMARKS --input-file %t.remarks
// RUN: not sm-opt %s --sm-linalg-to-gpu="target=apple-m1" --sm-lower-to-metal 2>&1 | FileCheck %s --check-prefix=REFUSED
// RUN: not sm-opt %s --sm-linalg-to-gpu="target=apple-m1 f64=f16" 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// The f64 of a variance (compute-f64-in-f32.mlir) on the other targets and
// through sm-linalg-to-gpu. On a target with f64 nothing changes.
// KEPT-LABEL: func.func @sum_of_squares
// KEPT: arith.extf %{{.*}} : f32 to f64
// KEPT: arith.truncf %{{.*}} : f64 to f32
// On apple-m1 with f64=f32, the kernels compute in f32, remarked on.
// KERNEL-LABEL: gpu.module @kernels
// KERNEL-NOT: f64
// KERNEL-LABEL: func.func @sum_of_squares
// REMARKS: remark: computes in f32, not f64: target 'apple-m1' has no f64 (f64=f32)
// Without f64=f32, the lowering names the first op that needs f64.
// REFUSED: error: '{{.*}}' uses 'f64', which target 'apple-m1' does not support (it lacks 'float64'
// UNKNOWN: error: unknown f64 'f16'; expected 'native' or 'f32'
#map = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @sum_of_squares(%x: tensor<4x16xf32>) -> tensor<4xf32> {
  %empty = tensor.empty() : tensor<4xf64>
  %zero = arith.constant 0.0 : f64
  %fill = linalg.fill ins(%zero : f64) outs(%empty : tensor<4xf64>) -> tensor<4xf64>
  %sum = linalg.generic {indexing_maps = [#map, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x16xf32>) outs(%fill : tensor<4xf64>) {
  ^bb0(%in: f32, %acc: f64):
    %w = arith.extf %in : f32 to f64
    %sq = arith.mulf %w, %w : f64
    %s = arith.addf %acc, %sq : f64
    linalg.yield %s : f64
  } -> tensor<4xf64>
  %out = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%sum : tensor<4xf64>) outs(%out : tensor<4xf32>) {
  ^bb0(%in: f64, %o: f32):
    %n = arith.truncf %in : f64 to f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
