// Front-end style: IREE / torch-mlir import of a BERT-base attention, every
// op a linalg.generic.
// Pattern: multi-head attention scores as one 5-D generic whose maps move
// the heads (q and k are [batch, seq, heads, dim], the scores
// [batch, heads, seq, seq]), scaled by a rank-0 tensor.
// Sizes: BERT-base (12 heads of 64), 2 sequences of 512 tokens.
// REDUCED: 512=32 12=2 64=16
#q = affine_map<(b, h, s, t, d) -> (b, s, h, d)>
#k = affine_map<(b, h, s, t, d) -> (b, t, h, d)>
#scores = affine_map<(b, h, s, t, d) -> (b, h, s, t)>
#all = affine_map<(b, h, s, t) -> (b, h, s, t)>
#scalar = affine_map<(b, h, s, t) -> ()>
func.func @scores(%q: tensor<2x512x12x64xf16>, %k: tensor<2x512x12x64xf16>,
                  %scale: tensor<f32>) -> tensor<2x12x512x512xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<2x12x512x512xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<2x12x512x512xf32>) -> tensor<2x12x512x512xf32>
  %dot = linalg.generic {indexing_maps = [#q, #k, #scores],
                         iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x512x12x64xf16>, tensor<2x512x12x64xf16>)
      outs(%init : tensor<2x12x512x512xf32>) {
  ^bb0(%a: f16, %b: f16, %acc: f32):
    %aw = arith.extf %a : f16 to f32
    %bw = arith.extf %b : f16 to f32
    %p = arith.mulf %aw, %bw : f32
    %sum = arith.addf %acc, %p : f32
    linalg.yield %sum : f32
  } -> tensor<2x12x512x512xf32>
  %scaled = linalg.generic {indexing_maps = [#all, #scalar, #all],
                            iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%dot, %scale : tensor<2x12x512x512xf32>, tensor<f32>)
      outs(%empty : tensor<2x12x512x512xf32>) {
  ^bb0(%v: f32, %s: f32, %out: f32):
    %r = arith.mulf %v, %s : f32
    linalg.yield %r : f32
  } -> tensor<2x12x512x512xf32>
  return %scaled : tensor<2x12x512x512xf32>
}
