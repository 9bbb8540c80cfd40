// Front-end style: named linalg ops only (as a StableHLO or torch-mlir
// import after named-op raising writes them): RMSNorm widened to f32 with
// linalg.mul / linalg.reduce / linalg.broadcast, the gate and up
// projections as linalg.matmul reading their [out, in] weights through
// indexing_maps, SiLU from linalg.negf / exp / add / div, a residual add.
// Pattern: bf16 Llama feed-forward block; 32 tokens, width 512, hidden 1376.
func.func @feed_forward(%x: tensor<32x512xbf16>, %norm: tensor<512xbf16>,
                        %w_gate: tensor<1376x512xbf16>,
                        %w_up: tensor<1376x512xbf16>,
                        %w_down: tensor<512x1376xbf16>) -> tensor<32x512xbf16> {
  %zero = arith.constant 0.0 : f32
  %zero_bf16 = arith.constant 0.0 : bf16
  %one = arith.constant 1.0 : bf16
  %width = arith.constant 512.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  // RMSNorm in f32.
  %xf_init = tensor.empty() : tensor<32x512xf32>
  %xf = linalg.map ins(%x : tensor<32x512xbf16>) outs(%xf_init : tensor<32x512xf32>)
      (%in: bf16, %out: f32) {
    %w = arith.extf %in : bf16 to f32
    linalg.yield %w : f32
  }
  %sq = linalg.mul ins(%xf, %xf : tensor<32x512xf32>, tensor<32x512xf32>)
      outs(%xf_init : tensor<32x512xf32>) -> tensor<32x512xf32>
  %sum_init = tensor.empty() : tensor<32xf32>
  %sum_zero = linalg.fill ins(%zero : f32) outs(%sum_init : tensor<32xf32>) -> tensor<32xf32>
  %sum = linalg.reduce ins(%sq : tensor<32x512xf32>) outs(%sum_zero : tensor<32xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %n_init = tensor.empty() : tensor<32xf32>
  %n = linalg.fill ins(%width : f32) outs(%n_init : tensor<32xf32>) -> tensor<32xf32>
  %mean = linalg.div ins(%sum, %n : tensor<32xf32>, tensor<32xf32>)
      outs(%n_init : tensor<32xf32>) -> tensor<32xf32>
  %e = linalg.fill ins(%eps : f32) outs(%n_init : tensor<32xf32>) -> tensor<32xf32>
  %shifted = linalg.add ins(%mean, %e : tensor<32xf32>, tensor<32xf32>)
      outs(%n_init : tensor<32xf32>) -> tensor<32xf32>
  %inv = linalg.rsqrt ins(%shifted : tensor<32xf32>) outs(%n_init : tensor<32xf32>) -> tensor<32xf32>
  %inv_rows = linalg.broadcast ins(%inv : tensor<32xf32>) outs(%xf_init : tensor<32x512xf32>)
      dimensions = [1]
  %scaled = linalg.mul ins(%xf, %inv_rows : tensor<32x512xf32>, tensor<32x512xf32>)
      outs(%xf_init : tensor<32x512xf32>) -> tensor<32x512xf32>
  %h_init = tensor.empty() : tensor<32x512xbf16>
  %scaled_bf16 = linalg.map ins(%scaled : tensor<32x512xf32>) outs(%h_init : tensor<32x512xbf16>)
      (%in: f32, %out: bf16) {
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  }
  %norm_rows = linalg.broadcast ins(%norm : tensor<512xbf16>) outs(%h_init : tensor<32x512xbf16>)
      dimensions = [0]
  %h = linalg.mul ins(%scaled_bf16, %norm_rows : tensor<32x512xbf16>, tensor<32x512xbf16>)
      outs(%h_init : tensor<32x512xbf16>) -> tensor<32x512xbf16>
  // SwiGLU with [out, in] weights.
  %p_init = tensor.empty() : tensor<32x1376xbf16>
  %p_zero = linalg.fill ins(%zero_bf16 : bf16) outs(%p_init : tensor<32x1376xbf16>) -> tensor<32x1376xbf16>
  %gate = linalg.matmul
      indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>,
                       affine_map<(m, n, k) -> (m, n)>]
      ins(%h, %w_gate : tensor<32x512xbf16>, tensor<1376x512xbf16>)
      outs(%p_zero : tensor<32x1376xbf16>) -> tensor<32x1376xbf16>
  %up = linalg.matmul
      indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>,
                       affine_map<(m, n, k) -> (m, n)>]
      ins(%h, %w_up : tensor<32x512xbf16>, tensor<1376x512xbf16>)
      outs(%p_zero : tensor<32x1376xbf16>) -> tensor<32x1376xbf16>
  %neg = linalg.negf ins(%gate : tensor<32x1376xbf16>) outs(%p_init : tensor<32x1376xbf16>) -> tensor<32x1376xbf16>
  %exp = linalg.exp ins(%neg : tensor<32x1376xbf16>) outs(%p_init : tensor<32x1376xbf16>) -> tensor<32x1376xbf16>
  %ones = linalg.fill ins(%one : bf16) outs(%p_init : tensor<32x1376xbf16>) -> tensor<32x1376xbf16>
  %denominator = linalg.add ins(%exp, %ones : tensor<32x1376xbf16>, tensor<32x1376xbf16>)
      outs(%p_init : tensor<32x1376xbf16>) -> tensor<32x1376xbf16>
  %silu = linalg.div ins(%gate, %denominator : tensor<32x1376xbf16>, tensor<32x1376xbf16>)
      outs(%p_init : tensor<32x1376xbf16>) -> tensor<32x1376xbf16>
  %act = linalg.mul ins(%silu, %up : tensor<32x1376xbf16>, tensor<32x1376xbf16>)
      outs(%p_init : tensor<32x1376xbf16>) -> tensor<32x1376xbf16>
  %d_zero = linalg.fill ins(%zero_bf16 : bf16) outs(%h_init : tensor<32x512xbf16>) -> tensor<32x512xbf16>
  %down = linalg.matmul
      indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>,
                       affine_map<(m, n, k) -> (m, n)>]
      ins(%act, %w_down : tensor<32x1376xbf16>, tensor<512x1376xbf16>)
      outs(%d_zero : tensor<32x512xbf16>) -> tensor<32x512xbf16>
  %y = linalg.add ins(%x, %down : tensor<32x512xbf16>, tensor<32x512xbf16>)
      outs(%h_init : tensor<32x512xbf16>) -> tensor<32x512xbf16>
  return %y : tensor<32x512xbf16>
}
