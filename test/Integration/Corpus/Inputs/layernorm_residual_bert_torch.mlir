// Front-end style: torch-mlir (a BERT output block, aten.add then
// aten.native_layer_norm decomposed): the residual add, the mean (a sum
// then a division), the centered values, their squares summed and divided,
// rsqrt(var + eps) and the affine transform, each a linalg.generic on
// [batch, sequence, hidden] tensors.
// Pattern: a written-out layer norm after a residual add (the add is
// computed again in each reduction rather than kept).
// Sizes: BERT-base, 8 sequences of 128 tokens, hidden 768.
// REDUCED: 8=2 128=12 768=80
#x = affine_map<(b, s, h) -> (b, s, h)>
#row = affine_map<(b, s, h) -> (b, s)>
#hidden = affine_map<(b, s, h) -> (h)>
#rows = affine_map<(b, s) -> (b, s)>
func.func @add_layer_norm(%x: tensor<8x128x768xf32>, %residual: tensor<8x128x768xf32>,
                          %gamma: tensor<768xf32>, %beta: tensor<768xf32>) -> tensor<8x128x768xf32> {
  %zero = arith.constant 0.0 : f32
  %count = arith.constant 768.0 : f32
  %eps = arith.constant 1.0e-12 : f32
  %full = tensor.empty() : tensor<8x128x768xf32>
  %sum_in = linalg.generic {indexing_maps = [#x, #x, #x], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %residual : tensor<8x128x768xf32>, tensor<8x128x768xf32>) outs(%full : tensor<8x128x768xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<8x128x768xf32>
  %rows_empty = tensor.empty() : tensor<8x128xf32>
  %sum_init = linalg.fill ins(%zero : f32) outs(%rows_empty : tensor<8x128xf32>) -> tensor<8x128xf32>
  %sum = linalg.generic {indexing_maps = [#x, #row], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%sum_in : tensor<8x128x768xf32>) outs(%sum_init : tensor<8x128xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8x128xf32>
  %mean = linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%sum : tensor<8x128xf32>) outs(%rows_empty : tensor<8x128xf32>) {
  ^bb0(%v: f32, %out: f32):
    %m = arith.divf %v, %count : f32
    linalg.yield %m : f32
  } -> tensor<8x128xf32>
  %centered = linalg.generic {indexing_maps = [#x, #row, #x], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%sum_in, %mean : tensor<8x128x768xf32>, tensor<8x128xf32>) outs(%full : tensor<8x128x768xf32>) {
  ^bb0(%v: f32, %m: f32, %out: f32):
    %c = arith.subf %v, %m : f32
    linalg.yield %c : f32
  } -> tensor<8x128x768xf32>
  %squares = linalg.generic {indexing_maps = [#x, #x], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%centered : tensor<8x128x768xf32>) outs(%full : tensor<8x128x768xf32>) {
  ^bb0(%v: f32, %out: f32):
    %q = arith.mulf %v, %v : f32
    linalg.yield %q : f32
  } -> tensor<8x128x768xf32>
  %var_init = linalg.fill ins(%zero : f32) outs(%rows_empty : tensor<8x128xf32>) -> tensor<8x128xf32>
  %var_sum = linalg.generic {indexing_maps = [#x, #row], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%squares : tensor<8x128x768xf32>) outs(%var_init : tensor<8x128xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8x128xf32>
  %rstd = linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%var_sum : tensor<8x128xf32>) outs(%rows_empty : tensor<8x128xf32>) {
  ^bb0(%v: f32, %out: f32):
    %var = arith.divf %v, %count : f32
    %shifted = arith.addf %var, %eps : f32
    %r = math.rsqrt %shifted : f32
    linalg.yield %r : f32
  } -> tensor<8x128xf32>
  %y = linalg.generic {indexing_maps = [#x, #row, #hidden, #hidden, #x], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%centered, %rstd, %gamma, %beta : tensor<8x128x768xf32>, tensor<8x128xf32>, tensor<768xf32>, tensor<768xf32>)
      outs(%full : tensor<8x128x768xf32>) {
  ^bb0(%c: f32, %r: f32, %g: f32, %b: f32, %out: f32):
    %n = arith.mulf %c, %r : f32
    %scaled = arith.mulf %n, %g : f32
    %shifted = arith.addf %scaled, %b : f32
    linalg.yield %shifted : f32
  } -> tensor<8x128x768xf32>
  return %y : tensor<8x128x768xf32>
}
