// Grouped-query attention as JAX writes it with einsum: Q as [batch,
// key-value heads, queries per key-value head, seq, dim], K and V as
// [batch, key-value heads, seq, dim] read without the group loop, a 5-D
// softmax. Three batch loops fold in two rounds into one attention kernel.
func.func @grouped_query_attention_einsum(%q: tensor<2x2x4x64x16xf16>, %k: tensor<2x2x64x16xf16>, %v: tensor<2x2x64x16xf16>) -> tensor<2x2x4x64x16xf32> {
  %zero = arith.constant 0.0 : f32
  %se = tensor.empty() : tensor<2x2x4x64x64xf32>
  %sf = linalg.fill ins(%zero : f32) outs(%se : tensor<2x2x4x64x64xf32>) -> tensor<2x2x4x64x64xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, h, g, i, j, d) -> (b, h, g, i, d)>, affine_map<(b, h, g, i, j, d) -> (b, h, j, d)>, affine_map<(b, h, g, i, j, d) -> (b, h, g, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x2x4x64x16xf16>, tensor<2x2x64x16xf16>) outs(%sf : tensor<2x2x4x64x64xf32>) {
  ^bb0(%a: f16, %b: f16, %c: f32):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %prod = arith.mulf %a32, %b32 : f32
    %r = arith.addf %c, %prod : f32
    linalg.yield %r : f32
  } -> tensor<2x2x4x64x64xf32>
  %pe = tensor.empty() : tensor<2x2x4x64x64xf32>
  %p = linalg.softmax dimension(4) ins(%s : tensor<2x2x4x64x64xf32>) outs(%pe : tensor<2x2x4x64x64xf32>) -> tensor<2x2x4x64x64xf32>
  %he = tensor.empty() : tensor<2x2x4x64x64xf16>
  %ph = linalg.generic {indexing_maps = [affine_map<(b, h, g, i, j) -> (b, h, g, i, j)>, affine_map<(b, h, g, i, j) -> (b, h, g, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%p : tensor<2x2x4x64x64xf32>) outs(%he : tensor<2x2x4x64x64xf16>) {
  ^bb0(%x: f32, %o: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  } -> tensor<2x2x4x64x64xf16>
  %oe = tensor.empty() : tensor<2x2x4x64x16xf32>
  %of = linalg.fill ins(%zero : f32) outs(%oe : tensor<2x2x4x64x16xf32>) -> tensor<2x2x4x64x16xf32>
  %o = linalg.generic {indexing_maps = [affine_map<(b, h, g, i, d, j) -> (b, h, g, i, j)>, affine_map<(b, h, g, i, d, j) -> (b, h, j, d)>, affine_map<(b, h, g, i, d, j) -> (b, h, g, i, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%ph, %v : tensor<2x2x4x64x64xf16>, tensor<2x2x64x16xf16>) outs(%of : tensor<2x2x4x64x16xf32>) {
  ^bb0(%a: f16, %b: f16, %c: f32):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %prod = arith.mulf %a32, %b32 : f32
    %r = arith.addf %c, %prod : f32
    linalg.yield %r : f32
  } -> tensor<2x2x4x64x16xf32>
  return %o : tensor<2x2x4x64x16xf32>
}
