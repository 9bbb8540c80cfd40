// Found by generate.py (seed 1958): an element-wise op on a slice of a
// batch of one was refused ("not a contiguous row-major memref"). The
// slice keeps the start of the channels, so it stays a view; the batch
// loops were folded into one by a reshape of that strided view, which the
// element-wise stage did not see through. It now reads the whole buffer
// through the slice's offsets and the reshape's dropped dimension.
func.func @main(%image: tensor<1x5x9x9xf16>, %bias: tensor<1x3x4x6xf16>) -> (tensor<1x3x4x6xf16>, tensor<1x3x4x6xf16>) {
  %window = tensor.extract_slice %image[0, 0, 3, 2] [1, 3, 4, 6] [1, 1, 1, 1] : tensor<1x5x9x9xf16> to tensor<1x3x4x6xf16>
  %init = tensor.empty() : tensor<1x3x4x6xf16>
  %shifted = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%window, %bias : tensor<1x3x4x6xf16>, tensor<1x3x4x6xf16>) outs(%init : tensor<1x3x4x6xf16>) {
  ^bb0(%x: f16, %b: f16, %o: f16):
    %s = arith.addf %x, %b : f16
    linalg.yield %s : f16
  } -> tensor<1x3x4x6xf16>
  %init2 = tensor.empty() : tensor<1x3x4x6xf16>
  %squares = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%shifted : tensor<1x3x4x6xf16>) outs(%init2 : tensor<1x3x4x6xf16>) {
  ^bb0(%x: f16, %o: f16):
    %s = arith.mulf %x, %x : f16
    linalg.yield %s : f16
  } -> tensor<1x3x4x6xf16>
  return %squares, %shifted : tensor<1x3x4x6xf16>, tensor<1x3x4x6xf16>
}
