// Front-end style: IREE's input after generalization (every op a
// linalg.generic, as `iree-flow` and `--linalg-generalize-named-ops` leave
// a PyTorch MLP): the weights transposed by a generic, each product a
// generic widening its f16 operands to f32 in the body, the bias, the
// exact (erf) GELU and the narrowing to f16 each a generic of their own.
// Pattern: an MLP whose layers are all generics (BERT feed-forward).
// Sizes: BERT-base feed-forward, 512 tokens, 768 -> 3072 -> 768.
// REDUCED: 512=40 768=64 3072=96
#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn3 = affine_map<(m, n, k) -> (m, n)>
#mn = affine_map<(m, n) -> (m, n)>
#nm = affine_map<(m, n) -> (n, m)>
#n = affine_map<(m, n) -> (n)>
func.func @mlp(%x: tensor<512x768xf16>, %w1: tensor<3072x768xf16>, %b1: tensor<3072xf32>,
               %w2: tensor<768x3072xf16>, %b2: tensor<768xf32>) -> tensor<512x768xf16> {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %rsqrt2 = arith.constant 0.70710678118654752 : f32
  %w1t_empty = tensor.empty() : tensor<768x3072xf16>
  %w1t = linalg.generic {indexing_maps = [#nm, #mn], iterator_types = ["parallel", "parallel"]}
      ins(%w1 : tensor<3072x768xf16>) outs(%w1t_empty : tensor<768x3072xf16>) {
  ^bb0(%v: f16, %out: f16):
    linalg.yield %v : f16
  } -> tensor<768x3072xf16>
  %h_empty = tensor.empty() : tensor<512x3072xf32>
  %h_init = linalg.generic {indexing_maps = [#mn], iterator_types = ["parallel", "parallel"]}
      outs(%h_empty : tensor<512x3072xf32>) {
  ^bb0(%out: f32):
    linalg.yield %zero : f32
  } -> tensor<512x3072xf32>
  %h = linalg.generic {indexing_maps = [#mk, #kn, #mn3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w1t : tensor<512x768xf16>, tensor<768x3072xf16>) outs(%h_init : tensor<512x3072xf32>) {
  ^bb0(%a: f16, %b: f16, %acc: f32):
    %aw = arith.extf %a : f16 to f32
    %bw = arith.extf %b : f16 to f32
    %p = arith.mulf %aw, %bw : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<512x3072xf32>
  %biased = linalg.generic {indexing_maps = [#mn, #n, #mn], iterator_types = ["parallel", "parallel"]}
      ins(%h, %b1 : tensor<512x3072xf32>, tensor<3072xf32>) outs(%h_empty : tensor<512x3072xf32>) {
  ^bb0(%v: f32, %b: f32, %out: f32):
    %s = arith.addf %v, %b : f32
    linalg.yield %s : f32
  } -> tensor<512x3072xf32>
  %gelu = linalg.generic {indexing_maps = [#mn, #mn], iterator_types = ["parallel", "parallel"]}
      ins(%biased : tensor<512x3072xf32>) outs(%h_empty : tensor<512x3072xf32>) {
  ^bb0(%v: f32, %out: f32):
    %scaled = arith.mulf %v, %rsqrt2 : f32
    %e = math.erf %scaled : f32
    %e1 = arith.addf %e, %one : f32
    %hv = arith.mulf %v, %half : f32
    %g = arith.mulf %hv, %e1 : f32
    linalg.yield %g : f32
  } -> tensor<512x3072xf32>
  %g16_empty = tensor.empty() : tensor<512x3072xf16>
  %g16 = linalg.generic {indexing_maps = [#mn, #mn], iterator_types = ["parallel", "parallel"]}
      ins(%gelu : tensor<512x3072xf32>) outs(%g16_empty : tensor<512x3072xf16>) {
  ^bb0(%v: f32, %out: f16):
    %t = arith.truncf %v : f32 to f16
    linalg.yield %t : f16
  } -> tensor<512x3072xf16>
  %w2t_empty = tensor.empty() : tensor<3072x768xf16>
  %w2t = linalg.generic {indexing_maps = [#nm, #mn], iterator_types = ["parallel", "parallel"]}
      ins(%w2 : tensor<768x3072xf16>) outs(%w2t_empty : tensor<3072x768xf16>) {
  ^bb0(%v: f16, %out: f16):
    linalg.yield %v : f16
  } -> tensor<3072x768xf16>
  %y_empty = tensor.empty() : tensor<512x768xf32>
  %y_init = linalg.generic {indexing_maps = [#mn], iterator_types = ["parallel", "parallel"]}
      outs(%y_empty : tensor<512x768xf32>) {
  ^bb0(%out: f32):
    linalg.yield %zero : f32
  } -> tensor<512x768xf32>
  %y = linalg.generic {indexing_maps = [#mk, #kn, #mn3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%g16, %w2t : tensor<512x3072xf16>, tensor<3072x768xf16>) outs(%y_init : tensor<512x768xf32>) {
  ^bb0(%a: f16, %b: f16, %acc: f32):
    %aw = arith.extf %a : f16 to f32
    %bw = arith.extf %b : f16 to f32
    %p = arith.mulf %aw, %bw : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<512x768xf32>
  %out_empty = tensor.empty() : tensor<512x768xf16>
  %out = linalg.generic {indexing_maps = [#mn, #n, #mn], iterator_types = ["parallel", "parallel"]}
      ins(%y, %b2 : tensor<512x768xf32>, tensor<768xf32>) outs(%out_empty : tensor<512x768xf16>) {
  ^bb0(%v: f32, %b: f32, %o: f16):
    %s = arith.addf %v, %b : f32
    %t = arith.truncf %s : f32 to f16
    linalg.yield %t : f16
  } -> tensor<512x768xf16>
  return %out : tensor<512x768xf16>
}
