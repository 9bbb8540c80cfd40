// RUN: sm-opt --sm-tile-matmul="target=nvidia-h100 stages=2" --split-input-file %s | FileCheck %s
// RUN: sm-opt --sm-tile-matmul=target=nvidia-h100 %s --split-input-file | FileCheck %s --check-prefix=ONE-STAGE
// RUN: sm-opt --sm-tile-matmul="target=nvidia-h100 prefetch=1" %s --split-input-file | FileCheck %s --check-prefix=PREFETCH
// RUN: sm-opt --sm-tile-matmul="target=nvidia-h100 preload-c=1" %s --split-input-file | FileCheck %s --check-prefix=PRELOAD

// A 256x256x128 f16 -> f32 matmul with the H100 defaults: 128x128 workgroup
// tiles of 2x2 subgroups, each owning 4x4 result matrices of 16x16; K steps
// of 32 staged through padded workgroup buffers (40 and 136 elements per
// row) with 16-byte copies and double buffering (stages=2).

// One stage (the H100 default): load, barrier, store, barrier, multiply.
// ONE-STAGE-LABEL: gpu.func @matmul
// ONE-STAGE: scf.for
// ONE-STAGE-NOT: arith.minui
// ONE-STAGE: vector.load
// ONE-STAGE: gpu.barrier
// ONE-STAGE-NEXT: arith.addi
// ONE-STAGE: vector.store
// ONE-STAGE: gpu.barrier
// ONE-STAGE: subgroup_matrix.load
// ONE-STAGE: subgroup_matrix.mma
// ONE-STAGE-NOT: gpu.barrier
// ONE-STAGE: scf.yield

// One stage with prefetch: the first step is stored before the loop; in
// it, the next step is loaded, this one multiplied, and after a barrier
// (every subgroup is done reading the one buffer) the next one stored.
// PREFETCH-LABEL: gpu.func @matmul
// PREFETCH-SAME: workgroup(%[[SA:.*]] : memref<5120xf16, #gpu.address_space<workgroup>>, %[[SB:.*]] : memref<4352xf16, #gpu.address_space<workgroup>>)
// PREFETCH: vector.store %{{.*}}, %[[SA]]
// PREFETCH: gpu.barrier
// PREFETCH: scf.for
// PREFETCH: arith.minui
// PREFETCH: vector.load
// PREFETCH-NOT: gpu.barrier
// PREFETCH: subgroup_matrix.mma
// PREFETCH-NOT: vector.store
// PREFETCH: gpu.barrier
// PREFETCH-NEXT: vector.bitcast
// PREFETCH-NEXT: vector.store %{{.*}}, %[[SA]]
// PREFETCH: vector.store %{{.*}}, %[[SB]]
// PREFETCH: gpu.barrier
// PREFETCH-NEXT: scf.yield

// With preload-c=1 the accumulators start as C's matrices, loaded before
// the loop, and are stored as they leave it.
// PRELOAD-LABEL: gpu.func @matmul
// PRELOAD-SAME: (%{{.*}}: memref<32768xf16>, %{{.*}}: memref<32768xf16>, %[[GC:.*]]: memref<65536xf32>)
// PRELOAD: %[[C0:.*]] = subgroup_matrix.load %[[GC]]
// PRELOAD-COUNT-15: subgroup_matrix.load %[[GC]]
// PRELOAD: %[[ACC:.*]]:16 = scf.for %{{.*}} iter_args(%{{.*}} = %[[C0]],
// PRELOAD: scf.yield
// PRELOAD-NOT: subgroup_matrix.load
// PRELOAD-NOT: subgroup_matrix.map
// PRELOAD: subgroup_matrix.store %[[ACC]]#0, %[[GC]]
// PRELOAD-COUNT-15: subgroup_matrix.store %[[ACC]]#{{[0-9]+}}, %[[GC]]
// PRELOAD-NEXT: gpu.return

// CHECK-LABEL: gpu.module @matmul_kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">}
// CHECK: gpu.func @matmul(%[[GA:.*]]: memref<32768xf16>, %[[GB:.*]]: memref<32768xf16>, %[[GC:.*]]: memref<65536xf32>)
// CHECK-SAME: workgroup(%[[SA:.*]] : memref<10240xf16, #gpu.address_space<workgroup>>, %[[SB:.*]] : memref<8704xf16, #gpu.address_space<workgroup>>)
// CHECK-SAME: kernel
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>
// CHECK-SAME: subgroup_matrix.launch = #subgroup_matrix.launch<grid = [2, 2, 1], arguments = ["f16:32768:random", "f16:32768:random", "f32:65536:random"], check = "gemm:M=256,N=256,K=128,A=0,B=1,C=2,acc=2">
// The accumulators start from zero although linalg.matmul accumulates: C
// is added after the loop, so that its matrices do not hold registers
// through it.
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.*]] = subgroup_matrix.splat %[[ZERO]] : f32 -> !subgroup_matrix.result<16x16xf32>
// CHECK-NOT: subgroup_matrix.load %[[GC]]
// The first K step is copied before the loop.
// CHECK: vector.load %[[GA]]
// CHECK: vector.store %{{.*}}, %[[SA]]
// CHECK: gpu.barrier
// CHECK: %[[ACC:.*]]:16 = scf.for %[[STEP:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[INIT]], {{.*}}%{{.*}} = %[[INIT]])
// The next step is loaded while this one multiplies.
// CHECK: %[[NEXT:.*]] = arith.minui
// CHECK: vector.load %[[GA]]
// CHECK: vector.load %[[GB]]
// Per 16-deep step: the 4 left matrices, then each right matrix followed by
// the 4 multiply-accumulates that use it.
// CHECK-COUNT-4: subgroup_matrix.load %[[SA]][%{{.*}}] stride %{{.*}} : memref<10240xf16, #gpu.address_space<workgroup>> -> !subgroup_matrix.left<16x16xf16>
// CHECK: subgroup_matrix.load %[[SB]][%{{.*}}] stride %{{.*}} : memref<8704xf16, #gpu.address_space<workgroup>> -> !subgroup_matrix.right<16x16xf16>
// CHECK-NEXT: subgroup_matrix.mma
// CHECK-NEXT: subgroup_matrix.mma
// CHECK-NEXT: subgroup_matrix.mma
// CHECK-NEXT: subgroup_matrix.mma
// CHECK: subgroup_matrix.load %[[SB]][%{{.*}}] stride %{{.*}} : memref<8704xf16, #gpu.address_space<workgroup>> -> !subgroup_matrix.right<16x16xf16>
// CHECK-NEXT: subgroup_matrix.mma
// CHECK-NEXT: subgroup_matrix.mma
// CHECK-NEXT: subgroup_matrix.mma
// CHECK-NEXT: subgroup_matrix.mma
// CHECK: subgroup_matrix.load %[[SB]][%{{.*}}] stride %{{.*}} : memref<8704xf16, #gpu.address_space<workgroup>> -> !subgroup_matrix.right<16x16xf16>
// CHECK-NEXT: subgroup_matrix.mma
// CHECK-NEXT: subgroup_matrix.mma
// CHECK-NEXT: subgroup_matrix.mma
// CHECK-NEXT: subgroup_matrix.mma
// CHECK: subgroup_matrix.load %[[SB]][%{{.*}}] stride %{{.*}} : memref<8704xf16, #gpu.address_space<workgroup>> -> !subgroup_matrix.right<16x16xf16>
// CHECK-NEXT: subgroup_matrix.mma
// CHECK-NEXT: subgroup_matrix.mma
// CHECK-NEXT: subgroup_matrix.mma
// CHECK-NEXT: subgroup_matrix.mma
// The second step does the same.
// CHECK-COUNT-4: subgroup_matrix.load %[[SA]]
// CHECK: subgroup_matrix.load %[[SB]][%{{.*}}] stride %{{.*}} : memref<8704xf16, #gpu.address_space<workgroup>> -> !subgroup_matrix.right<16x16xf16>
// CHECK-NEXT: subgroup_matrix.mma
// CHECK-NEXT: subgroup_matrix.mma
// CHECK-NEXT: subgroup_matrix.mma
// CHECK-NEXT: subgroup_matrix.mma
// CHECK: subgroup_matrix.load %[[SB]][%{{.*}}] stride %{{.*}} : memref<8704xf16, #gpu.address_space<workgroup>> -> !subgroup_matrix.right<16x16xf16>
// CHECK-NEXT: subgroup_matrix.mma
// CHECK-NEXT: subgroup_matrix.mma
// CHECK-NEXT: subgroup_matrix.mma
// CHECK-NEXT: subgroup_matrix.mma
// CHECK: subgroup_matrix.load %[[SB]][%{{.*}}] stride %{{.*}} : memref<8704xf16, #gpu.address_space<workgroup>> -> !subgroup_matrix.right<16x16xf16>
// CHECK-NEXT: subgroup_matrix.mma
// CHECK-NEXT: subgroup_matrix.mma
// CHECK-NEXT: subgroup_matrix.mma
// CHECK-NEXT: subgroup_matrix.mma
// CHECK: subgroup_matrix.load %[[SB]][%{{.*}}] stride %{{.*}} : memref<8704xf16, #gpu.address_space<workgroup>> -> !subgroup_matrix.right<16x16xf16>
// CHECK-NEXT: subgroup_matrix.mma
// CHECK-NEXT: subgroup_matrix.mma
// CHECK-NEXT: subgroup_matrix.mma
// CHECK-NEXT: subgroup_matrix.mma
// CHECK: vector.store %{{.*}}, %[[SA]]
// CHECK: vector.store %{{.*}}, %[[SB]]
// CHECK: gpu.barrier
// CHECK-NEXT: scf.yield
// After the loop, per row of result matrices, C's four are loaded before
// any is stored (C is the output: a load after a store could not be moved
// above it), then each is added to its accumulator and stored in its place.
// CHECK: %[[C0:.*]] = subgroup_matrix.load %[[GC]][%[[OFFSET:.*]]] stride %{{.*}} : memref<65536xf32> -> !subgroup_matrix.result<16x16xf32>
// CHECK: %[[C1:.*]] = subgroup_matrix.load %[[GC]]
// CHECK: %[[C2:.*]] = subgroup_matrix.load %[[GC]]
// CHECK: %[[C3:.*]] = subgroup_matrix.load %[[GC]]
// CHECK-NOT: subgroup_matrix.store
// CHECK: %[[SUM:.*]] = subgroup_matrix.map %[[ACC]]#{{[0-9]+}}, %[[C0]]
// CHECK-NEXT: ^bb0(%{{.*}}: index, %{{.*}}: index, %[[X:.*]]: f32, %[[Y:.*]]: f32):
// CHECK-NEXT: %[[ADD:.*]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-NEXT: subgroup_matrix.yield %[[ADD]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: subgroup_matrix.store %[[SUM]], %[[GC]][%[[OFFSET]]]
// CHECK: subgroup_matrix.map %[[ACC]]#{{[0-9]+}}, %[[C1]]
// CHECK: subgroup_matrix.map %[[ACC]]#{{[0-9]+}}, %[[C2]]
// CHECK: subgroup_matrix.map %[[ACC]]#{{[0-9]+}}, %[[C3]]
// CHECK: subgroup_matrix.store %{{.*}}, %[[GC]]
// The next row's four loads come after the last store of this one.
// CHECK-NOT: subgroup_matrix.store
// CHECK-COUNT-4: subgroup_matrix.load %[[GC]]
// CHECK-COUNT-12: subgroup_matrix.store %{{.*}}, %[[GC]]
// CHECK-NEXT: gpu.return
// CHECK-LABEL: func.func @square
// CHECK-SAME: (%[[A:.*]]: memref<256x128xf16>, %[[B:.*]]: memref<128x256xf16>, %[[C:.*]]: memref<256x256xf32>)
// CHECK-DAG: %[[A1:.*]] = memref.collapse_shape %[[A]] {{\[\[}}0, 1]] : memref<256x128xf16> into memref<32768xf16>
// CHECK-DAG: %[[B1:.*]] = memref.collapse_shape %[[B]] {{\[\[}}0, 1]] : memref<128x256xf16> into memref<32768xf16>
// CHECK-DAG: %[[C1:.*]] = memref.collapse_shape %[[C]] {{\[\[}}0, 1]] : memref<256x256xf32> into memref<65536xf32>
// CHECK-DAG: %[[TWO:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[THREADS:.*]] = arith.constant 128 : index
// CHECK: gpu.launch_func {{ *}}@matmul_kernels::@matmul blocks in (%[[TWO]], %[[TWO]], %{{.*}}) threads in (%[[THREADS]], %{{.*}}, %{{.*}}) {{ *}}args(%[[A1]] : memref<32768xf16>, %[[B1]] : memref<32768xf16>, %[[C1]] : memref<65536xf32>)
// CHECK-NOT: linalg.matmul

func.func @square(%a: memref<256x128xf16>, %b: memref<128x256xf16>, %c: memref<256x256xf32>) {
  linalg.matmul ins(%a, %b : memref<256x128xf16>, memref<128x256xf16>) outs(%c : memref<256x256xf32>)
  return
}

// -----

// A constant fill before the matmul becomes the initial accumulator, and C
// starts poisoned in the launch description.

// CHECK-LABEL: gpu.func @matmul
// CHECK-SAME: "i32:16384:poison"
// CHECK-SAME: check = "gemm:M=128,N=128,K=64,A=0,B=1,C=2,init=0"
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK: subgroup_matrix.splat %[[ZERO]] : i32 -> !subgroup_matrix.result<16x16xsi32>
// CHECK-NOT: -> !subgroup_matrix.result<16x16xsi32>
// CHECK: subgroup_matrix.load %{{.*}} -> !subgroup_matrix.left<16x32xsi8>
// CHECK: subgroup_matrix.load %{{.*}} -> !subgroup_matrix.right<32x16xsi8>
// CHECK-LABEL: func.func @filled
// CHECK-NOT: linalg.fill
// CHECK: gpu.launch_func
func.func @filled(%a: memref<128x64xi8>, %b: memref<64x128xi8>, %c: memref<128x128xi32>) {
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%c : memref<128x128xi32>)
  linalg.matmul ins(%a, %b : memref<128x64xi8>, memref<64x128xi8>) outs(%c : memref<128x128xi32>)
  return
}

// -----

// B transposed (N x K): its rows are copied like A's and read as
// column-major right matrices. Unsigned 8-bit inputs give ui8 matrices.

// CHECK-LABEL: gpu.func @matmul
// CHECK-SAME: check = "gemm:M=128,N=128,K=64,A=0,B=1,C=2,b-col-major,acc=2"
// CHECK: subgroup_matrix.load %{{.*}} stride %{{.*}} col_major : memref<{{.*}}xi8, #gpu.address_space<workgroup>> -> !subgroup_matrix.right<32x16xui8>
// CHECK: subgroup_matrix.mma {{.*}} -> !subgroup_matrix.result<16x16xui32>
func.func @transposed(%a: memref<128x64xi8>, %b: memref<128x64xi8>, %c: memref<128x128xi32>) {
  linalg.matmul
    indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
    ins(%a, %b : memref<128x64xi8>, memref<128x64xi8>) outs(%c : memref<128x128xi32>) {cast = #linalg.type_fn<cast_unsigned>}
  return
}
