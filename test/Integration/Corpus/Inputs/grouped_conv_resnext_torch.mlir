// Front-end style: torch-mlir (aten.convolution with groups=32): the NCHW
// input and the filter expanded to NGCHW / GFCHW,
// linalg.conv_2d_ngchw_gfchw, the output collapsed back.
// Pattern: a grouped 3x3 convolution (ResNeXt 32x4d), padded, f16.
// Sizes: batch 8, 128 channels in 32 groups of 4, 28x28.
// REDUCED: 128=16 32=4 28=6 30=8
func.func @grouped(%x: tensor<8x128x28x28xf16>, %w: tensor<128x4x3x3xf16>)
    -> tensor<8x128x28x28xf16> {
  %zero = arith.constant 0.0 : f16
  %padded = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f16
  } : tensor<8x128x28x28xf16> to tensor<8x128x30x30xf16>
  %xg = tensor.expand_shape %padded [[0], [1, 2], [3], [4]] output_shape [8, 32, 4, 30, 30]
      : tensor<8x128x30x30xf16> into tensor<8x32x4x30x30xf16>
  %wg = tensor.expand_shape %w [[0, 1], [2], [3], [4]] output_shape [32, 4, 4, 3, 3]
      : tensor<128x4x3x3xf16> into tensor<32x4x4x3x3xf16>
  %empty = tensor.empty() : tensor<8x32x4x28x28xf16>
  %init = linalg.fill ins(%zero : f16) outs(%empty : tensor<8x32x4x28x28xf16>) -> tensor<8x32x4x28x28xf16>
  %yg = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%xg, %wg : tensor<8x32x4x30x30xf16>, tensor<32x4x4x3x3xf16>)
      outs(%init : tensor<8x32x4x28x28xf16>) -> tensor<8x32x4x28x28xf16>
  %y = tensor.collapse_shape %yg [[0], [1, 2], [3], [4]]
      : tensor<8x32x4x28x28xf16> into tensor<8x128x28x28xf16>
  return %y : tensor<8x128x28x28xf16>
}
