// One decode step of a linear layer with int8 weights and f32 activations:
// the weights ([out, in]) dequantized with a per-row scale and a zero point
// that the program reads out of a rank-0 tensor (tensor.extract: a load on
// the host, used in the dequantizing body), then a matrix-vector product.
// Was refused ("'memref.load' op is not run by the runtime").
#weights = affine_map<(o, i) -> (o, i)>
#row = affine_map<(o, i) -> (o)>
func.func @decode(%x: tensor<1x512xf32>, %w: tensor<768x512xi8>,
                  %scales: tensor<768xf32>, %zeroPoint: tensor<i8>) -> tensor<1x768xf32> {
  %zp = tensor.extract %zeroPoint[] : tensor<i8>
  %empty = tensor.empty() : tensor<768x512xf32>
  %dequantized = linalg.generic {indexing_maps = [#weights, #row, #weights],
      iterator_types = ["parallel", "parallel"]}
      ins(%w, %scales : tensor<768x512xi8>, tensor<768xf32>) outs(%empty : tensor<768x512xf32>) {
  ^bb0(%q: i8, %s: f32, %out: f32):
    %wide = arith.extsi %q : i8 to i32
    %zpWide = arith.extsi %zp : i8 to i32
    %centered = arith.subi %wide, %zpWide : i32
    %real = arith.sitofp %centered : i32 to f32
    %scaled = arith.mulf %real, %s : f32
    linalg.yield %scaled : f32
  } -> tensor<768x512xf32>
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<1x768xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<1x768xf32>) -> tensor<1x768xf32>
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %dequantized : tensor<1x512xf32>, tensor<768x512xf32>)
      outs(%acc : tensor<1x768xf32>) -> tensor<1x768xf32>
  return %y : tensor<1x768xf32>
}
