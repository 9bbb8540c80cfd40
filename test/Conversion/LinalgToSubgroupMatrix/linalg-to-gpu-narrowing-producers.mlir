// RUN: sm-opt %s -split-input-file --sm-linalg-to-gpu="target=nvidia-h100 split-k=1" | FileCheck %s

// An attention's f32 context transposed back from heads and rounded to f16
// before the output projection: a producer that only moves and narrows one
// wider input is a kernel of its own, and the product stages the f16 result
// in vectors (as a gathering prologue it would load f32 element by element
// once per column tile of the product).

// CHECK-LABEL: gpu.func @matmul_0
// CHECK-SAME: %[[A:[a-z0-9]+]]: memref<32768xf16>
// CHECK: vector.load %[[A]]
// CHECK-LABEL: gpu.func @elementwise_1
// CHECK-SAME: (%[[CTX:.*]]: memref<32768xf32>, %[[MERGED:.*]]: memref<32768xf16>)
// CHECK: arith.truncf
// CHECK-LABEL: func.func @merge_heads
// CHECK: gpu.launch_func @kernels::@elementwise_1
// CHECK: gpu.launch_func @kernels::@matmul_0
#heads = affine_map<(s, h, d) -> (h, s, d)>
#merged = affine_map<(s, h, d) -> (s, h, d)>
func.func @merge_heads(%ctx: tensor<4x64x128xf32>, %w: tensor<512x256xf16>) -> tensor<64x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x4x128xf16>
  %m = linalg.generic {indexing_maps = [#heads, #merged], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ctx : tensor<4x64x128xf32>) outs(%e : tensor<64x4x128xf16>) {
  ^bb0(%v: f32, %o: f16):
    %t = arith.truncf %v : f32 to f16
    linalg.yield %t : f16
  } -> tensor<64x4x128xf16>
  %a = tensor.collapse_shape %m [[0], [1, 2]] : tensor<64x4x128xf16> into tensor<64x512xf16>
  %ye = tensor.empty() : tensor<64x256xf32>
  %yz = linalg.fill ins(%zero : f32) outs(%ye : tensor<64x256xf32>) -> tensor<64x256xf32>
  %y = linalg.matmul ins(%a, %w : tensor<64x512xf16>, tensor<512x256xf16>) outs(%yz : tensor<64x256xf32>) -> tensor<64x256xf32>
  return %y : tensor<64x256xf32>
}

// -----

// The same move without narrowing (f16 heads) stays a prologue of the
// product: one kernel.

// CHECK-LABEL: gpu.func @matmul_0
// CHECK-SAME: %[[HEADS:[a-z0-9]+]]: memref<32768xf16>
// CHECK-NOT: gpu.func
// CHECK-LABEL: func.func @merge_heads_f16
// CHECK-COUNT-1: gpu.launch_func
// CHECK-NOT: gpu.launch_func
#heads = affine_map<(s, h, d) -> (h, s, d)>
#merged = affine_map<(s, h, d) -> (s, h, d)>
func.func @merge_heads_f16(%ctx: tensor<4x64x128xf16>, %w: tensor<512x256xf16>) -> tensor<64x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x4x128xf16>
  %m = linalg.generic {indexing_maps = [#heads, #merged], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ctx : tensor<4x64x128xf16>) outs(%e : tensor<64x4x128xf16>) {
  ^bb0(%v: f16, %o: f16):
    linalg.yield %v : f16
  } -> tensor<64x4x128xf16>
  %a = tensor.collapse_shape %m [[0], [1, 2]] : tensor<64x4x128xf16> into tensor<64x512xf16>
  %ye = tensor.empty() : tensor<64x256xf32>
  %yz = linalg.fill ins(%zero : f32) outs(%ye : tensor<64x256xf32>) -> tensor<64x256xf32>
  %y = linalg.matmul ins(%a, %w : tensor<64x512xf16>, tensor<512x256xf16>) outs(%yz : tensor<64x256xf32>) -> tensor<64x256xf32>
  return %y : tensor<64x256xf32>
}
