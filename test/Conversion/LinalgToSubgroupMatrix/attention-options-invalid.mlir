// RUN: not sm-opt %s --sm-linalg-to-gpu="target=nvidia-h100 attention-key-block=128" 2>&1 | FileCheck %s --check-prefix=MEMORY
// RUN: not sm-opt %s --sm-linalg-to-gpu="target=nvidia-h100 attention-softmax=registers" 2>&1 | FileCheck %s --check-prefix=REGISTERS
// RUN: not sm-opt %s --sm-linalg-to-gpu="target=nvidia-h100 attention-softmax=scratch" 2>&1 | FileCheck %s --check-prefix=NAME

// Attention options that cannot be honoured for this program (head
// dimension 128, an additive mask of one row for every query, which is
// not read as matrices): each says why, where.

// MEMORY: attention-options-invalid.mlir:[[# @LINE + 6]]:3: error: 'linalg.fill' op cannot become an attention kernel: head dimension 128 with 4 subgroups of 16 queries and 128 keys per step needs {{[0-9]+}} bytes of workgroup memory, more than the 49152 a kernel may use
// REGISTERS: attention-options-invalid.mlir:[[# @LINE + 5]]:3: error: 'linalg.fill' op cannot become an attention kernel: its score steps read other tensors (a mask) other than as matrices in whole blocks of queries and keys: the softmax on result matrices cannot (a map does not read memory); use attention-softmax=workgroup-memory
// NAME: error: attention-softmax must be 'registers' or 'workgroup-memory', not 'scratch'
func.func @masked_attention(%q: memref<2x64x128xf16>, %k: memref<2x64x128xf16>, %v: memref<2x64x128xf16>, %mask: memref<64xf32>, %o: memref<2x64x128xf32>) {
  %zero = arith.constant 0.0 : f32
  %s = memref.alloc() : memref<2x64x64xf32>
  linalg.fill ins(%zero : f32) outs(%s : memref<2x64x64xf32>)
  linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
    ins(%q, %k : memref<2x64x128xf16>, memref<2x64x128xf16>) outs(%s : memref<2x64x64xf32>)
  %m = memref.alloc() : memref<2x64x64xf32>
  linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %mask : memref<2x64x64xf32>, memref<64xf32>) outs(%m : memref<2x64x64xf32>) {
  ^bb0(%x: f32, %bias: f32, %y: f32):
    %t = arith.addf %x, %bias : f32
    linalg.yield %t : f32
  }
  %p = memref.alloc() : memref<2x64x64xf32>
  linalg.softmax dimension(2) ins(%m : memref<2x64x64xf32>) outs(%p : memref<2x64x64xf32>)
  %pn = memref.alloc() : memref<2x64x64xf16>
  linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p : memref<2x64x64xf32>) outs(%pn : memref<2x64x64xf16>) {
  ^bb0(%x: f32, %y: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  }
  linalg.fill ins(%zero : f32) outs(%o : memref<2x64x128xf32>)
  linalg.batch_matmul ins(%pn, %v : memref<2x64x64xf16>, memref<2x64x128xf16>) outs(%o : memref<2x64x128xf32>)
  return
}
