// Decode attention plans written by hand are checked.
// RUN: sm-opt %s -split-input-file -verify-diagnostics --sm-plan-kernels --sm-attention-to-kernels --sm-contractions-to-kernels
// RUN: sm-opt %s -split-input-file -verify-diagnostics --sm-attention-to-kernels --sm-contractions-to-kernels

// Subgroups must be positive.
#id = affine_map<(b, i, j) -> (b, i, j)>
module attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
func.func @no_subgroups(%q: memref<2x1x64xf16>, %k: memref<2x100x64xf16>, %v: memref<2x100x64xf16>, %o: memref<2x1x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %s = memref.alloc() : memref<2x1x100xf32>
  // The attention's first op carries what is wrong with it.
  // expected-error @+1 {{cannot get the decode attention kernels of its plan: subgroups must be from 1 to 32}}
  linalg.fill ins(%zero : f32) outs(%s : memref<2x1x100xf32>)
  linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
    ins(%q, %k : memref<2x1x64xf16>, memref<2x100x64xf16>) outs(%s : memref<2x1x100xf32>)
  %p = memref.alloc() : memref<2x1x100xf32>
  linalg.softmax {subgroup_matrix.plan = #subgroup_matrix.decode_attention_plan<keys_per_workgroup = 64, subgroups = 0>}
    dimension(2) ins(%s : memref<2x1x100xf32>) outs(%p : memref<2x1x100xf32>)
  %pn = memref.alloc() : memref<2x1x100xf16>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p : memref<2x1x100xf32>) outs(%pn : memref<2x1x100xf16>) {
  ^bb0(%x: f32, %y: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  }
  linalg.fill ins(%zero : f32) outs(%o : memref<2x1x64xf32>)
  linalg.batch_matmul ins(%pn, %v : memref<2x1x100xf16>, memref<2x100x64xf16>) outs(%o : memref<2x1x64xf32>)
  return
}
}

// -----

// A head dimension of 80 halves is no power of two times the eight an
// invocation reads.
#id = affine_map<(b, i, j) -> (b, i, j)>
module attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
func.func @head_dim_80(%q: memref<2x1x80xf16>, %k: memref<2x100x80xf16>, %v: memref<2x100x80xf16>, %o: memref<2x1x80xf32>) {
  %zero = arith.constant 0.0 : f32
  %s = memref.alloc() : memref<2x1x100xf32>
  // expected-error @+1 {{cannot get the decode attention kernels of its plan: its head dimension is not a power of two times the elements an invocation reads, up to a subgroup}}
  linalg.fill ins(%zero : f32) outs(%s : memref<2x1x100xf32>)
  linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
    ins(%q, %k : memref<2x1x80xf16>, memref<2x100x80xf16>) outs(%s : memref<2x1x100xf32>)
  %p = memref.alloc() : memref<2x1x100xf32>
  linalg.softmax {subgroup_matrix.plan = #subgroup_matrix.decode_attention_plan<keys_per_workgroup = 64, subgroups = 4>}
    dimension(2) ins(%s : memref<2x1x100xf32>) outs(%p : memref<2x1x100xf32>)
  %pn = memref.alloc() : memref<2x1x100xf16>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p : memref<2x1x100xf32>) outs(%pn : memref<2x1x100xf16>) {
  ^bb0(%x: f32, %y: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  }
  linalg.fill ins(%zero : f32) outs(%o : memref<2x1x80xf32>)
  linalg.batch_matmul ins(%pn, %v : memref<2x1x100xf16>, memref<2x100x80xf16>) outs(%o : memref<2x1x80xf32>)
  return
}
}

// -----

// Sixteen subgroups (a key each: on a target that reads elements one at a
// time, four per invocation, a key's row takes the whole subgroup), every
// one keeping a maximum, a sum and 128 weighted values in f32:
// 16 x (128 + 2) x 4 = 8320 bytes, more than the 8192 this target gives a
// workgroup.
#id = affine_map<(b, i, j) -> (b, i, j)>
module attributes {subgroup_matrix.target = #subgroup_matrix.target<"small-gpu", subgroup_size = 32, configs = [<16x16x16, f16 -> f32>], workgroup_memory = 8192>} {
func.func @states_too_large(%q: memref<2x1x128xf16>, %k: memref<2x100x128xf16>, %v: memref<2x100x128xf16>, %o: memref<2x1x128xf32>) {
  %zero = arith.constant 0.0 : f32
  %s = memref.alloc() : memref<2x1x100xf32>
  // expected-error @+1 {{cannot get the decode attention kernels of its plan: its 16 subgroups would keep 8320 bytes of states in workgroup memory, more than the target's 8192}}
  linalg.fill ins(%zero : f32) outs(%s : memref<2x1x100xf32>)
  linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
    ins(%q, %k : memref<2x1x128xf16>, memref<2x100x128xf16>) outs(%s : memref<2x1x100xf32>)
  %p = memref.alloc() : memref<2x1x100xf32>
  linalg.softmax {subgroup_matrix.plan = #subgroup_matrix.decode_attention_plan<keys_per_workgroup = 64, subgroups = 16>}
    dimension(2) ins(%s : memref<2x1x100xf32>) outs(%p : memref<2x1x100xf32>)
  %pn = memref.alloc() : memref<2x1x100xf16>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p : memref<2x1x100xf32>) outs(%pn : memref<2x1x100xf16>) {
  ^bb0(%x: f32, %y: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  }
  linalg.fill ins(%zero : f32) outs(%o : memref<2x1x128xf32>)
  linalg.batch_matmul ins(%pn, %v : memref<2x1x100xf16>, memref<2x100x128xf16>) outs(%o : memref<2x1x128xf32>)
  return
}
}

// -----

// An invocation reads at most 16 keys at once.
#id = affine_map<(b, i, j) -> (b, i, j)>
module attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
func.func @too_many_keys_in_flight(%q: memref<2x1x64xf16>, %k: memref<2x100x64xf16>, %v: memref<2x100x64xf16>, %o: memref<2x1x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %s = memref.alloc() : memref<2x1x100xf32>
  // The attention's first op carries what is wrong with it.
  // expected-error @+1 {{cannot get the decode attention kernels of its plan: keys_in_flight must be from 1 to 16}}
  linalg.fill ins(%zero : f32) outs(%s : memref<2x1x100xf32>)
  linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
    ins(%q, %k : memref<2x1x64xf16>, memref<2x100x64xf16>) outs(%s : memref<2x1x100xf32>)
  %p = memref.alloc() : memref<2x1x100xf32>
  linalg.softmax {subgroup_matrix.plan = #subgroup_matrix.decode_attention_plan<keys_per_workgroup = 64, subgroups = 4, keys_in_flight = 32>}
    dimension(2) ins(%s : memref<2x1x100xf32>) outs(%p : memref<2x1x100xf32>)
  %pn = memref.alloc() : memref<2x1x100xf16>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p : memref<2x1x100xf32>) outs(%pn : memref<2x1x100xf16>) {
  ^bb0(%x: f32, %y: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  }
  linalg.fill ins(%zero : f32) outs(%o : memref<2x1x64xf32>)
  linalg.batch_matmul ins(%pn, %v : memref<2x1x100xf16>, memref<2x100x64xf16>) outs(%o : memref<2x1x64xf32>)
  return
}
}

// -----

// A plan gives its runs one way: keys_per_workgroup or runs.
#id = affine_map<(b, i, j) -> (b, i, j)>
module attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
func.func @runs_twice(%q: memref<2x1x64xf32>, %k: memref<2x100x64xf32>, %v: memref<2x100x64xf32>, %o: memref<2x1x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %s = memref.alloc() : memref<2x1x100xf32>
  // expected-error @+1 {{cannot get the decode attention kernels of its plan: it must give one of keys_per_workgroup and runs, positive}}
  linalg.fill ins(%zero : f32) outs(%s : memref<2x1x100xf32>)
  linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
    ins(%q, %k : memref<2x1x64xf32>, memref<2x100x64xf32>) outs(%s : memref<2x1x100xf32>)
  %p = memref.alloc() : memref<2x1x100xf32>
  linalg.softmax {subgroup_matrix.plan = #subgroup_matrix.decode_attention_plan<keys_per_workgroup = 64, runs = 2, subgroups = 4>}
    dimension(2) ins(%s : memref<2x1x100xf32>) outs(%p : memref<2x1x100xf32>)
  linalg.fill ins(%zero : f32) outs(%o : memref<2x1x64xf32>)
  linalg.batch_matmul ins(%p, %v : memref<2x1x100xf32>, memref<2x100x64xf32>) outs(%o : memref<2x1x64xf32>)
  return
}
}

// -----

// A key count known only at run time (a KV cache's length) cannot be cut
// into runs of a given length: the runs must share the keys.
#id = affine_map<(b, i, j) -> (b, i, j)>
module attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
func.func @dynamic_keys_per_workgroup(%q: memref<2x1x64xf32>, %k: memref<2x?x64xf32>, %v: memref<2x?x64xf32>, %o: memref<2x1x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %c1 = arith.constant 1 : index
  %keys = memref.dim %k, %c1 : memref<2x?x64xf32>
  %s = memref.alloc(%keys) : memref<2x1x?xf32>
  // expected-error @+1 {{cannot get the decode attention kernels of its plan: its key count is dynamic, so the plan must give runs, not keys_per_workgroup}}
  linalg.fill ins(%zero : f32) outs(%s : memref<2x1x?xf32>)
  linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
    ins(%q, %k : memref<2x1x64xf32>, memref<2x?x64xf32>) outs(%s : memref<2x1x?xf32>)
  %p = memref.alloc(%keys) : memref<2x1x?xf32>
  linalg.softmax {subgroup_matrix.plan = #subgroup_matrix.decode_attention_plan<keys_per_workgroup = 64, subgroups = 4>}
    dimension(2) ins(%s : memref<2x1x?xf32>) outs(%p : memref<2x1x?xf32>)
  linalg.fill ins(%zero : f32) outs(%o : memref<2x1x64xf32>)
  linalg.batch_matmul ins(%p, %v : memref<2x1x?xf32>, memref<2x?x64xf32>) outs(%o : memref<2x1x64xf32>)
  return
}
}
