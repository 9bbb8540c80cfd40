// Front-end style: torch-mlir (aten.convolution of a DeepLab ASPP branch):
// NCHW / FCHW, the output starting as the broadcast bias, padding by a
// tensor.pad.
// Pattern: a dilated (rate 2) 3x3 NCHW convolution accumulating into its
// bias, f16.
// Sizes: batch 4, 256 -> 256 channels at 32x32.
// REDUCED: 256=16 32=8 36=12
#bias = affine_map<(n, f, h, w) -> (f)>
#all = affine_map<(n, f, h, w) -> (n, f, h, w)>
func.func @aspp(%x: tensor<4x256x32x32xf16>, %w: tensor<256x256x3x3xf16>,
                %b: tensor<256xf16>) -> tensor<4x256x32x32xf16> {
  %zero = arith.constant 0.0 : f16
  %padded = tensor.pad %x low[0, 0, 2, 2] high[0, 0, 2, 2] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f16
  } : tensor<4x256x32x32xf16> to tensor<4x256x36x36xf16>
  %empty = tensor.empty() : tensor<4x256x32x32xf16>
  %init = linalg.generic {indexing_maps = [#bias, #all], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b : tensor<256xf16>) outs(%empty : tensor<4x256x32x32xf16>) {
  ^bb0(%v: f16, %out: f16):
    linalg.yield %v : f16
  } -> tensor<4x256x32x32xf16>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%padded, %w : tensor<4x256x36x36xf16>, tensor<256x256x3x3xf16>)
      outs(%init : tensor<4x256x32x32xf16>) -> tensor<4x256x32x32xf16>
  return %y : tensor<4x256x32x32xf16>
}
