// Front-end style: TOSA as torch-mlir's TOSA path writes an f16 MLP of two
// nn.Linear layers: each weight ([out, in]) transposed by tosa.transpose,
// the activations reshaped to rank 3 for tosa.matmul (zero points as
// operands), the bias reshaped to [1, 1, out] for a broadcasting tosa.add,
// and SiLU as tosa.sigmoid times its input (tosa.mul with its shift
// operand).
// Pattern: linear, SiLU, linear, through upstream's TOSA-to-linalg lowering
// (sm-tosa-to-linalg).
// Sizes: 64 tokens, 128 -> 256 -> 128, f16.
// REDUCED: 64=24 128=32 256=48
func.func @mlp(%x: tensor<64x128xf16>, %w1: tensor<256x128xf16>, %b1: tensor<256xf16>,
               %w2: tensor<128x256xf16>, %b2: tensor<128xf16>) -> tensor<64x128xf16> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s_x = tosa.const_shape {values = dense<[1, 64, 128]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %x3 = tosa.reshape %x, %s_x : (tensor<64x128xf16>, !tosa.shape<3>) -> tensor<1x64x128xf16>
  %w1t = tosa.transpose %w1 {perms = array<i32: 1, 0>} : (tensor<256x128xf16>) -> tensor<128x256xf16>
  %s_w1 = tosa.const_shape {values = dense<[1, 128, 256]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %w13 = tosa.reshape %w1t, %s_w1 : (tensor<128x256xf16>, !tosa.shape<3>) -> tensor<1x128x256xf16>
  %h = tosa.matmul %x3, %w13, %zp, %zp : (tensor<1x64x128xf16>, tensor<1x128x256xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x64x256xf16>
  %s_b1 = tosa.const_shape {values = dense<[1, 1, 256]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %b13 = tosa.reshape %b1, %s_b1 : (tensor<256xf16>, !tosa.shape<3>) -> tensor<1x1x256xf16>
  %hb = tosa.add %h, %b13 : (tensor<1x64x256xf16>, tensor<1x1x256xf16>) -> tensor<1x64x256xf16>
  %gate = tosa.sigmoid %hb : (tensor<1x64x256xf16>) -> tensor<1x64x256xf16>
  %act = tosa.mul %hb, %gate, %shift : (tensor<1x64x256xf16>, tensor<1x64x256xf16>, tensor<1xi8>) -> tensor<1x64x256xf16>
  %w2t = tosa.transpose %w2 {perms = array<i32: 1, 0>} : (tensor<128x256xf16>) -> tensor<256x128xf16>
  %s_w2 = tosa.const_shape {values = dense<[1, 256, 128]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %w23 = tosa.reshape %w2t, %s_w2 : (tensor<256x128xf16>, !tosa.shape<3>) -> tensor<1x256x128xf16>
  %o = tosa.matmul %act, %w23, %zp, %zp : (tensor<1x64x256xf16>, tensor<1x256x128xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x64x128xf16>
  %s_b2 = tosa.const_shape {values = dense<[1, 1, 128]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %b23 = tosa.reshape %b2, %s_b2 : (tensor<128xf16>, !tosa.shape<3>) -> tensor<1x1x128xf16>
  %ob = tosa.add %o, %b23 : (tensor<1x64x128xf16>, tensor<1x1x128xf16>) -> tensor<1x64x128xf16>
  %s_y = tosa.const_shape {values = dense<[64, 128]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %y = tosa.reshape %ob, %s_y : (tensor<1x64x128xf16>, !tosa.shape<2>) -> tensor<64x128xf16>
  return %y : tensor<64x128xf16>
}
