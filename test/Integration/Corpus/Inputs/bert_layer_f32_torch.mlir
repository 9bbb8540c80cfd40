// Front-end style: torch-mlir (torch.export of a HF BertLayer in f32,
// eval mode): each nn.Linear a linalg.transpose of its [out, in] weight, a
// matmul on the [tokens, in] view of the hidden state and a broadcast bias
// generic; heads split by expand_shape and a transpose generic; the scores
// a 4-D generic contraction, scaled and masked (the additive [batch, key]
// mask), the softmax written out (max, exp, sum, divide) over 4-D tensors;
// the context a 4-D generic contraction; the residual adds and both layer
// norms written out (mean, centered squares, rsqrt); the feed-forward GELU
// exact (erf).
// Pattern: a whole BERT encoder layer in f32 (products exact, no TF32).
// Sizes: BERT-base, 8 sequences of 128 tokens, hidden 768, 12 heads of 64,
// feed-forward 3072.
// REDUCED: 8=2 128=24 768=128 12=2 3072=192 1024=48

#x2 = affine_map<(m, n) -> (m, n)>
#bias2 = affine_map<(m, n) -> (n)>
#x3 = affine_map<(b, s, h) -> (b, s, h)>
#row3 = affine_map<(b, s, h) -> (b, s)>
#hid3 = affine_map<(b, s, h) -> (h)>
#rows2 = affine_map<(b, s) -> (b, s)>
#x4 = affine_map<(b, h, i, j) -> (b, h, i, j)>
#row4 = affine_map<(b, h, i, j) -> (b, h, i)>
#mask4 = affine_map<(b, h, i, j) -> (b, j)>
#heads_in = affine_map<(b, h, s, d) -> (b, s, h, d)>
#heads_out = affine_map<(b, h, s, d) -> (b, h, s, d)>
#merge_in = affine_map<(b, s, h, d) -> (b, h, s, d)>
#merge_out = affine_map<(b, s, h, d) -> (b, s, h, d)>
#q5 = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#k5 = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#s5 = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#p5 = affine_map<(b, h, i, d, j) -> (b, h, i, j)>
#v5 = affine_map<(b, h, i, d, j) -> (b, h, j, d)>
#c5 = affine_map<(b, h, i, d, j) -> (b, h, i, d)>

func.func @bert_layer(%x: tensor<8x128x768xf32>,
                      %mask: tensor<8x128xf32>,
                      %wq: tensor<768x768xf32>,
                      %bq: tensor<768xf32>,
                      %wk: tensor<768x768xf32>,
                      %bk: tensor<768xf32>,
                      %wv: tensor<768x768xf32>,
                      %bv: tensor<768xf32>,
                      %wo: tensor<768x768xf32>,
                      %bo: tensor<768xf32>,
                      %ln1_g: tensor<768xf32>,
                      %ln1_b: tensor<768xf32>,
                      %w1: tensor<3072x768xf32>,
                      %b1: tensor<3072xf32>,
                      %w2: tensor<768x3072xf32>,
                      %b2: tensor<768xf32>,
                      %ln2_g: tensor<768xf32>,
                      %ln2_b: tensor<768xf32>) -> tensor<8x128x768xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.125 : f32
  %count = arith.constant 768.0 : f32
  %eps = arith.constant 1.0e-12 : f32
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %rsqrt2 = arith.constant 0.70710678118654752 : f32
  %x2 = tensor.collapse_shape %x [[0, 1], [2]] : tensor<8x128x768xf32> into tensor<1024x768xf32>
  %q_proj_wt_e = tensor.empty() : tensor<768x768xf32>
  %q_proj_wt = linalg.transpose ins(%wq : tensor<768x768xf32>) outs(%q_proj_wt_e : tensor<768x768xf32>) permutation = [1, 0]
  %q_proj_e = tensor.empty() : tensor<1024x768xf32>
  %q_proj_z = linalg.fill ins(%zero : f32) outs(%q_proj_e : tensor<1024x768xf32>) -> tensor<1024x768xf32>
  %q_proj_mm = linalg.matmul ins(%x2, %q_proj_wt : tensor<1024x768xf32>, tensor<768x768xf32>) outs(%q_proj_z : tensor<1024x768xf32>) -> tensor<1024x768xf32>
  %q_proj = linalg.generic {indexing_maps = [#x2, #bias2, #x2], iterator_types = ["parallel", "parallel"]}
      ins(%q_proj_mm, %bq : tensor<1024x768xf32>, tensor<768xf32>) outs(%q_proj_e : tensor<1024x768xf32>) {
  ^bb0(%v: f32, %bb: f32, %o: f32):
    %s = arith.addf %v, %bb : f32
    linalg.yield %s : f32
  } -> tensor<1024x768xf32>
  %k_proj_wt_e = tensor.empty() : tensor<768x768xf32>
  %k_proj_wt = linalg.transpose ins(%wk : tensor<768x768xf32>) outs(%k_proj_wt_e : tensor<768x768xf32>) permutation = [1, 0]
  %k_proj_e = tensor.empty() : tensor<1024x768xf32>
  %k_proj_z = linalg.fill ins(%zero : f32) outs(%k_proj_e : tensor<1024x768xf32>) -> tensor<1024x768xf32>
  %k_proj_mm = linalg.matmul ins(%x2, %k_proj_wt : tensor<1024x768xf32>, tensor<768x768xf32>) outs(%k_proj_z : tensor<1024x768xf32>) -> tensor<1024x768xf32>
  %k_proj = linalg.generic {indexing_maps = [#x2, #bias2, #x2], iterator_types = ["parallel", "parallel"]}
      ins(%k_proj_mm, %bk : tensor<1024x768xf32>, tensor<768xf32>) outs(%k_proj_e : tensor<1024x768xf32>) {
  ^bb0(%v: f32, %bb: f32, %o: f32):
    %s = arith.addf %v, %bb : f32
    linalg.yield %s : f32
  } -> tensor<1024x768xf32>
  %v_proj_wt_e = tensor.empty() : tensor<768x768xf32>
  %v_proj_wt = linalg.transpose ins(%wv : tensor<768x768xf32>) outs(%v_proj_wt_e : tensor<768x768xf32>) permutation = [1, 0]
  %v_proj_e = tensor.empty() : tensor<1024x768xf32>
  %v_proj_z = linalg.fill ins(%zero : f32) outs(%v_proj_e : tensor<1024x768xf32>) -> tensor<1024x768xf32>
  %v_proj_mm = linalg.matmul ins(%x2, %v_proj_wt : tensor<1024x768xf32>, tensor<768x768xf32>) outs(%v_proj_z : tensor<1024x768xf32>) -> tensor<1024x768xf32>
  %v_proj = linalg.generic {indexing_maps = [#x2, #bias2, #x2], iterator_types = ["parallel", "parallel"]}
      ins(%v_proj_mm, %bv : tensor<1024x768xf32>, tensor<768xf32>) outs(%v_proj_e : tensor<1024x768xf32>) {
  ^bb0(%v: f32, %bb: f32, %o: f32):
    %s = arith.addf %v, %bb : f32
    linalg.yield %s : f32
  } -> tensor<1024x768xf32>
  %q_4 = tensor.expand_shape %q_proj [[0, 1], [2, 3]] output_shape [8, 128, 12, 64] : tensor<1024x768xf32> into tensor<8x128x12x64xf32>
  %q_he = tensor.empty() : tensor<8x12x128x64xf32>
  %q_h = linalg.generic {indexing_maps = [#heads_in, #heads_out], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%q_4 : tensor<8x128x12x64xf32>) outs(%q_he : tensor<8x12x128x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<8x12x128x64xf32>
  %k_4 = tensor.expand_shape %k_proj [[0, 1], [2, 3]] output_shape [8, 128, 12, 64] : tensor<1024x768xf32> into tensor<8x128x12x64xf32>
  %k_he = tensor.empty() : tensor<8x12x128x64xf32>
  %k_h = linalg.generic {indexing_maps = [#heads_in, #heads_out], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%k_4 : tensor<8x128x12x64xf32>) outs(%k_he : tensor<8x12x128x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<8x12x128x64xf32>
  %v_4 = tensor.expand_shape %v_proj [[0, 1], [2, 3]] output_shape [8, 128, 12, 64] : tensor<1024x768xf32> into tensor<8x128x12x64xf32>
  %v_he = tensor.empty() : tensor<8x12x128x64xf32>
  %v_h = linalg.generic {indexing_maps = [#heads_in, #heads_out], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%v_4 : tensor<8x128x12x64xf32>) outs(%v_he : tensor<8x12x128x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<8x12x128x64xf32>
  %scores_e = tensor.empty() : tensor<8x12x128x128xf32>
  %scores_z = linalg.fill ins(%zero : f32) outs(%scores_e : tensor<8x12x128x128xf32>) -> tensor<8x12x128x128xf32>
  %scores = linalg.generic {indexing_maps = [#q5, #k5, #s5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q_h, %k_h : tensor<8x12x128x64xf32>, tensor<8x12x128x64xf32>) outs(%scores_z : tensor<8x12x128x128xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x12x128x128xf32>
  %masked = linalg.generic {indexing_maps = [#x4, #mask4, #x4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%scores, %mask : tensor<8x12x128x128xf32>, tensor<8x128xf32>) outs(%scores_e : tensor<8x12x128x128xf32>) {
  ^bb0(%v: f32, %m: f32, %o: f32):
    %sc = arith.mulf %v, %scale : f32
    %s = arith.addf %sc, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x12x128x128xf32>
  %rows_e = tensor.empty() : tensor<8x12x128xf32>
  %max0 = linalg.fill ins(%ninf : f32) outs(%rows_e : tensor<8x12x128xf32>) -> tensor<8x12x128xf32>
  %max = linalg.generic {indexing_maps = [#x4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%masked : tensor<8x12x128x128xf32>) outs(%max0 : tensor<8x12x128xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %m = arith.maximumf %v, %acc : f32
    linalg.yield %m : f32
  } -> tensor<8x12x128xf32>
  %exp = linalg.generic {indexing_maps = [#x4, #row4, #x4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%masked, %max : tensor<8x12x128x128xf32>, tensor<8x12x128xf32>) outs(%scores_e : tensor<8x12x128x128xf32>) {
  ^bb0(%v: f32, %m: f32, %o: f32):
    %d = arith.subf %v, %m : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<8x12x128x128xf32>
  %sum0 = linalg.fill ins(%zero : f32) outs(%rows_e : tensor<8x12x128xf32>) -> tensor<8x12x128xf32>
  %sum = linalg.generic {indexing_maps = [#x4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%exp : tensor<8x12x128x128xf32>) outs(%sum0 : tensor<8x12x128xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8x12x128xf32>
  %probs = linalg.generic {indexing_maps = [#x4, #row4, #x4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%exp, %sum : tensor<8x12x128x128xf32>, tensor<8x12x128xf32>) outs(%scores_e : tensor<8x12x128x128xf32>) {
  ^bb0(%e: f32, %s: f32, %o: f32):
    %p = arith.divf %e, %s : f32
    linalg.yield %p : f32
  } -> tensor<8x12x128x128xf32>
  %ctx_e = tensor.empty() : tensor<8x12x128x64xf32>
  %ctx_z = linalg.fill ins(%zero : f32) outs(%ctx_e : tensor<8x12x128x64xf32>) -> tensor<8x12x128x64xf32>
  %ctx = linalg.generic {indexing_maps = [#p5, #v5, #c5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%probs, %v_h : tensor<8x12x128x128xf32>, tensor<8x12x128x64xf32>) outs(%ctx_z : tensor<8x12x128x64xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x12x128x64xf32>
  %merged_e = tensor.empty() : tensor<8x128x12x64xf32>
  %merged = linalg.generic {indexing_maps = [#merge_in, #merge_out], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%ctx : tensor<8x12x128x64xf32>) outs(%merged_e : tensor<8x128x12x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<8x128x12x64xf32>
  %ctx2 = tensor.collapse_shape %merged [[0, 1], [2, 3]] : tensor<8x128x12x64xf32> into tensor<1024x768xf32>
  %attn_wt_e = tensor.empty() : tensor<768x768xf32>
  %attn_wt = linalg.transpose ins(%wo : tensor<768x768xf32>) outs(%attn_wt_e : tensor<768x768xf32>) permutation = [1, 0]
  %attn_e = tensor.empty() : tensor<1024x768xf32>
  %attn_z = linalg.fill ins(%zero : f32) outs(%attn_e : tensor<1024x768xf32>) -> tensor<1024x768xf32>
  %attn_mm = linalg.matmul ins(%ctx2, %attn_wt : tensor<1024x768xf32>, tensor<768x768xf32>) outs(%attn_z : tensor<1024x768xf32>) -> tensor<1024x768xf32>
  %attn = linalg.generic {indexing_maps = [#x2, #bias2, #x2], iterator_types = ["parallel", "parallel"]}
      ins(%attn_mm, %bo : tensor<1024x768xf32>, tensor<768xf32>) outs(%attn_e : tensor<1024x768xf32>) {
  ^bb0(%v: f32, %bb: f32, %o: f32):
    %s = arith.addf %v, %bb : f32
    linalg.yield %s : f32
  } -> tensor<1024x768xf32>
  %attn3 = tensor.expand_shape %attn [[0, 1], [2]] output_shape [8, 128, 768] : tensor<1024x768xf32> into tensor<8x128x768xf32>
  %res1_e = tensor.empty() : tensor<8x128x768xf32>
  %res1 = linalg.generic {indexing_maps = [#x3, #x3, #x3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%attn3, %x : tensor<8x128x768xf32>, tensor<8x128x768xf32>) outs(%res1_e : tensor<8x128x768xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<8x128x768xf32>
  %ln1_re = tensor.empty() : tensor<8x128xf32>
  %ln1_s0 = linalg.fill ins(%zero : f32) outs(%ln1_re : tensor<8x128xf32>) -> tensor<8x128xf32>
  %ln1_sum = linalg.generic {indexing_maps = [#x3, #row3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%res1 : tensor<8x128x768xf32>) outs(%ln1_s0 : tensor<8x128xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8x128xf32>
  %ln1_mean = linalg.generic {indexing_maps = [#rows2, #rows2], iterator_types = ["parallel", "parallel"]}
      ins(%ln1_sum : tensor<8x128xf32>) outs(%ln1_re : tensor<8x128xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.divf %v, %count : f32
    linalg.yield %m : f32
  } -> tensor<8x128xf32>
  %ln1_e = tensor.empty() : tensor<8x128x768xf32>
  %ln1_c = linalg.generic {indexing_maps = [#x3, #row3, #x3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%res1, %ln1_mean : tensor<8x128x768xf32>, tensor<8x128xf32>) outs(%ln1_e : tensor<8x128x768xf32>) {
  ^bb0(%v: f32, %m: f32, %o: f32):
    %c = arith.subf %v, %m : f32
    linalg.yield %c : f32
  } -> tensor<8x128x768xf32>
  %ln1_sq = linalg.generic {indexing_maps = [#x3, #x3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ln1_c : tensor<8x128x768xf32>) outs(%ln1_e : tensor<8x128x768xf32>) {
  ^bb0(%v: f32, %o: f32):
    %q = arith.mulf %v, %v : f32
    linalg.yield %q : f32
  } -> tensor<8x128x768xf32>
  %ln1_v0 = linalg.fill ins(%zero : f32) outs(%ln1_re : tensor<8x128xf32>) -> tensor<8x128xf32>
  %ln1_vs = linalg.generic {indexing_maps = [#x3, #row3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%ln1_sq : tensor<8x128x768xf32>) outs(%ln1_v0 : tensor<8x128xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8x128xf32>
  %ln1_rstd = linalg.generic {indexing_maps = [#rows2, #rows2], iterator_types = ["parallel", "parallel"]}
      ins(%ln1_vs : tensor<8x128xf32>) outs(%ln1_re : tensor<8x128xf32>) {
  ^bb0(%v: f32, %o: f32):
    %var = arith.divf %v, %count : f32
    %ve = arith.addf %var, %eps : f32
    %r = math.rsqrt %ve : f32
    linalg.yield %r : f32
  } -> tensor<8x128xf32>
  %ln1 = linalg.generic {indexing_maps = [#x3, #row3, #hid3, #hid3, #x3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ln1_c, %ln1_rstd, %ln1_g, %ln1_b : tensor<8x128x768xf32>, tensor<8x128xf32>, tensor<768xf32>, tensor<768xf32>) outs(%ln1_e : tensor<8x128x768xf32>) {
  ^bb0(%c: f32, %r: f32, %gg: f32, %bb: f32, %o: f32):
    %n = arith.mulf %c, %r : f32
    %t = arith.mulf %n, %gg : f32
    %y = arith.addf %t, %bb : f32
    linalg.yield %y : f32
  } -> tensor<8x128x768xf32>
  %ln1_2 = tensor.collapse_shape %ln1 [[0, 1], [2]] : tensor<8x128x768xf32> into tensor<1024x768xf32>
  %ff1_wt_e = tensor.empty() : tensor<768x3072xf32>
  %ff1_wt = linalg.transpose ins(%w1 : tensor<3072x768xf32>) outs(%ff1_wt_e : tensor<768x3072xf32>) permutation = [1, 0]
  %ff1_e = tensor.empty() : tensor<1024x3072xf32>
  %ff1_z = linalg.fill ins(%zero : f32) outs(%ff1_e : tensor<1024x3072xf32>) -> tensor<1024x3072xf32>
  %ff1_mm = linalg.matmul ins(%ln1_2, %ff1_wt : tensor<1024x768xf32>, tensor<768x3072xf32>) outs(%ff1_z : tensor<1024x3072xf32>) -> tensor<1024x3072xf32>
  %ff1 = linalg.generic {indexing_maps = [#x2, #bias2, #x2], iterator_types = ["parallel", "parallel"]}
      ins(%ff1_mm, %b1 : tensor<1024x3072xf32>, tensor<3072xf32>) outs(%ff1_e : tensor<1024x3072xf32>) {
  ^bb0(%v: f32, %bb: f32, %o: f32):
    %s = arith.addf %v, %bb : f32
    linalg.yield %s : f32
  } -> tensor<1024x3072xf32>
  %gelu_e = tensor.empty() : tensor<1024x3072xf32>
  %gelu = linalg.generic {indexing_maps = [#x2, #x2], iterator_types = ["parallel", "parallel"]}
      ins(%ff1 : tensor<1024x3072xf32>) outs(%gelu_e : tensor<1024x3072xf32>) {
  ^bb0(%v: f32, %o: f32):
    %sc = arith.mulf %v, %rsqrt2 : f32
    %e = math.erf %sc : f32
    %e1 = arith.addf %e, %one : f32
    %hv = arith.mulf %v, %half : f32
    %g = arith.mulf %hv, %e1 : f32
    linalg.yield %g : f32
  } -> tensor<1024x3072xf32>
  %ff2_wt_e = tensor.empty() : tensor<3072x768xf32>
  %ff2_wt = linalg.transpose ins(%w2 : tensor<768x3072xf32>) outs(%ff2_wt_e : tensor<3072x768xf32>) permutation = [1, 0]
  %ff2_e = tensor.empty() : tensor<1024x768xf32>
  %ff2_z = linalg.fill ins(%zero : f32) outs(%ff2_e : tensor<1024x768xf32>) -> tensor<1024x768xf32>
  %ff2_mm = linalg.matmul ins(%gelu, %ff2_wt : tensor<1024x3072xf32>, tensor<3072x768xf32>) outs(%ff2_z : tensor<1024x768xf32>) -> tensor<1024x768xf32>
  %ff2 = linalg.generic {indexing_maps = [#x2, #bias2, #x2], iterator_types = ["parallel", "parallel"]}
      ins(%ff2_mm, %b2 : tensor<1024x768xf32>, tensor<768xf32>) outs(%ff2_e : tensor<1024x768xf32>) {
  ^bb0(%v: f32, %bb: f32, %o: f32):
    %s = arith.addf %v, %bb : f32
    linalg.yield %s : f32
  } -> tensor<1024x768xf32>
  %ff2_3 = tensor.expand_shape %ff2 [[0, 1], [2]] output_shape [8, 128, 768] : tensor<1024x768xf32> into tensor<8x128x768xf32>
  %res2_e = tensor.empty() : tensor<8x128x768xf32>
  %res2 = linalg.generic {indexing_maps = [#x3, #x3, #x3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ff2_3, %ln1 : tensor<8x128x768xf32>, tensor<8x128x768xf32>) outs(%res2_e : tensor<8x128x768xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<8x128x768xf32>
  %ln2_re = tensor.empty() : tensor<8x128xf32>
  %ln2_s0 = linalg.fill ins(%zero : f32) outs(%ln2_re : tensor<8x128xf32>) -> tensor<8x128xf32>
  %ln2_sum = linalg.generic {indexing_maps = [#x3, #row3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%res2 : tensor<8x128x768xf32>) outs(%ln2_s0 : tensor<8x128xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8x128xf32>
  %ln2_mean = linalg.generic {indexing_maps = [#rows2, #rows2], iterator_types = ["parallel", "parallel"]}
      ins(%ln2_sum : tensor<8x128xf32>) outs(%ln2_re : tensor<8x128xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.divf %v, %count : f32
    linalg.yield %m : f32
  } -> tensor<8x128xf32>
  %ln2_e = tensor.empty() : tensor<8x128x768xf32>
  %ln2_c = linalg.generic {indexing_maps = [#x3, #row3, #x3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%res2, %ln2_mean : tensor<8x128x768xf32>, tensor<8x128xf32>) outs(%ln2_e : tensor<8x128x768xf32>) {
  ^bb0(%v: f32, %m: f32, %o: f32):
    %c = arith.subf %v, %m : f32
    linalg.yield %c : f32
  } -> tensor<8x128x768xf32>
  %ln2_sq = linalg.generic {indexing_maps = [#x3, #x3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ln2_c : tensor<8x128x768xf32>) outs(%ln2_e : tensor<8x128x768xf32>) {
  ^bb0(%v: f32, %o: f32):
    %q = arith.mulf %v, %v : f32
    linalg.yield %q : f32
  } -> tensor<8x128x768xf32>
  %ln2_v0 = linalg.fill ins(%zero : f32) outs(%ln2_re : tensor<8x128xf32>) -> tensor<8x128xf32>
  %ln2_vs = linalg.generic {indexing_maps = [#x3, #row3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%ln2_sq : tensor<8x128x768xf32>) outs(%ln2_v0 : tensor<8x128xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8x128xf32>
  %ln2_rstd = linalg.generic {indexing_maps = [#rows2, #rows2], iterator_types = ["parallel", "parallel"]}
      ins(%ln2_vs : tensor<8x128xf32>) outs(%ln2_re : tensor<8x128xf32>) {
  ^bb0(%v: f32, %o: f32):
    %var = arith.divf %v, %count : f32
    %ve = arith.addf %var, %eps : f32
    %r = math.rsqrt %ve : f32
    linalg.yield %r : f32
  } -> tensor<8x128xf32>
  %ln2 = linalg.generic {indexing_maps = [#x3, #row3, #hid3, #hid3, #x3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ln2_c, %ln2_rstd, %ln2_g, %ln2_b : tensor<8x128x768xf32>, tensor<8x128xf32>, tensor<768xf32>, tensor<768xf32>) outs(%ln2_e : tensor<8x128x768xf32>) {
  ^bb0(%c: f32, %r: f32, %gg: f32, %bb: f32, %o: f32):
    %n = arith.mulf %c, %r : f32
    %t = arith.mulf %n, %gg : f32
    %y = arith.addf %t, %bb : f32
    linalg.yield %y : f32
  } -> tensor<8x128x768xf32>
  return %ln2 : tensor<8x128x768xf32>
}
