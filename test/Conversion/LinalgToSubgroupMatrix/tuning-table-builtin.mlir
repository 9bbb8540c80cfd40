// The table shipped for nvidia-h100 (data/tuning/nvidia-h100.tuning) is
// compiled in and used by default: f16 -> f16 at 4096^3 runs in 256x256
// tiles of 8 subgroups.
// RUN: sm-opt %s --sm-tile-matmul=target=nvidia-h100 | FileCheck %s
// RUN: sm-opt %s --split-input-file --sm-tile-matmul=target=nvidia-h100 | FileCheck %s --check-prefix=PREFETCH
// RUN: sm-opt %s --split-input-file --sm-tile-matmul="target=nvidia-h100 tuning-table=none" | FileCheck %s --check-prefix=NO-PREFETCH
// RUN: sm-opt %s --sm-tile-matmul="target=nvidia-h100 tuning-table=none" | FileCheck %s --check-prefix=NONE
// Other presets ship no table.
// RUN: sm-opt %s --sm-tile-matmul=target=amd-rdna3 | FileCheck %s --check-prefix=AMD

// CHECK-LABEL: func.func @f16_accumulators
// CHECK: blocks in (%c16{{(_[0-9]+)?}}, %c16{{(_[0-9]+)?}}, %{{[a-z0-9_]+}}) threads in (%c256{{(_[0-9]+)?}},
// NONE-LABEL: func.func @f16_accumulators
// NONE: blocks in (%c32{{(_[0-9]+)?}}, %c32{{(_[0-9]+)?}}, %{{[a-z0-9_]+}}) threads in (%c128{{(_[0-9]+)?}},
// AMD-LABEL: func.func @f16_accumulators
// AMD: blocks in (%c32{{(_[0-9]+)?}}, %c32{{(_[0-9]+)?}},
func.func @f16_accumulators(%a: memref<4096x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<4096x4096xf16>) {
  linalg.matmul ins(%a, %b : memref<4096x4096xf16>, memref<4096x4096xf16>) outs(%c : memref<4096x4096xf16>)
  return
}

// -----

// f16 -> f32 at 4096^3: the default tiles, the accumulators loaded from C
// before the loop and the next K step loaded into registers while this one
// multiplies (the first step is stored and a barrier passed before the
// loop); without the table, C is added after the loop and one step is
// multiplied at a time.
// PREFETCH: gpu.func @matmul({{.*}}, %[[C:[a-z0-9]+]]: memref<16777216xf32>)
// PREFETCH: subgroup_matrix.load %[[C]]
// PREFETCH: gpu.barrier
// PREFETCH-NEXT: scf.for
// NO-PREFETCH: gpu.func @matmul({{.*}}, %[[C:[a-z0-9]+]]: memref<16777216xf32>)
// NO-PREFETCH-NOT: gpu.barrier
// NO-PREFETCH-NOT: subgroup_matrix.load %[[C]]
// NO-PREFETCH: scf.for
func.func @f32_accumulators(%a: memref<4096x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<4096x4096xf32>) {
  linalg.matmul ins(%a, %b : memref<4096x4096xf16>, memref<4096x4096xf16>) outs(%c : memref<4096x4096xf32>)
  return
}
