// Attention with a [1, queries, keys] f16 mask read through a zero in its
// map, as a program whose batch loops were already folded writes it
// ((b, i, j) -> (0, i, j)): one attention kernel, its softmax on result
// matrices loading the mask as matrices where the target has them.
func.func @attention_broadcast_mask(%q: tensor<2x64x16xf16>, %k: tensor<2x64x16xf16>, %v: tensor<2x64x16xf16>, %mask: tensor<1x64x64xf16>) -> tensor<2x64x16xf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x64x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x64x64xf32>) -> tensor<2x64x64xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x64x16xf16>, tensor<2x64x16xf16>) outs(%f : tensor<2x64x64xf32>) {
  ^bb0(%a: f16, %b: f16, %c: f32):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %prod = arith.mulf %a32, %b32 : f32
    %r = arith.addf %c, %prod : f32
    linalg.yield %r : f32
  } -> tensor<2x64x64xf32>
  %e1 = tensor.empty() : tensor<2x64x64xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (0, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %mask : tensor<2x64x64xf32>, tensor<1x64x64xf16>) outs(%e1 : tensor<2x64x64xf32>) {
  ^bb0(%x: f32, %a: f16, %o: f32):
    %c = arith.constant 0.125 : f32
    %scaled = arith.mulf %x, %c : f32
    %aw = arith.extf %a : f16 to f32
    %y = arith.addf %scaled, %aw : f32
    linalg.yield %y : f32
  } -> tensor<2x64x64xf32>
  %e2 = tensor.empty() : tensor<2x64x64xf32>
  %p = linalg.softmax dimension(2) ins(%m : tensor<2x64x64xf32>) outs(%e2 : tensor<2x64x64xf32>) -> tensor<2x64x64xf32>
  %pn_e = tensor.empty() : tensor<2x64x64xf16>
  %pn = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p : tensor<2x64x64xf32>) outs(%pn_e : tensor<2x64x64xf16>) {
  ^bb0(%x: f32, %o: f16):
    %y = arith.truncf %x : f32 to f16
    linalg.yield %y : f16
  } -> tensor<2x64x64xf16>
  %e4 = tensor.empty() : tensor<2x64x16xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<2x64x16xf32>) -> tensor<2x64x16xf32>
  %out = linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, k, n)>, affine_map<(b, m, n, k) -> (b, m, n)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%pn, %v : tensor<2x64x64xf16>, tensor<2x64x16xf16>) outs(%f4 : tensor<2x64x16xf32>) {
  ^bb0(%a: f16, %b: f16, %c: f32):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %prod = arith.mulf %a32, %b32 : f32
    %r = arith.addf %c, %prod : f32
    linalg.yield %r : f32
  } -> tensor<2x64x16xf32>
  %outn_e = tensor.empty() : tensor<2x64x16xf16>
  %outn = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%out : tensor<2x64x16xf32>) outs(%outn_e : tensor<2x64x16xf16>) {
  ^bb0(%x: f32, %o: f16):
    %y = arith.truncf %x : f32 to f16
    linalg.yield %y : f16
  } -> tensor<2x64x16xf16>
  return %outn : tensor<2x64x16xf16>
}

