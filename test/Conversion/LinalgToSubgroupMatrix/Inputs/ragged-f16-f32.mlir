// 100x90x72: no dimension is a multiple of any tile.
func.func @gemm(%a: memref<100x72xf16>, %b: memref<72x90xf16>, %c: memref<100x90xf32>) {
  linalg.matmul ins(%a, %b : memref<100x72xf16>, memref<72x90xf16>) outs(%c : memref<100x90xf32>)
  return
}
