// RUN: sm-opt %s -split-input-file --sm-linalg-to-gpu=target=nvidia-h100 | FileCheck %s
// (The numbers are checked by test/Integration/Runtime, "long reductions
// into few outputs".)

// A maximum over a whole 512x1024 tensor: one output, 524288 terms. The
// first kernel folds 64 parts of 8 rows (one workgroup each, from the
// identity) into 64 partial results, the second folds those into the
// result; the result's fill stays a kernel of its own, as before.

// CHECK-LABEL: gpu.func @elementwise_1
// CHECK-SAME: (%[[X:.*]]: memref<524288xf32>, %[[PARTS:.*]]: memref<64xf32>)
// CHECK-SAME: grid = [64, 1, 1]
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: arith.maximumf
// CHECK: gpu.barrier
// CHECK-LABEL: gpu.func @elementwise_2
// CHECK-SAME: (%{{.*}}: memref<64xf32>, %{{.*}}: memref<1xf32>)
// CHECK-SAME: grid = [1, 1, 1]
// CHECK-LABEL: func.func @global_max
// CHECK: gpu.launch_func @kernels::@elementwise_0
// CHECK: %[[PARTIAL:.*]] = memref.alloc() : memref<64xf32>
// CHECK: gpu.launch_func @kernels::@elementwise_1 blocks in (%c64{{.*}}) threads in ({{.*}}) args(%{{.*}} : memref<524288xf32>, %[[PARTIAL]] : memref<64xf32>)
// CHECK: gpu.launch_func @kernels::@elementwise_2 {{.*}} args(%[[PARTIAL]] : memref<64xf32>, %{{.*}} : memref<1xf32>)
#all = affine_map<(i, j) -> (i, j)>
#scalar = affine_map<(i, j) -> ()>
func.func @global_max(%x: tensor<512x1024xf32>) -> tensor<f32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %m = linalg.generic {indexing_maps = [#all, #scalar],
                       iterator_types = ["reduction", "reduction"]}
      ins(%x : tensor<512x1024xf32>) outs(%f : tensor<f32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.maximumf %acc, %v : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  return %m : tensor<f32>
}

// -----

// Four sums of 65536 terms: 8 parts per output (32 workgroups), each of
// 8192 terms; the sums' fill with zero is the second kernel's starting
// value.

// CHECK-LABEL: gpu.func @elementwise_0
// CHECK-SAME: (%{{.*}}: memref<262144xf32>, %{{.*}}: memref<32xf32>)
// CHECK-SAME: grid = [32, 1, 1]
// CHECK-LABEL: gpu.func @elementwise_1
// CHECK-SAME: (%{{.*}}: memref<32xf32>, %{{.*}}: memref<4xf32>)
// CHECK-NOT: gpu.func
// CHECK-LABEL: func.func @row_sums
// CHECK: memref.alloc() : memref<8x4xf32>
#all = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @row_sums(%y: tensor<4x65536xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %s = linalg.generic {indexing_maps = [#all, #row],
                       iterator_types = ["parallel", "reduction"]}
      ins(%y : tensor<4x65536xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %a = arith.addf %acc, %v : f32
    linalg.yield %a : f32
  } -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// Shorter reductions stay one kernel, one workgroup per output.

// CHECK-LABEL: gpu.func @elementwise_0
// CHECK-SAME: (%{{.*}}: memref<16384xf32>, %{{.*}}: memref<4xf32>)
// CHECK-SAME: grid = [4, 1, 1]
// CHECK-NOT: gpu.func
// CHECK-LABEL: func.func @short_sums
// CHECK-NOT: memref.alloc() : memref<{{.*}}x4xf32>
#all = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @short_sums(%y: tensor<4x4096xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %s = linalg.generic {indexing_maps = [#all, #row],
                       iterator_types = ["parallel", "reduction"]}
      ins(%y : tensor<4x4096xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %a = arith.addf %acc, %v : f32
    linalg.yield %a : f32
  } -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// A body that reads its position (linalg.index) is not split: the parts
// would see positions within their part.

// CHECK-LABEL: gpu.func @elementwise_1
// CHECK-SAME: (%{{.*}}: memref<524288xf32>, %{{.*}}: memref<1xf32>)
// CHECK-SAME: grid = [1, 1, 1]
// CHECK-NOT: gpu.func
// CHECK-LABEL: func.func @weighted_sum
#all = affine_map<(i, j) -> (i, j)>
#scalar = affine_map<(i, j) -> ()>
func.func @weighted_sum(%x: tensor<512x1024xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {indexing_maps = [#all, #scalar],
                       iterator_types = ["reduction", "reduction"]}
      ins(%x : tensor<512x1024xf32>) outs(%f : tensor<f32>) {
  ^bb0(%v: f32, %acc: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i32
    %w = arith.sitofp %ii : i32 to f32
    %p = arith.mulf %v, %w : f32
    %a = arith.addf %acc, %p : f32
    linalg.yield %a : f32
  } -> tensor<f32>
  return %s : tensor<f32>
}
