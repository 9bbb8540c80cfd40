// Found by generate.py (seed 2304): a slice of a convolution's result,
// returned as it is, was refused ("copies a strided view"): the result is
// the implicit GEMM's [pixels, channels] matrix seen as NHWC through a
// reshape, and the copy of the slice did not see through that reshape; it
// now reads the matrix, the reshape's indices linearized.
func.func @main(%image: tensor<1x6x7x4xf16>, %filter: tensor<3x2x4x16xf16>) -> tensor<1x3x4x5xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<1x4x6x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<1x4x6x16xf32>) -> tensor<1x4x6x16xf32>
  %features = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%image, %filter : tensor<1x6x7x4xf16>, tensor<3x2x4x16xf16>) outs(%acc : tensor<1x4x6x16xf32>) -> tensor<1x4x6x16xf32>
  %window = tensor.extract_slice %features[0, 1, 2, 10] [1, 3, 4, 5] [1, 1, 1, 1] : tensor<1x4x6x16xf32> to tensor<1x3x4x5xf32>
  return %window : tensor<1x3x4x5xf32>
}
