// Found by generate.py (seed 18): a slice keeping the start of a longer
// dimension, read through by sm-fuse-elementwise, made an invalid generic
// (linalg sized the loop by the source's extent).
// SHAPES: 8x8
func.func @main(%arg0: tensor<?x8xf32>) -> (tensor<5x6xf32>) {
  %arg0_s = tensor.cast %arg0 : tensor<?x8xf32> to tensor<8x8xf32>
  %empty1 = tensor.empty() : tensor<8xf32>
  %c2 = arith.constant 0.0 : f32
  %fill3 = linalg.fill ins(%c2 : f32) outs(%empty1 : tensor<8xf32>) -> tensor<8xf32>
  %v4 = linalg.reduce ins(%arg0_s : tensor<8x8xf32>) outs(%fill3 : tensor<8xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %r = arith.addf %in, %acc : f32
      linalg.yield %r : f32
    }
  %v5 = tensor.extract_slice %arg0_s[0, 2] [5, 6] [1, 1] : tensor<8x8xf32> to tensor<5x6xf32>
  %empty6 = tensor.empty() : tensor<8xf32>
  %c7 = arith.constant 0.0 : f32
  %fill8 = linalg.fill ins(%c7 : f32) outs(%empty6 : tensor<8xf32>) -> tensor<8xf32>
  %v9 = linalg.reduce ins(%arg0_s : tensor<8x8xf32>) outs(%fill8 : tensor<8xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %r = arith.addf %in, %acc : f32
      linalg.yield %r : f32
    }
  %empty10 = tensor.empty() : tensor<f32>
  %c11 = arith.constant 0.0 : f32
  %fill12 = linalg.fill ins(%c11 : f32) outs(%empty10 : tensor<f32>) -> tensor<f32>
  %v13 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%v4 : tensor<8xf32>) outs(%fill12 : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %acc, %in : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %empty14 = tensor.empty() : tensor<5x6xf32>
  %v15 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v5, %v5 : tensor<5x6xf32>, tensor<5x6xf32>) outs(%empty14 : tensor<5x6xf32>) {
  ^bb0(%in0: f32, %in1: f32, %out: f32):
    %r = arith.minimumf %in0, %in1 : f32
    linalg.yield %r : f32
  } -> tensor<5x6xf32>
  return %v15 : tensor<5x6xf32>
}
