// Three tokens through an asymmetric uint8 weight (an f16 scale and a
// uint8 zero point per group of 64 along K, subtracted as integers), the
// weight transposed by a named op first, plus a bias, f16 out.
#w = affine_map<(n, k) -> (n, k)>
#g = affine_map<(n, k) -> (n, k floordiv 64)>
func.func @decode_uint8_zp(%x: tensor<3x320xf16>, %q: tensor<40x320xi8>, %scales: tensor<40x5xf16>, %zeros: tensor<40x5xi8>, %bias: tensor<40xf32>) -> tensor<3x40xf16> {
  %empty_w = tensor.empty() : tensor<40x320xf16>
  %w = linalg.generic {indexing_maps = [#w, #g, #g, #w], iterator_types = ["parallel", "parallel"]}
      ins(%q, %scales, %zeros : tensor<40x320xi8>, tensor<40x5xf16>, tensor<40x5xi8>) outs(%empty_w : tensor<40x320xf16>) {
  ^bb0(%qv: i8, %s: f16, %z: i8, %o: f16):
    %qi = arith.extui %qv : i8 to i32
    %zi = arith.extui %z : i8 to i32
    %d = arith.subi %qi, %zi : i32
    %df = arith.sitofp %d : i32 to f16
    %wv = arith.mulf %df, %s : f16
    linalg.yield %wv : f16
  } -> tensor<40x320xf16>
  %wt_empty = tensor.empty() : tensor<320x40xf16>
  %wt = linalg.transpose ins(%w : tensor<40x320xf16>) outs(%wt_empty : tensor<320x40xf16>) permutation = [1, 0]
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<3x40xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<3x40xf32>) -> tensor<3x40xf32>
  %y = linalg.matmul ins(%x, %wt : tensor<3x320xf16>, tensor<320x40xf16>) outs(%acc : tensor<3x40xf32>) -> tensor<3x40xf32>
  %out_empty = tensor.empty() : tensor<3x40xf16>
  %out = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%y, %bias : tensor<3x40xf32>, tensor<40xf32>) outs(%out_empty : tensor<3x40xf16>) {
  ^bb0(%v: f32, %b: f32, %o: f16):
    %s = arith.addf %v, %b : f32
    %h = arith.truncf %s : f32 to f16
    linalg.yield %h : f16
  } -> tensor<3x40xf16>
  return %out : tensor<3x40xf16>
}
