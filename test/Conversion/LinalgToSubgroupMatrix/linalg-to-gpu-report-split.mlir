// RUN: sm-opt %s --sm-linalg-to-gpu="target=nvidia-h100 split-k=2 report=1" -mlir-print-op-on-diagnostic=false -verify-diagnostics -o /dev/null

// With K split, the product's kernel writes partial products: the op after
// it is not fused into it but becomes a kernel of its own, after the sum.
func.func @split_linear_relu(%x: tensor<64x256xf16>, %w: tensor<256x128xf16>) -> tensor<64x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x128xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<64x128xf32>) -> tensor<64x128xf32>
  // expected-remark @+2 {{became kernel 'matmul_0': a tiled matrix product on the target's matrix units}}
  // expected-remark @+1 {{its split K is summed by kernel 'elementwise_1'}}
  %mm = linalg.matmul ins(%x, %w : tensor<64x256xf16>, tensor<256x128xf16>) outs(%acc : tensor<64x128xf32>) -> tensor<64x128xf32>
  // expected-remark @+1 {{became kernel 'elementwise_2': one invocation per output element}}
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<64x128xf32>) outs(%e : tensor<64x128xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.maximumf %v, %zero : f32
    linalg.yield %m : f32
  } -> tensor<64x128xf32>
  return %r : tensor<64x128xf32>
}
