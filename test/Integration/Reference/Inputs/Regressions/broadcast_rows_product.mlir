// Found by generate.py (seed 1689): a matrix product whose A is one row
// broadcast to every row (a column-wise max of one matrix, broadcast, times
// another) failed to compile with an invalid generic ("operand rank (1)
// does not match the indexing map's (2)"): the broadcast folded into A's
// map left M a loop of C alone. It stays a broadcast now.
func.func @main(%x: tensor<20x64xf32>, %w: tensor<48x64xf32>) -> tensor<16x48xf32> {
  %lowest = arith.constant 0xFF800000 : f32
  %cmax0 = tensor.empty() : tensor<64xf32>
  %cmax1 = linalg.fill ins(%lowest : f32) outs(%cmax0 : tensor<64xf32>) -> tensor<64xf32>
  %columnMax = linalg.reduce ins(%x : tensor<20x64xf32>) outs(%cmax1 : tensor<64xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %m = arith.maximumf %in, %acc : f32
      linalg.yield %m : f32
    }
  %rows0 = tensor.empty() : tensor<16x64xf32>
  %rows = linalg.broadcast ins(%columnMax : tensor<64xf32>) outs(%rows0 : tensor<16x64xf32>) dimensions = [0]
  %zero = arith.constant 0.0 : f32
  %out0 = tensor.empty() : tensor<16x48xf32>
  %out = linalg.fill ins(%zero : f32) outs(%out0 : tensor<16x48xf32>) -> tensor<16x48xf32>
  %product = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%rows, %w : tensor<16x64xf32>, tensor<48x64xf32>) outs(%out : tensor<16x48xf32>) -> tensor<16x48xf32>
  return %product : tensor<16x48xf32>
}
