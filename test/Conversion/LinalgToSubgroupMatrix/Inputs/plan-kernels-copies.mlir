// A tile whose copies 128 invocations cannot share evenly
// (plan-kernels-layout-invalid.mlir): 32x16 elements of A in vectors of 8
// are 64 copies.
module attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
func.func @unshared_copies(%a: memref<64x64xf16>, %b: memref<64x64xf16>, %c: memref<64x64xf32>) {
  // expected-error @+1 {{cannot be tiled: the 32x16 tile of A is 64 copies of 8 element(s), which 128 invocations cannot share evenly}}
  linalg.matmul ins(%a, %b : memref<64x64xf16>, memref<64x64xf16>) outs(%c : memref<64x64xf32>)
  return
}
}
