// RUN: sm-opt %s -split-input-file --sm-convert-gpu-mma | FileCheck %s

// A GEMM written for upstream: loads with a leading dimension, a loop
// carrying the accumulator, an elementwise ReLU and the store.

// CHECK-LABEL: gpu.func @gemm
// CHECK-SAME: (%[[A:.*]]: memref<32x64xf16>, %[[B:.*]]: memref<64x32xf16>, %[[C:.*]]: memref<32x32xf32>)
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.*]] = subgroup_matrix.splat %[[ZERO]] : f32 -> !subgroup_matrix.result<16x16xf32>
// CHECK: %[[ACC:.*]] = scf.for %[[K:.*]] = {{.*}} iter_args(%[[SUM:.*]] = %[[INIT]]) -> (!subgroup_matrix.result<16x16xf32>)
// CHECK: %[[LDA:.*]] = arith.constant 64 : index
// CHECK: %[[L:.*]] = subgroup_matrix.load %[[A]][%{{.*}}, %[[K]]] stride %[[LDA]] : memref<32x64xf16> -> !subgroup_matrix.left<16x16xf16>
// CHECK: %[[LDB:.*]] = arith.constant 32 : index
// CHECK: %[[R:.*]] = subgroup_matrix.load %[[B]][%[[K]], %{{.*}}] stride %[[LDB]] col_major : memref<64x32xf16> -> !subgroup_matrix.right<16x16xf16>
// CHECK: %[[D:.*]] = subgroup_matrix.mma %[[L]], %[[R]], %[[SUM]] : !subgroup_matrix.left<16x16xf16>, !subgroup_matrix.right<16x16xf16> -> !subgroup_matrix.result<16x16xf32>
// CHECK: scf.yield %[[D]] : !subgroup_matrix.result<16x16xf32>
// CHECK: %[[RELU:.*]] = subgroup_matrix.map %[[ACC]], %[[INIT]]
// CHECK-NEXT: ^bb0(%{{.*}}: index, %{{.*}}: index, %[[X:.*]]: f32, %[[Y:.*]]: f32):
// CHECK-NEXT: %[[M:.*]] = arith.maximumf %[[X]], %[[Y]] : f32
// CHECK-NEXT: subgroup_matrix.yield %[[M]] : f32
// CHECK: subgroup_matrix.store %[[RELU]], %[[C]][%{{.*}}, %{{.*}}] stride %{{.*}} : !subgroup_matrix.result<16x16xf32>, memref<32x32xf32>
// CHECK-NOT: gpu.subgroup_mma
gpu.module @kernels {
  gpu.func @gemm(%a: memref<32x64xf16>, %b: memref<64x32xf16>, %c: memref<32x32xf32>) kernel {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %zero = arith.constant 0.0 : f32
    %init = gpu.subgroup_mma_constant_matrix %zero : !gpu.mma_matrix<16x16xf32, "COp">
    %i = gpu.block_id x
    %j = gpu.block_id y
    %row = arith.muli %i, %c16 : index
    %col = arith.muli %j, %c16 : index
    %acc = scf.for %k = %c0 to %c64 step %c16 iter_args(%sum = %init) -> (!gpu.mma_matrix<16x16xf32, "COp">) {
      %l = gpu.subgroup_mma_load_matrix %a[%row, %k] {leadDimension = 64 : index} : memref<32x64xf16> -> !gpu.mma_matrix<16x16xf16, "AOp">
      %r = gpu.subgroup_mma_load_matrix %b[%k, %col] {leadDimension = 32 : index, transpose} : memref<64x32xf16> -> !gpu.mma_matrix<16x16xf16, "BOp">
      %d = gpu.subgroup_mma_compute %l, %r, %sum {b_transpose} : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
      scf.yield %d : !gpu.mma_matrix<16x16xf32, "COp">
    }
    %relu = gpu.subgroup_mma_elementwise maxf %acc, %init : (!gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">) -> !gpu.mma_matrix<16x16xf32, "COp">
    gpu.subgroup_mma_store_matrix %relu, %c[%row, %col] {leadDimension = 32 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<32x32xf32>
    gpu.return
  }
}

// -----

// Integers: upstream's signless i32 accumulator is signed; unsigned inputs
// accumulate into ui32, converted from and back to it.

// CHECK-LABEL: gpu.func @integers
// CHECK: %[[SL:.*]] = subgroup_matrix.load {{.*}} -> !subgroup_matrix.left<16x32xsi8>
// CHECK: %[[SR:.*]] = subgroup_matrix.load {{.*}} -> !subgroup_matrix.right<32x16xsi8>
// CHECK: %[[ACC:.*]] = subgroup_matrix.load {{.*}} -> !subgroup_matrix.result<16x16xsi32>
// CHECK: %[[SIGNED:.*]] = subgroup_matrix.mma %[[SL]], %[[SR]], %[[ACC]] : !subgroup_matrix.left<16x32xsi8>, !subgroup_matrix.right<32x16xsi8> -> !subgroup_matrix.result<16x16xsi32>
// CHECK: %[[UL:.*]] = subgroup_matrix.load {{.*}} -> !subgroup_matrix.left<16x32xui8>
// CHECK: %[[UR:.*]] = subgroup_matrix.load {{.*}} -> !subgroup_matrix.right<32x16xui8>
// CHECK: %[[AS_UNSIGNED:.*]] = subgroup_matrix.convert %[[SIGNED]] : !subgroup_matrix.result<16x16xsi32> -> !subgroup_matrix.result<16x16xui32>
// CHECK: %[[UNSIGNED:.*]] = subgroup_matrix.mma %[[UL]], %[[UR]], %[[AS_UNSIGNED]] : !subgroup_matrix.left<16x32xui8>, !subgroup_matrix.right<32x16xui8> -> !subgroup_matrix.result<16x16xui32>
// CHECK: %[[BACK:.*]] = subgroup_matrix.convert %[[UNSIGNED]] : !subgroup_matrix.result<16x16xui32> -> !subgroup_matrix.result<16x16xsi32>
// CHECK: %[[NEG:.*]] = subgroup_matrix.map %[[BACK]]
// CHECK-NEXT: ^bb0(%{{.*}}: index, %{{.*}}: index, %[[V:.*]]: i32):
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[N:.*]] = arith.subi %[[Z]], %[[V]] : i32
// CHECK: subgroup_matrix.store %[[NEG]]
gpu.module @kernels {
  gpu.func @integers(%a: memref<1024xi8>, %c: memref<256xi32>) kernel {
    %c0 = arith.constant 0 : index
    %l = gpu.subgroup_mma_load_matrix %a[%c0] {leadDimension = 32 : index} : memref<1024xi8> -> !gpu.mma_matrix<16x32xsi8, "AOp">
    %r = gpu.subgroup_mma_load_matrix %a[%c0] {leadDimension = 16 : index} : memref<1024xi8> -> !gpu.mma_matrix<32x16xsi8, "BOp">
    %acc = gpu.subgroup_mma_load_matrix %c[%c0] {leadDimension = 16 : index} : memref<256xi32> -> !gpu.mma_matrix<16x16xi32, "COp">
    %d = gpu.subgroup_mma_compute %l, %r, %acc : !gpu.mma_matrix<16x32xsi8, "AOp">, !gpu.mma_matrix<32x16xsi8, "BOp"> -> !gpu.mma_matrix<16x16xi32, "COp">
    %ul = gpu.subgroup_mma_load_matrix %a[%c0] {leadDimension = 32 : index} : memref<1024xi8> -> !gpu.mma_matrix<16x32xui8, "AOp">
    %ur = gpu.subgroup_mma_load_matrix %a[%c0] {leadDimension = 16 : index} : memref<1024xi8> -> !gpu.mma_matrix<32x16xui8, "BOp">
    %e = gpu.subgroup_mma_compute %ul, %ur, %d : !gpu.mma_matrix<16x32xui8, "AOp">, !gpu.mma_matrix<32x16xui8, "BOp"> -> !gpu.mma_matrix<16x16xi32, "COp">
    %n = gpu.subgroup_mma_elementwise negates %e : (!gpu.mma_matrix<16x16xi32, "COp">) -> !gpu.mma_matrix<16x16xi32, "COp">
    gpu.subgroup_mma_store_matrix %n, %c[%c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xi32, "COp">, memref<256xi32>
    gpu.return
  }
}

// -----

// extf changes the component type: the map's result is f32.

// CHECK-LABEL: gpu.func @widen
// CHECK: %[[H:.*]] = subgroup_matrix.load {{.*}} -> !subgroup_matrix.result<16x16xf16>
// CHECK: subgroup_matrix.map %[[H]] : !subgroup_matrix.result<16x16xf16> -> !subgroup_matrix.result<16x16xf32>
// CHECK-NEXT: ^bb0(%{{.*}}: index, %{{.*}}: index, %[[X:.*]]: f16):
// CHECK-NEXT: %[[W:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT: subgroup_matrix.yield %[[W]] : f32
gpu.module @kernels {
  gpu.func @widen(%a: memref<256xf16>, %c: memref<256xf32>) kernel {
    %c0 = arith.constant 0 : index
    %h = gpu.subgroup_mma_load_matrix %a[%c0] {leadDimension = 16 : index} : memref<256xf16> -> !gpu.mma_matrix<16x16xf16, "COp">
    %w = gpu.subgroup_mma_elementwise extf %h : (!gpu.mma_matrix<16x16xf16, "COp">) -> !gpu.mma_matrix<16x16xf32, "COp">
    gpu.subgroup_mma_store_matrix %w, %c[%c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<256xf32>
    gpu.return
  }
}
