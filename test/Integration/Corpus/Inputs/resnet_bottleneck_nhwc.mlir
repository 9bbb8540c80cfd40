// Front-end style: TensorFlow / TOSA lowered to linalg's named NHWC
// convolutions (HWCF filters), batch norm folded into per-channel biases.
// Pattern: a ResNet-50 downsampling bottleneck in f16: 1x1 conv + ReLU, a
// 3x3 stride-2 conv after a tensor.pad + ReLU, a 1x1 conv, a strided 1x1
// projection shortcut, the residual add and ReLU.
// Sizes: ResNet-50 stage 3 entry, batch 8, 56x56x256 -> 28x28x512.
// REDUCED: 56=8 58=10 28=4 256=32 128=16 512=64
#all = affine_map<(n, h, w, c) -> (n, h, w, c)>
#channel = affine_map<(n, h, w, c) -> (c)>
func.func @bottleneck(%x: tensor<8x56x56x256xf16>,
                      %w1: tensor<1x1x256x128xf16>, %b1: tensor<128xf16>,
                      %w2: tensor<3x3x128x128xf16>, %b2: tensor<128xf16>,
                      %w3: tensor<1x1x128x512xf16>, %b3: tensor<512xf16>,
                      %ws: tensor<1x1x256x512xf16>, %bs: tensor<512xf16>)
    -> tensor<8x28x28x512xf16> {
  %zero = arith.constant 0.0 : f16
  // 1x1, 256 -> 128, + bias, ReLU.
  %a_empty = tensor.empty() : tensor<8x56x56x128xf16>
  %a_init = linalg.fill ins(%zero : f16) outs(%a_empty : tensor<8x56x56x128xf16>) -> tensor<8x56x56x128xf16>
  %a_conv = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w1 : tensor<8x56x56x256xf16>, tensor<1x1x256x128xf16>)
      outs(%a_init : tensor<8x56x56x128xf16>) -> tensor<8x56x56x128xf16>
  %a = linalg.generic {indexing_maps = [#all, #channel, #all], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%a_conv, %b1 : tensor<8x56x56x128xf16>, tensor<128xf16>) outs(%a_empty : tensor<8x56x56x128xf16>) {
  ^bb0(%v: f16, %b: f16, %out: f16):
    %s = arith.addf %v, %b : f16
    %r = arith.maximumf %s, %zero : f16
    linalg.yield %r : f16
  } -> tensor<8x56x56x128xf16>
  // 3x3 stride 2 after padding by one, 128 -> 128, + bias, ReLU.
  %a_padded = tensor.pad %a low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f16
  } : tensor<8x56x56x128xf16> to tensor<8x58x58x128xf16>
  %c_empty = tensor.empty() : tensor<8x28x28x128xf16>
  %c_init = linalg.fill ins(%zero : f16) outs(%c_empty : tensor<8x28x28x128xf16>) -> tensor<8x28x28x128xf16>
  %c_conv = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%a_padded, %w2 : tensor<8x58x58x128xf16>, tensor<3x3x128x128xf16>)
      outs(%c_init : tensor<8x28x28x128xf16>) -> tensor<8x28x28x128xf16>
  %c = linalg.generic {indexing_maps = [#all, #channel, #all], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c_conv, %b2 : tensor<8x28x28x128xf16>, tensor<128xf16>) outs(%c_empty : tensor<8x28x28x128xf16>) {
  ^bb0(%v: f16, %b: f16, %out: f16):
    %s = arith.addf %v, %b : f16
    %r = arith.maximumf %s, %zero : f16
    linalg.yield %r : f16
  } -> tensor<8x28x28x128xf16>
  // 1x1, 128 -> 512, + bias.
  %y_empty = tensor.empty() : tensor<8x28x28x512xf16>
  %y_init = linalg.fill ins(%zero : f16) outs(%y_empty : tensor<8x28x28x512xf16>) -> tensor<8x28x28x512xf16>
  %e_conv = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%c, %w3 : tensor<8x28x28x128xf16>, tensor<1x1x128x512xf16>)
      outs(%y_init : tensor<8x28x28x512xf16>) -> tensor<8x28x28x512xf16>
  // The shortcut: 1x1 stride 2, 256 -> 512, + bias.
  %s_conv = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %ws : tensor<8x56x56x256xf16>, tensor<1x1x256x512xf16>)
      outs(%y_init : tensor<8x28x28x512xf16>) -> tensor<8x28x28x512xf16>
  %y = linalg.generic {indexing_maps = [#all, #channel, #all, #channel, #all], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%e_conv, %b3, %s_conv, %bs : tensor<8x28x28x512xf16>, tensor<512xf16>, tensor<8x28x28x512xf16>, tensor<512xf16>)
      outs(%y_empty : tensor<8x28x28x512xf16>) {
  ^bb0(%v: f16, %b: f16, %sv: f16, %sb: f16, %out: f16):
    %main = arith.addf %v, %b : f16
    %short = arith.addf %sv, %sb : f16
    %s = arith.addf %main, %short : f16
    %r = arith.maximumf %s, %zero : f16
    linalg.yield %r : f16
  } -> tensor<8x28x28x512xf16>
  return %y : tensor<8x28x28x512xf16>
}
