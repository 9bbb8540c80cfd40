// RUN: sm-opt %s -split-input-file --sm-linalg-to-gpu="target=nvidia-h100 split-k=4" -verify-diagnostics

// A forced split of K needs a contraction without a batch.
func.func @batched(%a: memref<2x32x512xf16>, %b: memref<2x512x32xf16>, %c: memref<2x32x32xf32>) {
  // expected-error @+1 {{cannot split K in 4 parts: a split needs no batch, static sizes and a number of K steps it divides}}
  linalg.batch_matmul ins(%a, %b : memref<2x32x512xf16>, memref<2x512x32xf16>) outs(%c : memref<2x32x32xf32>)
  return
}

// -----

// ... and K steps (here 3 of 32) that the parts divide.
func.func @indivisible(%a: memref<32x96xf16>, %b: memref<96x32xf16>, %c: memref<32x32xf32>) {
  // expected-error @+1 {{cannot split K in 4 parts}}
  linalg.matmul ins(%a, %b : memref<32x96xf16>, memref<96x32xf16>) outs(%c : memref<32x32xf32>)
  return
}

// -----

// ... and sizes known when the kernel is built (the workspace holds one
// product per part).
func.func @dynamic(%a: memref<?x512xf16>, %b: memref<512x32xf16>, %c: memref<?x32xf32>) {
  // expected-error @+1 {{cannot split K in 4 parts}}
  linalg.matmul ins(%a, %b : memref<?x512xf16>, memref<512x32xf16>) outs(%c : memref<?x32xf32>)
  return
}
