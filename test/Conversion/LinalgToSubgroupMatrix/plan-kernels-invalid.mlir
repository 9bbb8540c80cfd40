// Plans written by hand are checked as the options are.
// RUN: sm-opt %s -split-input-file -verify-diagnostics --sm-plan-kernels --sm-attention-to-kernels --sm-contractions-to-kernels
// RUN: sm-opt %s -split-input-file -verify-diagnostics --sm-attention-to-kernels --sm-contractions-to-kernels

module attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
func.func @wrong_config(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %c: memref<128x128xf32>) {
  // expected-error @+1 {{cannot be tiled by its plan: the configuration #subgroup_matrix.config<16x16x16, f16 -> f16> is not one of the target's for 'f16' -> 'f32'}}
  linalg.matmul {subgroup_matrix.plan = #subgroup_matrix.contraction_plan<config = <16x16x16, f16 -> f16>, tile_m = 64, tile_n = 64, tile_k = 32, subgroups_m = 2, subgroups_n = 2, padding = 8, stages = 2, prefetch = true, preload_c = false, stage_b_transposed = false, vector_width = 1, group_m = 1, split_k = 1>}
    ins(%a, %b : memref<128x64xf16>, memref<64x128xf16>) outs(%c : memref<128x128xf32>)
  return
}
}

// -----

module attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
func.func @ragged_tile(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %c: memref<128x128xf32>) {
  // expected-error @+1 {{cannot be tiled: the workgroup tile 48x64 does not split into 2x2 subgroups of whole 16x16 result matrices}}
  linalg.matmul {subgroup_matrix.plan = #subgroup_matrix.contraction_plan<config = <16x16x16, f16 -> f32>, tile_m = 48, tile_n = 64, tile_k = 32, subgroups_m = 2, subgroups_n = 2, padding = 8, stages = 2, prefetch = true, preload_c = false, stage_b_transposed = false, vector_width = 1, group_m = 1, split_k = 1>}
    ins(%a, %b : memref<128x64xf16>, memref<64x128xf16>) outs(%c : memref<128x128xf32>)
  return
}
}

// -----

module attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
func.func @no_parts(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %c: memref<128x128xf32>) {
  // expected-error @+1 {{cannot be tiled by its plan: split_k = 0 must be at least 1}}
  linalg.matmul {subgroup_matrix.plan = #subgroup_matrix.contraction_plan<config = <16x16x16, f16 -> f32>, tile_m = 64, tile_n = 64, tile_k = 32, subgroups_m = 2, subgroups_n = 2, padding = 8, stages = 2, prefetch = true, preload_c = false, stage_b_transposed = false, vector_width = 1, group_m = 1, split_k = 0>}
    ins(%a, %b : memref<128x64xf16>, memref<64x128xf16>) outs(%c : memref<128x128xf32>)
  return
}
}

// -----

module attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
func.func @wrong_kind(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %c: memref<128x128xf32>) {
  // expected-error @+1 {{'subgroup_matrix.plan' must be a #subgroup_matrix.contraction_plan, #subgroup_matrix.dot_product_plan, #subgroup_matrix.attention_plan or #subgroup_matrix.decode_attention_plan attribute, got 3 : i64}}
  linalg.matmul {subgroup_matrix.plan = 3}
    ins(%a, %b : memref<128x64xf16>, memref<64x128xf16>) outs(%c : memref<128x128xf32>)
  return
}
}

// -----

// A softmax that is no attention's cannot take an attention plan.
module attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
func.func @lone_softmax(%x: memref<8x64xf32>, %y: memref<8x64xf32>) {
  // expected-error @+1 {{has an attention plan but is not the softmax of an attention this kernel computes}}
  linalg.softmax {subgroup_matrix.plan = #subgroup_matrix.attention_plan<config = <16x16x16, f16 -> f32>, subgroups = 4, key_block = 64, softmax_in_workgroup_memory = true>}
    dimension(1) ins(%x : memref<8x64xf32>) outs(%y : memref<8x64xf32>)
  return
}
}

// -----

#id = affine_map<(b, i, j) -> (b, i, j)>
module attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
func.func @ragged_key_block(%q: memref<2x64x64xf16>, %k: memref<2x64x64xf16>, %v: memref<2x64x64xf16>, %o: memref<2x64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %s = memref.alloc() : memref<2x64x64xf32>
  // The attention's first op carries what is wrong with it.
  // expected-error @+1 {{cannot become an attention kernel: a key block of 24 is not a multiple of the matrix width 16 and depth 16}}
  linalg.fill ins(%zero : f32) outs(%s : memref<2x64x64xf32>)
  linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
    ins(%q, %k : memref<2x64x64xf16>, memref<2x64x64xf16>) outs(%s : memref<2x64x64xf32>)
  %p = memref.alloc() : memref<2x64x64xf32>
  linalg.softmax {subgroup_matrix.plan = #subgroup_matrix.attention_plan<config = <16x16x16, f16 -> f32>, subgroups = 4, key_block = 24, softmax_in_workgroup_memory = true>}
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

// The H100 has 16x8x16 f16 -> f32, but P V reads P as a left matrix, which
// needs a configuration whose N equals its K: the plan's is not the one the
// attention takes.
#id = affine_map<(b, i, j) -> (b, i, j)>
module attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
func.func @attention_wrong_config(%q: memref<2x64x64xf16>, %k: memref<2x64x64xf16>, %v: memref<2x64x64xf16>, %o: memref<2x64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %s = memref.alloc() : memref<2x64x64xf32>
  // expected-error @+1 {{cannot become an attention kernel by its plan: the configuration #subgroup_matrix.config<16x8x16, f16 -> f32> is not the target's for it (#subgroup_matrix.config<16x16x16, f16 -> f32>)}}
  linalg.fill ins(%zero : f32) outs(%s : memref<2x64x64xf32>)
  linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
    ins(%q, %k : memref<2x64x64xf16>, memref<2x64x64xf16>) outs(%s : memref<2x64x64xf32>)
  %p = memref.alloc() : memref<2x64x64xf32>
  linalg.softmax {subgroup_matrix.plan = #subgroup_matrix.attention_plan<config = <16x8x16, f16 -> f32>, subgroups = 4, key_block = 64, softmax_in_workgroup_memory = true>}
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

module attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
func.func @dot_products_of_b_k_by_n(%a: memref<1x64xf16>, %b: memref<64x128xf16>, %c: memref<1x128xf32>) {
  // expected-error @+1 {{cannot take the dot products of its plan: B is stored K x N (the dot products read B stored N x K, as a linear layer's weight is)}}
  linalg.matmul {subgroup_matrix.plan = #subgroup_matrix.dot_product_plan<subgroups = 8, columns = 1, vector_width = 8, unroll = 2>}
    ins(%a, %b : memref<1x64xf16>, memref<64x128xf16>) outs(%c : memref<1x128xf32>)
  return
}
}

// -----

module attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
func.func @dot_products_ragged_width(%a: memref<1x100xf16>, %b: memref<128x100xf16>, %c: memref<1x128xf32>) {
  // expected-error @+1 {{cannot take the dot products of its plan: vector_width = 8 does not divide K (100)}}
  linalg.matmul
    indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
    {subgroup_matrix.plan = #subgroup_matrix.dot_product_plan<subgroups = 8, columns = 1, vector_width = 8, unroll = 2>} ins(%a, %b : memref<1x100xf16>, memref<128x100xf16>) outs(%c : memref<1x128xf32>)
  return
}
}

// -----

module attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
func.func @dot_products_too_many_invocations(%a: memref<1x64xf16>, %b: memref<128x64xf16>, %c: memref<1x128xf32>) {
  // expected-error @+1 {{cannot take the dot products of its plan: subgroups, columns and unroll must be positive, vector_width from 1 to 64, and a workgroup at most 1024 invocations (2048)}}
  linalg.matmul
    indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
    {subgroup_matrix.plan = #subgroup_matrix.dot_product_plan<subgroups = 64, columns = 1, vector_width = 8, unroll = 2>} ins(%a, %b : memref<1x64xf16>, memref<128x64xf16>) outs(%c : memref<1x128xf32>)
  return
}
}
