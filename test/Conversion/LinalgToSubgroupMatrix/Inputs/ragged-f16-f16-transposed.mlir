// 100x90x72 f16 accumulated in f16, B stored N x K.
func.func @gemm(%a: memref<100x72xf16>, %b: memref<90x72xf16>, %c: memref<100x90xf16>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%a, %b : memref<100x72xf16>, memref<90x72xf16>) outs(%c : memref<100x90xf16>)
  return
}
