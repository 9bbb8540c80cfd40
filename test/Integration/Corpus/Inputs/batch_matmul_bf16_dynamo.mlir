// Front-end style: torch.compile (dynamo) through torch-mlir of a bf16
// attention's scores: the keys transposed by linalg.transpose, a bf16 ->
// bf16 linalg.batch_matmul over batch x heads, the scale a bf16 constant.
// Pattern: bf16 -> bf16 batched products (f32 accumulation, rounded once),
// a transpose that only feeds the product.
// Sizes: 2 x 12 heads of 64, 512 tokens.
// REDUCED: 24=4 512=32 64=16
#all = affine_map<(b, m, n) -> (b, m, n)>
func.func @scores(%q: tensor<24x512x64xbf16>, %k: tensor<24x512x64xbf16>)
    -> tensor<24x512x512xbf16> {
  %zero = arith.constant 0.0 : bf16
  %scale = arith.constant 0.125 : bf16
  %kt_empty = tensor.empty() : tensor<24x64x512xbf16>
  %kt = linalg.transpose ins(%k : tensor<24x512x64xbf16>)
      outs(%kt_empty : tensor<24x64x512xbf16>) permutation = [0, 2, 1]
  %empty = tensor.empty() : tensor<24x512x512xbf16>
  %init = linalg.fill ins(%zero : bf16) outs(%empty : tensor<24x512x512xbf16>) -> tensor<24x512x512xbf16>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<24x512x64xbf16>, tensor<24x64x512xbf16>)
      outs(%init : tensor<24x512x512xbf16>) -> tensor<24x512x512xbf16>
  %scaled = linalg.generic {indexing_maps = [#all, #all], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<24x512x512xbf16>) outs(%empty : tensor<24x512x512xbf16>) {
  ^bb0(%v: bf16, %out: bf16):
    %r = arith.mulf %v, %scale : bf16
    linalg.yield %r : bf16
  } -> tensor<24x512x512xbf16>
  return %scaled : tensor<24x512x512xbf16>
}
