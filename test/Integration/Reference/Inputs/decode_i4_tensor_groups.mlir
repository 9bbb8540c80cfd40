// One token through a weight typed i4 (one value per element, as
// torch-mlir types an unpacked int4 weight), an f32 scale per group of 32
// along K, the weight stored N x K and read through a transposing map.
#w = affine_map<(n, k) -> (n, k)>
#g = affine_map<(n, k) -> (n, k floordiv 32)>
func.func @decode_i4(%x: tensor<1x192xf32>, %q: tensor<48x192xi4>, %scales: tensor<48x6xf32>) -> tensor<1x48xf32> {
  %empty_w = tensor.empty() : tensor<48x192xf32>
  %w = linalg.generic {indexing_maps = [#w, #g, #w], iterator_types = ["parallel", "parallel"]}
      ins(%q, %scales : tensor<48x192xi4>, tensor<48x6xf32>) outs(%empty_w : tensor<48x192xf32>) {
  ^bb0(%qv: i4, %s: f32, %o: f32):
    %f = arith.sitofp %qv : i4 to f32
    %wv = arith.mulf %f, %s : f32
    linalg.yield %wv : f32
  } -> tensor<48x192xf32>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x48xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x48xf32>) -> tensor<1x48xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<1x192xf32>, tensor<48x192xf32>) outs(%acc : tensor<1x48xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x48xf32>
  return %y : tensor<1x48xf32>
}
