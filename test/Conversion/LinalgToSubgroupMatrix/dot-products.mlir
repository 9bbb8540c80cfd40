// Products with a few rows and B stored N x K become one kernel of dot
// products: no subgroup matrices, no workgroup memory, no split of K.
// RUN: sm-opt %s -split-input-file --sm-linalg-to-gpu=target=nvidia-h100 | FileCheck %s
// RUN: sm-opt %s -split-input-file --sm-linalg-to-gpu="target=nvidia-h100 dot-product-rows=0" | FileCheck %s --check-prefix=TILED
// RUN: sm-opt %s -split-input-file --sm-linalg-to-gpu="target=nvidia-h100 report=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PLAN
// RUN: sm-opt %s --sm-linalg-to-gpu=target=nvidia-h100 --sm-lower-to-vulkan=target=nvidia-h100 | sm-translate --serialize-spirv -o %t.spv
// RUN: spirv-val --target-env vulkan1.3 %t.spv

// One token: eight subgroups of one column each, 16-byte reads of B, the
// sum across the subgroup by five shuffles, one launch of N / 8 workgroups.
// CHECK-LABEL: gpu.func @matmul_0(
// CHECK-SAME: %[[A:.*]]: memref<256xf16>, %[[B:.*]]: memref<10240xf16>, %[[C:.*]]: memref<40xf32>)
// CHECK-NOT: workgroup(
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>
// CHECK-NOT: subgroup_matrix.mma
// CHECK: scf.for
// CHECK: vector.load %[[B]][%{{.*}}] : memref<10240xf16>, vector<8xf16>
// CHECK: vector.load %[[A]][%{{.*}}] : memref<256xf16>, vector<8xf16>
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: scf.yield
// CHECK-COUNT-5: gpu.shuffle xor
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %[[C]]
// CHECK-LABEL: func.func @one_token
// CHECK: gpu.launch_func @kernels::@matmul_0 blocks in (%{{.*}}, %{{.*}}, %{{.*}})
// CHECK-NOT: gpu.launch_func
// TILED-LABEL: gpu.func @matmul_0
// TILED: subgroup_matrix.mma
// PLAN: remark: became kernel 'matmul_0': dot products of its few rows with the columns of B, plan #subgroup_matrix.dot_product_plan<subgroups = 8, columns = 1, vector_width = 8, unroll = 2>
// PLAN: remark: fused into kernel 'matmul_0': the sums' initial value
func.func @one_token(%a: tensor<1x256xf16>, %w: tensor<40x256xf16>) -> tensor<1x40xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x40xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x40xf32>) -> tensor<1x40xf32>
  %r = linalg.matmul
    indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
    ins(%a, %w : tensor<1x256xf16>, tensor<40x256xf16>) outs(%f : tensor<1x40xf32>) -> tensor<1x40xf32>
  return %r : tensor<1x40xf32>
}

// -----

// An int4 weight in groups of 32 along K: 32 elements per read (16 bytes
// of packed pairs), the group's scale loaded once per read, the nibbles
// taken apart in registers two at a time: the low nibbles of bytes 0 and 2
// of a word masked into its halves (0x000F000F), placed in the mantissa of
// 1024.0 (0x6400), 1024 + 8 subtracted, the scale multiplied, as vectors of
// two halves; then the high nibbles (shifted by 4), then bytes 1 and 3.
// CHECK-LABEL: gpu.func @matmul_0(
// CHECK-SAME: %[[A:.*]]: memref<512xf16>, %[[Q:.*]]: memref<16384xi8>, %[[S:.*]]: memref<1024xf16>, %[[OUT:.*]]: memref<64xf32>)
// CHECK: scf.for
// CHECK: %[[BYTES:.*]] = vector.load %[[Q]][%{{.*}}] : memref<16384xi8>, vector<16xi8>
// CHECK: %[[WORDS:.*]] = vector.bitcast %[[BYTES]] : vector<16xi8> to vector<4xi32>
// CHECK: %[[WORD:.*]] = vector.extract %[[WORDS]][0]
// CHECK: %[[SCALE:.*]] = memref.load %[[S]]
// CHECK-NOT: memref.load %[[S]]
// CHECK-NOT: arith.sitofp
// CHECK: %[[MASK:.*]] = arith.constant 983055 : i32
// CHECK: %[[LOW:.*]] = arith.andi %[[WORD]], %[[MASK]] : i32
// CHECK: %[[ONE_K:.*]] = arith.constant 1677747200 : i32
// CHECK: %[[BITS:.*]] = arith.ori %[[LOW]], %[[ONE_K]] : i32
// CHECK: %[[PACKED:.*]] = vector.from_elements %[[BITS]] : vector<1xi32>
// CHECK: %[[HALVES:.*]] = vector.bitcast %[[PACKED]] : vector<1xi32> to vector<2xf16>
// CHECK: %[[BIAS:.*]] = arith.constant dense<1.032000e+03> : vector<2xf16>
// CHECK: %[[CENTRED:.*]] = arith.subf %[[HALVES]], %[[BIAS]] : vector<2xf16>
// CHECK: %[[SCALES:.*]] = vector.broadcast %[[SCALE]] : f16 to vector<2xf16>
// CHECK: arith.mulf %[[CENTRED]], %[[SCALES]] : vector<2xf16>
// CHECK: %[[HIGH:.*]] = arith.shrui %[[WORD]], %{{.*}} : i32
// CHECK: arith.andi %[[HIGH]], %[[MASK]] : i32
// CHECK-NOT: arith.sitofp
// CHECK: scf.yield
// PLAN: remark: became kernel 'matmul_0': dot products of its few rows with the columns of B, plan #subgroup_matrix.dot_product_plan<subgroups = 4, columns = 2, vector_width = 32, unroll = 2>
// PLAN: remark: fused into kernel 'matmul_0': computed in registers from what the kernel reads
func.func @int4_groups(%a: tensor<1x512xf16>, %q: tensor<64x256xi8>, %s: tensor<64x16xf16>) -> tensor<1x64xf32> {
  %ew = tensor.empty() : tensor<64x512xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1 floordiv 2)>, affine_map<(d0, d1) -> (d0, d1 floordiv 32)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%q, %s : tensor<64x256xi8>, tensor<64x16xf16>) outs(%ew : tensor<64x512xf16>) {
  ^bb0(%q_v: i8, %s_v: f16, %o: f16):
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c15 = arith.constant 15 : i8
    %c8 = arith.constant 8 : i8
    %k = linalg.index 1 : index
    %odd = arith.andi %k, %c1 : index
    %shift_index = arith.muli %odd, %c4 : index
    %shift = arith.index_cast %shift_index : index to i8
    %shifted = arith.shrui %q_v, %shift : i8
    %nibble = arith.andi %shifted, %c15 : i8
    %centred = arith.subi %nibble, %c8 : i8
    %value = arith.sitofp %centred : i8 to f16
    %weight = arith.mulf %value, %s_v : f16
    linalg.yield %weight : f16
  } -> tensor<64x512xf16>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x64xf32>) -> tensor<1x64xf32>
  %r = linalg.matmul
    indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
    ins(%a, %w : tensor<1x512xf16>, tensor<64x512xf16>) outs(%f : tensor<1x64xf32>) -> tensor<1x64xf32>
  return %r : tensor<1x64xf32>
}

// -----

// More rows than the crossover, and B stored K x N: tiled products.
// PLAN: remark: became kernel 'matmul_0': a tiled matrix product on the target's matrix units
// PLAN: remark: became kernel 'matmul_1': a tiled matrix product on the target's matrix units
func.func @sixteen_rows(%a: memref<16x256xf16>, %w: memref<40x256xf16>, %c: memref<16x40xf32>) {
  linalg.matmul
    indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
    ins(%a, %w : memref<16x256xf16>, memref<40x256xf16>) outs(%c : memref<16x40xf32>)
  return
}
func.func @b_k_by_n(%a: memref<1x256xf16>, %w: memref<256x40xf16>, %c: memref<1x40xf32>) {
  linalg.matmul ins(%a, %w : memref<1x256xf16>, memref<256x40xf16>) outs(%c : memref<1x40xf32>)
  return
}
