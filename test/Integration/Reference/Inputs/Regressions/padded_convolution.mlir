// Found by generate.py (seeds 2550, 2724, 3117, 3212): a convolution's
// result padded (tensor.pad) was refused ("copies a strided view"): the
// copy into the padded buffer's interior read the result through the
// reshape that makes it NHWC, and could not size its loops from the
// linearized indices; a contiguous side of a copy is now read as it is.
func.func @main(%image: tensor<1x7x6x4xf32>, %filter: tensor<2x2x4x8xf32>) -> tensor<1x9x9x10xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<1x6x5x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<1x6x5x8xf32>) -> tensor<1x6x5x8xf32>
  %features = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%image, %filter : tensor<1x7x6x4xf32>, tensor<2x2x4x8xf32>) outs(%acc : tensor<1x6x5x8xf32>) -> tensor<1x6x5x8xf32>
  %padding = arith.constant -1.0 : f32
  %padded = tensor.pad %features low[0, 1, 2, 0] high[0, 2, 2, 2] {
  ^bb0(%n: index, %h: index, %w: index, %c: index):
    tensor.yield %padding : f32
  } : tensor<1x6x5x8xf32> to tensor<1x9x9x10xf32>
  return %padded : tensor<1x9x9x10xf32>
}
