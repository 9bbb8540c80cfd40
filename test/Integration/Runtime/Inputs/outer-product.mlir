// The outer product of two vectors: an n x n result from 2n inputs.
func.func @outer(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %m = tensor.dim %y, %c0 : tensor<?xf32>
  %e = tensor.empty(%n, %m) : tensor<?x?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    linalg.yield %p : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
