// RUN: sm-opt --sm-tile-matmul="target=nvidia-h100 tile-m=72" --verify-diagnostics %s
// RUN: not sm-opt --sm-tile-matmul="target=nvidia-h100 tile-k=24" %s 2>&1 | FileCheck %s --check-prefix=DEPTH
// RUN: not sm-opt --sm-tile-matmul="target=nvidia-h100 stages=3" %s 2>&1 | FileCheck %s --check-prefix=STAGES
// RUN: not sm-opt --sm-tile-matmul="target=nvidia-h100 prefetch=2" %s 2>&1 | FileCheck %s --check-prefix=PREFETCH
// RUN: not sm-opt --sm-tile-matmul="target=nvidia-h100 stages=2 prefetch=0" %s 2>&1 | FileCheck %s --check-prefix=NO-PREFETCH
// RUN: not sm-opt --sm-tile-matmul="target=nvidia-h100 preload-c=2" %s 2>&1 | FileCheck %s --check-prefix=PRELOAD
// RUN: not sm-opt --sm-tile-matmul="target=nvidia-h100 stage-b-transposed=2" %s 2>&1 | FileCheck %s --check-prefix=STAGE-B
// RUN: not sm-opt --sm-tile-matmul="target=nvidia-h100 stage-b-transposed=1" %s 2>&1 | FileCheck %s --check-prefix=STAGE-B-TYPE
// RUN: not sm-opt --sm-tile-matmul="target=nvidia-h100 stage-b-transposed=1" %S/Inputs/ragged-s8-s32-transposed.mlir 2>&1 | FileCheck %s --check-prefix=STAGE-B-TYPE
// RUN: not sm-opt --sm-tile-matmul="target=nvidia-h100 stage-b-transposed=1" %S/Inputs/s8-s32-rows-of-90.mlir 2>&1 | FileCheck %s --check-prefix=STAGE-B-ROWS
// RUN: not sm-opt --sm-tile-matmul="target=nvidia-h100 tile-m=256 tile-n=256 subgroups-m=4 subgroups-n=4 stages=2" %s 2>&1 | FileCheck %s --check-prefix=MEMORY
// RUN: not sm-opt --sm-tile-matmul="target=apple-m1 tile-m=64 tile-n=64 tile-k=32 padding=0" %S/Inputs/ragged-f32-f32.mlir 2>&1 | FileCheck %s --check-prefix=METAL
// RUN: not sm-opt --sm-tile-matmul="target=nvidia-h100 vector-width=3" %s 2>&1 | FileCheck %s --check-prefix=WIDTH
// RUN: not sm-opt --sm-tile-matmul %s 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not sm-opt --sm-tile-matmul="target=nvidia-h100 group-m=-2" %s 2>&1 | FileCheck %s --check-prefix=NEGATIVE

// DEPTH: tile-k = 24 is not a multiple of the matrix depth K = 16
// STAGES: stages = 3; only 1 and 2 are supported
// PREFETCH: prefetch = 2; only 0 and 1 are supported
// PRELOAD: preload-c = 2; only 0 and 1 are supported
// STAGE-B: stage-b-transposed = 2; only 0 and 1 are supported
// STAGE-B-TYPE: stage-b-transposed = 1 needs 8-bit inputs with B given K x N (row-major) and no gathering prologue
// STAGE-B-ROWS: cannot be tiled: transposing B as it is staged needs its rows (of 90 elements), its 64x128 tile and the padded rows in workgroup memory to be multiples of 4 columns and 8 rows
// NO-PREFETCH: two stages always load the next step before multiplying this one; prefetch = 0 needs stages = 1
// MEMORY: the tiling needs 74752 bytes of workgroup memory, more than the 49152 a kernel may use on target 'nvidia-h100'
// METAL: the tiling needs 33792 bytes of workgroup memory, more than the 32768 a kernel may use on target 'apple-m1'
// WIDTH: vector-width = 3 copies 48 bits at once; only 1 element, 64 or 128 bits are supported
// NEGATIVE: tile sizes, subgroup counts, the vector width and the group size must be positive
// TARGET: cannot be tiled: no target (pass target=NAME or set subgroup_matrix.target on the module)

func.func @gemm(%a: memref<256x256xf16>, %b: memref<256x256xf16>, %c: memref<256x256xf32>) {
  // expected-error @+1 {{the workgroup tile 72x128 does not split into 2x2 subgroups of whole 16x16 result matrices}}
  linalg.matmul ins(%a, %b : memref<256x256xf16>, memref<256x256xf16>) outs(%c : memref<256x256xf32>)
  return
}
