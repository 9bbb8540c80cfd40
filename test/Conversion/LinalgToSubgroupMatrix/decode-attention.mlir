// RUN: sm-opt %s -split-input-file --sm-linalg-to-gpu=target=nvidia-h100 | FileCheck %s
// RUN: sm-opt %s -split-input-file --sm-linalg-to-gpu="target=nvidia-h100 report=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PLAN
// RUN: sm-opt %s -split-input-file --sm-linalg-to-gpu="target=nvidia-h100 decode-attention-queries=0" | FileCheck %s --check-prefix=FLASH
// RUN: sm-opt %s --sm-linalg-to-gpu=target=nvidia-h100 --sm-lower-to-vulkan=target=nvidia-h100 | sm-translate --serialize-spirv -o %t.spv
// RUN: spirv-val --target-env vulkan1.3 %t.spv
// (The numbers: the decode_attention_* cases of test/Integration/LinalgToGPU.)

// One query row per head against 1000 keys (32 heads, head dimension 128):
// the keys split into runs of 128 (eight workgroups per head, 256 in all,
// two per compute unit of the H100; the last run short), each workgroup's invocations reading a key's row 16 at a time (8
// halves each, two keys per subgroup), the running maximum, sum and
// weighted values combined through workgroup memory into one partial per
// run; a second kernel, a workgroup per head, combines the runs.
// CHECK-LABEL: gpu.func @attention_0(
// CHECK-SAME: %[[Q:[a-z0-9]+]]: memref<4096xf16>, %[[K:[a-z0-9]+]]: memref<4096000xf16>, %[[V:[a-z0-9]+]]: memref<4096000xf16>, %[[O:[a-z0-9]+]]: memref<32768xf32>, %[[ML:[a-z0-9]+]]: memref<512xf32>)
// CHECK-SAME: workgroup(%{{.*}} : memref<16xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<1024xf32, #gpu.address_space<workgroup>>)
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>
// CHECK: scf.for
// CHECK: vector.load %[[K]][%{{.*}}] : memref<4096000xf16>, vector<8xf16>
// CHECK: vector.load %[[V]][%{{.*}}] : memref<4096000xf16>, vector<8xf16>
// CHECK: gpu.shuffle xor
// CHECK: arith.maximumf %{{.*}} fastmath<nnan> : f32
// CHECK: math.exp
// CHECK: scf.yield
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[O]]
// CHECK-LABEL: gpu.func @attention_0_combine(
// CHECK-SAME: %{{.*}}: memref<32768xf32>, %{{.*}}: memref<512xf32>, %[[OUT:[a-z0-9]+]]: memref<4096xf32>)
// CHECK: arith.divf
// CHECK: memref.store %{{.*}}, %[[OUT]]
// CHECK-LABEL: func.func @decode_attention
// CHECK: %[[PARTIAL_O:.*]] = memref.alloc() : memref<32768xf32>
// CHECK: %[[PARTIAL_ML:.*]] = memref.alloc() : memref<512xf32>
// CHECK: gpu.launch_func @kernels::@attention_0 blocks in (%{{.*}}, %{{.*}}, %{{.*}})
// CHECK: gpu.launch_func @kernels::@attention_0_combine
// CHECK: memref.dealloc %[[PARTIAL_O]]
// CHECK-NOT: gpu.launch_func
// PLAN: remark: became kernel 'attention_0': the keys of a few queries split over workgroups, their runs combined by 'attention_0_combine'
// FLASH-LABEL: gpu.func @attention_0(
// FLASH: subgroup_matrix.mma
// FLASH-NOT: gpu.func @attention_0_combine
func.func @decode_attention(%q: tensor<32x1x128xf16>, %k: tensor<32x1000x128xf16>, %v: tensor<32x1000x128xf16>) -> tensor<32x1x128xf32> {
  %zero = arith.constant 0.0 : f32
  %es = tensor.empty() : tensor<32x1x1000xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<32x1x1000xf32>) -> tensor<32x1x1000xf32>
  %s = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%q, %k : tensor<32x1x128xf16>, tensor<32x1000x128xf16>) outs(%fs : tensor<32x1x1000xf32>) -> tensor<32x1x1000xf32>
  %em = tensor.empty() : tensor<32x1x1000xf32>
  %scale = arith.constant 0.08838834764 : f32
  %m = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<32x1x1000xf32>) outs(%em : tensor<32x1x1000xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %scale : f32
    linalg.yield %y : f32
  } -> tensor<32x1x1000xf32>
  %ep = tensor.empty() : tensor<32x1x1000xf32>
  %p = linalg.softmax dimension(2) ins(%m : tensor<32x1x1000xf32>) outs(%ep : tensor<32x1x1000xf32>) -> tensor<32x1x1000xf32>
  %p16 = tensor.empty() : tensor<32x1x1000xf16>
  %pc = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p : tensor<32x1x1000xf32>) outs(%p16 : tensor<32x1x1000xf16>) {
  ^bb0(%x: f32, %o: f16):
    %y = arith.truncf %x : f32 to f16
    linalg.yield %y : f16
  } -> tensor<32x1x1000xf16>
  %eo = tensor.empty() : tensor<32x1x128xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<32x1x128xf32>) -> tensor<32x1x128xf32>
  %out = linalg.batch_matmul ins(%pc, %v : tensor<32x1x1000xf16>, tensor<32x1000x128xf16>) outs(%fo : tensor<32x1x128xf32>) -> tensor<32x1x128xf32>
  return %out : tensor<32x1x128xf32>
}

// -----

// The same against a KV cache whose length is known only at run time: as
// many runs as before whatever the count (runs = 8: the 256 workgroups of
// the H100 plan above), the count read off K and passed to the first
// kernel, each run an equal share of the keys in whole steps of 32
// (four subgroups of two keys, four keys in flight), ending at the count.
// The partials and the combining kernel keep their static sizes.
// CHECK-LABEL: gpu.func @attention_0(
// CHECK-SAME: %[[K:[a-z0-9]+]]: memref<?xf16>, %{{[a-z0-9]+}}: memref<?xf16>, %{{[a-z0-9]+}}: memref<32768xf32>, %{{[a-z0-9]+}}: memref<512xf32>, %[[KEYS:[a-z0-9]+]]: index)
// CHECK: %[[SHARE:.*]] = arith.ceildivui %[[KEYS]], %{{.*}} : index
// CHECK: %[[STEPS:.*]] = arith.ceildivui %[[SHARE]], %{{.*}} : index
// CHECK: %[[LENGTH:.*]] = arith.muli %[[STEPS]], %{{.*}} : index
// CHECK: %[[START:.*]] = arith.muli %{{.*}}, %[[LENGTH]] : index
// CHECK: %[[END:.*]] = arith.addi %[[START]], %[[LENGTH]] : index
// CHECK: %[[CLAMPED:.*]] = arith.minui %[[END]], %[[KEYS]] : index
// CHECK: scf.for %{{.*}} = %[[START]] to %[[CLAMPED]]
// CHECK-LABEL: gpu.func @attention_0_combine(
// CHECK-SAME: %{{.*}}: memref<32768xf32>, %{{.*}}: memref<512xf32>, %{{.*}}: memref<4096xf32>)
// CHECK-LABEL: func.func @decode_attention_cache
// CHECK: memref.collapse_shape %{{.*}} : memref<32x?x128xf16> into memref<?xf16>
// CHECK: memref.collapse_shape %{{.*}} : memref<32x?x128xf16> into memref<?xf16>
// CHECK: %[[COUNT:.*]] = memref.dim %{{.*}}, %{{.*}} : memref<32x?x128xf16>
// CHECK: gpu.launch_func @kernels::@attention_0 blocks in (%{{.*}}, %{{.*}}, %{{.*}}) {{.*}} args({{.*}}, %[[COUNT]] : index)
// CHECK: gpu.launch_func @kernels::@attention_0_combine
// PLAN: remark: became kernel 'attention_0': the keys of a few queries split over workgroups, their runs combined by 'attention_0_combine'
// FLASH-LABEL: gpu.func @attention_0(
// FLASH: subgroup_matrix.mma
func.func @decode_attention_cache(%q: tensor<32x1x128xf16>, %k: tensor<32x?x128xf16>, %v: tensor<32x?x128xf16>) -> tensor<32x1x128xf32> {
  %zero = arith.constant 0.0 : f32
  %c1 = arith.constant 1 : index
  %keys = tensor.dim %k, %c1 : tensor<32x?x128xf16>
  %es = tensor.empty(%keys) : tensor<32x1x?xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<32x1x?xf32>) -> tensor<32x1x?xf32>
  %s = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%q, %k : tensor<32x1x128xf16>, tensor<32x?x128xf16>) outs(%fs : tensor<32x1x?xf32>) -> tensor<32x1x?xf32>
  %em = tensor.empty(%keys) : tensor<32x1x?xf32>
  %scale = arith.constant 0.08838834764 : f32
  %m = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<32x1x?xf32>) outs(%em : tensor<32x1x?xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %scale : f32
    linalg.yield %y : f32
  } -> tensor<32x1x?xf32>
  %ep = tensor.empty(%keys) : tensor<32x1x?xf32>
  %p = linalg.softmax dimension(2) ins(%m : tensor<32x1x?xf32>) outs(%ep : tensor<32x1x?xf32>) -> tensor<32x1x?xf32>
  %p16 = tensor.empty(%keys) : tensor<32x1x?xf16>
  %pc = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p : tensor<32x1x?xf32>) outs(%p16 : tensor<32x1x?xf16>) {
  ^bb0(%x: f32, %o: f16):
    %y = arith.truncf %x : f32 to f16
    linalg.yield %y : f16
  } -> tensor<32x1x?xf16>
  %eo = tensor.empty() : tensor<32x1x128xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<32x1x128xf32>) -> tensor<32x1x128xf32>
  %out = linalg.batch_matmul ins(%pc, %v : tensor<32x1x?xf16>, tensor<32x?x128xf16>) outs(%fo : tensor<32x1x128xf32>) -> tensor<32x1x128xf32>
  return %out : tensor<32x1x128xf32>
}
