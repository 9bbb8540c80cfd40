// Front-end style: torch-mlir (a GPTQ-style 4-bit linear layer traced in
// f16): the packed int4 weight unpacked to an [out, in] i4 tensor, widened
// and multiplied by its group's f16 scale (one scale per 128 input
// features, indexed through `floordiv`), then F.linear on one token, the
// product as a matmul with a transposed-weight `indexing_maps`.
// Pattern: int4 group-wise dequantization feeding a matrix-vector product.
// Sizes: Llama-7B decoding one token, q projection 4096 -> 4096, groups of
// 128.
// REDUCED: 4096=320 128=32 32=10
#weight = affine_map<(n, k) -> (n, k)>
#group = affine_map<(n, k) -> (n, k floordiv 128)>
func.func @linear_int4(%x: tensor<1x4096xf16>, %w: tensor<4096x4096xi4>,
                       %scales: tensor<4096x32xf16>) -> tensor<1x4096xf16> {
  %zero = arith.constant 0.0 : f16
  %w_empty = tensor.empty() : tensor<4096x4096xf16>
  %dequantized = linalg.generic {indexing_maps = [#weight, #group, #weight], iterator_types = ["parallel", "parallel"]}
      ins(%w, %scales : tensor<4096x4096xi4>, tensor<4096x32xf16>)
      outs(%w_empty : tensor<4096x4096xf16>) {
  ^bb0(%q: i4, %s: f16, %out: f16):
    %f = arith.sitofp %q : i4 to f16
    %d = arith.mulf %f, %s : f16
    linalg.yield %d : f16
  } -> tensor<4096x4096xf16>
  %y_empty = tensor.empty() : tensor<1x4096xf16>
  %y_init = linalg.fill ins(%zero : f16) outs(%y_empty : tensor<1x4096xf16>) -> tensor<1x4096xf16>
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %dequantized : tensor<1x4096xf16>, tensor<4096x4096xf16>)
      outs(%y_init : tensor<1x4096xf16>) -> tensor<1x4096xf16>
  return %y : tensor<1x4096xf16>
}
