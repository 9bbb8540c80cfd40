// Front-end style: a graph compiler's linalg named-op output (StableHLO
// lowered to linalg with named ops kept, helpers as private functions):
// func.call of a helper that reduces the whole tensor to a rank-0 absolute
// maximum with linalg.reduce, linalg.broadcast of it and of a bias,
// linalg.div, linalg.elementwise, linalg.map with math.tanh, tensor.pad by
// one row on each side, a dense constant row written in with
// tensor.insert_slice, an argument the graph does not use, and two results
// (the padded activations and the rank-0 scale).
// Pattern: named ops, rank-0 reduction, tensor plumbing, calls.
// Sizes: 512 tokens, hidden 1024.
// REDUCED: 512=40 514=42 1024=24 1023=23
func.func private @absolute_max(%x: tensor<512x1024xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<f32>) -> tensor<f32>
  %max = linalg.reduce ins(%x : tensor<512x1024xf32>) outs(%init : tensor<f32>) dimensions = [0, 1]
    (%in: f32, %acc: f32) {
      %a = math.absf %in : f32
      %m = arith.maximumf %a, %acc : f32
      linalg.yield %m : f32
    }
  return %max : tensor<f32>
}
func.func @normalize(%x: tensor<512x1024xf32>, %bias: tensor<1024xf32>,
                     %unused: tensor<7xf32>) -> (tensor<514x1024xf32>, tensor<f32>) {
  %scale = func.call @absolute_max(%x) : (tensor<512x1024xf32>) -> tensor<f32>
  %empty = tensor.empty() : tensor<512x1024xf32>
  %scale_b = linalg.broadcast ins(%scale : tensor<f32>) outs(%empty : tensor<512x1024xf32>) dimensions = [0, 1]
  %scaled = linalg.div ins(%x, %scale_b : tensor<512x1024xf32>, tensor<512x1024xf32>) outs(%empty : tensor<512x1024xf32>) -> tensor<512x1024xf32>
  %bias_b = linalg.broadcast ins(%bias : tensor<1024xf32>) outs(%empty : tensor<512x1024xf32>) dimensions = [0]
  %shifted = linalg.elementwise kind=#linalg.elementwise_kind<add>
      ins(%scaled, %bias_b : tensor<512x1024xf32>, tensor<512x1024xf32>) outs(%empty : tensor<512x1024xf32>) -> tensor<512x1024xf32>
  %squashed = linalg.map { math.tanh } ins(%shifted : tensor<512x1024xf32>) outs(%empty : tensor<512x1024xf32>)
  %zero = arith.constant 0.0 : f32
  %padded = tensor.pad %squashed low[1, 0] high[1, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<512x1024xf32> to tensor<514x1024xf32>
  %marker = arith.constant dense<2.0> : tensor<1x1024xf32>
  %marked = tensor.insert_slice %marker into %padded[0, 0] [1, 1024] [1, 1] : tensor<1x1024xf32> into tensor<514x1024xf32>
  return %marked, %scale : tensor<514x1024xf32>, tensor<f32>
}
