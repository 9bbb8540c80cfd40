// Front-end style: an einsum lowered to one linalg.generic (TOSA / IREE),
// as front-ends that write every op as a generic produce.
// Pattern: per-head query projection einsum("bse,hde->bhsd") plus a
// per-head bias: two N loops (heads, dim) that the weight [heads, dim,
// embedding] reads transposed, the bias broadcast over batch and sequence.
// Sizes: BERT-base, embedding 768 into 12 heads of 64, 2 x 512 tokens.
// REDUCED: 512=32 768=64 12=2 64=16
#x = affine_map<(b, h, s, d, e) -> (b, s, e)>
#w = affine_map<(b, h, s, d, e) -> (h, d, e)>
#o = affine_map<(b, h, s, d, e) -> (b, h, s, d)>
#all = affine_map<(b, h, s, d) -> (b, h, s, d)>
#bias = affine_map<(b, h, s, d) -> (h, d)>
func.func @project(%x: tensor<2x512x768xf16>, %w: tensor<12x64x768xf16>,
                   %bias: tensor<12x64xf32>) -> tensor<2x12x512x64xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<2x12x512x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<2x12x512x64xf32>) -> tensor<2x12x512x64xf32>
  %proj = linalg.generic {indexing_maps = [#x, #w, #o],
                          iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<2x512x768xf16>, tensor<12x64x768xf16>)
      outs(%init : tensor<2x12x512x64xf32>) {
  ^bb0(%a: f16, %b: f16, %acc: f32):
    %aw = arith.extf %a : f16 to f32
    %bw = arith.extf %b : f16 to f32
    %p = arith.mulf %aw, %bw : f32
    %sum = arith.addf %acc, %p : f32
    linalg.yield %sum : f32
  } -> tensor<2x12x512x64xf32>
  %biased = linalg.generic {indexing_maps = [#all, #bias, #all],
                            iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%proj, %bias : tensor<2x12x512x64xf32>, tensor<12x64xf32>)
      outs(%empty : tensor<2x12x512x64xf32>) {
  ^bb0(%v: f32, %c: f32, %out: f32):
    %r = arith.addf %v, %c : f32
    linalg.yield %r : f32
  } -> tensor<2x12x512x64xf32>
  return %biased : tensor<2x12x512x64xf32>
}
