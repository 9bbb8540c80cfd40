// A strided, dilated f16 convolution on tensors of run-time size, every
// dimension dynamic, into an output the caller gives (and whose values it
// accumulates onto).
// SHAPES: 1x4x17x19 6x4x3x3 1x6x7x8
func.func @convolution(%input: tensor<?x?x?x?xf16>, %filter: tensor<?x?x?x?xf16>,
                       %output: tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> {
  %result = linalg.conv_2d_nchw_fchw {dilations = dense<[2, 1]> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%input, %filter : tensor<?x?x?x?xf16>, tensor<?x?x?x?xf16>)
      outs(%output : tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  return %result : tensor<?x?x?x?xf32>
}
