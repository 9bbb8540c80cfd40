// RUN: sm-opt --sm-tile-matmul="target=nvidia-h100 stage-b-transposed=1" --split-input-file --verify-diagnostics %s

// Transposing B as it is staged is for 8-bit inputs only.
func.func @f16_inputs(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %c: memref<128x128xf32>) {
  // expected-error @+1 {{cannot be tiled: stage-b-transposed = 1 needs 8-bit inputs with B given K x N (row-major) and no gathering prologue}}
  linalg.matmul ins(%a, %b : memref<128x64xf16>, memref<64x128xf16>) outs(%c : memref<128x128xf32>)
  return
}

// -----

// A B given N x K is read column-major already.
func.func @b_given_n_by_k(%a: memref<128x64xi8>, %b: memref<128x64xi8>, %c: memref<128x128xi32>) {
  // expected-error @+1 {{cannot be tiled: stage-b-transposed = 1 needs 8-bit inputs with B given K x N (row-major) and no gathering prologue}}
  linalg.matmul
    indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
    ins(%a, %b : memref<128x64xi8>, memref<128x64xi8>) outs(%c : memref<128x128xi32>)
  return
}

// -----

// Rows of 90 bytes cannot be loaded 4 bytes at a time.
func.func @rows_of_90(%a: memref<100x72xi8>, %b: memref<72x90xi8>, %c: memref<100x90xi32>) {
  // expected-error @+1 {{cannot be tiled: transposing B as it is staged needs its rows (of 90 elements), its 64x128 tile and the padded rows in workgroup memory to be multiples of 4 columns and 8 rows}}
  linalg.matmul ins(%a, %b : memref<100x72xi8>, memref<72x90xi8>) outs(%c : memref<100x90xi32>)
  return
}
