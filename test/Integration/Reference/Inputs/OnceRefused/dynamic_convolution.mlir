// A 3x3 convolution on buffers whose batch, height and width are known
// only at run time (compiled once, run at several sizes), accumulating
// into a zero-filled output. Was refused ("convolutions become matrix
// products at static sizes only").
// SHAPES: 2x12x10x8 3x3x8x4 2x10x8x4
func.func @convolution(%input: memref<?x?x?x8xf32>, %filter: memref<3x3x8x4xf32>,
                       %output: memref<?x?x?x4xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%output : memref<?x?x?x4xf32>)
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%input, %filter : memref<?x?x?x8xf32>, memref<3x3x8x4xf32>)
      outs(%output : memref<?x?x?x4xf32>)
  return
}
