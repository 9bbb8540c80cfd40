// RUN: sm-opt %s --sm-linalg-to-gpu=target=nvidia-h100 | FileCheck %s
// RUN: sm-opt %s --sm-linalg-to-gpu=target=intel-xe-hpc | FileCheck %s --check-prefix=REGISTERS
// (The numbers are checked by test/Integration/LinalgToGPU: attention_*.)

// Causal attention as front-ends write it (scores, a scale and causal mask
// through linalg.index, softmax, P cast to f16, P V, O cast to f16) is one
// flash-attention kernel: Q held as left matrices, a loop over key blocks
// computing S with mma, the running maximum and sum, P as a left matrix for
// P V, and O divided by the sum and cast once at the end. The scores,
// probabilities and their casts disappear from the program.

// On Vulkan (opaque matrices) the softmax of a key block runs on scalars:
// S goes to workgroup memory once, the two invocations of each row apply
// the program's scale and mask (on positions (query, key)), combine their
// maxima and sums with shuffles, write P (f16) and the rescale, and P and
// the rescale come back as matrices. V reuses K's buffer.
// CHECK-LABEL: gpu.module @kernels
// Every workgroup's 64 queries are there, so Q's left matrices load
// straight from its buffer (no staging).
// CHECK: gpu.func @attention_0(%[[Q:[a-z0-9]+]]: memref<8192xf16>, %{{.*}}: memref<8192xf16>, %{{.*}}: memref<8192xf16>, %{{.*}}: memref<8192xf16>)
// CHECK-SAME: workgroup(%[[KV:.*]] : memref<{{[0-9]+}}xf16, #gpu.address_space<workgroup>>, %[[S:.*]] : memref<{{[0-9]+}}xf32, #gpu.address_space<workgroup>>, %[[P:.*]] : memref<{{[0-9]+}}xf16, #gpu.address_space<workgroup>>, %[[F:.*]] : memref<1024xf32, #gpu.address_space<workgroup>>)
// CHECK-NOT: gpu.barrier
// CHECK: subgroup_matrix.load %[[Q]]{{.*}} -> !subgroup_matrix.left<16x16xf16>
// The mask is causal: key blocks past the workgroup's last query are not
// visited.
// CHECK: %[[NEEDED:.*]] = arith.divui
// CHECK: %[[STEPS:.*]] = arith.minui %{{.*}}, %[[NEEDED]] : index
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[STEPS]] {{.*}} iter_args(%[[MAX:[a-z0-9_]+]] = %{{[a-z0-9_]+}}, %[[SUM:[a-z0-9_]+]] = %{{[a-z0-9_]+}}, %{{.*}}) -> (f32, f32, !subgroup_matrix.result<16x16xf32>
// CHECK: subgroup_matrix.load %[[KV]]{{.*}} col_major : memref<{{.*}}> -> !subgroup_matrix.right<16x16xf16>
// CHECK: subgroup_matrix.mma
// CHECK: subgroup_matrix.store %{{.*}}, %[[S]]
// CHECK: gpu.barrier
// CHECK: memref.load %[[S]]
// CHECK: arith.mulf
// CHECK: arith.cmpi ugt
// CHECK: arith.maximumf
// CHECK: gpu.shuffle xor
// CHECK: %[[NEWMAX:.*]] = arith.maximumf %[[MAX]]
// CHECK: math.exp
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: memref.store %{{.*}}, %[[P]]
// CHECK: gpu.shuffle xor
// CHECK: arith.mulf %[[SUM]]
// CHECK: memref.store %{{.*}}, %[[F]]
// CHECK: gpu.barrier
// CHECK: %[[FACTORS:.*]] = subgroup_matrix.load %[[F]]{{.*}} -> !subgroup_matrix.result<16x16xf32>
// CHECK: subgroup_matrix.map %{{.*}}, %[[FACTORS]]
// CHECK: arith.mulf
// CHECK: subgroup_matrix.load %[[P]]{{.*}} -> !subgroup_matrix.left<16x16xf16>
// CHECK: subgroup_matrix.mma
// CHECK: scf.yield %[[NEWMAX]]
// CHECK: arith.divf
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK-NOT: subgroup_matrix.reduce
// CHECK-LABEL: func.func @causal_attention
// CHECK-NOT: linalg.
// CHECK: gpu.launch_func @kernels::@attention_0 blocks in (%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) threads in
// CHECK-NOT: gpu.launch_func
// CHECK-NOT: linalg.

// Where the matrices' layouts are known (Intel, Metal), S and P stay
// result matrices: map, the row maximum a reduction, convert to a left
// matrix, whose row sums are its product with a matrix of ones.
// REGISTERS-LABEL: gpu.module @kernels
// REGISTERS: scf.for
// REGISTERS: subgroup_matrix.mma
// REGISTERS: subgroup_matrix.map
// REGISTERS: arith.cmpi ugt
// REGISTERS: arith.select
// REGISTERS: subgroup_matrix.reduce max rows %{{.*}} fastmath<nnan>
// REGISTERS: math.exp
// REGISTERS: %[[P:.*]] = subgroup_matrix.convert %{{.*}} : !subgroup_matrix.result<{{.*}}xf32> -> !subgroup_matrix.left<{{.*}}xf16>
// REGISTERS: %[[ONE:.*]] = arith.constant 1.000000e+00 : f16
// REGISTERS: %[[ONES:.*]] = subgroup_matrix.splat %[[ONE]] : f16 -> !subgroup_matrix.right<{{.*}}xf16>
// REGISTERS: subgroup_matrix.mma %[[P]], %[[ONES]]
// REGISTERS-NOT: subgroup_matrix.reduce add
// REGISTERS: subgroup_matrix.mma %[[P]]
// REGISTERS: scf.yield
// REGISTERS-NOT: gpu.shuffle
// REGISTERS-LABEL: func.func @causal_attention
func.func @causal_attention(%q: tensor<2x64x64xf16>, %k: tensor<2x64x64xf16>, %v: tensor<2x64x64xf16>) -> tensor<2x64x64xf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x64x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x64x64xf32>) -> tensor<2x64x64xf32>
  %s = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
    ins(%q, %k : tensor<2x64x64xf16>, tensor<2x64x64xf16>) outs(%f : tensor<2x64x64xf32>) -> tensor<2x64x64xf32>
  %e1 = tensor.empty() : tensor<2x64x64xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x64x64xf32>) outs(%e1 : tensor<2x64x64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %c = arith.constant 0.125 : f32
    %scaled = arith.mulf %x, %c : f32
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %above = arith.cmpi ugt, %j, %i : index
    %ninf = arith.constant 0xFF800000 : f32
    %y = arith.select %above, %ninf, %scaled : f32
    linalg.yield %y : f32
  } -> tensor<2x64x64xf32>
  %e2 = tensor.empty() : tensor<2x64x64xf32>
  %p = linalg.softmax dimension(2) ins(%m : tensor<2x64x64xf32>) outs(%e2 : tensor<2x64x64xf32>) -> tensor<2x64x64xf32>
  %e3 = tensor.empty() : tensor<2x64x64xf16>
  %pn = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p : tensor<2x64x64xf32>) outs(%e3 : tensor<2x64x64xf16>) {
  ^bb0(%x: f32, %o: f16):
    %y = arith.truncf %x : f32 to f16
    linalg.yield %y : f16
  } -> tensor<2x64x64xf16>
  %e4 = tensor.empty() : tensor<2x64x64xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<2x64x64xf32>) -> tensor<2x64x64xf32>
  %out = linalg.batch_matmul ins(%pn, %v : tensor<2x64x64xf16>, tensor<2x64x64xf16>) outs(%f4 : tensor<2x64x64xf32>) -> tensor<2x64x64xf32>
  %e5 = tensor.empty() : tensor<2x64x64xf16>
  %outn = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%out : tensor<2x64x64xf32>) outs(%e5 : tensor<2x64x64xf16>) {
  ^bb0(%x: f32, %o: f16):
    %y = arith.truncf %x : f32 to f16
    linalg.yield %y : f16
  } -> tensor<2x64x64xf16>
  return %outn : tensor<2x64x64xf16>
}
