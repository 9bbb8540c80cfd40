// RUN: sm-opt %s -split-input-file --sm-linalg-to-gpu=target=nvidia-h100 | FileCheck %s
// (The numbers are checked by test/Integration/LinalgToGPU: split_k_4,
// split_k_epilogue.)

// 512x512 of C is 16 workgroup tiles of 128x128 on 132 SMs: K (256 steps)
// is split in 8 parts, the fewest that give every SM a workgroup. The
// parts write a workspace, and a reduction kernel writes the accumulator:
// the fill's value plus the parts, in order (so the fill needs no kernel of
// its own and the accumulator is not read). The residual + ReLU epilogue,
// which applies to the sum, runs after it as a kernel of its own.

// CHECK-LABEL: gpu.module @kernels
// CHECK: gpu.func @matmul_0
// CHECK: gpu.block_id  z
// CHECK: gpu.func @elementwise_1(%[[PARTS:.*]]: memref<2097152xf32>, %[[C:.*]]: memref<262144xf32>)
// One invocation per element of C, not of the workspace:
// CHECK-SAME: grid = [1024, 1, 1]
// CHECK-NOT: scf.for
// CHECK: %[[P0:.*]] = memref.load %[[PARTS]]
// CHECK: %[[P1:.*]] = memref.load %[[PARTS]]
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[S0:.*]] = arith.addf %[[ZERO]], %[[P0]]
// CHECK: %[[S1:.*]] = arith.addf %[[S0]], %[[P1]]
// CHECK-COUNT-6: arith.addf
// CHECK-NOT: memref.load %[[C]]
// CHECK: memref.store %{{.*}}, %[[C]]
// CHECK: gpu.func @elementwise_2(%{{.*}}: memref<262144xf32>, %{{.*}}: memref<262144xf32>, %{{.*}}: memref<262144xf32>)
// CHECK: arith.maximumf
// CHECK-LABEL: func.func @down_projection
// CHECK-NOT: linalg.fill
// CHECK: %[[WORKSPACE:.*]] = memref.alloc() : memref<4096x512xf32>
// CHECK: %[[C8:.*]] = arith.constant 8 : index
// CHECK: gpu.launch_func @kernels::@matmul_0 blocks in (%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %[[C8]])
// CHECK: gpu.launch_func @kernels::@elementwise_1
// CHECK: memref.dealloc %[[WORKSPACE]]
// CHECK: gpu.launch_func @kernels::@elementwise_2
// CHECK-NOT: linalg.
func.func @down_projection(%a: memref<512x8192xf16>, %b: memref<8192x512xf16>, %residual: memref<512x512xf32>, %out: memref<512x512xf32>) {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<512x512xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<512x512xf32>)
  linalg.matmul ins(%a, %b : memref<512x8192xf16>, memref<8192x512xf16>) outs(%acc : memref<512x512xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%acc, %residual : memref<512x512xf32>, memref<512x512xf32>) outs(%out : memref<512x512xf32>) {
  ^bb0(%x: f32, %r: f32, %o: f32):
    %s = arith.addf %x, %r : f32
    %y = arith.maximumf %s, %zero : f32
    linalg.yield %y : f32
  }
  memref.dealloc %acc : memref<512x512xf32>
  return
}

// -----

// A decode step (M = 1, a matrix height of 16 per tile): K is split in 8,
// two workgroups per SM (64 tiles of 16x64). Each part's slice of the
// workspace has 16 rows, so every workgroup stores whole result matrices
// (no bounds checks, no scratch), and the reduction reads row 0 of each
// slice: rows 0, 16, 32, ..., 112.

// CHECK-LABEL: gpu.module @kernels
// CHECK: gpu.func @matmul_0(%{{.*}}: memref<4096xf16>, %{{.*}}: memref<16777216xf16>, %[[PARTS:.*]]: memref<524288xf32>) workgroup(%{{.*}}: memref<{{[0-9]+}}xf16, #gpu.address_space<workgroup>>, %{{.*}}: memref<{{[0-9]+}}xf16, #gpu.address_space<workgroup>>) kernel
// CHECK-NOT: scf.if
// CHECK: subgroup_matrix.store %{{.*}}, %[[PARTS]]
// CHECK-NOT: scf.if
// CHECK: gpu.return
// CHECK: gpu.func @elementwise_1(%[[WORKSPACE:.*]]: memref<524288xf32>, %[[C:.*]]: memref<4096xf32>)
// CHECK-SAME: grid = [16, 1, 1]
// CHECK: %[[ROW:.*]] = arith.remui %{{.*}}, %c1
// CHECK: memref.load %[[WORKSPACE]]
// CHECK: %[[C16:.*]] = arith.constant 16 : index
// CHECK: arith.addi %[[ROW]], %[[C16]]
// CHECK: memref.load %[[WORKSPACE]]
// CHECK: %[[C32:.*]] = arith.constant 32 : index
// CHECK: arith.addi %[[ROW]], %[[C32]]
// CHECK-COUNT-5: memref.load %[[WORKSPACE]]
// CHECK: %[[C112:.*]] = arith.constant 112 : index
// CHECK: arith.addi %[[ROW]], %[[C112]]
// CHECK: memref.load %[[WORKSPACE]]
// CHECK-NOT: memref.load %[[WORKSPACE]]
// CHECK: gpu.return
// CHECK-LABEL: func.func @decode
// CHECK: memref.alloc() : memref<128x4096xf32>
// CHECK: %[[C8:.*]] = arith.constant 8 : index
// CHECK: gpu.launch_func @kernels::@matmul_0 blocks in (%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %[[C8]])
// CHECK: gpu.launch_func @kernels::@elementwise_1
func.func @decode(%a: memref<1x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<1x4096xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<1x4096xf32>)
  linalg.matmul ins(%a, %b : memref<1x4096xf16>, memref<4096x4096xf16>) outs(%c : memref<1x4096xf32>)
  return
}
