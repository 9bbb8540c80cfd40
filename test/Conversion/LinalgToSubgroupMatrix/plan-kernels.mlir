// sm-plan-kernels attaches each kernel's tiling to the op it replaces; the
// kernel stages follow a plan, attached by the pass or written by hand.
// RUN: sm-opt %s -split-input-file --sm-bufferize-program --sm-plan-kernels | FileCheck %s
// RUN: sm-opt %s -split-input-file --sm-bufferize-program --sm-plan-kernels=nv-coopmat2=false | FileCheck %s --check-prefix=KHR
// RUN: sm-opt %s -split-input-file --sm-bufferize-program --sm-plan-kernels --sm-attention-to-kernels --sm-contractions-to-kernels | FileCheck %s --check-prefix=KERNEL

// The device's sizes are the target's: 512x512 of C is 16 tiles of
// 128x128, which fill 16 compute units; K is not split. The target is
// what the H100's driver reports (--list-coopmat): its vendor gets the
// NVIDIA tiling (128x128 tiles, 16-byte copies, groups of 8 tile rows).

// CHECK-LABEL: func.func @units_filled
// CHECK: linalg.matmul {subgroup_matrix.fusion_group = {{[0-9]+}} : i64, subgroup_matrix.plan = #subgroup_matrix.contraction_plan<config = <16x16x16, f16 -> f32>, tile_m = 128, tile_n = 128, tile_k = 32, subgroups_m = 2, subgroups_n = 2, padding = 8, stages = 1, prefetch = false, preload_c = false, stage_b_transposed = false, vector_width = 8, group_m = 8, split_k = 1>}
// KERNEL-LABEL: func.func @units_filled
// KERNEL: gpu.launch_func @kernels::@matmul_0 blocks in (%{{.*}}, %{{.*}}, %c1{{(_[0-9]+)?}})
module attributes {subgroup_matrix.target = #subgroup_matrix.target<"NVIDIA H100 80GB HBM3", subgroup_size = 32, configs = [<16x16x16, f16 -> f32>], compute_units = 16, workgroup_memory = 49152, float64, int64, vendor = nvidia>} {
func.func @units_filled(%a: memref<512x8192xf16>, %b: memref<8192x512xf16>, %c: memref<512x512xf32>) {
  linalg.matmul ins(%a, %b : memref<512x8192xf16>, memref<8192x512xf16>) outs(%c : memref<512x512xf32>)
  return
}
}

// -----

// Twice the compute units: the fewest parts that give each a workgroup, 2.

// CHECK-LABEL: func.func @units_doubled
// CHECK: split_k = 2>
// KERNEL-LABEL: func.func @units_doubled
// KERNEL: %[[PARTS:.*]] = arith.constant 2 : index
// KERNEL: gpu.launch_func @kernels::@matmul_0 blocks in (%{{.*}}, %{{.*}}, %[[PARTS]])
// KERNEL: gpu.launch_func @kernels::@elementwise_1
module attributes {subgroup_matrix.target = #subgroup_matrix.target<"NVIDIA H100 80GB HBM3", subgroup_size = 32, configs = [<16x16x16, f16 -> f32>], compute_units = 32, workgroup_memory = 49152, float64, int64, vendor = nvidia>} {
func.func @units_doubled(%a: memref<512x8192xf16>, %b: memref<8192x512xf16>, %c: memref<512x512xf32>) {
  linalg.matmul ins(%a, %b : memref<512x8192xf16>, memref<8192x512xf16>) outs(%c : memref<512x512xf32>)
  return
}
}

// -----

// A target of unknown size and vendor: the generic tiling (64x64 tiles, two
// stages, element copies), no split.

// CHECK-LABEL: func.func @unknown_device
// CHECK: linalg.matmul {subgroup_matrix.fusion_group = {{[0-9]+}} : i64, subgroup_matrix.plan = #subgroup_matrix.contraction_plan<config = <16x16x16, f16 -> f32>, tile_m = 64, tile_n = 64, tile_k = 32, subgroups_m = 2, subgroups_n = 2, padding = 8, stages = 2, prefetch = true, preload_c = false, stage_b_transposed = false, vector_width = 1, group_m = 1, split_k = 1>}
module attributes {subgroup_matrix.target = #subgroup_matrix.target<"my-gpu", subgroup_size = 32, configs = [<16x16x16, f16 -> f32>]>} {
func.func @unknown_device(%a: memref<512x8192xf16>, %b: memref<8192x512xf16>, %c: memref<512x512xf32>) {
  linalg.matmul ins(%a, %b : memref<512x8192xf16>, memref<8192x512xf16>) outs(%c : memref<512x512xf32>)
  return
}
}

// -----

// A plan written by hand is kept by sm-plan-kernels and followed: 64x32
// tiles of 2x1 subgroups give a grid of 4 x 2 workgroups of 64 invocations.

// CHECK-LABEL: func.func @by_hand
// CHECK: tile_m = 64, tile_n = 32, tile_k = 16, subgroups_m = 2, subgroups_n = 1
// KERNEL-LABEL: func.func @by_hand
// KERNEL-DAG: %[[C4:.*]] = arith.constant 4 : index
// KERNEL-DAG: %[[C2:.*]] = arith.constant 2 : index
// KERNEL-DAG: %[[C64:.*]] = arith.constant 64 : index
// KERNEL: gpu.launch_func @kernels::@matmul_0 blocks in (%[[C4]], %[[C2]], %{{.*}}) threads in (%[[C64]], %{{.*}}, %{{.*}})
module attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
func.func @by_hand(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %c: memref<128x128xf32>) {
  linalg.matmul {subgroup_matrix.plan = #subgroup_matrix.contraction_plan<config = <16x16x16, f16 -> f32>, tile_m = 64, tile_n = 32, tile_k = 16, subgroups_m = 2, subgroups_n = 1, padding = 8, stages = 2, prefetch = true, preload_c = false, stage_b_transposed = false, vector_width = 1, group_m = 1, split_k = 1>}
    ins(%a, %b : memref<128x64xf16>, memref<64x128xf16>) outs(%c : memref<128x128xf32>)
  return
}
}

// -----

// Attention: the plan goes on its softmax, and its products get none (they
// are the attention kernel's). On the H100: 4 subgroups, 64 keys per step,
// the softmax on result matrices (VK_NV_cooperative_matrix2 reduces and maps
// them in registers); 128 invocations. Planned for SPV_KHR_cooperative_matrix
// alone (nv-coopmat2=false), the softmax runs on scalars through workgroup
// memory.

// CHECK-LABEL: func.func @attention
// CHECK: linalg.batch_matmul
// CHECK-NOT: subgroup_matrix.plan
// CHECK-SAME: ins
// CHECK: linalg.softmax {subgroup_matrix.plan = #subgroup_matrix.attention_plan<config = <16x16x16, f16 -> f32>, subgroups = 4, key_block = 64, softmax_in_workgroup_memory = false>}
// KHR-LABEL: func.func @attention
// KHR: linalg.softmax {subgroup_matrix.plan = #subgroup_matrix.attention_plan<config = <16x16x16, f16 -> f32>, subgroups = 4, key_block = 64, softmax_in_workgroup_memory = true>}
// CHECK: linalg.batch_matmul
// CHECK-NOT: subgroup_matrix.plan
// CHECK-SAME: ins
// KERNEL-LABEL: func.func @attention
// KERNEL-DAG: %[[C128:.*]] = arith.constant 128 : index
// KERNEL: gpu.launch_func @kernels::@attention_0 blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in (%[[C128]], %{{.*}}, %{{.*}})
// KERNEL-NOT: linalg.
#id = affine_map<(b, i, j) -> (b, i, j)>
module attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
func.func @attention(%q: memref<2x64x64xf16>, %k: memref<2x64x64xf16>, %v: memref<2x64x64xf16>, %o: memref<2x64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %s = memref.alloc() : memref<2x64x64xf32>
  linalg.fill ins(%zero : f32) outs(%s : memref<2x64x64xf32>)
  linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
    ins(%q, %k : memref<2x64x64xf16>, memref<2x64x64xf16>) outs(%s : memref<2x64x64xf32>)
  %p = memref.alloc() : memref<2x64x64xf32>
  linalg.softmax dimension(2) ins(%s : memref<2x64x64xf32>) outs(%p : memref<2x64x64xf32>)
  %pn = memref.alloc() : memref<2x64x64xf16>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p : memref<2x64x64xf32>) outs(%pn : memref<2x64x64xf16>) {
  ^bb0(%x: f32, %y: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  }
  linalg.fill ins(%zero : f32) outs(%o : memref<2x64x64xf32>)
  linalg.batch_matmul ins(%pn, %v : memref<2x64x64xf16>, memref<2x64x64xf16>) outs(%o : memref<2x64x64xf32>)
  return
}
}

// -----

// An attention plan written by hand: 2 subgroups (64 invocations, 32
// queries per workgroup: 2 workgroups per batch), 32 keys per step, the
// softmax on result matrices, whose kernel stages K and V in buffers of
// their own (32 rows of 64 + 8 elements each).

// CHECK-LABEL: func.func @attention_by_hand
// CHECK: subgroups = 2, key_block = 32, softmax_in_workgroup_memory = false
// KERNEL-LABEL: gpu.module @kernels
// KERNEL: gpu.func @attention_0({{.*}}) workgroup(%{{.*}} : memref<2304xf16, #gpu.address_space<workgroup>>, %{{.*}} : memref<2304xf16, #gpu.address_space<workgroup>>, %{{.*}} : memref<512xf32, #gpu.address_space<workgroup>>)
// KERNEL-LABEL: func.func @attention_by_hand
// KERNEL-DAG: %[[C2:.*]] = arith.constant 2 : index
// KERNEL-DAG: %[[C64:.*]] = arith.constant 64 : index
// KERNEL: gpu.launch_func @kernels::@attention_0 blocks in (%[[C2]], %{{.*}}, %{{.*}}) threads in (%[[C64]], %{{.*}}, %{{.*}})
#id = affine_map<(b, i, j) -> (b, i, j)>
module attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
func.func @attention_by_hand(%q: memref<2x64x64xf16>, %k: memref<2x64x64xf16>, %v: memref<2x64x64xf16>, %o: memref<2x64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %s = memref.alloc() : memref<2x64x64xf32>
  linalg.fill ins(%zero : f32) outs(%s : memref<2x64x64xf32>)
  linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
    ins(%q, %k : memref<2x64x64xf16>, memref<2x64x64xf16>) outs(%s : memref<2x64x64xf32>)
  %p = memref.alloc() : memref<2x64x64xf32>
  linalg.softmax {subgroup_matrix.plan = #subgroup_matrix.attention_plan<config = <16x16x16, f16 -> f32>, subgroups = 2, key_block = 32, softmax_in_workgroup_memory = false>}
    dimension(2) ins(%s : memref<2x64x64xf32>) outs(%p : memref<2x64x64xf32>)
  %pn = memref.alloc() : memref<2x64x64xf16>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p : memref<2x64x64xf32>) outs(%pn : memref<2x64x64xf16>) {
  ^bb0(%x: f32, %y: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  }
  linalg.fill ins(%zero : f32) outs(%o : memref<2x64x64xf32>)
  linalg.batch_matmul ins(%pn, %v : memref<2x64x64xf16>, memref<2x64x64xf16>) outs(%o : memref<2x64x64xf32>)
  return
}
}

// -----

// The H100's matrix units lack f32: an f32 product is planned with the
// configuration of its emulation (2 x 4 result matrices of 16x16 per
// subgroup, whose operands the emulation reads in place from the staged
// tiles; one matrix deep per step, the next one prefetched) and its kernel
// asks to be emulated.
// CHECK-LABEL: func.func @f32_emulated
// CHECK: linalg.matmul {subgroup_matrix.fusion_group = {{[0-9]+}} : i64, subgroup_matrix.plan = #subgroup_matrix.contraction_plan<config = <16x16x16, f32 -> f32>, tile_m = 64, tile_n = 128, tile_k = 16, subgroups_m = 2, subgroups_n = 2, {{.*}} prefetch = true,
// KERNEL: gpu.func @matmul_0(
// KERNEL-SAME: subgroup_matrix.emulate
// KERNEL: subgroup_matrix.mma {{.*}} : !subgroup_matrix.left<16x16xf32>, !subgroup_matrix.right<16x16xf32> -> !subgroup_matrix.result<16x16xf32>
// KERNEL-LABEL: func.func @f32_emulated
// KERNEL: gpu.launch_func @kernels::@matmul_0
module attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
func.func @f32_emulated(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  return
}
}

// -----

// The plan stage decides the fusion and records it: the contraction and the
// consumer its kernel takes in (a bias and ReLU) carry one fusion group,
// and the kernel stage fuses what was recorded: one launch.
// CHECK-LABEL: func.func @fused_epilogue
// CHECK: linalg.matmul {subgroup_matrix.fusion_group = [[GROUP:[0-9]+]] : i64, subgroup_matrix.plan =
// CHECK: linalg.generic {{.*}}subgroup_matrix.fusion_group = [[GROUP]] : i64
// KERNEL-LABEL: func.func @fused_epilogue
// KERNEL-COUNT-1: gpu.launch_func
// KERNEL-NOT: gpu.launch_func
// KERNEL: return
module attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
func.func @fused_epilogue(%a: tensor<128x64xf16>, %b: tensor<64x128xf16>, %bias: tensor<128xf32>) -> tensor<128x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128x128xf32>) -> tensor<128x128xf32>
  %p = linalg.matmul ins(%a, %b : tensor<128x64xf16>, tensor<64x128xf16>) outs(%f : tensor<128x128xf32>) -> tensor<128x128xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%p, %bias : tensor<128x128xf32>, tensor<128xf32>) outs(%e : tensor<128x128xf32>) {
  ^bb0(%x: f32, %c: f32, %o: f32):
    %s = arith.addf %x, %c : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<128x128xf32>
  return %y : tensor<128x128xf32>
}
}
