// Front-end style: TOSA as TensorFlow Lite's converter writes it for an f32
// ResNet basic block, NHWC activations and OHWI weights: tosa.conv2d with
// padding, stride and dilation attributes and zero points as operands, the
// bias an operand of the convolution, ReLU6 and ReLU as tosa.clamp, the
// residual a tosa.add, then a 2x2 tosa.max_pool2d.
// Pattern: two 3x3 convolutions with a residual, then max pooling, run
// through upstream's TOSA-to-linalg lowering (sm-tosa-to-linalg).
// Sizes: 32x32, 64 channels, batch 1.
// REDUCED: 32=8 16=4 64=16
func.func @basic_block(%x: tensor<1x32x32x64xf32>, %w1: tensor<64x3x3x64xf32>,
                       %b1: tensor<64xf32>, %w2: tensor<64x3x3x64xf32>,
                       %b2: tensor<64xf32>) -> tensor<1x16x16x64xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c1 = tosa.conv2d %x, %w1, %b1, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>}
      : (tensor<1x32x32x64xf32>, tensor<64x3x3x64xf32>, tensor<64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x32x32x64xf32>
  %r1 = tosa.clamp %c1 {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<1x32x32x64xf32>) -> tensor<1x32x32x64xf32>
  %c2 = tosa.conv2d %r1, %w2, %b2, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>}
      : (tensor<1x32x32x64xf32>, tensor<64x3x3x64xf32>, tensor<64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x32x32x64xf32>
  %sum = tosa.add %c2, %x : (tensor<1x32x32x64xf32>, tensor<1x32x32x64xf32>) -> tensor<1x32x32x64xf32>
  %r2 = tosa.clamp %sum {min_val = 0.0 : f32, max_val = 3.40282347e+38 : f32} : (tensor<1x32x32x64xf32>) -> tensor<1x32x32x64xf32>
  %pool = tosa.max_pool2d %r2 {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>}
      : (tensor<1x32x32x64xf32>) -> tensor<1x16x16x64xf32>
  return %pool : tensor<1x16x16x64xf32>
}
