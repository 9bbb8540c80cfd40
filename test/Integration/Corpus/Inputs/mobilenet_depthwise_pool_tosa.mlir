// Front-end style: TOSA from a TFLite MobileNet-v2 block, lowered to linalg
// named ops: an explicit tensor.pad, linalg.depthwise_conv_2d_nhwc_hwc with
// the bias broadcast as its initial value, ReLU6 as a clamp, the 1x1
// projection as linalg.conv_2d_nhwc_fhwc, then linalg.pooling_nhwc_max
// (3x3, stride 2) from a -inf fill.
// Pattern: depthwise convolution, pointwise convolution and max pooling.
// Sizes: 56x56, 96 channels expanded to 24 (MobileNet-v2's third block),
// batch 4, f16.
// REDUCED: 56=10 58=12 27=4 96=16 24=8 4=1
#bias = affine_map<(n, h, w, c) -> (c)>
#nhwc = affine_map<(n, h, w, c) -> (n, h, w, c)>
func.func @block(%x: tensor<4x56x56x96xf16>, %dw: tensor<3x3x96xf16>, %dw_bias: tensor<96xf16>,
                 %pw: tensor<24x1x1x96xf16>) -> tensor<4x27x27x24xf16> {
  %zero = arith.constant 0.0 : f16
  %six = arith.constant 6.0 : f16
  %lowest = arith.constant 0xFC00 : f16
  %padded = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f16
  } : tensor<4x56x56x96xf16> to tensor<4x58x58x96xf16>
  %dw_empty = tensor.empty() : tensor<4x56x56x96xf16>
  %dw_init = linalg.generic {indexing_maps = [#bias, #nhwc], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%dw_bias : tensor<96xf16>) outs(%dw_empty : tensor<4x56x56x96xf16>) {
  ^bb0(%b: f16, %out: f16):
    linalg.yield %b : f16
  } -> tensor<4x56x56x96xf16>
  %depthwise = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%padded, %dw : tensor<4x58x58x96xf16>, tensor<3x3x96xf16>)
      outs(%dw_init : tensor<4x56x56x96xf16>) -> tensor<4x56x56x96xf16>
  %relu6 = linalg.generic {indexing_maps = [#nhwc, #nhwc], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%depthwise : tensor<4x56x56x96xf16>) outs(%dw_empty : tensor<4x56x56x96xf16>) {
  ^bb0(%v: f16, %out: f16):
    %low = arith.maximumf %v, %zero : f16
    %high = arith.minimumf %low, %six : f16
    linalg.yield %high : f16
  } -> tensor<4x56x56x96xf16>
  %pw_empty = tensor.empty() : tensor<4x56x56x24xf16>
  %pw_init = linalg.fill ins(%zero : f16) outs(%pw_empty : tensor<4x56x56x24xf16>) -> tensor<4x56x56x24xf16>
  %projected = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%relu6, %pw : tensor<4x56x56x96xf16>, tensor<24x1x1x96xf16>)
      outs(%pw_init : tensor<4x56x56x24xf16>) -> tensor<4x56x56x24xf16>
  %window = tensor.empty() : tensor<3x3xf16>
  %pool_empty = tensor.empty() : tensor<4x27x27x24xf16>
  %pool_init = linalg.fill ins(%lowest : f16) outs(%pool_empty : tensor<4x27x27x24xf16>) -> tensor<4x27x27x24xf16>
  %pooled = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%projected, %window : tensor<4x56x56x24xf16>, tensor<3x3xf16>)
      outs(%pool_init : tensor<4x27x27x24xf16>) -> tensor<4x27x27x24xf16>
  return %pooled : tensor<4x27x27x24xf16>
}
