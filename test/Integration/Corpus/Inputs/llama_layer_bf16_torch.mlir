// Front-end style: torch-mlir (torch.export of a HF LlamaDecoderLayer in
// bf16, eager attention): RMSNorm written out (widened to f32, pow, mean with
// keepdim, rsqrt, narrowed, times the weight); each projection a
// linalg.transpose of its [out, in] weight and a matmul of the [tokens, in]
// view accumulating in f32, narrowed to bf16; heads split by expand_shape
// and a transpose generic; rotary embedding from the cos and sin tables,
// rotate_half as two extract_slices, a negation and a tensor.concat; the
// scores a 4-D generic contraction, scaled and causally masked through
// linalg.index, linalg.softmax in f32, the probabilities narrowed; the
// context a 4-D generic contraction; the output projection, the residual
// adds, and the SwiGLU MLP (silu(gate) * up) in bf16.
// Pattern: a whole Llama decoder layer (no KV cache: a 512-token prompt).
// Sizes: Llama-7B, 512 tokens, hidden 4096, 32 heads of 128, MLP 11008.
// REDUCED: 512=40 4096=128 32=2 11008=320 128=64 64=32

#x2 = affine_map<(m, n) -> (m, n)>
#x3 = affine_map<(b, s, h) -> (b, s, h)>
#row3 = affine_map<(b, s, h) -> (b, s)>
#kept3 = affine_map<(b, s, h) -> (b, s, 0)>
#hid3 = affine_map<(b, s, h) -> (h)>
#x4 = affine_map<(b, h, i, j) -> (b, h, i, j)>
#table4 = affine_map<(b, h, s, d) -> (s, d)>
#heads_in = affine_map<(b, h, s, d) -> (b, s, h, d)>
#merge_in = affine_map<(b, s, h, d) -> (b, h, s, d)>
#q5 = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#k5 = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#s5 = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#p5 = affine_map<(b, h, i, d, j) -> (b, h, i, j)>
#v5 = affine_map<(b, h, i, d, j) -> (b, h, j, d)>
#c5 = affine_map<(b, h, i, d, j) -> (b, h, i, d)>

func.func @llama_layer(%x: tensor<1x512x4096xbf16>,
                       %cos: tensor<512x128xbf16>,
                       %sin: tensor<512x128xbf16>,
                       %norm1: tensor<4096xbf16>,
                       %wq: tensor<4096x4096xbf16>,
                       %wk: tensor<4096x4096xbf16>,
                       %wv: tensor<4096x4096xbf16>,
                       %wo: tensor<4096x4096xbf16>,
                       %norm2: tensor<4096xbf16>,
                       %wg: tensor<11008x4096xbf16>,
                       %wu: tensor<11008x4096xbf16>,
                       %wd: tensor<4096x11008xbf16>) -> tensor<1x512x4096xbf16> {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %count = arith.constant 4096.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %one = arith.constant 1.0 : bf16
  %h1_we = tensor.empty() : tensor<1x512x4096xf32>
  %h1_w = linalg.generic {indexing_maps = [#x3, #x3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<1x512x4096xbf16>) outs(%h1_we : tensor<1x512x4096xf32>) {
  ^bb0(%v: bf16, %o: f32):
    %e = arith.extf %v : bf16 to f32
    linalg.yield %e : f32
  } -> tensor<1x512x4096xf32>
  %h1_pow = linalg.generic {indexing_maps = [#x3, #x3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%h1_w : tensor<1x512x4096xf32>) outs(%h1_we : tensor<1x512x4096xf32>) {
  ^bb0(%v: f32, %o: f32):
    %p = math.powf %v, %two : f32
    linalg.yield %p : f32
  } -> tensor<1x512x4096xf32>
  %h1_re = tensor.empty() : tensor<1x512xf32>
  %h1_s0 = linalg.fill ins(%zero : f32) outs(%h1_re : tensor<1x512xf32>) -> tensor<1x512xf32>
  %h1_sum = linalg.generic {indexing_maps = [#x3, #row3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%h1_pow : tensor<1x512x4096xf32>) outs(%h1_s0 : tensor<1x512xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<1x512xf32>
  %h1_kept = tensor.expand_shape %h1_sum [[0], [1, 2]] output_shape [1, 512, 1] : tensor<1x512xf32> into tensor<1x512x1xf32>
  %h1_ke = tensor.empty() : tensor<1x512x1xf32>
  %h1_rstd = linalg.generic {indexing_maps = [#x3, #x3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%h1_kept : tensor<1x512x1xf32>) outs(%h1_ke : tensor<1x512x1xf32>) {
  ^bb0(%v: f32, %o: f32):
    %mean = arith.divf %v, %count : f32
    %sh = arith.addf %mean, %eps : f32
    %r = math.rsqrt %sh : f32
    linalg.yield %r : f32
  } -> tensor<1x512x1xf32>
  %h1_n = linalg.generic {indexing_maps = [#x3, #kept3, #x3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%h1_w, %h1_rstd : tensor<1x512x4096xf32>, tensor<1x512x1xf32>) outs(%h1_we : tensor<1x512x4096xf32>) {
  ^bb0(%v: f32, %r: f32, %o: f32):
    %m = arith.mulf %v, %r : f32
    linalg.yield %m : f32
  } -> tensor<1x512x4096xf32>
  %h1_ne = tensor.empty() : tensor<1x512x4096xbf16>
  %h1_narrow = linalg.generic {indexing_maps = [#x3, #x3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%h1_n : tensor<1x512x4096xf32>) outs(%h1_ne : tensor<1x512x4096xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<1x512x4096xbf16>
  %h1 = linalg.generic {indexing_maps = [#hid3, #x3, #x3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%norm1, %h1_narrow : tensor<4096xbf16>, tensor<1x512x4096xbf16>) outs(%h1_ne : tensor<1x512x4096xbf16>) {
  ^bb0(%g: bf16, %v: bf16, %o: bf16):
    %m = arith.mulf %g, %v : bf16
    linalg.yield %m : bf16
  } -> tensor<1x512x4096xbf16>
  %h1_2 = tensor.collapse_shape %h1 [[0, 1], [2]] : tensor<1x512x4096xbf16> into tensor<512x4096xbf16>
  %q_proj_wt_e = tensor.empty() : tensor<4096x4096xbf16>
  %q_proj_wt = linalg.transpose ins(%wq : tensor<4096x4096xbf16>) outs(%q_proj_wt_e : tensor<4096x4096xbf16>) permutation = [1, 0]
  %q_proj_ae = tensor.empty() : tensor<512x4096xf32>
  %q_proj_z = linalg.fill ins(%zero : f32) outs(%q_proj_ae : tensor<512x4096xf32>) -> tensor<512x4096xf32>
  %q_proj_mm = linalg.matmul ins(%h1_2, %q_proj_wt : tensor<512x4096xbf16>, tensor<4096x4096xbf16>) outs(%q_proj_z : tensor<512x4096xf32>) -> tensor<512x4096xf32>
  %q_proj_e = tensor.empty() : tensor<512x4096xbf16>
  %q_proj = linalg.generic {indexing_maps = [#x2, #x2], iterator_types = ["parallel", "parallel"]}
      ins(%q_proj_mm : tensor<512x4096xf32>) outs(%q_proj_e : tensor<512x4096xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<512x4096xbf16>
  %k_proj_wt_e = tensor.empty() : tensor<4096x4096xbf16>
  %k_proj_wt = linalg.transpose ins(%wk : tensor<4096x4096xbf16>) outs(%k_proj_wt_e : tensor<4096x4096xbf16>) permutation = [1, 0]
  %k_proj_ae = tensor.empty() : tensor<512x4096xf32>
  %k_proj_z = linalg.fill ins(%zero : f32) outs(%k_proj_ae : tensor<512x4096xf32>) -> tensor<512x4096xf32>
  %k_proj_mm = linalg.matmul ins(%h1_2, %k_proj_wt : tensor<512x4096xbf16>, tensor<4096x4096xbf16>) outs(%k_proj_z : tensor<512x4096xf32>) -> tensor<512x4096xf32>
  %k_proj_e = tensor.empty() : tensor<512x4096xbf16>
  %k_proj = linalg.generic {indexing_maps = [#x2, #x2], iterator_types = ["parallel", "parallel"]}
      ins(%k_proj_mm : tensor<512x4096xf32>) outs(%k_proj_e : tensor<512x4096xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<512x4096xbf16>
  %v_proj_wt_e = tensor.empty() : tensor<4096x4096xbf16>
  %v_proj_wt = linalg.transpose ins(%wv : tensor<4096x4096xbf16>) outs(%v_proj_wt_e : tensor<4096x4096xbf16>) permutation = [1, 0]
  %v_proj_ae = tensor.empty() : tensor<512x4096xf32>
  %v_proj_z = linalg.fill ins(%zero : f32) outs(%v_proj_ae : tensor<512x4096xf32>) -> tensor<512x4096xf32>
  %v_proj_mm = linalg.matmul ins(%h1_2, %v_proj_wt : tensor<512x4096xbf16>, tensor<4096x4096xbf16>) outs(%v_proj_z : tensor<512x4096xf32>) -> tensor<512x4096xf32>
  %v_proj_e = tensor.empty() : tensor<512x4096xbf16>
  %v_proj = linalg.generic {indexing_maps = [#x2, #x2], iterator_types = ["parallel", "parallel"]}
      ins(%v_proj_mm : tensor<512x4096xf32>) outs(%v_proj_e : tensor<512x4096xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<512x4096xbf16>
  %q_4 = tensor.expand_shape %q_proj [[0, 1], [2, 3]] output_shape [1, 512, 32, 128] : tensor<512x4096xbf16> into tensor<1x512x32x128xbf16>
  %q_he = tensor.empty() : tensor<1x32x512x128xbf16>
  %q_h = linalg.generic {indexing_maps = [#heads_in, #x4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%q_4 : tensor<1x512x32x128xbf16>) outs(%q_he : tensor<1x32x512x128xbf16>) {
  ^bb0(%v: bf16, %o: bf16):
    linalg.yield %v : bf16
  } -> tensor<1x32x512x128xbf16>
  %k_4 = tensor.expand_shape %k_proj [[0, 1], [2, 3]] output_shape [1, 512, 32, 128] : tensor<512x4096xbf16> into tensor<1x512x32x128xbf16>
  %k_he = tensor.empty() : tensor<1x32x512x128xbf16>
  %k_h = linalg.generic {indexing_maps = [#heads_in, #x4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%k_4 : tensor<1x512x32x128xbf16>) outs(%k_he : tensor<1x32x512x128xbf16>) {
  ^bb0(%v: bf16, %o: bf16):
    linalg.yield %v : bf16
  } -> tensor<1x32x512x128xbf16>
  %v_4 = tensor.expand_shape %v_proj [[0, 1], [2, 3]] output_shape [1, 512, 32, 128] : tensor<512x4096xbf16> into tensor<1x512x32x128xbf16>
  %v_he = tensor.empty() : tensor<1x32x512x128xbf16>
  %v_h = linalg.generic {indexing_maps = [#heads_in, #x4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%v_4 : tensor<1x512x32x128xbf16>) outs(%v_he : tensor<1x32x512x128xbf16>) {
  ^bb0(%v: bf16, %o: bf16):
    linalg.yield %v : bf16
  } -> tensor<1x32x512x128xbf16>
  %q_x1 = tensor.extract_slice %q_h[0, 0, 0, 0] [1, 32, 512, 64] [1, 1, 1, 1] : tensor<1x32x512x128xbf16> to tensor<1x32x512x64xbf16>
  %q_x2 = tensor.extract_slice %q_h[0, 0, 0, 64] [1, 32, 512, 64] [1, 1, 1, 1] : tensor<1x32x512x128xbf16> to tensor<1x32x512x64xbf16>
  %q_ne = tensor.empty() : tensor<1x32x512x64xbf16>
  %q_neg = linalg.generic {indexing_maps = [#x4, #x4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%q_x2 : tensor<1x32x512x64xbf16>) outs(%q_ne : tensor<1x32x512x64xbf16>) {
  ^bb0(%v: bf16, %o: bf16):
    %n = arith.negf %v : bf16
    linalg.yield %n : bf16
  } -> tensor<1x32x512x64xbf16>
  %q_rot = tensor.concat dim(3) %q_neg, %q_x1 : (tensor<1x32x512x64xbf16>, tensor<1x32x512x64xbf16>) -> tensor<1x32x512x128xbf16>
  %q_re = tensor.empty() : tensor<1x32x512x128xbf16>
  %q_r = linalg.generic {indexing_maps = [#x4, #table4, #x4, #table4, #x4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%q_h, %cos, %q_rot, %sin : tensor<1x32x512x128xbf16>, tensor<512x128xbf16>, tensor<1x32x512x128xbf16>, tensor<512x128xbf16>) outs(%q_re : tensor<1x32x512x128xbf16>) {
  ^bb0(%v: bf16, %c: bf16, %r: bf16, %sn: bf16, %o: bf16):
    %a = arith.mulf %v, %c : bf16
    %b = arith.mulf %r, %sn : bf16
    %y = arith.addf %a, %b : bf16
    linalg.yield %y : bf16
  } -> tensor<1x32x512x128xbf16>
  %k_x1 = tensor.extract_slice %k_h[0, 0, 0, 0] [1, 32, 512, 64] [1, 1, 1, 1] : tensor<1x32x512x128xbf16> to tensor<1x32x512x64xbf16>
  %k_x2 = tensor.extract_slice %k_h[0, 0, 0, 64] [1, 32, 512, 64] [1, 1, 1, 1] : tensor<1x32x512x128xbf16> to tensor<1x32x512x64xbf16>
  %k_ne = tensor.empty() : tensor<1x32x512x64xbf16>
  %k_neg = linalg.generic {indexing_maps = [#x4, #x4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%k_x2 : tensor<1x32x512x64xbf16>) outs(%k_ne : tensor<1x32x512x64xbf16>) {
  ^bb0(%v: bf16, %o: bf16):
    %n = arith.negf %v : bf16
    linalg.yield %n : bf16
  } -> tensor<1x32x512x64xbf16>
  %k_rot = tensor.concat dim(3) %k_neg, %k_x1 : (tensor<1x32x512x64xbf16>, tensor<1x32x512x64xbf16>) -> tensor<1x32x512x128xbf16>
  %k_re = tensor.empty() : tensor<1x32x512x128xbf16>
  %k_r = linalg.generic {indexing_maps = [#x4, #table4, #x4, #table4, #x4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%k_h, %cos, %k_rot, %sin : tensor<1x32x512x128xbf16>, tensor<512x128xbf16>, tensor<1x32x512x128xbf16>, tensor<512x128xbf16>) outs(%k_re : tensor<1x32x512x128xbf16>) {
  ^bb0(%v: bf16, %c: bf16, %r: bf16, %sn: bf16, %o: bf16):
    %a = arith.mulf %v, %c : bf16
    %b = arith.mulf %r, %sn : bf16
    %y = arith.addf %a, %b : bf16
    linalg.yield %y : bf16
  } -> tensor<1x32x512x128xbf16>
  %scores_e = tensor.empty() : tensor<1x32x512x512xf32>
  %scores_z = linalg.fill ins(%zero : f32) outs(%scores_e : tensor<1x32x512x512xf32>) -> tensor<1x32x512x512xf32>
  %scores = linalg.generic {indexing_maps = [#q5, #k5, #s5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q_r, %k_r : tensor<1x32x512x128xbf16>, tensor<1x32x512x128xbf16>) outs(%scores_z : tensor<1x32x512x512xf32>) {
  ^bb0(%a: bf16, %b: bf16, %acc: f32):
    %a32 = arith.extf %a : bf16 to f32
    %b32 = arith.extf %b : bf16 to f32
    %p = arith.mulf %a32, %b32 : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x32x512x512xf32>
  %masked = linalg.generic {indexing_maps = [#x4, #x4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%scores : tensor<1x32x512x512xf32>) outs(%scores_e : tensor<1x32x512x512xf32>) {
  ^bb0(%v: f32, %o: f32):
    %c = arith.constant 0.08838834764831845 : f32
    %scaled = arith.mulf %v, %c : f32
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %above = arith.cmpi ugt, %j, %i : index
    %ninf = arith.constant 0xFF800000 : f32
    %y = arith.select %above, %ninf, %scaled : f32
    linalg.yield %y : f32
  } -> tensor<1x32x512x512xf32>
  %probs_e = tensor.empty() : tensor<1x32x512x512xf32>
  %probs = linalg.softmax dimension(3) ins(%masked : tensor<1x32x512x512xf32>) outs(%probs_e : tensor<1x32x512x512xf32>) -> tensor<1x32x512x512xf32>
  %pn_e = tensor.empty() : tensor<1x32x512x512xbf16>
  %pn = linalg.generic {indexing_maps = [#x4, #x4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%probs : tensor<1x32x512x512xf32>) outs(%pn_e : tensor<1x32x512x512xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<1x32x512x512xbf16>
  %ctx_e = tensor.empty() : tensor<1x32x512x128xf32>
  %ctx_z = linalg.fill ins(%zero : f32) outs(%ctx_e : tensor<1x32x512x128xf32>) -> tensor<1x32x512x128xf32>
  %ctx = linalg.generic {indexing_maps = [#p5, #v5, #c5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%pn, %v_h : tensor<1x32x512x512xbf16>, tensor<1x32x512x128xbf16>) outs(%ctx_z : tensor<1x32x512x128xf32>) {
  ^bb0(%a: bf16, %b: bf16, %acc: f32):
    %a32 = arith.extf %a : bf16 to f32
    %b32 = arith.extf %b : bf16 to f32
    %p = arith.mulf %a32, %b32 : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x32x512x128xf32>
  %merged_e = tensor.empty() : tensor<1x512x32x128xbf16>
  %merged = linalg.generic {indexing_maps = [#merge_in, #x4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%ctx : tensor<1x32x512x128xf32>) outs(%merged_e : tensor<1x512x32x128xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<1x512x32x128xbf16>
  %ctx2 = tensor.collapse_shape %merged [[0, 1], [2, 3]] : tensor<1x512x32x128xbf16> into tensor<512x4096xbf16>
  %attn_wt_e = tensor.empty() : tensor<4096x4096xbf16>
  %attn_wt = linalg.transpose ins(%wo : tensor<4096x4096xbf16>) outs(%attn_wt_e : tensor<4096x4096xbf16>) permutation = [1, 0]
  %attn_ae = tensor.empty() : tensor<512x4096xf32>
  %attn_z = linalg.fill ins(%zero : f32) outs(%attn_ae : tensor<512x4096xf32>) -> tensor<512x4096xf32>
  %attn_mm = linalg.matmul ins(%ctx2, %attn_wt : tensor<512x4096xbf16>, tensor<4096x4096xbf16>) outs(%attn_z : tensor<512x4096xf32>) -> tensor<512x4096xf32>
  %attn_e = tensor.empty() : tensor<512x4096xbf16>
  %attn = linalg.generic {indexing_maps = [#x2, #x2], iterator_types = ["parallel", "parallel"]}
      ins(%attn_mm : tensor<512x4096xf32>) outs(%attn_e : tensor<512x4096xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<512x4096xbf16>
  %attn3 = tensor.expand_shape %attn [[0, 1], [2]] output_shape [1, 512, 4096] : tensor<512x4096xbf16> into tensor<1x512x4096xbf16>
  %res1_e = tensor.empty() : tensor<1x512x4096xbf16>
  %res1 = linalg.generic {indexing_maps = [#x3, #x3, #x3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %attn3 : tensor<1x512x4096xbf16>, tensor<1x512x4096xbf16>) outs(%res1_e : tensor<1x512x4096xbf16>) {
  ^bb0(%p: bf16, %q: bf16, %o: bf16):
    %s = arith.addf %p, %q : bf16
    linalg.yield %s : bf16
  } -> tensor<1x512x4096xbf16>
  %h2_we = tensor.empty() : tensor<1x512x4096xf32>
  %h2_w = linalg.generic {indexing_maps = [#x3, #x3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%res1 : tensor<1x512x4096xbf16>) outs(%h2_we : tensor<1x512x4096xf32>) {
  ^bb0(%v: bf16, %o: f32):
    %e = arith.extf %v : bf16 to f32
    linalg.yield %e : f32
  } -> tensor<1x512x4096xf32>
  %h2_pow = linalg.generic {indexing_maps = [#x3, #x3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%h2_w : tensor<1x512x4096xf32>) outs(%h2_we : tensor<1x512x4096xf32>) {
  ^bb0(%v: f32, %o: f32):
    %p = math.powf %v, %two : f32
    linalg.yield %p : f32
  } -> tensor<1x512x4096xf32>
  %h2_re = tensor.empty() : tensor<1x512xf32>
  %h2_s0 = linalg.fill ins(%zero : f32) outs(%h2_re : tensor<1x512xf32>) -> tensor<1x512xf32>
  %h2_sum = linalg.generic {indexing_maps = [#x3, #row3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%h2_pow : tensor<1x512x4096xf32>) outs(%h2_s0 : tensor<1x512xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<1x512xf32>
  %h2_kept = tensor.expand_shape %h2_sum [[0], [1, 2]] output_shape [1, 512, 1] : tensor<1x512xf32> into tensor<1x512x1xf32>
  %h2_ke = tensor.empty() : tensor<1x512x1xf32>
  %h2_rstd = linalg.generic {indexing_maps = [#x3, #x3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%h2_kept : tensor<1x512x1xf32>) outs(%h2_ke : tensor<1x512x1xf32>) {
  ^bb0(%v: f32, %o: f32):
    %mean = arith.divf %v, %count : f32
    %sh = arith.addf %mean, %eps : f32
    %r = math.rsqrt %sh : f32
    linalg.yield %r : f32
  } -> tensor<1x512x1xf32>
  %h2_n = linalg.generic {indexing_maps = [#x3, #kept3, #x3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%h2_w, %h2_rstd : tensor<1x512x4096xf32>, tensor<1x512x1xf32>) outs(%h2_we : tensor<1x512x4096xf32>) {
  ^bb0(%v: f32, %r: f32, %o: f32):
    %m = arith.mulf %v, %r : f32
    linalg.yield %m : f32
  } -> tensor<1x512x4096xf32>
  %h2_ne = tensor.empty() : tensor<1x512x4096xbf16>
  %h2_narrow = linalg.generic {indexing_maps = [#x3, #x3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%h2_n : tensor<1x512x4096xf32>) outs(%h2_ne : tensor<1x512x4096xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<1x512x4096xbf16>
  %h2 = linalg.generic {indexing_maps = [#hid3, #x3, #x3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%norm2, %h2_narrow : tensor<4096xbf16>, tensor<1x512x4096xbf16>) outs(%h2_ne : tensor<1x512x4096xbf16>) {
  ^bb0(%g: bf16, %v: bf16, %o: bf16):
    %m = arith.mulf %g, %v : bf16
    linalg.yield %m : bf16
  } -> tensor<1x512x4096xbf16>
  %h2_2 = tensor.collapse_shape %h2 [[0, 1], [2]] : tensor<1x512x4096xbf16> into tensor<512x4096xbf16>
  %gate_wt_e = tensor.empty() : tensor<4096x11008xbf16>
  %gate_wt = linalg.transpose ins(%wg : tensor<11008x4096xbf16>) outs(%gate_wt_e : tensor<4096x11008xbf16>) permutation = [1, 0]
  %gate_ae = tensor.empty() : tensor<512x11008xf32>
  %gate_z = linalg.fill ins(%zero : f32) outs(%gate_ae : tensor<512x11008xf32>) -> tensor<512x11008xf32>
  %gate_mm = linalg.matmul ins(%h2_2, %gate_wt : tensor<512x4096xbf16>, tensor<4096x11008xbf16>) outs(%gate_z : tensor<512x11008xf32>) -> tensor<512x11008xf32>
  %gate_e = tensor.empty() : tensor<512x11008xbf16>
  %gate = linalg.generic {indexing_maps = [#x2, #x2], iterator_types = ["parallel", "parallel"]}
      ins(%gate_mm : tensor<512x11008xf32>) outs(%gate_e : tensor<512x11008xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<512x11008xbf16>
  %up_wt_e = tensor.empty() : tensor<4096x11008xbf16>
  %up_wt = linalg.transpose ins(%wu : tensor<11008x4096xbf16>) outs(%up_wt_e : tensor<4096x11008xbf16>) permutation = [1, 0]
  %up_ae = tensor.empty() : tensor<512x11008xf32>
  %up_z = linalg.fill ins(%zero : f32) outs(%up_ae : tensor<512x11008xf32>) -> tensor<512x11008xf32>
  %up_mm = linalg.matmul ins(%h2_2, %up_wt : tensor<512x4096xbf16>, tensor<4096x11008xbf16>) outs(%up_z : tensor<512x11008xf32>) -> tensor<512x11008xf32>
  %up_e = tensor.empty() : tensor<512x11008xbf16>
  %up = linalg.generic {indexing_maps = [#x2, #x2], iterator_types = ["parallel", "parallel"]}
      ins(%up_mm : tensor<512x11008xf32>) outs(%up_e : tensor<512x11008xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<512x11008xbf16>
  %act_e = tensor.empty() : tensor<512x11008xbf16>
  %act = linalg.generic {indexing_maps = [#x2, #x2, #x2], iterator_types = ["parallel", "parallel"]}
      ins(%gate, %up : tensor<512x11008xbf16>, tensor<512x11008xbf16>) outs(%act_e : tensor<512x11008xbf16>) {
  ^bb0(%g: bf16, %u: bf16, %o: bf16):
    %ng = arith.negf %g : bf16
    %e = math.exp %ng : bf16
    %d = arith.addf %e, %one : bf16
    %silu = arith.divf %g, %d : bf16
    %m = arith.mulf %silu, %u : bf16
    linalg.yield %m : bf16
  } -> tensor<512x11008xbf16>
  %down_wt_e = tensor.empty() : tensor<11008x4096xbf16>
  %down_wt = linalg.transpose ins(%wd : tensor<4096x11008xbf16>) outs(%down_wt_e : tensor<11008x4096xbf16>) permutation = [1, 0]
  %down_ae = tensor.empty() : tensor<512x4096xf32>
  %down_z = linalg.fill ins(%zero : f32) outs(%down_ae : tensor<512x4096xf32>) -> tensor<512x4096xf32>
  %down_mm = linalg.matmul ins(%act, %down_wt : tensor<512x11008xbf16>, tensor<11008x4096xbf16>) outs(%down_z : tensor<512x4096xf32>) -> tensor<512x4096xf32>
  %down_e = tensor.empty() : tensor<512x4096xbf16>
  %down = linalg.generic {indexing_maps = [#x2, #x2], iterator_types = ["parallel", "parallel"]}
      ins(%down_mm : tensor<512x4096xf32>) outs(%down_e : tensor<512x4096xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<512x4096xbf16>
  %down3 = tensor.expand_shape %down [[0, 1], [2]] output_shape [1, 512, 4096] : tensor<512x4096xbf16> into tensor<1x512x4096xbf16>
  %res2_e = tensor.empty() : tensor<1x512x4096xbf16>
  %res2 = linalg.generic {indexing_maps = [#x3, #x3, #x3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%res1, %down3 : tensor<1x512x4096xbf16>, tensor<1x512x4096xbf16>) outs(%res2_e : tensor<1x512x4096xbf16>) {
  ^bb0(%p: bf16, %q: bf16, %o: bf16):
    %s = arith.addf %p, %q : bf16
    linalg.yield %s : bf16
  } -> tensor<1x512x4096xbf16>
  return %res2 : tensor<1x512x4096xbf16>
}
