// Front-end style: torch-mlir (torch.export of a bf16 nn.Sequential): each
// nn.Linear is a linalg.transpose of its [out, in] weight, a bf16 -> bf16
// linalg.matmul into a zero fill and a broadcast bias add; GELU (tanh form)
// written out in bf16 arithmetic.
// Pattern: bf16 MLP with [out, in] weights, bf16 -> bf16 products.
// Sizes: BERT-base feed-forward (768 -> 3072 -> 768), 512 tokens.
// REDUCED: 512=32 768=64 3072=96
#rows = affine_map<(m, n) -> (m, n)>
#cols = affine_map<(m, n) -> (n)>
func.func @mlp(%x: tensor<512x768xbf16>, %w1: tensor<3072x768xbf16>,
               %b1: tensor<3072xbf16>, %w2: tensor<768x3072xbf16>,
               %b2: tensor<768xbf16>) -> tensor<512x768xbf16> {
  %zero = arith.constant 0.0 : bf16
  %half = arith.constant 0.5 : bf16
  %one = arith.constant 1.0 : bf16
  %c0 = arith.constant 0.7978845608 : bf16
  %c1 = arith.constant 0.044715 : bf16
  %w1t_empty = tensor.empty() : tensor<768x3072xbf16>
  %w1t = linalg.transpose ins(%w1 : tensor<3072x768xbf16>)
      outs(%w1t_empty : tensor<768x3072xbf16>) permutation = [1, 0]
  %h_empty = tensor.empty() : tensor<512x3072xbf16>
  %h_init = linalg.fill ins(%zero : bf16) outs(%h_empty : tensor<512x3072xbf16>) -> tensor<512x3072xbf16>
  %h_mm = linalg.matmul ins(%x, %w1t : tensor<512x768xbf16>, tensor<768x3072xbf16>)
      outs(%h_init : tensor<512x3072xbf16>) -> tensor<512x3072xbf16>
  %h_biased = linalg.generic {indexing_maps = [#rows, #cols, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%h_mm, %b1 : tensor<512x3072xbf16>, tensor<3072xbf16>) outs(%h_empty : tensor<512x3072xbf16>) {
  ^bb0(%v: bf16, %b: bf16, %out: bf16):
    %s = arith.addf %v, %b : bf16
    linalg.yield %s : bf16
  } -> tensor<512x3072xbf16>
  %gelu = linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%h_biased : tensor<512x3072xbf16>) outs(%h_empty : tensor<512x3072xbf16>) {
  ^bb0(%v: bf16, %out: bf16):
    %v2 = arith.mulf %v, %v : bf16
    %v3 = arith.mulf %v2, %v : bf16
    %t0 = arith.mulf %v3, %c1 : bf16
    %t1 = arith.addf %v, %t0 : bf16
    %t2 = arith.mulf %t1, %c0 : bf16
    %t3 = math.tanh %t2 : bf16
    %t4 = arith.addf %t3, %one : bf16
    %t5 = arith.mulf %v, %half : bf16
    %g = arith.mulf %t5, %t4 : bf16
    linalg.yield %g : bf16
  } -> tensor<512x3072xbf16>
  %w2t_empty = tensor.empty() : tensor<3072x768xbf16>
  %w2t = linalg.transpose ins(%w2 : tensor<768x3072xbf16>)
      outs(%w2t_empty : tensor<3072x768xbf16>) permutation = [1, 0]
  %y_empty = tensor.empty() : tensor<512x768xbf16>
  %y_init = linalg.fill ins(%zero : bf16) outs(%y_empty : tensor<512x768xbf16>) -> tensor<512x768xbf16>
  %y_mm = linalg.matmul ins(%gelu, %w2t : tensor<512x3072xbf16>, tensor<3072x768xbf16>)
      outs(%y_init : tensor<512x768xbf16>) -> tensor<512x768xbf16>
  %y = linalg.generic {indexing_maps = [#rows, #cols, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%y_mm, %b2 : tensor<512x768xbf16>, tensor<768xbf16>) outs(%y_empty : tensor<512x768xbf16>) {
  ^bb0(%v: bf16, %b: bf16, %out: bf16):
    %s = arith.addf %v, %b : bf16
    linalg.yield %s : bf16
  } -> tensor<512x768xbf16>
  return %y : tensor<512x768xbf16>
}
