// A decode attention plan written by hand: runs of 64 keys (two of the 100,
// the second short) over workgroups of two subgroups, each invocation
// reading two keys' parts of K (and of V) before using them (64 halves a
// row: 8 invocations per key, 4 keys per subgroup).
// RUN: sm-opt %s --sm-plan-kernels --sm-attention-to-kernels | FileCheck %s
// RUN: sm-opt %s --sm-plan-kernels --sm-attention-to-kernels --sm-lower-to-vulkan=target=nvidia-h100 | sm-translate --serialize-spirv -o %t.spv
// RUN: spirv-val --target-env vulkan1.3 %t.spv

// CHECK-LABEL: gpu.func @attention_0(
// CHECK-SAME: %{{.*}}: memref<128xf16>, %[[K:[a-z0-9]+]]: memref<12800xf16>, %[[V:[a-z0-9]+]]: memref<12800xf16>
// CHECK-SAME: known_block_size = array<i32: 64, 1, 1>
// CHECK: scf.for
// CHECK-COUNT-2: vector.load %[[K]]
// CHECK-NOT: vector.load %[[K]]
// CHECK: scf.yield
// CHECK-LABEL: func.func @two_keys_in_flight
// CHECK: %[[RUNS:.*]] = arith.constant 2 : index
// CHECK: gpu.launch_func @kernels::@attention_0 blocks in (%[[RUNS]],
#id = affine_map<(b, i, j) -> (b, i, j)>
module attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
func.func @two_keys_in_flight(%q: memref<2x1x64xf16>, %k: memref<2x100x64xf16>, %v: memref<2x100x64xf16>, %o: memref<2x1x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %s = memref.alloc() : memref<2x1x100xf32>
  linalg.fill ins(%zero : f32) outs(%s : memref<2x1x100xf32>)
  linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
    ins(%q, %k : memref<2x1x64xf16>, memref<2x100x64xf16>) outs(%s : memref<2x1x100xf32>)
  %p = memref.alloc() : memref<2x1x100xf32>
  linalg.softmax {subgroup_matrix.plan = #subgroup_matrix.decode_attention_plan<keys_per_workgroup = 64, subgroups = 2, keys_in_flight = 2>}
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

