// A decode step written as torch's scaled_dot_product_attention lowers after
// q.transpose(1, 2): Q, K and V in [batch, seq, heads, dim], transposed to
// [batch, heads, seq, dim] by linalg.transpose, the output transposed back
// and narrowed to f16. One query row per head (its seq dimension is 1),
// 4 heads, 200 keys.
func.func @decode_attention_bshd(%q: tensor<1x1x4x64xf16>, %k: tensor<1x200x4x64xf16>, %v: tensor<1x200x4x64xf16>) -> tensor<1x1x4x64xf16> {
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.125 : f32
  %qt_e = tensor.empty() : tensor<1x4x1x64xf16>
  %qt = linalg.transpose ins(%q : tensor<1x1x4x64xf16>) outs(%qt_e : tensor<1x4x1x64xf16>) permutation = [0, 2, 1, 3]
  %kt_e = tensor.empty() : tensor<1x4x200x64xf16>
  %kt = linalg.transpose ins(%k : tensor<1x200x4x64xf16>) outs(%kt_e : tensor<1x4x200x64xf16>) permutation = [0, 2, 1, 3]
  %vt_e = tensor.empty() : tensor<1x4x200x64xf16>
  %vt = linalg.transpose ins(%v : tensor<1x200x4x64xf16>) outs(%vt_e : tensor<1x4x200x64xf16>) permutation = [0, 2, 1, 3]
  %se = tensor.empty() : tensor<1x4x1x200xf32>
  %sf = linalg.fill ins(%zero : f32) outs(%se : tensor<1x4x1x200xf32>) -> tensor<1x4x1x200xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, h, i, j, d) -> (b, h, i, d)>, affine_map<(b, h, i, j, d) -> (b, h, j, d)>, affine_map<(b, h, i, j, d) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%qt, %kt : tensor<1x4x1x64xf16>, tensor<1x4x200x64xf16>) outs(%sf : tensor<1x4x1x200xf32>) {
  ^bb0(%a: f16, %b: f16, %c: f32):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %prod = arith.mulf %a32, %b32 : f32
    %r = arith.addf %c, %prod : f32
    linalg.yield %r : f32
  } -> tensor<1x4x1x200xf32>
  %me = tensor.empty() : tensor<1x4x1x200xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>, affine_map<(b, h, i, j) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s : tensor<1x4x1x200xf32>) outs(%me : tensor<1x4x1x200xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %scale : f32
    linalg.yield %y : f32
  } -> tensor<1x4x1x200xf32>
  %pe = tensor.empty() : tensor<1x4x1x200xf32>
  %p = linalg.softmax dimension(3) ins(%m : tensor<1x4x1x200xf32>) outs(%pe : tensor<1x4x1x200xf32>) -> tensor<1x4x1x200xf32>
  %pne = tensor.empty() : tensor<1x4x1x200xf16>
  %pn = linalg.generic {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>, affine_map<(b, h, i, j) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%p : tensor<1x4x1x200xf32>) outs(%pne : tensor<1x4x1x200xf16>) {
  ^bb0(%x: f32, %o: f16):
    %y = arith.truncf %x : f32 to f16
    linalg.yield %y : f16
  } -> tensor<1x4x1x200xf16>
  %oe = tensor.empty() : tensor<1x4x1x64xf32>
  %of = linalg.fill ins(%zero : f32) outs(%oe : tensor<1x4x1x64xf32>) -> tensor<1x4x1x64xf32>
  %o = linalg.generic {indexing_maps = [affine_map<(b, h, i, d, j) -> (b, h, i, j)>, affine_map<(b, h, i, d, j) -> (b, h, j, d)>, affine_map<(b, h, i, d, j) -> (b, h, i, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%pn, %vt : tensor<1x4x1x200xf16>, tensor<1x4x200x64xf16>) outs(%of : tensor<1x4x1x64xf32>) {
  ^bb0(%a: f16, %b: f16, %c: f32):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %prod = arith.mulf %a32, %b32 : f32
    %r = arith.addf %c, %prod : f32
    linalg.yield %r : f32
  } -> tensor<1x4x1x64xf32>
  %ot_e = tensor.empty() : tensor<1x1x4x64xf32>
  %ot = linalg.transpose ins(%o : tensor<1x4x1x64xf32>) outs(%ot_e : tensor<1x1x4x64xf32>) permutation = [0, 2, 1, 3]
  %ne = tensor.empty() : tensor<1x1x4x64xf16>
  %n = linalg.generic {indexing_maps = [affine_map<(b, s, h, d) -> (b, s, h, d)>, affine_map<(b, s, h, d) -> (b, s, h, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%ot : tensor<1x1x4x64xf32>) outs(%ne : tensor<1x1x4x64xf16>) {
  ^bb0(%x: f32, %unused: f16):
    %y = arith.truncf %x : f32 to f16
    linalg.yield %y : f16
  } -> tensor<1x1x4x64xf16>
  return %n : tensor<1x1x4x64xf16>
}
