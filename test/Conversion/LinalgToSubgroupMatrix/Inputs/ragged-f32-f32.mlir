// 100x90x72 in f32, for apple-m1.
func.func @gemm(%a: memref<100x72xf32>, %b: memref<72x90xf32>, %c: memref<100x90xf32>) {
  linalg.matmul ins(%a, %b : memref<100x72xf32>, memref<72x90xf32>) outs(%c : memref<100x90xf32>)
  return
}
