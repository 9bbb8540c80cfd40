func.func @accumulate(%a: memref<64x128xf32>, %b: memref<128x48xf32>,
                      %c: memref<64x48xf32>) {
  linalg.matmul ins(%a, %b : memref<64x128xf32>, memref<128x48xf32>)
                outs(%c : memref<64x48xf32>)
  return
}
