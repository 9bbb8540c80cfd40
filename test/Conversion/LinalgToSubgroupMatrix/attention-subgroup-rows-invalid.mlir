// RUN: sm-opt %s -split-input-file --sm-plan-kernels="attention-subgroup-rows=32" --sm-attention-to-kernels -verify-diagnostics

// A height above the target's configurations needs flexible dimensions:
// RDNA3 has 16x16x16 matrices and no VK_NV_cooperative_matrix2.

#id = affine_map<(b, i, j) -> (b, i, j)>
module attributes {subgroup_matrix.target = #subgroup_matrix.target<"amd-rdna3">} {
func.func @no_flexible_dimensions(%q: memref<2x64x64xf16>, %k: memref<2x64x64xf16>, %v: memref<2x64x64xf16>, %o: memref<2x64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %s = memref.alloc() : memref<2x64x64xf32>
  // expected-error @+1 {{cannot become an attention kernel for target 'amd-rdna3': it has no 'f16' -> f32 configuration 32 rows high (or flexible dimensions of a granularity dividing it, with nv-coopmat2) with N = K dividing 64 and the head dimension 64}}
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

// Flexible dimensions, but no granularity divides 40 rows (the H100's are
// 16 high); the plan written by hand is checked as the option is.

#id = affine_map<(b, i, j) -> (b, i, j)>
module attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
func.func @no_granularity(%q: memref<2x80x64xf16>, %k: memref<2x64x64xf16>, %v: memref<2x64x64xf16>, %o: memref<2x80x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %s = memref.alloc() : memref<2x80x64xf32>
  // expected-error @+1 {{cannot become an attention kernel for target 'nvidia-h100': it has no 'f16' -> f32 configuration 40 rows high}}
  linalg.fill ins(%zero : f32) outs(%s : memref<2x80x64xf32>)
  linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
    ins(%q, %k : memref<2x80x64xf16>, memref<2x64x64xf16>) outs(%s : memref<2x80x64xf32>)
  %p = memref.alloc() : memref<2x80x64xf32>
  linalg.softmax {subgroup_matrix.plan = #subgroup_matrix.attention_plan<config = <40x16x16, f16 -> f32>, subgroups = 2, key_block = 32, softmax_in_workgroup_memory = false>}
    dimension(2) ins(%s : memref<2x80x64xf32>) outs(%p : memref<2x80x64xf32>)
  %pn = memref.alloc() : memref<2x80x64xf16>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p : memref<2x80x64xf32>) outs(%pn : memref<2x80x64xf16>) {
  ^bb0(%x: f32, %y: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  }
  linalg.fill ins(%zero : f32) outs(%o : memref<2x80x64xf32>)
  linalg.batch_matmul ins(%pn, %v : memref<2x80x64xf16>, memref<2x64x64xf16>) outs(%o : memref<2x80x64xf32>)
  return
}
}
