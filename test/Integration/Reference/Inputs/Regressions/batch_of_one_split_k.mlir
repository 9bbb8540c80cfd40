// Found by generate.py (seed 37) on the H200: a batch_matmul with a batch
// of one whose long K the plan splits summed its parts into the 3-D C
// through a 2-D map, so that the summing kernel wrote 8 of 512 outputs
// (the rest NaN from the poisoned allocation). regressions.test also runs
// it with split-k=8 forced on lavapipe, whose own plans do not split.
func.func @main(%a: tensor<1x64x2048xf16>, %b: tensor<1x2048x8xf16>) -> (tensor<1x64x8xf16>) {
  %empty = tensor.empty() : tensor<1x64x8xf16>
  %zero = arith.constant 0.0 : f16
  %fill = linalg.fill ins(%zero : f16) outs(%empty : tensor<1x64x8xf16>) -> tensor<1x64x8xf16>
  %r = linalg.batch_matmul ins(%a, %b : tensor<1x64x2048xf16>, tensor<1x2048x8xf16>) outs(%fill : tensor<1x64x8xf16>) -> tensor<1x64x8xf16>
  return %r : tensor<1x64x8xf16>
}
