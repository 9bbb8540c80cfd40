// Found by generate.py (seed 1336, on the H100): f16 e^x of values up to
// about 10 was 5 f16 ulps from upstream's (Vulkan allows 1 + 2|x| ulps for
// a 16-bit exp): f16 transcendentals now compute in f32 and round once.
// SHAPES: 64x32
func.func @main(%x: tensor<64x32xf16>) -> (tensor<64x32xf16>, tensor<64x32xf16>) {
  %init = tensor.empty() : tensor<64x32xf16>
  %e = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<64x32xf16>) outs(%init : tensor<64x32xf16>) {
  ^bb0(%in: f16, %out: f16):
    %ten = arith.constant 3.0 : f16
    %scaled = arith.mulf %in, %ten : f16
    %r = math.exp %scaled : f16
    linalg.yield %r : f16
  } -> tensor<64x32xf16>
  %init2 = tensor.empty() : tensor<64x32xf16>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<64x32xf16>) outs(%init2 : tensor<64x32xf16>) {
  ^bb0(%in: f16, %out: f16):
    %a = math.absf %in : f16
    %one = arith.constant 1.0 : f16
    %b = arith.addf %a, %one : f16
    %l = math.log %b : f16
    %s = math.tanh %in : f16
    %r = arith.addf %l, %s : f16
    linalg.yield %r : f16
  } -> tensor<64x32xf16>
  return %e, %t : tensor<64x32xf16>, tensor<64x32xf16>
}
