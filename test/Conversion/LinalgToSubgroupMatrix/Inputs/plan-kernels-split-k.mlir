// Products that cannot split K (plan-kernels-layout-invalid.mlir).
module attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
func.func @batched(%a: memref<3x64x512xf16>, %b: memref<3x512x64xf16>, %c: memref<3x64x64xf32>) {
  // expected-error @+1 {{cannot split K in 4 parts: a split needs no batch, static sizes and a number of K steps it divides}}
  linalg.batch_matmul ins(%a, %b : memref<3x64x512xf16>, memref<3x512x64xf16>) outs(%c : memref<3x64x64xf32>)
  return
}
}

// -----

module attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
func.func @dynamic(%a: memref<?x512xf16>, %b: memref<512x64xf16>, %c: memref<?x64xf32>) {
  // expected-error @+1 {{cannot split K in 4 parts}}
  linalg.matmul ins(%a, %b : memref<?x512xf16>, memref<512x64xf16>) outs(%c : memref<?x64xf32>)
  return
}
}
