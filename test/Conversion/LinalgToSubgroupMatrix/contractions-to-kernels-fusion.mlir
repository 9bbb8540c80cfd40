// sm-contractions-to-kernels fuses what sm-plan-kernels recorded, and no
// more: a consumer outside the contraction's fusion group stays in the
// program (a kernel of its own, made by sm-elementwise-to-kernels), though
// the kernel could have taken it in.
// RUN: sm-opt %s -split-input-file --sm-contractions-to-kernels | FileCheck %s

// CHECK-LABEL: func.func @consumer_not_recorded
// CHECK: gpu.launch_func @kernels::@matmul_0
// CHECK: linalg.generic
// CHECK-SAME: subgroup_matrix.fusion_group = 7 : i64
// CHECK: return
module attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
func.func @consumer_not_recorded(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %bias: memref<128xf32>, %y: memref<128x128xf32>) {
  %c = memref.alloc() : memref<128x128xf32>
  linalg.matmul {subgroup_matrix.fusion_group = 3 : i64, subgroup_matrix.plan = #subgroup_matrix.contraction_plan<config = <16x16x16, f16 -> f32>, tile_m = 64, tile_n = 64, tile_k = 32, subgroups_m = 2, subgroups_n = 2, padding = 8, stages = 2, prefetch = true, preload_c = false, stage_b_transposed = false, vector_width = 1, group_m = 1, split_k = 1>}
    ins(%a, %b : memref<128x64xf16>, memref<64x128xf16>) outs(%c : memref<128x128xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"], subgroup_matrix.fusion_group = 7 : i64}
      ins(%c, %bias : memref<128x128xf32>, memref<128xf32>) outs(%y : memref<128x128xf32>) {
  ^bb0(%x: f32, %v: f32, %o: f32):
    %s = arith.addf %x, %v : f32
    linalg.yield %s : f32
  }
  return
}
}

// -----

// A consumer recorded in the contraction's group is fused. The product
// accumulates into an allocation it never filled (undefined values, which
// sm-warn-uninitialized-reductions reports): the kernel still reads that
// buffer as C, so it stays allocated.
// CHECK-LABEL: func.func @consumer_recorded
// CHECK: %[[C:.*]] = memref.alloc() : memref<128x128xf32>
// CHECK: %[[FLAT_C:.*]] = memref.collapse_shape %[[C]]
// CHECK: gpu.launch_func @kernels::@matmul_0
// CHECK-SAME: %[[FLAT_C]] : memref<16384xf32>
// CHECK-NOT: linalg.generic
// CHECK: return
module attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
func.func @consumer_recorded(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %bias: memref<128xf32>, %y: memref<128x128xf32>) {
  %c = memref.alloc() : memref<128x128xf32>
  linalg.matmul {subgroup_matrix.fusion_group = 3 : i64, subgroup_matrix.plan = #subgroup_matrix.contraction_plan<config = <16x16x16, f16 -> f32>, tile_m = 64, tile_n = 64, tile_k = 32, subgroups_m = 2, subgroups_n = 2, padding = 8, stages = 2, prefetch = true, preload_c = false, stage_b_transposed = false, vector_width = 1, group_m = 1, split_k = 1>}
    ins(%a, %b : memref<128x64xf16>, memref<64x128xf16>) outs(%c : memref<128x128xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"], subgroup_matrix.fusion_group = 3 : i64}
      ins(%c, %bias : memref<128x128xf32>, memref<128xf32>) outs(%y : memref<128x128xf32>) {
  ^bb0(%x: f32, %v: f32, %o: f32):
    %s = arith.addf %x, %v : f32
    linalg.yield %s : f32
  }
  return
}
}
