// Front-end style: TensorFlow / TOSA (a 3-D video convolution, NDHWC with
// DHWCF filters) lowered to linalg's named op.
// Pattern: a padded 3x3x3 convolution, f16 in and out.
// Sizes: 2 clips of 16 frames at 28x28, 64 -> 64 channels.
// REDUCED: 16=4 18=6 28=6 30=8 64=16
func.func @video(%x: tensor<2x16x28x28x64xf16>, %w: tensor<3x3x3x64x64xf16>)
    -> tensor<2x16x28x28x64xf16> {
  %zero = arith.constant 0.0 : f16
  %padded = tensor.pad %x low[0, 1, 1, 1, 0] high[0, 1, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index, %i4: index):
    tensor.yield %zero : f16
  } : tensor<2x16x28x28x64xf16> to tensor<2x18x30x30x64xf16>
  %empty = tensor.empty() : tensor<2x16x28x28x64xf16>
  %init = linalg.fill ins(%zero : f16) outs(%empty : tensor<2x16x28x28x64xf16>) -> tensor<2x16x28x28x64xf16>
  %y = linalg.conv_3d_ndhwc_dhwcf {dilations = dense<1> : tensor<3xi64>, strides = dense<1> : tensor<3xi64>}
      ins(%padded, %w : tensor<2x18x30x30x64xf16>, tensor<3x3x3x64x64xf16>)
      outs(%init : tensor<2x16x28x28x64xf16>) -> tensor<2x16x28x28x64xf16>
  return %y : tensor<2x16x28x28x64xf16>
}
