// 100x90x72 with B stored N x K.
func.func @gemm(%a: memref<100x72xi8>, %b: memref<90x72xi8>, %c: memref<100x90xi32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%a, %b : memref<100x72xi8>, memref<90x72xi8>) outs(%c : memref<100x90xi32>)
  return
}
