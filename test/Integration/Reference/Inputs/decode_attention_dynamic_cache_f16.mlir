// A decode step of grouped-query attention against a KV cache whose
// length is known only at run time ([batch, heads, seq, dim], K and V
// heads repeated for the query heads as torch writes it, the output
// narrowed to f16): one query row for each of 8 heads, 2 key-value heads,
// 777 keys here.
// SHAPES: 1x8x1x64 1x2x777x64 1x2x777x64
func.func @decode_attention_cache(%q: tensor<1x8x1x64xf16>, %k: tensor<1x2x?x64xf16>, %v: tensor<1x2x?x64xf16>) -> tensor<1x8x1x64xf16> {
  %zero = arith.constant 0.0 : f32
  %c2 = arith.constant 2 : index
  %keys = tensor.dim %k, %c2 : tensor<1x2x?x64xf16>
  %k_e = tensor.empty(%keys) : tensor<1x2x4x?x64xf16>
  %k_r = linalg.generic {indexing_maps = [affine_map<(b, g, r, s, d) -> (b, g, s, d)>, affine_map<(b, g, r, s, d) -> (b, g, r, s, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%k : tensor<1x2x?x64xf16>) outs(%k_e : tensor<1x2x4x?x64xf16>) {
  ^bb0(%x: f16, %unused: f16):
    linalg.yield %x : f16
  } -> tensor<1x2x4x?x64xf16>
  %k_h = tensor.collapse_shape %k_r [[0], [1, 2], [3], [4]] : tensor<1x2x4x?x64xf16> into tensor<1x8x?x64xf16>
  %v_e = tensor.empty(%keys) : tensor<1x2x4x?x64xf16>
  %v_r = linalg.generic {indexing_maps = [affine_map<(b, g, r, s, d) -> (b, g, s, d)>, affine_map<(b, g, r, s, d) -> (b, g, r, s, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%v : tensor<1x2x?x64xf16>) outs(%v_e : tensor<1x2x4x?x64xf16>) {
  ^bb0(%x: f16, %unused: f16):
    linalg.yield %x : f16
  } -> tensor<1x2x4x?x64xf16>
  %v_h = tensor.collapse_shape %v_r [[0], [1, 2], [3], [4]] : tensor<1x2x4x?x64xf16> into tensor<1x8x?x64xf16>
  %se = tensor.empty(%keys) : tensor<1x8x1x?xf32>
  %sf = linalg.fill ins(%zero : f32) outs(%se : tensor<1x8x1x?xf32>) -> tensor<1x8x1x?xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, h, i, j, d) -> (b, h, i, d)>, affine_map<(b, h, i, j, d) -> (b, h, j, d)>, affine_map<(b, h, i, j, d) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k_h : tensor<1x8x1x64xf16>, tensor<1x8x?x64xf16>) outs(%sf : tensor<1x8x1x?xf32>) {
  ^bb0(%a: f16, %b: f16, %c: f32):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %prod = arith.mulf %a32, %b32 : f32
    %r = arith.addf %c, %prod : f32
    linalg.yield %r : f32
  } -> tensor<1x8x1x?xf32>
  %me = tensor.empty(%keys) : tensor<1x8x1x?xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>, affine_map<(b, h, i, j) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s : tensor<1x8x1x?xf32>) outs(%me : tensor<1x8x1x?xf32>) {
  ^bb0(%x: f32, %o: f32):
    %c = arith.constant 0.125 : f32
    %y = arith.mulf %x, %c : f32
    linalg.yield %y : f32
  } -> tensor<1x8x1x?xf32>
  %pe = tensor.empty(%keys) : tensor<1x8x1x?xf32>
  %p = linalg.softmax dimension(3) ins(%m : tensor<1x8x1x?xf32>) outs(%pe : tensor<1x8x1x?xf32>) -> tensor<1x8x1x?xf32>
  %pne = tensor.empty(%keys) : tensor<1x8x1x?xf16>
  %pn = linalg.generic {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>, affine_map<(b, h, i, j) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%p : tensor<1x8x1x?xf32>) outs(%pne : tensor<1x8x1x?xf16>) {
  ^bb0(%x: f32, %o: f16):
    %y = arith.truncf %x : f32 to f16
    linalg.yield %y : f16
  } -> tensor<1x8x1x?xf16>
  %oe = tensor.empty() : tensor<1x8x1x64xf32>
  %of = linalg.fill ins(%zero : f32) outs(%oe : tensor<1x8x1x64xf32>) -> tensor<1x8x1x64xf32>
  %out = linalg.generic {indexing_maps = [affine_map<(b, h, i, d, j) -> (b, h, i, j)>, affine_map<(b, h, i, d, j) -> (b, h, j, d)>, affine_map<(b, h, i, d, j) -> (b, h, i, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%pn, %v_h : tensor<1x8x1x?xf16>, tensor<1x8x?x64xf16>) outs(%of : tensor<1x8x1x64xf32>) {
  ^bb0(%a: f16, %b: f16, %c: f32):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %prod = arith.mulf %a32, %b32 : f32
    %r = arith.addf %c, %prod : f32
    linalg.yield %r : f32
  } -> tensor<1x8x1x64xf32>
  %ne = tensor.empty() : tensor<1x8x1x64xf16>
  %outn = linalg.generic {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>, affine_map<(b, h, i, j) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%out : tensor<1x8x1x64xf32>) outs(%ne : tensor<1x8x1x64xf16>) {
  ^bb0(%x: f32, %unused: f16):
    %y = arith.truncf %x : f32 to f16
    linalg.yield %y : f16
  } -> tensor<1x8x1x64xf16>
  return %outn : tensor<1x8x1x64xf16>
}
