// Front-end style: IREE import of an attention block, every op a generic.
// Pattern: the attention context, probabilities [batch, heads, seq, seq]
// times values [batch, seq, heads, dim] into [batch, seq, heads, dim] (the
// heads loop, a batch loop, sits between the two M and N loops of the
// output), accumulated in f16 as written, then collapsed to
// [batch, seq, heads * dim] for the output projection.
// Sizes: BERT-base (12 heads of 64), 2 sequences of 512 tokens.
// REDUCED: 512=32 12=2 64=16 768=32
#p = affine_map<(b, s, h, d, t) -> (b, h, s, t)>
#v = affine_map<(b, s, h, d, t) -> (b, t, h, d)>
#o = affine_map<(b, s, h, d, t) -> (b, s, h, d)>
func.func @context(%probs: tensor<2x12x512x512xf16>, %v: tensor<2x512x12x64xf16>)
    -> tensor<2x512x768xf16> {
  %zero = arith.constant 0.0 : f16
  %empty = tensor.empty() : tensor<2x512x12x64xf16>
  %init = linalg.fill ins(%zero : f16) outs(%empty : tensor<2x512x12x64xf16>) -> tensor<2x512x12x64xf16>
  %ctx = linalg.generic {indexing_maps = [#p, #v, #o],
                         iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%probs, %v : tensor<2x12x512x512xf16>, tensor<2x512x12x64xf16>)
      outs(%init : tensor<2x512x12x64xf16>) {
  ^bb0(%a: f16, %b: f16, %acc: f16):
    %p = arith.mulf %a, %b : f16
    %sum = arith.addf %acc, %p : f16
    linalg.yield %sum : f16
  } -> tensor<2x512x12x64xf16>
  %merged = tensor.collapse_shape %ctx [[0], [1], [2, 3]]
      : tensor<2x512x12x64xf16> into tensor<2x512x768xf16>
  return %merged : tensor<2x512x768xf16>
}
