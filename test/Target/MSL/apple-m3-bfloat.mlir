// RUN: sm-opt %s --sm-linalg-to-gpu="target=apple-m3" | sm-translate --emit-msl | FileCheck %s
// RUN: sm-opt %s --sm-linalg-to-gpu="target=apple-m1" | sm-translate --emit-msl | FileCheck %s --check-prefix=M1

// A bf16 product on apple-m3 runs on MSL 3.1's bfloat matrices, multiplied
// into float ones; its bf16 tiles are staged as their 16-bit patterns
// (as_type). apple-m1, without bfloat matrices, stages them widened into
// float matrices.
// CHECK: // Needs Metal Shading Language 3.1 (bfloat)
// CHECK: simdgroup_bfloat8x8
// CHECK: as_type<short>(
// CHECK: simdgroup_multiply_accumulate(
// M1-NOT: simdgroup_bfloat8x8
// M1: simdgroup_float8x8
func.func @mm(%a: tensor<32x64xbf16>, %b: tensor<64x32xbf16>) -> tensor<32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %r = linalg.matmul ins(%a, %b : tensor<32x64xbf16>, tensor<64x32xbf16>) outs(%f : tensor<32x32xf32>) -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}
