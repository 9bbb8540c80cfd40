// torch-mlir LayerNorm in f32: the mean and variance as tosa.reduce_sum
// times a reciprocal constant, tosa.rsqrt, scale and shift broadcast.
func.func @layernorm(%x: tensor<1x32x64xf32>, %g: tensor<1x1x64xf32>, %b: tensor<1x1x64xf32>) -> tensor<1x32x64xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %inv_n = "tosa.const"() <{values = dense<0.015625> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %eps = "tosa.const"() <{values = dense<1.0e-5> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %sum = tosa.reduce_sum %x {axis = 2 : i32} : (tensor<1x32x64xf32>) -> tensor<1x32x1xf32>
  %mean = tosa.mul %sum, %inv_n, %shift : (tensor<1x32x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x32x1xf32>
  %c = tosa.sub %x, %mean : (tensor<1x32x64xf32>, tensor<1x32x1xf32>) -> tensor<1x32x64xf32>
  %sq = tosa.mul %c, %c, %shift : (tensor<1x32x64xf32>, tensor<1x32x64xf32>, tensor<1xi8>) -> tensor<1x32x64xf32>
  %vs = tosa.reduce_sum %sq {axis = 2 : i32} : (tensor<1x32x64xf32>) -> tensor<1x32x1xf32>
  %var = tosa.mul %vs, %inv_n, %shift : (tensor<1x32x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x32x1xf32>
  %ve = tosa.add %var, %eps : (tensor<1x32x1xf32>, tensor<1x1x1xf32>) -> tensor<1x32x1xf32>
  %r = tosa.rsqrt %ve : (tensor<1x32x1xf32>) -> tensor<1x32x1xf32>
  %n = tosa.mul %c, %r, %shift : (tensor<1x32x64xf32>, tensor<1x32x1xf32>, tensor<1xi8>) -> tensor<1x32x64xf32>
  %s = tosa.mul %n, %g, %shift : (tensor<1x32x64xf32>, tensor<1x1x64xf32>, tensor<1xi8>) -> tensor<1x32x64xf32>
  %y = tosa.add %s, %b : (tensor<1x32x64xf32>, tensor<1x1x64xf32>) -> tensor<1x32x64xf32>
  return %y : tensor<1x32x64xf32>
}
