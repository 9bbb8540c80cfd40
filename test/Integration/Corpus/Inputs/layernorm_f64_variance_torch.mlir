// Front-end style: torch-mlir (a LayerNorm written out in a model's forward
// with the variance taken in double precision, `x.double().var(-1,
// unbiased=False)`, as numerically careful ports do): the mean in f32, the
// centered values widened to f64, squared and summed in f64, the inverse
// standard deviation computed in f64 and narrowed back to f32.
// Pattern: a layer norm whose reductions mix f32 and f64.
// Sizes: BERT-base, 8 x 128 tokens, hidden 768.
// REDUCED: 8=2 128=12 768=96
#x = affine_map<(b, s, h) -> (b, s, h)>
#row = affine_map<(b, s, h) -> (b, s)>
#hidden = affine_map<(b, s, h) -> (h)>
#rows = affine_map<(b, s) -> (b, s)>
func.func @layer_norm_f64(%x: tensor<8x128x768xf32>, %gamma: tensor<768xf32>,
                          %beta: tensor<768xf32>) -> tensor<8x128x768xf32> {
  %zero = arith.constant 0.0 : f32
  %zero64 = arith.constant 0.0 : f64
  %count = arith.constant 768.0 : f32
  %count64 = arith.constant 768.0 : f64
  %eps = arith.constant 1.0e-12 : f64
  %row_empty = tensor.empty() : tensor<8x128xf32>
  %row_init = linalg.fill ins(%zero : f32) outs(%row_empty : tensor<8x128xf32>) -> tensor<8x128xf32>
  %sum = linalg.generic {indexing_maps = [#x, #row], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<8x128x768xf32>) outs(%row_init : tensor<8x128xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8x128xf32>
  %mean = linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%sum : tensor<8x128xf32>) outs(%row_empty : tensor<8x128xf32>) {
  ^bb0(%s: f32, %out: f32):
    %m = arith.divf %s, %count : f32
    linalg.yield %m : f32
  } -> tensor<8x128xf32>
  %wide_empty = tensor.empty() : tensor<8x128xf64>
  %wide_init = linalg.fill ins(%zero64 : f64) outs(%wide_empty : tensor<8x128xf64>) -> tensor<8x128xf64>
  %squares = linalg.generic {indexing_maps = [#x, #row, #row], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %mean : tensor<8x128x768xf32>, tensor<8x128xf32>) outs(%wide_init : tensor<8x128xf64>) {
  ^bb0(%v: f32, %m: f32, %acc: f64):
    %v64 = arith.extf %v : f32 to f64
    %m64 = arith.extf %m : f32 to f64
    %c = arith.subf %v64, %m64 : f64
    %sq = arith.mulf %c, %c : f64
    %s = arith.addf %sq, %acc : f64
    linalg.yield %s : f64
  } -> tensor<8x128xf64>
  %inv_std = linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%squares : tensor<8x128xf64>) outs(%row_empty : tensor<8x128xf32>) {
  ^bb0(%s: f64, %out: f32):
    %var = arith.divf %s, %count64 : f64
    %ve = arith.addf %var, %eps : f64
    %r = math.rsqrt %ve : f64
    %n = arith.truncf %r : f64 to f32
    linalg.yield %n : f32
  } -> tensor<8x128xf32>
  %y_empty = tensor.empty() : tensor<8x128x768xf32>
  %y = linalg.generic {indexing_maps = [#x, #row, #row, #hidden, #hidden, #x], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %mean, %inv_std, %gamma, %beta : tensor<8x128x768xf32>, tensor<8x128xf32>, tensor<8x128xf32>, tensor<768xf32>, tensor<768xf32>)
      outs(%y_empty : tensor<8x128x768xf32>) {
  ^bb0(%v: f32, %m: f32, %r: f32, %g: f32, %b: f32, %out: f32):
    %c = arith.subf %v, %m : f32
    %n = arith.mulf %c, %r : f32
    %s = arith.mulf %n, %g : f32
    %o = arith.addf %s, %b : f32
    linalg.yield %o : f32
  } -> tensor<8x128x768xf32>
  return %y : tensor<8x128x768xf32>
}
