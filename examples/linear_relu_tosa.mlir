// A linear layer with ReLU as TensorFlow Lite's converter writes it in TOSA:
// sm-linalg-to-gpu and sm-run lower it to linalg first, through upstream
// MLIR's own TOSA lowering (sm-tosa-to-linalg).
func.func @linear_relu(%x: tensor<1x256x512xf16>, %w: tensor<1x512x256xf16>,
                       %bias: tensor<1x1x256xf16>) -> tensor<1x256x256xf16> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %product = tosa.matmul %x, %w, %zp, %zp
      : (tensor<1x256x512xf16>, tensor<1x512x256xf16>, tensor<1xf16>, tensor<1xf16>)
      -> tensor<1x256x256xf16>
  %biased = tosa.add %product, %bias
      : (tensor<1x256x256xf16>, tensor<1x1x256xf16>) -> tensor<1x256x256xf16>
  %y = tosa.clamp %biased {min_val = 0.0 : f16, max_val = 65504.0 : f16}
      : (tensor<1x256x256xf16>) -> tensor<1x256x256xf16>
  return %y : tensor<1x256x256xf16>
}
