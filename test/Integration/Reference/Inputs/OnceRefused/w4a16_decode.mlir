// One decode step with 4-bit weights and f16 activations: unsigned 4-bit
// weights ([out, in], zero point 8) with one f16 scale per 64 inputs of a
// row, a product accumulated in f32, and an output shift that the program
// reads out of a one-element tensor (tensor.extract at index 0: a load on
// the host) and adds before rounding to f16. Was refused ("'memref.load'
// op is not run by the runtime").
#weights = affine_map<(o, i) -> (o, i)>
#group = affine_map<(o, i) -> (o, i floordiv 64)>
#identity = affine_map<(m, n) -> (m, n)>
func.func @decode(%x: tensor<1x512xf16>, %w: tensor<384x512xi4>,
                  %scales: tensor<384x8xf16>, %shift: tensor<1xf16>) -> tensor<1x384xf16> {
  %c0 = arith.constant 0 : index
  %offset = tensor.extract %shift[%c0] : tensor<1xf16>
  %empty = tensor.empty() : tensor<384x512xf16>
  %dequantized = linalg.generic {indexing_maps = [#weights, #group, #weights],
      iterator_types = ["parallel", "parallel"]}
      ins(%w, %scales : tensor<384x512xi4>, tensor<384x8xf16>) outs(%empty : tensor<384x512xf16>) {
  ^bb0(%q: i4, %s: f16, %out: f16):
    %wide = arith.extui %q : i4 to i32
    %eight = arith.constant 8 : i32
    %centered = arith.subi %wide, %eight : i32
    %real = arith.sitofp %centered : i32 to f16
    %scaled = arith.mulf %real, %s : f16
    linalg.yield %scaled : f16
  } -> tensor<384x512xf16>
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<1x384xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<1x384xf32>) -> tensor<1x384xf32>
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %dequantized : tensor<1x512xf16>, tensor<384x512xf16>)
      outs(%acc : tensor<1x384xf32>) -> tensor<1x384xf32>
  %outEmpty = tensor.empty() : tensor<1x384xf16>
  %shifted = linalg.generic {indexing_maps = [#identity, #identity], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<1x384xf32>) outs(%outEmpty : tensor<1x384xf16>) {
  ^bb0(%v: f32, %out: f16):
    %wideOffset = arith.extf %offset : f16 to f32
    %sum = arith.addf %v, %wideOffset : f32
    %narrow = arith.truncf %sum : f32 to f16
    linalg.yield %narrow : f16
  } -> tensor<1x384xf16>
  return %shifted : tensor<1x384xf16>
}
