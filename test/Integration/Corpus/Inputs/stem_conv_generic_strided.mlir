// Front-end style: an importer that writes convolutions as generics (IREE's
// TF and ONNX importers after generalization): the stride in the input map
// (oh * 2 + kh), f16 products accumulated in f32, then the folded batch
// norm (scale and shift per channel) and ReLU, rounded to f16.
// Pattern: a convolution written as a generic, 7x7 stride 2 over 3
// channels (K = 147, no multiple of a matrix's K), after a tensor.pad.
// Sizes: the ResNet-50 stem, batch 8, 224x224x3 -> 112x112x64.
// REDUCED: 224=16 230=22 112=8 64=16
#input = affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh * 2 + kh, ow * 2 + kw, c)>
#filter = affine_map<(n, oh, ow, f, kh, kw, c) -> (kh, kw, c, f)>
#output = affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh, ow, f)>
#all = affine_map<(n, h, w, f) -> (n, h, w, f)>
#channel = affine_map<(n, h, w, f) -> (f)>
func.func @stem(%x: tensor<8x224x224x3xf16>, %w: tensor<7x7x3x64xf16>,
                %scale: tensor<64xf32>, %shift: tensor<64xf32>)
    -> tensor<8x112x112x64xf16> {
  %pad = arith.constant 0.0 : f16
  %zero = arith.constant 0.0 : f32
  %padded = tensor.pad %x low[0, 3, 3, 0] high[0, 3, 3, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %pad : f16
  } : tensor<8x224x224x3xf16> to tensor<8x230x230x3xf16>
  %empty = tensor.empty() : tensor<8x112x112x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<8x112x112x64xf32>) -> tensor<8x112x112x64xf32>
  %conv = linalg.generic {indexing_maps = [#input, #filter, #output],
                          iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%padded, %w : tensor<8x230x230x3xf16>, tensor<7x7x3x64xf16>)
      outs(%init : tensor<8x112x112x64xf32>) {
  ^bb0(%a: f16, %b: f16, %acc: f32):
    %aw = arith.extf %a : f16 to f32
    %bw = arith.extf %b : f16 to f32
    %p = arith.mulf %aw, %bw : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x112x112x64xf32>
  %y_empty = tensor.empty() : tensor<8x112x112x64xf16>
  %y = linalg.generic {indexing_maps = [#all, #channel, #channel, #all], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%conv, %scale, %shift : tensor<8x112x112x64xf32>, tensor<64xf32>, tensor<64xf32>)
      outs(%y_empty : tensor<8x112x112x64xf16>) {
  ^bb0(%v: f32, %s: f32, %t: f32, %out: f16):
    %m = arith.mulf %v, %s : f32
    %a = arith.addf %m, %t : f32
    %r = arith.maximumf %a, %zero : f32
    %h = arith.truncf %r : f32 to f16
    linalg.yield %h : f16
  } -> tensor<8x112x112x64xf16>
  return %y : tensor<8x112x112x64xf16>
}
