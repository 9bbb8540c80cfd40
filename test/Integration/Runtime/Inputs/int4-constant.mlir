// A program whose i4 weights are a constant of it: constants hold packed
// elements one per byte, which the runtime does not upload.
func.func @shift(%q: tensor<4x8xi4>) -> tensor<4x8xi4> {
  %w = arith.constant dense<[[1, 2, 3, 4, 5, 6, 7, -8], [1, 2, 3, 4, 5, 6, 7, -8], [1, 2, 3, 4, 5, 6, 7, -8], [1, 2, 3, 4, 5, 6, 7, -8]]> : tensor<4x8xi4>
  %e = tensor.empty() : tensor<4x8xi4>
  %r = linalg.add ins(%q, %w : tensor<4x8xi4>, tensor<4x8xi4>) outs(%e : tensor<4x8xi4>) -> tensor<4x8xi4>
  return %r : tensor<4x8xi4>
}
