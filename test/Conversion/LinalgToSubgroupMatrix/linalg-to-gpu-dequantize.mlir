// RUN: sm-opt %s -split-input-file --sm-linalg-to-gpu="target=nvidia-h100 split-k=1" | FileCheck %s
// (The numbers are checked by the dequant_* cases of
// test/Integration/LinalgToGPU/suite.py.)

// 4-bit weights packed two to a byte along K, one f16 scale per group of
// 64 along K, B stored N x K: the dequantizing producer runs as the kernel
// stages B. The kernel reads the packed bytes and the scales itself, their
// indices through the producer's maps (k floordiv 2, k floordiv 64), and
// the nibble is selected by linalg.index; no f16 copy of the weight exists
// on the host. A copied vector of eight elements along K reads its four
// bytes as one word and its group's scale once, dequantizes two nibbles
// 16 bits apart at a time (PairedDequantization.cpp), and stores the eight
// staged elements at once.

// CHECK-LABEL: gpu.func @matmul_0
// CHECK-SAME: (%[[X:.*]]: memref<131072xf16>, %[[Q:.*]]: memref<262144xi8>, %[[S:.*]]: memref<8192xf16>, %[[OUT:.*]]: memref<65536xf32>)
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK: scf.for
// CHECK: %[[HALF:.*]] = arith.divui %[[K:.*]], %[[C2]] : index
// CHECK: %[[BYTES:.*]] = vector.load %[[Q]][%{{.*}}] : memref<262144xi8>, vector<4xi8>
// CHECK: %[[WORD:.*]] = vector.bitcast %[[BYTES]] : vector<4xi8> to vector<1xi32>
// CHECK: %[[GROUP:.*]] = arith.divui %[[K]], %[[C64]] : index
// CHECK: %[[SCALE:.*]] = memref.load %[[S]][%{{.*}}] : memref<8192xf16>
// CHECK-NOT: arith.sitofp
// CHECK: %[[SCALES:.*]] = vector.broadcast %[[SCALE]] : f16 to vector<2xf16>
// CHECK: arith.mulf %{{.*}}, %[[SCALES]] : vector<2xf16>
// CHECK-COUNT-3: arith.mulf %{{.*}}, %[[SCALES]] : vector<2xf16>
// CHECK-NOT: arith.sitofp
// CHECK: vector.store %{{.*}} : memref<5120xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK: subgroup_matrix.mma
// CHECK-LABEL: func.func @int4_linear
// CHECK-NOT: memref.alloc() {{.*}} : memref<512x1024xf16>
// CHECK: gpu.launch_func @kernels::@matmul_0
// CHECK-SAME: args(%{{.*}} : memref<131072xf16>, %{{.*}} : memref<262144xi8>, %{{.*}} : memref<8192xf16>, %{{.*}} : memref<65536xf32>)
// CHECK-NOT: gpu.launch_func
// CHECK-NOT: linalg.
// CHECK: return
func.func @int4_linear(%x: tensor<128x1024xf16>, %q: tensor<512x512xi8>, %s: tensor<512x16xf16>) -> tensor<128x512xf32> {
  %ew = tensor.empty() : tensor<512x1024xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(n, k) -> (n, k floordiv 2)>, affine_map<(n, k) -> (n, k floordiv 64)>, affine_map<(n, k) -> (n, k)>], iterator_types = ["parallel", "parallel"]}
      ins(%q, %s : tensor<512x512xi8>, tensor<512x16xf16>) outs(%ew : tensor<512x1024xf16>) {
  ^bb0(%byte: i8, %scale: f16, %o: f16):
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c15 = arith.constant 15 : i8
    %c8 = arith.constant 8 : i8
    %k = linalg.index 1 : index
    %odd = arith.andi %k, %c1 : index
    %shift_index = arith.muli %odd, %c4 : index
    %shift = arith.index_cast %shift_index : index to i8
    %shifted = arith.shrui %byte, %shift : i8
    %nibble = arith.andi %shifted, %c15 : i8
    %centred = arith.subi %nibble, %c8 : i8
    %value = arith.sitofp %centred : i8 to f16
    %weight = arith.mulf %value, %scale : f16
    linalg.yield %weight : f16
  } -> tensor<512x1024xf16>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x512xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128x512xf32>) -> tensor<128x512xf32>
  %r = linalg.matmul
    indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
    ins(%x, %w : tensor<128x1024xf16>, tensor<512x1024xf16>) outs(%f : tensor<128x512xf32>) -> tensor<128x512xf32>
  return %r : tensor<128x512xf32>
}

// -----

// A producer the kernel cannot gather from stays a kernel of its own: its
// scales have a dynamic length, which the kernel could not index with
// static strides. Two launches, the f16 weight in memory between them.

// CHECK-LABEL: func.func @dynamic_scales
// CHECK: %[[WEIGHT:.*]] = memref.alloc() {{.*}} : memref<256x128xf16>
// CHECK: gpu.launch_func @kernels::@elementwise_1
// CHECK: gpu.launch_func @kernels::@matmul_0
func.func @dynamic_scales(%x: tensor<64x256xf16>, %q: tensor<256x128xi8>, %s: tensor<?xf16>) -> tensor<64x128xf32> {
  %ew = tensor.empty() : tensor<256x128xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(k, n) -> (k, n)>, affine_map<(k, n) -> (n)>, affine_map<(k, n) -> (k, n)>], iterator_types = ["parallel", "parallel"]}
      ins(%q, %s : tensor<256x128xi8>, tensor<?xf16>) outs(%ew : tensor<256x128xf16>) {
  ^bb0(%v: i8, %scale: f16, %o: f16):
    %value = arith.sitofp %v : i8 to f16
    %weight = arith.mulf %value, %scale : f16
    linalg.yield %weight : f16
  } -> tensor<256x128xf16>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x128xf32>) -> tensor<64x128xf32>
  %r = linalg.matmul ins(%x, %w : tensor<64x256xf16>, tensor<256x128xf16>) outs(%f : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %r : tensor<64x128xf32>
}
