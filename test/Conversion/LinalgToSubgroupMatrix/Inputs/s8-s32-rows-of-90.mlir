// 100x90x72 with B stored K x N in rows of 90 bytes (not a multiple of 4).
func.func @gemm(%a: memref<100x72xi8>, %b: memref<72x90xi8>, %c: memref<100x90xi32>) {
  linalg.matmul ins(%a, %b : memref<100x72xi8>, memref<72x90xi8>) outs(%c : memref<100x90xi32>)
  return
}
