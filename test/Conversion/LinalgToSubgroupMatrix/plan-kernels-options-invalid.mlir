// RUN: sm-opt %s --sm-plan-kernels="target=nvidia-h100 split-k=-2" -verify-diagnostics

func.func @negative_split(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %c: memref<128x128xf32>) {
  // expected-error @+1 {{cannot be tiled: split-k = -2 must not be negative (0: where it fills the device)}}
  linalg.matmul ins(%a, %b : memref<128x64xf16>, memref<64x128xf16>) outs(%c : memref<128x128xf32>)
  return
}
