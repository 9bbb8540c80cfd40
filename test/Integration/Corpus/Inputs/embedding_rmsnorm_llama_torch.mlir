// Front-end style: torch-mlir (aten.embedding of a Llama model's token ids,
// then its first HF LlamaRMSNorm, traced in f16): the embedding as a
// generic over [batch, tokens, hidden] whose body reads its token's id,
// casts it to index and gathers the row with tensor.extract from the
// [vocabulary, hidden] table; the RMSNorm widened to f32, mean of squares,
// rsqrt, narrowed and scaled.
// Pattern: a data-dependent gather (embedding lookup) feeding a norm.
// Sizes: Llama-7B, 512 tokens, vocabulary 32000, hidden 4096.
// REDUCED: 512=24 32000=50 4096=200
#ids = affine_map<(b, s, h) -> (b, s)>
#x = affine_map<(b, s, h) -> (b, s, h)>
#row = affine_map<(b, s, h) -> (b, s)>
#hidden = affine_map<(b, s, h) -> (h)>
func.func @embed_norm(%tokens: tensor<1x512xi64>, %table: tensor<32000x4096xf16>,
                      %weight: tensor<4096xf16>) -> tensor<1x512x4096xf16> {
  %zero = arith.constant 0.0 : f32
  %count = arith.constant 4096.0 : f32
  %eps = arith.constant 1.0e-6 : f32
  %embedded_empty = tensor.empty() : tensor<1x512x4096xf16>
  %embedded = linalg.generic {indexing_maps = [#ids, #x], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%tokens : tensor<1x512xi64>) outs(%embedded_empty : tensor<1x512x4096xf16>) {
  ^bb0(%id: i64, %out: f16):
    %row_index = arith.index_cast %id : i64 to index
    %column = linalg.index 2 : index
    %value = tensor.extract %table[%row_index, %column] : tensor<32000x4096xf16>
    linalg.yield %value : f16
  } -> tensor<1x512x4096xf16>
  %sum_empty = tensor.empty() : tensor<1x512xf32>
  %sum_init = linalg.fill ins(%zero : f32) outs(%sum_empty : tensor<1x512xf32>) -> tensor<1x512xf32>
  %squares = linalg.generic {indexing_maps = [#x, #row], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%embedded : tensor<1x512x4096xf16>) outs(%sum_init : tensor<1x512xf32>) {
  ^bb0(%v: f16, %acc: f32):
    %w = arith.extf %v : f16 to f32
    %sq = arith.mulf %w, %w : f32
    %s = arith.addf %sq, %acc : f32
    linalg.yield %s : f32
  } -> tensor<1x512xf32>
  %y_empty = tensor.empty() : tensor<1x512x4096xf16>
  %y = linalg.generic {indexing_maps = [#x, #row, #hidden, #x], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%embedded, %squares, %weight : tensor<1x512x4096xf16>, tensor<1x512xf32>, tensor<4096xf16>)
      outs(%y_empty : tensor<1x512x4096xf16>) {
  ^bb0(%v: f16, %s: f32, %g: f16, %out: f16):
    %w = arith.extf %v : f16 to f32
    %mean = arith.divf %s, %count : f32
    %me = arith.addf %mean, %eps : f32
    %r = math.rsqrt %me : f32
    %n = arith.mulf %w, %r : f32
    %nh = arith.truncf %n : f32 to f16
    %o = arith.mulf %g, %nh : f16
    linalg.yield %o : f16
  } -> tensor<1x512x4096xf16>
  return %y : tensor<1x512x4096xf16>
}
