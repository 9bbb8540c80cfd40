// A maximum along rows that meets a NaN (generate.py seeds 27 and 74 on
// apple-m1, where f16 inputs overflowed to infinities and inf - inf made
// one): arith.maximumf returns NaN, but the Metal source printed it as
// MSL's max, which returns the other operand; sm-lower-to-metal now
// expands maximumf and minimumf upstream's way. Lavapipe returned the
// other operand too: it compiled upstream's SPIR-V form (FMax with the NaN
// operand selected around it) to FMax alone; sm-convert-kernels-to-spirv
// now selects the operands' sum where either is NaN. Column 3 is NaN in
// every row here: every result is NaN.
func.func @main(%x: tensor<6x8xf32>) -> tensor<6xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<6xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<6xf32>) -> tensor<6xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<6x8xf32>) outs(%fill : tensor<6xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %j = linalg.index 1 : index
    %c3 = arith.constant 3 : index
    %at = arith.cmpi eq, %j, %c3 : index
    %inf = arith.divf %in, %zero : f32
    %nan = arith.subf %inf, %inf : f32
    %v = arith.select %at, %nan, %in : f32
    %m = arith.maximumf %v, %acc : f32
    linalg.yield %m : f32
  } -> tensor<6xf32>
  return %r : tensor<6xf32>
}
