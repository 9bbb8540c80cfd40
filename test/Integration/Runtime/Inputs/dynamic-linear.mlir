// A product on dynamic sizes: M and K read off x, N off w.
func.func @linear(%x: memref<?x?xf16>, %w: memref<?x?xf16>,
                  %y: memref<?x?xf32>) {
  linalg.matmul ins(%x, %w : memref<?x?xf16>, memref<?x?xf16>)
                outs(%y : memref<?x?xf32>)
  return
}
