// A tuning table that cannot be read or parsed stops the pass with a
// message naming the file and line.
// RUN: not sm-opt %s --sm-tile-matmul="target=nvidia-h100 tuning-table=%S/Inputs/tuning-bad-option.tuning" 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: not sm-opt %s --sm-linalg-to-gpu="target=nvidia-h100 tuning-table=%S/Inputs/tuning-bad-size.tuning" 2>&1 | FileCheck %s --check-prefix=SIZE
// RUN: not sm-opt %s --sm-tile-matmul="target=nvidia-h100 tuning-table=%S/Inputs/no-such-table.tuning" 2>&1 | FileCheck %s --check-prefix=MISSING

// OPTION: error: {{.*}}tuning-bad-option.tuning:3: unknown option 'tiles-n'
// SIZE: error: {{.*}}tuning-bad-size.tuning:1: '1024x1024' is not MxNxK with positive sizes
// MISSING: error: cannot read tuning table '{{.*}}no-such-table.tuning'
func.func @gemm(%a: memref<64x64xf16>, %b: memref<64x64xf16>, %c: memref<64x64xf32>) {
  linalg.matmul ins(%a, %b : memref<64x64xf16>, memref<64x64xf16>) outs(%c : memref<64x64xf32>)
  return
}
