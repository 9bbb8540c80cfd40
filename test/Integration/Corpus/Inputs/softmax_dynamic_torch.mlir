// Front-end style: torch-mlir (torch.export with dynamic batch and sequence
// dimensions): aten._softmax decomposed into a max, the shifted
// exponentials, their sum and the quotient, each a linalg.generic on
// `?x?x?` tensors whose sizes come from tensor.dim.
// Pattern: a written-out softmax at dynamic sizes (one row-group kernel).
// Sizes: BERT-base attention probabilities, 8 sequences x 12 heads of
// 128 x 128 scores.
// SHAPES: 96x128x128
// REDUCED: 96=6 128=77
#x = affine_map<(b, i, j) -> (b, i, j)>
#row = affine_map<(b, i, j) -> (b, i)>
func.func @softmax(%scores: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %d0 = tensor.dim %scores, %c0 : tensor<?x?x?xf32>
  %d1 = tensor.dim %scores, %c1 : tensor<?x?x?xf32>
  %d2 = tensor.dim %scores, %c2 : tensor<?x?x?xf32>
  %rows = tensor.empty(%d0, %d1) : tensor<?x?xf32>
  %max_init = linalg.fill ins(%ninf : f32) outs(%rows : tensor<?x?xf32>) -> tensor<?x?xf32>
  %max = linalg.generic {indexing_maps = [#x, #row], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%scores : tensor<?x?x?xf32>) outs(%max_init : tensor<?x?xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %m = arith.maximumf %v, %acc : f32
    linalg.yield %m : f32
  } -> tensor<?x?xf32>
  %full = tensor.empty(%d0, %d1, %d2) : tensor<?x?x?xf32>
  %shifted = linalg.generic {indexing_maps = [#x, #row, #x], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%scores, %max : tensor<?x?x?xf32>, tensor<?x?xf32>) outs(%full : tensor<?x?x?xf32>) {
  ^bb0(%v: f32, %m: f32, %out: f32):
    %s = arith.subf %v, %m : f32
    linalg.yield %s : f32
  } -> tensor<?x?x?xf32>
  %exp = linalg.generic {indexing_maps = [#x, #x], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%shifted : tensor<?x?x?xf32>) outs(%full : tensor<?x?x?xf32>) {
  ^bb0(%v: f32, %out: f32):
    %e = math.exp %v : f32
    linalg.yield %e : f32
  } -> tensor<?x?x?xf32>
  %sum_init = linalg.fill ins(%zero : f32) outs(%rows : tensor<?x?xf32>) -> tensor<?x?xf32>
  %sum = linalg.generic {indexing_maps = [#x, #row], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%exp : tensor<?x?x?xf32>) outs(%sum_init : tensor<?x?xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  %probs = linalg.generic {indexing_maps = [#x, #row, #x], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%exp, %sum : tensor<?x?x?xf32>, tensor<?x?xf32>) outs(%full : tensor<?x?x?xf32>) {
  ^bb0(%e: f32, %s: f32, %out: f32):
    %p = arith.divf %e, %s : f32
    linalg.yield %p : f32
  } -> tensor<?x?x?xf32>
  return %probs : tensor<?x?x?xf32>
}
