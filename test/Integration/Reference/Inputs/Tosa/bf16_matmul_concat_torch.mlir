// torch-mlir bf16: two heads' products (a batched tosa.matmul on bf16 with
// an f32 accumulator cast back), concatenated on the last axis with
// tosa.concat, the first columns taken with tosa.slice and padded back
// with tosa.pad.
func.func @heads(%q: tensor<2x32x16xbf16>, %k: tensor<2x16x24xbf16>) -> tensor<32x48xbf16> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xbf16>}> : () -> tensor<1xbf16>
  %s = tosa.matmul %q, %k, %zp, %zp : (tensor<2x32x16xbf16>, tensor<2x16x24xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<2x32x24xf32>
  %c = tosa.cast %s : (tensor<2x32x24xf32>) -> tensor<2x32x24xbf16>
  %start0 = tosa.const_shape {values = dense<[0, 0, 0]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %start1 = tosa.const_shape {values = dense<[1, 0, 0]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %size = tosa.const_shape {values = dense<[1, 32, 24]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %h0 = tosa.slice %c, %start0, %size : (tensor<2x32x24xbf16>, !tosa.shape<3>, !tosa.shape<3>) -> tensor<1x32x24xbf16>
  %h1 = tosa.slice %c, %start1, %size : (tensor<2x32x24xbf16>, !tosa.shape<3>, !tosa.shape<3>) -> tensor<1x32x24xbf16>
  %cat = tosa.concat %h0, %h1 {axis = 2 : i32} : (tensor<1x32x24xbf16>, tensor<1x32x24xbf16>) -> tensor<1x32x48xbf16>
  %s2 = tosa.const_shape {values = dense<[32, 48]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %y = tosa.reshape %cat, %s2 : (tensor<1x32x48xbf16>, !tosa.shape<2>) -> tensor<32x48xbf16>
  return %y : tensor<32x48xbf16>
}
