// One token through a GGUF q4_0 weight kept as its bytes (blocks of 18:
// an f16 scale, low byte first, then 16 bytes whose low nibbles are
// elements 0..15 of the block and high nibbles 16..31, each offset by 8),
// the weight stored N x K as a linear layer's, then SiLU.
#blocks_scale_lo = affine_map<(n, k) -> (n, k floordiv 32, 0)>
#blocks_scale_hi = affine_map<(n, k) -> (n, k floordiv 32, 1)>
#blocks_values = affine_map<(n, k) -> (n, k floordiv 32, k mod 16 + 2)>
#weight = affine_map<(n, k) -> (n, k)>
func.func @decode_q4_0_silu(%x: tensor<1x256xf16>, %blocks: tensor<61x8x18xi8>) -> tensor<1x61xf32> {
  %empty_w = tensor.empty() : tensor<61x256xf16>
  %w = linalg.generic {indexing_maps = [#blocks_scale_lo, #blocks_scale_hi, #blocks_values, #weight], iterator_types = ["parallel", "parallel"]}
      ins(%blocks, %blocks, %blocks : tensor<61x8x18xi8>, tensor<61x8x18xi8>, tensor<61x8x18xi8>)
      outs(%empty_w : tensor<61x256xf16>) {
  ^bb0(%lo: i8, %hi: i8, %byte: i8, %out: f16):
    %k = linalg.index 1 : index
    %c32 = arith.constant 32 : index
    %c16 = arith.constant 16 : index
    %in_block = arith.remui %k, %c32 : index
    %upper = arith.cmpi uge, %in_block, %c16 : index
    %c4 = arith.constant 4 : i8
    %c0 = arith.constant 0 : i8
    %shift = arith.select %upper, %c4, %c0 : i8
    %shifted = arith.shrui %byte, %shift : i8
    %c15 = arith.constant 15 : i8
    %nibble = arith.andi %shifted, %c15 : i8
    %c8 = arith.constant 8 : i8
    %centred = arith.subi %nibble, %c8 : i8
    %value = arith.sitofp %centred : i8 to f16
    %lo16 = arith.extui %lo : i8 to i16
    %hi16 = arith.extui %hi : i8 to i16
    %c8_16 = arith.constant 8 : i16
    %hi_bits = arith.shli %hi16, %c8_16 : i16
    %bits = arith.ori %hi_bits, %lo16 : i16
    %scale = arith.bitcast %bits : i16 to f16
    %dequantized = arith.mulf %value, %scale : f16
    linalg.yield %dequantized : f16
  } -> tensor<61x256xf16>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x61xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x61xf32>) -> tensor<1x61xf32>
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
    ins(%x, %w : tensor<1x256xf16>, tensor<61x256xf16>) outs(%acc : tensor<1x61xf32>) -> tensor<1x61xf32>
  %empty2 = tensor.empty() : tensor<1x61xf32>
  %act = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<1x61xf32>) outs(%empty2 : tensor<1x61xf32>) {
  ^bb0(%v: f32, %o: f32):
    %neg = arith.negf %v : f32
    %e = math.exp %neg : f32
    %one = arith.constant 1.0 : f32
    %d = arith.addf %one, %e : f32
    %s = arith.divf %v, %d : f32
    linalg.yield %s : f32
  } -> tensor<1x61xf32>
  return %act : tensor<1x61xf32>
}
