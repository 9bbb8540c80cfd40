// Found by generate.py (seed 1417): a linalg.reduce of a slice of a wider
// matrix (a strided view) was refused ("not a contiguous row-major
// memref"): the reduced dimension is spanned by the slice alone, so the
// view cannot fold into the reduction's maps; the reduction now reads a
// contiguous copy of the slice. Both a named reduction and a generic one
// over a column slice.
func.func @main(%input: tensor<36x7xi32>, %weights: tensor<9x20xf32>) -> (tensor<5xi32>, tensor<9xf32>) {
  %rows = tensor.extract_slice %input[11, 2] [19, 5] [1, 1] : tensor<36x7xi32> to tensor<19x5xi32>
  %zero = arith.constant 0 : i32
  %init = tensor.empty() : tensor<5xi32>
  %acc = linalg.fill ins(%zero : i32) outs(%init : tensor<5xi32>) -> tensor<5xi32>
  %sums = linalg.reduce ins(%rows : tensor<19x5xi32>) outs(%acc : tensor<5xi32>) dimensions = [0]
    (%in: i32, %out: i32) {
      %s = arith.addi %in, %out : i32
      linalg.yield %s : i32
    }
  %columns = tensor.extract_slice %weights[0, 3] [9, 12] [1, 1] : tensor<9x20xf32> to tensor<9x12xf32>
  %fzero = arith.constant 0.0 : f32
  %finit = tensor.empty() : tensor<9xf32>
  %facc = linalg.fill ins(%fzero : f32) outs(%finit : tensor<9xf32>) -> tensor<9xf32>
  %maxima = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%columns : tensor<9x12xf32>) outs(%facc : tensor<9xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = math.absf %in : f32
    %m = arith.maximumf %a, %out : f32
    linalg.yield %m : f32
  } -> tensor<9xf32>
  return %sums, %maxima : tensor<5xi32>, tensor<9xf32>
}
