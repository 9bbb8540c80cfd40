// RUN: sm-opt %s -split-input-file --sm-plan-kernels="attention-subgroup-rows=32" | FileCheck %s
// RUN: sm-opt %s -split-input-file --sm-plan-kernels="attention-subgroup-rows=32" --sm-attention-to-kernels | FileCheck %s --check-prefix=KERNEL
// RUN: not sm-opt %s -split-input-file --sm-plan-kernels="attention-subgroup-rows=32 nv-coopmat2=false" 2>&1 | FileCheck %s --check-prefix=KHR
// RUN: not sm-opt %s -split-input-file --sm-plan-kernels="attention-subgroup-rows=24" 2>&1 | FileCheck %s --check-prefix=GRANULARITY
// RUN: not sm-opt %s -split-input-file --sm-plan-kernels="attention-subgroup-rows=-16" 2>&1 | FileCheck %s --check-prefix=NEGATIVE

// Two matrix heights of queries per subgroup: with VK_NV_cooperative_matrix2
// flexible dimensions (the H100's granularity 16x16x16 f16 -> f32) S and O
// are 32 x 16 result matrices and Q and P 32 x 16 left matrices, so each
// subgroup reads every K and V matrix once for 32 queries; 8 subgroups make
// a workgroup of 256 queries (the block is whole: Q loads from its buffer). Without cooperative matrix 2, or at a height
// that no granularity divides, the planner says why.

// CHECK-LABEL: func.func @attention
// CHECK: linalg.softmax {subgroup_matrix.plan = #subgroup_matrix.attention_plan<config = <32x16x16, f16 -> f32>, subgroups = 8, key_block = 64, softmax_in_workgroup_memory = false>}
// KERNEL-LABEL: gpu.func @attention_0
// KERNEL-SAME: known_block_size = array<i32: 256, 1, 1>
// KERNEL: %[[Q:.*]] = subgroup_matrix.load %arg0[{{.*}}] stride {{.*}} -> !subgroup_matrix.left<32x16xf16>
// KERNEL: scf.for
// KERNEL: %[[KT:.*]] = subgroup_matrix.load %arg4[{{.*}}] stride {{.*}} col_major : {{.*}} -> !subgroup_matrix.right<16x16xf16>
// KERNEL: subgroup_matrix.mma %[[Q]], %[[KT]], %{{.*}} : !subgroup_matrix.left<32x16xf16>, !subgroup_matrix.right<16x16xf16> -> !subgroup_matrix.result<32x16xf32>
// KERNEL: subgroup_matrix.reduce max rows {{.*}} : !subgroup_matrix.result<32x16xf32>
// KERNEL: subgroup_matrix.convert {{.*}} : !subgroup_matrix.result<32x16xf32> -> !subgroup_matrix.left<32x16xf16>
// KHR: error: 'linalg.fill' op cannot become an attention kernel for target 'nvidia-h100': it has no 'f16' -> f32 configuration 32 rows high (or flexible dimensions of a granularity dividing it, with nv-coopmat2)
// GRANULARITY: error: 'linalg.fill' op cannot become an attention kernel for target 'nvidia-h100': it has no 'f16' -> f32 configuration 24 rows high (or flexible dimensions of a granularity dividing it, with nv-coopmat2)
// NEGATIVE: error: 'linalg.fill' op cannot become an attention kernel: attention-subgroup-rows must not be negative
#id = affine_map<(b, i, j) -> (b, i, j)>
module attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
func.func @attention(%q: memref<2x256x64xf16>, %k: memref<2x64x64xf16>, %v: memref<2x64x64xf16>, %o: memref<2x256x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %s = memref.alloc() : memref<2x256x64xf32>
  linalg.fill ins(%zero : f32) outs(%s : memref<2x256x64xf32>)
  linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
    ins(%q, %k : memref<2x256x64xf16>, memref<2x64x64xf16>) outs(%s : memref<2x256x64xf32>)
  %p = memref.alloc() : memref<2x256x64xf32>
  linalg.softmax dimension(2) ins(%s : memref<2x256x64xf32>) outs(%p : memref<2x256x64xf32>)
  %pn = memref.alloc() : memref<2x256x64xf16>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p : memref<2x256x64xf32>) outs(%pn : memref<2x256x64xf16>) {
  ^bb0(%x: f32, %y: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  }
  linalg.fill ins(%zero : f32) outs(%o : memref<2x256x64xf32>)
  linalg.batch_matmul ins(%pn, %v : memref<2x256x64xf16>, memref<2x64x64xf16>) outs(%o : memref<2x256x64xf32>)
  return
}
}

// -----

// A plan written by hand with a flexible height is checked as the options
// are: 32 rows high is the H100's granularity twice over.

// CHECK-LABEL: func.func @attention_by_hand
// CHECK: config = <32x16x16, f16 -> f32>, subgroups = 2, key_block = 32
// KERNEL-LABEL: func.func @attention(
// KERNEL: gpu.func @attention_0
// KERNEL-SAME: known_block_size = array<i32: 64, 1, 1>
// KERNEL: func.func @attention_by_hand
#id = affine_map<(b, i, j) -> (b, i, j)>
module attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
func.func @attention_by_hand(%q: memref<2x64x64xf16>, %k: memref<2x64x64xf16>, %v: memref<2x64x64xf16>, %o: memref<2x64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %s = memref.alloc() : memref<2x64x64xf32>
  linalg.fill ins(%zero : f32) outs(%s : memref<2x64x64xf32>)
  linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
    ins(%q, %k : memref<2x64x64xf16>, memref<2x64x64xf16>) outs(%s : memref<2x64x64xf32>)
  %p = memref.alloc() : memref<2x64x64xf32>
  linalg.softmax {subgroup_matrix.plan = #subgroup_matrix.attention_plan<config = <32x16x16, f16 -> f32>, subgroups = 2, key_block = 32, softmax_in_workgroup_memory = false>}
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
