// Found by generate.py (seed 2931): a product whose A and B are one tensor
// (a Gram matrix of a transposed weight, X X^T) crashed the compiler
// (double free): the producer of that tensor was fused into the kernel
// once for A and once for B, and erased twice. It is fused once now.
func.func @main(%w: tensor<16x40xf16>) -> tensor<40x40xf16> {
  %t0 = tensor.empty() : tensor<40x16xf16>
  %x = linalg.transpose ins(%w : tensor<16x40xf16>) outs(%t0 : tensor<40x16xf16>) permutation = [1, 0]
  %zero = arith.constant 0.0 : f16
  %g0 = tensor.empty() : tensor<40x40xf16>
  %g1 = linalg.fill ins(%zero : f16) outs(%g0 : tensor<40x40xf16>) -> tensor<40x40xf16>
  %gram = linalg.matmul indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (j, k)>, affine_map<(i, j, k) -> (i, j)>] ins(%x, %x : tensor<40x16xf16>, tensor<40x16xf16>) outs(%g1 : tensor<40x40xf16>) -> tensor<40x40xf16>
  return %gram : tensor<40x40xf16>
}
