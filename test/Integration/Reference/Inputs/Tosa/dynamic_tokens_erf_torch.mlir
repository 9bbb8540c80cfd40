// torch-mlir with a dynamic number of tokens: a rank-3 tosa.matmul on
// f16 and the exact GELU part tosa.erf, sizes known only at run time.
// SHAPES: 1x20x64 1x64x48
func.func @linear(%x: tensor<1x?x64xf16>, %w: tensor<1x64x48xf16>) -> tensor<1x?x48xf16> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %p = tosa.matmul %x, %w, %zp, %zp : (tensor<1x?x64xf16>, tensor<1x64x48xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x?x48xf16>
  %e = tosa.erf %p : (tensor<1x?x48xf16>) -> tensor<1x?x48xf16>
  return %e : tensor<1x?x48xf16>
}
