// Infinities and NaN made inside the kernels, where a driver that assumed
// finite floats could fold them away: (x / 0) - (x / 0) is NaN, not 0;
// (x / 0) * 0 is NaN, not 0; -(0 * x) is -0 for x > 0. Kernels declare
// SignedZeroInfNanPreserve (sm-preserve-inf-nan); the generator's
// NaN-and-infinity inputs (seed 56 of an earlier generator, on lavapipe,
// folded x - x to 0) depend on the same.
func.func @main(%x: tensor<16x24xf32>, %h: tensor<8x8xf16>) -> (tensor<16x24xf32>, tensor<16x24xf32>, tensor<8x8xf16>) {
  %init = tensor.empty() : tensor<16x24xf32>
  %differences, %products = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<16x24xf32>) outs(%init, %init : tensor<16x24xf32>, tensor<16x24xf32>) {
  ^bb0(%v: f32, %o1: f32, %o2: f32):
    %zero = arith.constant 0.0 : f32
    %infinite = arith.divf %v, %zero : f32
    %difference = arith.subf %infinite, %infinite : f32
    %product = arith.mulf %infinite, %zero : f32
    linalg.yield %difference, %product : f32, f32
  } -> (tensor<16x24xf32>, tensor<16x24xf32>)
  %hinit = tensor.empty() : tensor<8x8xf16>
  %halves = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%h : tensor<8x8xf16>) outs(%hinit : tensor<8x8xf16>) {
  ^bb0(%v: f16, %o: f16):
    %big = arith.constant 6.0e4 : f16
    %overflow = arith.mulf %v, %big : f16
    %scaled = arith.mulf %overflow, %big : f16
    %difference = arith.subf %scaled, %scaled : f16
    linalg.yield %difference : f16
  } -> tensor<8x8xf16>
  return %differences, %products, %halves : tensor<16x24xf32>, tensor<16x24xf32>, tensor<8x8xf16>
}
