func.func @accumulate(%a: memref<64x128xf16>, %b: memref<128x48xf16>,
                      %c: memref<64x48xf32>) {
  linalg.matmul ins(%a, %b : memref<64x128xf16>, memref<128x48xf16>)
                outs(%c : memref<64x48xf32>)
  return
}
