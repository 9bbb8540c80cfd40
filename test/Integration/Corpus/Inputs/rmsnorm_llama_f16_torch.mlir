// Front-end style: torch-mlir (HF LlamaRMSNorm traced in f16): the hidden
// state widened to f32, pow(2), mean(-1, keepdim=True) as a sum into
// [1, S] expanded to [1, S, 1] and divided, rsqrt(var + eps) on the kept
// dimension, broadcast back through a constant-0 map, narrowed to f16 and
// multiplied by the f16 weight.
// Pattern: a written-out RMSNorm with keepdim reshapes and pow.
// Sizes: Llama-7B, 512 tokens, hidden 4096.
// REDUCED: 512=24 4096=200
#x = affine_map<(b, s, h) -> (b, s, h)>
#row = affine_map<(b, s, h) -> (b, s)>
#kept = affine_map<(b, s, h) -> (b, s, 0)>
#hidden = affine_map<(b, s, h) -> (h)>
func.func @rms_norm(%hidden: tensor<1x512x4096xf16>, %weight: tensor<4096xf16>) -> tensor<1x512x4096xf16> {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %count = arith.constant 4096.0 : f32
  %eps = arith.constant 1.0e-6 : f32
  %wide_empty = tensor.empty() : tensor<1x512x4096xf32>
  %wide = linalg.generic {indexing_maps = [#x, #x], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%hidden : tensor<1x512x4096xf16>) outs(%wide_empty : tensor<1x512x4096xf32>) {
  ^bb0(%v: f16, %out: f32):
    %w = arith.extf %v : f16 to f32
    linalg.yield %w : f32
  } -> tensor<1x512x4096xf32>
  %pow = linalg.generic {indexing_maps = [#x, #x], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%wide : tensor<1x512x4096xf32>) outs(%wide_empty : tensor<1x512x4096xf32>) {
  ^bb0(%v: f32, %out: f32):
    %p = math.powf %v, %two : f32
    linalg.yield %p : f32
  } -> tensor<1x512x4096xf32>
  %rows_empty = tensor.empty() : tensor<1x512xf32>
  %sum_init = linalg.fill ins(%zero : f32) outs(%rows_empty : tensor<1x512xf32>) -> tensor<1x512xf32>
  %sum = linalg.generic {indexing_maps = [#x, #row], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%pow : tensor<1x512x4096xf32>) outs(%sum_init : tensor<1x512xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<1x512xf32>
  %kept_sum = tensor.expand_shape %sum [[0], [1, 2]] output_shape [1, 512, 1]
      : tensor<1x512xf32> into tensor<1x512x1xf32>
  %kept_empty = tensor.empty() : tensor<1x512x1xf32>
  %rstd = linalg.generic {indexing_maps = [#x, #x], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%kept_sum : tensor<1x512x1xf32>) outs(%kept_empty : tensor<1x512x1xf32>) {
  ^bb0(%v: f32, %out: f32):
    %mean = arith.divf %v, %count : f32
    %shifted = arith.addf %mean, %eps : f32
    %r = math.rsqrt %shifted : f32
    linalg.yield %r : f32
  } -> tensor<1x512x1xf32>
  %normed = linalg.generic {indexing_maps = [#x, #kept, #x], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%wide, %rstd : tensor<1x512x4096xf32>, tensor<1x512x1xf32>) outs(%wide_empty : tensor<1x512x4096xf32>) {
  ^bb0(%v: f32, %r: f32, %out: f32):
    %n = arith.mulf %v, %r : f32
    linalg.yield %n : f32
  } -> tensor<1x512x4096xf32>
  %narrow_empty = tensor.empty() : tensor<1x512x4096xf16>
  %narrow = linalg.generic {indexing_maps = [#x, #x], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%normed : tensor<1x512x4096xf32>) outs(%narrow_empty : tensor<1x512x4096xf16>) {
  ^bb0(%v: f32, %out: f16):
    %n = arith.truncf %v : f32 to f16
    linalg.yield %n : f16
  } -> tensor<1x512x4096xf16>
  %y = linalg.generic {indexing_maps = [#hidden, #x, #x], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%weight, %narrow : tensor<4096xf16>, tensor<1x512x4096xf16>) outs(%narrow_empty : tensor<1x512x4096xf16>) {
  ^bb0(%w: f16, %v: f16, %out: f16):
    %m = arith.mulf %w, %v : f16
    linalg.yield %m : f16
  } -> tensor<1x512x4096xf16>
  return %y : tensor<1x512x4096xf16>
}
