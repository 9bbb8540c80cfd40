// Front-end style: TOSA lowered to linalg (a TensorFlow Lite f32 model):
// tosa.matmul is a batch_matmul with a batch of one between reshapes, the
// bias and ReLU a broadcast generic.
// Pattern: an f32 linear layer (f32 -> f32, exact: emulated matrices where
// the target has no f32 matrices).
// Sizes: 1024 tokens, 1024 -> 4096.
// REDUCED: 1024=32 4096=48
#rows = affine_map<(m, n) -> (m, n)>
#cols = affine_map<(m, n) -> (n)>
func.func @linear(%x: tensor<1024x1024xf32>, %w: tensor<1024x4096xf32>,
                  %bias: tensor<4096xf32>) -> tensor<1024x4096xf32> {
  %zero = arith.constant 0.0 : f32
  %x3 = tensor.expand_shape %x [[0, 1], [2]] output_shape [1, 1024, 1024]
      : tensor<1024x1024xf32> into tensor<1x1024x1024xf32>
  %w3 = tensor.expand_shape %w [[0, 1], [2]] output_shape [1, 1024, 4096]
      : tensor<1024x4096xf32> into tensor<1x1024x4096xf32>
  %empty = tensor.empty() : tensor<1x1024x4096xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x1024x4096xf32>) -> tensor<1x1024x4096xf32>
  %mm = linalg.batch_matmul ins(%x3, %w3 : tensor<1x1024x1024xf32>, tensor<1x1024x4096xf32>)
      outs(%init : tensor<1x1024x4096xf32>) -> tensor<1x1024x4096xf32>
  %mm2 = tensor.collapse_shape %mm [[0, 1], [2]]
      : tensor<1x1024x4096xf32> into tensor<1024x4096xf32>
  %y_empty = tensor.empty() : tensor<1024x4096xf32>
  %y = linalg.generic {indexing_maps = [#rows, #cols, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%mm2, %bias : tensor<1024x4096xf32>, tensor<4096xf32>) outs(%y_empty : tensor<1024x4096xf32>) {
  ^bb0(%v: f32, %b: f32, %out: f32):
    %s = arith.addf %v, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1024x4096xf32>
  return %y : tensor<1024x4096xf32>
}
