// Front-end style: a graph compiler that emits linalg's named ops, with
// linalg.matmul's indexing_maps for the transposed [out, in] weights.
// Pattern: LLaMA-style gated MLP in f16 (f16 -> f16 products), SiLU
// written out (x / (1 + exp(-x))) in f32 and rounded to f16.
// Sizes: a 1024-wide model with a 2816-wide gate, 256 tokens.
// REDUCED: 256=16 1024=64 2816=96
#rows = affine_map<(m, n) -> (m, n)>
#a = affine_map<(m, n, k) -> (m, k)>
#bt = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @swiglu(%x: tensor<256x1024xf16>, %w_gate: tensor<2816x1024xf16>,
                  %w_up: tensor<2816x1024xf16>, %w_down: tensor<1024x2816xf16>)
    -> tensor<256x1024xf16> {
  %zero = arith.constant 0.0 : f16
  %one = arith.constant 1.0 : f32
  %h_empty = tensor.empty() : tensor<256x2816xf16>
  %h_init = linalg.fill ins(%zero : f16) outs(%h_empty : tensor<256x2816xf16>) -> tensor<256x2816xf16>
  %gate = linalg.matmul indexing_maps = [#a, #bt, #c]
      ins(%x, %w_gate : tensor<256x1024xf16>, tensor<2816x1024xf16>)
      outs(%h_init : tensor<256x2816xf16>) -> tensor<256x2816xf16>
  %up = linalg.matmul indexing_maps = [#a, #bt, #c]
      ins(%x, %w_up : tensor<256x1024xf16>, tensor<2816x1024xf16>)
      outs(%h_init : tensor<256x2816xf16>) -> tensor<256x2816xf16>
  %h = linalg.generic {indexing_maps = [#rows, #rows, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%gate, %up : tensor<256x2816xf16>, tensor<256x2816xf16>) outs(%h_empty : tensor<256x2816xf16>) {
  ^bb0(%g: f16, %u: f16, %out: f16):
    %gw = arith.extf %g : f16 to f32
    %uw = arith.extf %u : f16 to f32
    %neg = arith.negf %gw : f32
    %e = math.exp %neg : f32
    %d = arith.addf %e, %one : f32
    %silu = arith.divf %gw, %d : f32
    %p = arith.mulf %silu, %uw : f32
    %r = arith.truncf %p : f32 to f16
    linalg.yield %r : f16
  } -> tensor<256x2816xf16>
  %y_empty = tensor.empty() : tensor<256x1024xf16>
  %y_init = linalg.fill ins(%zero : f16) outs(%y_empty : tensor<256x1024xf16>) -> tensor<256x1024xf16>
  %y = linalg.matmul indexing_maps = [#a, #bt, #c]
      ins(%h, %w_down : tensor<256x2816xf16>, tensor<1024x2816xf16>)
      outs(%y_init : tensor<256x1024xf16>) -> tensor<256x1024xf16>
  return %y : tensor<256x1024xf16>
}
