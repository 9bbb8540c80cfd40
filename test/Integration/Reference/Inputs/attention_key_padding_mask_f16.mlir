// Attention with BERT's padding mask: an additive f32 mask of [batch, keys]
// read by the scaled scores through `(b, h, i, j) -> (b, j)` (broadcast over
// the heads and the queries), f16 Q, K and V in [batch, heads, seq, dim].
// One attention kernel: the mask is repeated over the heads for the fold
// of the batch loops, and the kernel reads it per key.
func.func @attention_key_padding_mask(%q: tensor<2x4x64x16xf16>, %k: tensor<2x4x64x16xf16>, %v: tensor<2x4x64x16xf16>, %mask: tensor<2x64xf32>) -> tensor<2x4x64x16xf32> {
  %zero = arith.constant 0.0 : f32
  %se = tensor.empty() : tensor<2x4x64x64xf32>
  %sf = linalg.fill ins(%zero : f32) outs(%se : tensor<2x4x64x64xf32>) -> tensor<2x4x64x64xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, h, i, j, d) -> (b, h, i, d)>, affine_map<(b, h, i, j, d) -> (b, h, j, d)>, affine_map<(b, h, i, j, d) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x4x64x16xf16>, tensor<2x4x64x16xf16>) outs(%sf : tensor<2x4x64x64xf32>) {
  ^bb0(%a: f16, %b: f16, %c: f32):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %prod = arith.mulf %a32, %b32 : f32
    %r = arith.addf %c, %prod : f32
    linalg.yield %r : f32
  } -> tensor<2x4x64x64xf32>
  %me = tensor.empty() : tensor<2x4x64x64xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>, affine_map<(b, h, i, j) -> (b, j)>, affine_map<(b, h, i, j) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s, %mask : tensor<2x4x64x64xf32>, tensor<2x64xf32>) outs(%me : tensor<2x4x64x64xf32>) {
  ^bb0(%x: f32, %bias: f32, %o: f32):
    %c = arith.constant 0.25 : f32
    %scaled = arith.mulf %x, %c : f32
    %y = arith.addf %scaled, %bias : f32
    linalg.yield %y : f32
  } -> tensor<2x4x64x64xf32>
  %pe = tensor.empty() : tensor<2x4x64x64xf32>
  %p = linalg.softmax dimension(3) ins(%m : tensor<2x4x64x64xf32>) outs(%pe : tensor<2x4x64x64xf32>) -> tensor<2x4x64x64xf32>
  %he = tensor.empty() : tensor<2x4x64x64xf16>
  %ph = linalg.generic {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>, affine_map<(b, h, i, j) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%p : tensor<2x4x64x64xf32>) outs(%he : tensor<2x4x64x64xf16>) {
  ^bb0(%x: f32, %o: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  } -> tensor<2x4x64x64xf16>
  %oe = tensor.empty() : tensor<2x4x64x16xf32>
  %of = linalg.fill ins(%zero : f32) outs(%oe : tensor<2x4x64x16xf32>) -> tensor<2x4x64x16xf32>
  %o = linalg.generic {indexing_maps = [affine_map<(b, h, i, d, j) -> (b, h, i, j)>, affine_map<(b, h, i, d, j) -> (b, h, j, d)>, affine_map<(b, h, i, d, j) -> (b, h, i, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%ph, %v : tensor<2x4x64x64xf16>, tensor<2x4x64x16xf16>) outs(%of : tensor<2x4x64x16xf32>) {
  ^bb0(%a: f16, %b: f16, %c: f32):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %prod = arith.mulf %a32, %b32 : f32
    %r = arith.addf %c, %prod : f32
    linalg.yield %r : f32
  } -> tensor<2x4x64x16xf32>
  return %o : tensor<2x4x64x16xf32>
}
