// Front-end style: ONNX (MatMulInteger with zero points, then the
// dequantizing Mul and Add of a QDQ model) imported to linalg.
// Pattern: an int8 projection with zero points (asymmetric activations,
// symmetric weights shifted by one), a rank-0 activation scale, per-column
// weight scales and an f32 bias.
// Sizes: 512 tokens, 768 -> 768.
// REDUCED: 512=32 768=64
#rows = affine_map<(m, n) -> (m, n)>
#cols = affine_map<(m, n) -> (n)>
#scalar = affine_map<(m, n) -> ()>
func.func @projection(%x: tensor<512x768xi8>, %w: tensor<768x768xi8>,
                      %x_scale: tensor<f32>, %w_scale: tensor<768xf32>,
                      %bias: tensor<768xf32>) -> tensor<512x768xf32> {
  %zero = arith.constant 0 : i32
  %x_zero = arith.constant -7 : i32
  %w_zero = arith.constant 1 : i32
  %empty = tensor.empty() : tensor<512x768xi32>
  %init = linalg.fill ins(%zero : i32) outs(%empty : tensor<512x768xi32>) -> tensor<512x768xi32>
  %acc = linalg.quantized_matmul ins(%x, %w, %x_zero, %w_zero : tensor<512x768xi8>, tensor<768x768xi8>, i32, i32)
      outs(%init : tensor<512x768xi32>) -> tensor<512x768xi32>
  %y_empty = tensor.empty() : tensor<512x768xf32>
  %y = linalg.generic {indexing_maps = [#rows, #scalar, #cols, #cols, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%acc, %x_scale, %w_scale, %bias : tensor<512x768xi32>, tensor<f32>, tensor<768xf32>, tensor<768xf32>)
      outs(%y_empty : tensor<512x768xf32>) {
  ^bb0(%q: i32, %sx: f32, %sw: f32, %b: f32, %out: f32):
    %f = arith.sitofp %q : i32 to f32
    %s = arith.mulf %sx, %sw : f32
    %d = arith.mulf %f, %s : f32
    %r = arith.addf %d, %b : f32
    linalg.yield %r : f32
  } -> tensor<512x768xf32>
  return %y : tensor<512x768xf32>
}
