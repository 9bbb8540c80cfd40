// Front-end style: TOSA as torch-mlir's TOSA path writes a multi-head
// self-attention block in f32: each nn.Linear a tosa.transpose of its weight
// and a rank-3 tosa.matmul, the heads split and merged with tosa.reshape and
// tosa.transpose, the scale a broadcasting tosa.mul, and softmax decomposed
// as torch-mlir does (tosa.reduce_max, tosa.sub, tosa.exp, tosa.reduce_sum,
// tosa.reciprocal, tosa.mul).
// Pattern: Q, K and V projections, scaled dot-product attention over 4 heads,
// output projection, through upstream's TOSA-to-linalg lowering
// (sm-tosa-to-linalg).
// Sizes: 64 tokens, width 128, 4 heads of 32.
// REDUCED: 64=16
func.func @self_attention(%x: tensor<64x128xf32>, %wq: tensor<128x128xf32>,
                          %wk: tensor<128x128xf32>, %wv: tensor<128x128xf32>,
                          %wo: tensor<128x128xf32>) -> tensor<64x128xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %scale = "tosa.const"() <{values = dense<0.176776695> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %s_tokens = tosa.const_shape {values = dense<[1, 64, 128]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s_weight = tosa.const_shape {values = dense<[1, 128, 128]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s_heads = tosa.const_shape {values = dense<[1, 64, 4, 32]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %s_batched = tosa.const_shape {values = dense<[4, 64, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s_merged = tosa.const_shape {values = dense<[1, 4, 64, 32]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %s_out = tosa.const_shape {values = dense<[64, 128]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %x3 = tosa.reshape %x, %s_tokens : (tensor<64x128xf32>, !tosa.shape<3>) -> tensor<1x64x128xf32>
  %wq_t = tosa.transpose %wq {perms = array<i32: 1, 0>} : (tensor<128x128xf32>) -> tensor<128x128xf32>
  %wq_3 = tosa.reshape %wq_t, %s_weight : (tensor<128x128xf32>, !tosa.shape<3>) -> tensor<1x128x128xf32>
  %q = tosa.matmul %x3, %wq_3, %zp, %zp : (tensor<1x64x128xf32>, tensor<1x128x128xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x64x128xf32>
  %q4 = tosa.reshape %q, %s_heads : (tensor<1x64x128xf32>, !tosa.shape<4>) -> tensor<1x64x4x32xf32>
  %qh = tosa.transpose %q4 {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x64x4x32xf32>) -> tensor<1x4x64x32xf32>
  %qb = tosa.reshape %qh, %s_batched : (tensor<1x4x64x32xf32>, !tosa.shape<3>) -> tensor<4x64x32xf32>
  %wk_t = tosa.transpose %wk {perms = array<i32: 1, 0>} : (tensor<128x128xf32>) -> tensor<128x128xf32>
  %wk_3 = tosa.reshape %wk_t, %s_weight : (tensor<128x128xf32>, !tosa.shape<3>) -> tensor<1x128x128xf32>
  %k = tosa.matmul %x3, %wk_3, %zp, %zp : (tensor<1x64x128xf32>, tensor<1x128x128xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x64x128xf32>
  %k4 = tosa.reshape %k, %s_heads : (tensor<1x64x128xf32>, !tosa.shape<4>) -> tensor<1x64x4x32xf32>
  %kh = tosa.transpose %k4 {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x64x4x32xf32>) -> tensor<1x4x64x32xf32>
  %kb = tosa.reshape %kh, %s_batched : (tensor<1x4x64x32xf32>, !tosa.shape<3>) -> tensor<4x64x32xf32>
  %wv_t = tosa.transpose %wv {perms = array<i32: 1, 0>} : (tensor<128x128xf32>) -> tensor<128x128xf32>
  %wv_3 = tosa.reshape %wv_t, %s_weight : (tensor<128x128xf32>, !tosa.shape<3>) -> tensor<1x128x128xf32>
  %v = tosa.matmul %x3, %wv_3, %zp, %zp : (tensor<1x64x128xf32>, tensor<1x128x128xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x64x128xf32>
  %v4 = tosa.reshape %v, %s_heads : (tensor<1x64x128xf32>, !tosa.shape<4>) -> tensor<1x64x4x32xf32>
  %vh = tosa.transpose %v4 {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x64x4x32xf32>) -> tensor<1x4x64x32xf32>
  %vb = tosa.reshape %vh, %s_batched : (tensor<1x4x64x32xf32>, !tosa.shape<3>) -> tensor<4x64x32xf32>
  %kt = tosa.transpose %kb {perms = array<i32: 0, 2, 1>} : (tensor<4x64x32xf32>) -> tensor<4x32x64xf32>
  %scores = tosa.matmul %qb, %kt, %zp, %zp : (tensor<4x64x32xf32>, tensor<4x32x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x64x64xf32>
  %scaled = tosa.mul %scores, %scale, %shift : (tensor<4x64x64xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<4x64x64xf32>
  %max = tosa.reduce_max %scaled {axis = 2 : i32} : (tensor<4x64x64xf32>) -> tensor<4x64x1xf32>
  %centered = tosa.sub %scaled, %max : (tensor<4x64x64xf32>, tensor<4x64x1xf32>) -> tensor<4x64x64xf32>
  %exp = tosa.exp %centered : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
  %sum = tosa.reduce_sum %exp {axis = 2 : i32} : (tensor<4x64x64xf32>) -> tensor<4x64x1xf32>
  %inverse = tosa.reciprocal %sum : (tensor<4x64x1xf32>) -> tensor<4x64x1xf32>
  %probs = tosa.mul %exp, %inverse, %shift : (tensor<4x64x64xf32>, tensor<4x64x1xf32>, tensor<1xi8>) -> tensor<4x64x64xf32>
  %context = tosa.matmul %probs, %vb, %zp, %zp : (tensor<4x64x64xf32>, tensor<4x64x32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x64x32xf32>
  %context4 = tosa.reshape %context, %s_merged : (tensor<4x64x32xf32>, !tosa.shape<4>) -> tensor<1x4x64x32xf32>
  %contextt = tosa.transpose %context4 {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x4x64x32xf32>) -> tensor<1x64x4x32xf32>
  %context3 = tosa.reshape %contextt, %s_tokens : (tensor<1x64x4x32xf32>, !tosa.shape<3>) -> tensor<1x64x128xf32>
  %wo_t = tosa.transpose %wo {perms = array<i32: 1, 0>} : (tensor<128x128xf32>) -> tensor<128x128xf32>
  %wo_3 = tosa.reshape %wo_t, %s_weight : (tensor<128x128xf32>, !tosa.shape<3>) -> tensor<1x128x128xf32>
  %o = tosa.matmul %context3, %wo_3, %zp, %zp : (tensor<1x64x128xf32>, tensor<1x128x128xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x64x128xf32>
  %y = tosa.reshape %o, %s_out : (tensor<1x64x128xf32>, !tosa.shape<2>) -> tensor<64x128xf32>
  return %y : tensor<64x128xf32>
}
