// 100x92x72 with B stored K x N (rows of 92 bytes: a multiple of 4, which
// transposing B as it is staged needs).
func.func @gemm(%a: memref<100x72xi8>, %b: memref<72x92xi8>, %c: memref<100x92xi32>) {
  linalg.matmul ins(%a, %b : memref<100x72xi8>, memref<72x92xi8>) outs(%c : memref<100x92xi32>)
  return
}
