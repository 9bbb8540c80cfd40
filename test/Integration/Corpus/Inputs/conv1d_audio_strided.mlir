// Front-end style: torch-mlir after layout propagation to channels-last
// (a wav2vec 2.0 feature encoder layer): linalg.conv_1d_nwc_wcf.
// Pattern: a strided (2) 1-D convolution of width 3, f16 in, f32
// accumulation, GELU (erf form) written out, rounded to f16.
// Sizes: 4 clips, 3200 frames, 512 -> 512 channels.
// REDUCED: 3200=64 1599=31 512=32
#all = affine_map<(n, w, c) -> (n, w, c)>
func.func @encoder(%x: tensor<4x3200x512xf16>, %w: tensor<3x512x512xf16>)
    -> tensor<4x1599x512xf16> {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %rsqrt2 = arith.constant 0.70710678118 : f32
  %empty = tensor.empty() : tensor<4x1599x512xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<4x1599x512xf32>) -> tensor<4x1599x512xf32>
  %conv = linalg.conv_1d_nwc_wcf {dilations = dense<1> : tensor<1xi64>, strides = dense<2> : tensor<1xi64>}
      ins(%x, %w : tensor<4x3200x512xf16>, tensor<3x512x512xf16>)
      outs(%init : tensor<4x1599x512xf32>) -> tensor<4x1599x512xf32>
  %y_empty = tensor.empty() : tensor<4x1599x512xf16>
  %y = linalg.generic {indexing_maps = [#all, #all], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%conv : tensor<4x1599x512xf32>) outs(%y_empty : tensor<4x1599x512xf16>) {
  ^bb0(%v: f32, %out: f16):
    %t = arith.mulf %v, %rsqrt2 : f32
    %e = math.erf %t : f32
    %e1 = arith.addf %e, %one : f32
    %h = arith.mulf %v, %half : f32
    %g = arith.mulf %h, %e1 : f32
    %r = arith.truncf %g : f32 to f16
    linalg.yield %r : f16
  } -> tensor<4x1599x512xf16>
  return %y : tensor<4x1599x512xf16>
}
