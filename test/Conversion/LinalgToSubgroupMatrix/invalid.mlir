// RUN: sm-opt --sm-tile-matmul=target=nvidia-h100 --split-input-file --verify-diagnostics %s

func.func @tensors(%a: tensor<64x64xf16>, %b: tensor<64x64xf16>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{cannot be tiled into a kernel: it works on tensors, and sm-tile-matmul needs memrefs (bufferize first, or use sm-linalg-to-gpu)}}
  %r = linalg.matmul ins(%a, %b : tensor<64x64xf16>, tensor<64x64xf16>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// -----

func.func @strided(%a: memref<64x64xf16, strided<[128, 1]>>, %b: memref<64x64xf16>, %c: memref<64x64xf32>) {
  // expected-error @+1 {{is not a contiguous row-major memref}}
  linalg.matmul ins(%a, %b : memref<64x64xf16, strided<[128, 1]>>, memref<64x64xf16>) outs(%c : memref<64x64xf32>)
  return
}

// -----

func.func @mixed_inputs(%a: memref<64x64xf16>, %b: memref<64x64xbf16>, %c: memref<64x64xf32>) {
  // expected-error @+1 {{A ('f16') and B ('bf16') have different element types}}
  linalg.matmul ins(%a, %b : memref<64x64xf16>, memref<64x64xbf16>) outs(%c : memref<64x64xf32>)
  return
}

// -----

func.func @bf16_into_bf16(%a: memref<64x64xbf16>, %b: memref<64x64xbf16>, %c: memref<64x64xbf16>) {
  // expected-error @+1 {{'bf16' inputs accumulated into 'bf16' is not a subgroup-matrix multiplication}}
  linalg.matmul ins(%a, %b : memref<64x64xbf16>, memref<64x64xbf16>) outs(%c : memref<64x64xbf16>)
  return
}

// -----

func.func @transposed_c(%a: memref<64x64xf16>, %b: memref<64x64xf16>, %c: memref<64x64xf32>) {
  // expected-error @+1 {{cannot be tiled into a kernel: C must be indexed [m, n] (after the batch)}}
  linalg.matmul
    indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (n, m)>]
    ins(%a, %b : memref<64x64xf16>, memref<64x64xf16>) outs(%c : memref<64x64xf32>)
  return
}

// -----

func.func @workgroup_memory(%a: memref<64x64xf16, 3>, %b: memref<64x64xf16>, %c: memref<64x64xf32>) {
  // expected-error @+1 {{cannot be tiled into a kernel: 'memref<64x64xf16, 3>' is not in GPU global memory}}
  linalg.matmul ins(%a, %b : memref<64x64xf16, 3>, memref<64x64xf16>) outs(%c : memref<64x64xf32>)
  return
}
