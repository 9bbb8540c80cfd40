// RUN: sm-opt %s -split-input-file --sm-linalg-to-gpu=target=nvidia-h100 | FileCheck %s

// An op over no elements writes nothing: no kernel and no launch (a
// grid of no workgroups once divided by zero here).

// CHECK-LABEL: func.func @add
// CHECK-NOT: gpu.launch_func
// CHECK: return
func.func @add(%x: memref<0xf32>, %y: memref<0xf32>) {
  linalg.add ins(%x, %x : memref<0xf32>, memref<0xf32>) outs(%y : memref<0xf32>)
  return
}

// -----

// A sum over an empty dimension leaves each output at its starting value:
// the fill is the only kernel.

// CHECK-LABEL: gpu.func @elementwise_0
// CHECK-SAME: (%{{.*}}: memref<4xf32>)
// CHECK-NOT: gpu.func
// CHECK-LABEL: func.func @empty_sums
// CHECK: gpu.launch_func @kernels::@elementwise_0
// CHECK-NOT: gpu.launch_func
#all = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @empty_sums(%y: tensor<4x0xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %s = linalg.generic {indexing_maps = [#all, #row],
                       iterator_types = ["parallel", "reduction"]}
      ins(%y : tensor<4x0xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %a = arith.addf %acc, %v : f32
    linalg.yield %a : f32
  } -> tensor<4xf32>
  return %s : tensor<4xf32>
}
