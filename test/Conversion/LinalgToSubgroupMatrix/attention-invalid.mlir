// RUN: sm-opt %s -split-input-file -verify-diagnostics --sm-linalg-to-gpu="target=nvidia-h100 attention-key-block=24"

// Attention tiling that was asked for and cannot be honoured is reported
// on the attention's first op, not dropped for separate kernels.

func.func @attention(%q: memref<2x64x64xf16>, %k: memref<2x64x64xf16>, %v: memref<2x64x64xf16>, %o: memref<2x64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %s = memref.alloc() : memref<2x64x64xf32>
  // expected-error @+1 {{cannot become an attention kernel: a key block of 24 is not a multiple of the matrix width 16 and depth 16}}
  linalg.fill ins(%zero : f32) outs(%s : memref<2x64x64xf32>)
  linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
    ins(%q, %k : memref<2x64x64xf16>, memref<2x64x64xf16>) outs(%s : memref<2x64x64xf32>)
  %p = memref.alloc() : memref<2x64x64xf32>
  linalg.softmax dimension(2) ins(%s : memref<2x64x64xf32>) outs(%p : memref<2x64x64xf32>)
  %pn = memref.alloc() : memref<2x64x64xf16>
  linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p : memref<2x64x64xf32>) outs(%pn : memref<2x64x64xf16>) {
  ^bb0(%x: f32, %y: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  }
  linalg.fill ins(%zero : f32) outs(%o : memref<2x64x64xf32>)
  linalg.batch_matmul ins(%pn, %v : memref<2x64x64xf16>, memref<2x64x64xf16>) outs(%o : memref<2x64x64xf32>)
  return
}
