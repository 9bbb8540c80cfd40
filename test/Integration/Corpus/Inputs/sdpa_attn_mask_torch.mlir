// Front-end style: torch-mlir's linalg of torch.export'ed
// F.scaled_dot_product_attention(q, k, v, attn_mask=mask) with the softmax
// upcast to f32 (as autocast does): K transposed by linalg.transpose, the
// products as linalg.batch_matmul on [batch * heads] collapsed tensors, the
// additive f16 mask broadcast over batch and heads through constant
// indices in its map, and the softmax written out (max, subtract, exp,
// sum, divide).
// Pattern: attention with a [queries, keys] additive mask.
// Sizes: 8 heads of 64, 1024 queries and keys.
// REDUCED: 1024=64 8=2 64=16
#all = affine_map<(b, h, i, j) -> (b, h, i, j)>
#mask = affine_map<(b, h, i, j) -> (0, 0, i, j)>
#row = affine_map<(b, h, i, j) -> (b, h, i)>
func.func @sdpa(%q: tensor<1x8x1024x64xf16>, %k: tensor<1x8x1024x64xf16>,
                %v: tensor<1x8x1024x64xf16>, %mask: tensor<1x1x1024x1024xf16>)
    -> tensor<1x8x1024x64xf32> {
  %zero = arith.constant 0.0 : f32
  %lowest = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.125 : f32
  %kt_empty = tensor.empty() : tensor<1x8x64x1024xf16>
  %kt = linalg.transpose ins(%k : tensor<1x8x1024x64xf16>)
      outs(%kt_empty : tensor<1x8x64x1024xf16>) permutation = [0, 1, 3, 2]
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<1x8x1024x64xf16> into tensor<8x1024x64xf16>
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<1x8x64x1024xf16> into tensor<8x64x1024xf16>
  %s_empty = tensor.empty() : tensor<8x1024x1024xf32>
  %s_init = linalg.fill ins(%zero : f32) outs(%s_empty : tensor<8x1024x1024xf32>) -> tensor<8x1024x1024xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x1024x64xf16>, tensor<8x64x1024xf16>)
      outs(%s_init : tensor<8x1024x1024xf32>) -> tensor<8x1024x1024xf32>
  %s = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [1, 8, 1024, 1024] : tensor<8x1024x1024xf32> into tensor<1x8x1024x1024xf32>
  %m_empty = tensor.empty() : tensor<1x8x1024x1024xf32>
  %masked = linalg.generic {indexing_maps = [#all, #mask, #all],
                            iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s, %mask : tensor<1x8x1024x1024xf32>, tensor<1x1x1024x1024xf16>)
      outs(%m_empty : tensor<1x8x1024x1024xf32>) {
  ^bb0(%x: f32, %a: f16, %out: f32):
    %scaled = arith.mulf %x, %scale : f32
    %aw = arith.extf %a : f16 to f32
    %y = arith.addf %scaled, %aw : f32
    linalg.yield %y : f32
  } -> tensor<1x8x1024x1024xf32>
  %r_empty = tensor.empty() : tensor<1x8x1024xf32>
  %max_init = linalg.fill ins(%lowest : f32) outs(%r_empty : tensor<1x8x1024xf32>) -> tensor<1x8x1024xf32>
  %max = linalg.generic {indexing_maps = [#all, #row],
                         iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%masked : tensor<1x8x1024x1024xf32>) outs(%max_init : tensor<1x8x1024xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %m = arith.maximumf %x, %acc : f32
    linalg.yield %m : f32
  } -> tensor<1x8x1024xf32>
  %e = linalg.generic {indexing_maps = [#all, #row, #all],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%masked, %max : tensor<1x8x1024x1024xf32>, tensor<1x8x1024xf32>)
      outs(%m_empty : tensor<1x8x1024x1024xf32>) {
  ^bb0(%x: f32, %m: f32, %out: f32):
    %d = arith.subf %x, %m : f32
    %ex = math.exp %d : f32
    linalg.yield %ex : f32
  } -> tensor<1x8x1024x1024xf32>
  %sum_init = linalg.fill ins(%zero : f32) outs(%r_empty : tensor<1x8x1024xf32>) -> tensor<1x8x1024xf32>
  %sum = linalg.generic {indexing_maps = [#all, #row],
                         iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%e : tensor<1x8x1024x1024xf32>) outs(%sum_init : tensor<1x8x1024xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %t = arith.addf %x, %acc : f32
    linalg.yield %t : f32
  } -> tensor<1x8x1024xf32>
  %p_empty = tensor.empty() : tensor<1x8x1024x1024xf16>
  %p = linalg.generic {indexing_maps = [#all, #row, #all],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%e, %sum : tensor<1x8x1024x1024xf32>, tensor<1x8x1024xf32>)
      outs(%p_empty : tensor<1x8x1024x1024xf16>) {
  ^bb0(%x: f32, %l: f32, %out: f16):
    %n = arith.divf %x, %l : f32
    %h = arith.truncf %n : f32 to f16
    linalg.yield %h : f16
  } -> tensor<1x8x1024x1024xf16>
  %p3 = tensor.collapse_shape %p [[0, 1], [2], [3]] : tensor<1x8x1024x1024xf16> into tensor<8x1024x1024xf16>
  %v3 = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<1x8x1024x64xf16> into tensor<8x1024x64xf16>
  %o_empty = tensor.empty() : tensor<8x1024x64xf32>
  %o_init = linalg.fill ins(%zero : f32) outs(%o_empty : tensor<8x1024x64xf32>) -> tensor<8x1024x64xf32>
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x1024x1024xf16>, tensor<8x1024x64xf16>)
      outs(%o_init : tensor<8x1024x64xf32>) -> tensor<8x1024x64xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [1, 8, 1024, 64] : tensor<8x1024x64xf32> into tensor<1x8x1024x64xf32>
  return %o : tensor<1x8x1024x64xf32>
}
