// TFLite f32 MobileNet tail: a padded 3x3 tosa.depthwise_conv2d (HWCM
// weights, multiplier 1) with its bias, ReLU6, then tosa.avg_pool2d over
// the whole 7x7 map and a rank-2 reshape for the classifier.
func.func @tail(%x: tensor<1x7x7x32xf32>, %w: tensor<3x3x32x1xf32>, %b: tensor<32xf32>) -> tensor<1x32xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %d = tosa.depthwise_conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x7x7x32xf32>, tensor<3x3x32x1xf32>, tensor<32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x7x7x32xf32>
  %r = tosa.clamp %d {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<1x7x7x32xf32>) -> tensor<1x7x7x32xf32>
  %p = tosa.avg_pool2d %r, %zp, %zp {acc_type = f32, kernel = array<i64: 7, 7>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x7x7x32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x1x32xf32>
  %s = tosa.const_shape {values = dense<[1, 32]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %y = tosa.reshape %p, %s : (tensor<1x1x1x32xf32>, !tosa.shape<2>) -> tensor<1x32xf32>
  return %y : tensor<1x32xf32>
}
