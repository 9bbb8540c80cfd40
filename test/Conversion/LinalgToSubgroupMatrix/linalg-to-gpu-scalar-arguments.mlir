// RUN: sm-opt %s --sm-linalg-to-gpu="target=nvidia-h100" | FileCheck %s

// A scalar function argument that a body reads (a scale) is an argument of
// the element-wise kernel, after its buffers (here one: the op scales the
// product in place), passed by the launch; the product's kernel does not
// fuse an op that needs one.

// CHECK-LABEL: gpu.func @elementwise_1
// CHECK-SAME: (%[[BUFFER:.*]]: memref<3840xf32>, %[[SCALE:.*]]: f32)
// CHECK-NOT: subgroup_matrix.launch
// CHECK: %[[V:.*]] = memref.load %[[BUFFER]]
// CHECK: %[[S:.*]] = arith.mulf %[[V]], %[[SCALE]] : f32
// CHECK: memref.store %[[S]], %[[BUFFER]]
// CHECK-LABEL: func.func @scaled
// CHECK-SAME: %[[ARG:[a-z0-9]+]]: f32
// CHECK: gpu.launch_func @kernels::@matmul_0
// CHECK: gpu.launch_func @kernels::@elementwise_1 {{.*}} args({{.*}}, %[[ARG]] : f32)
func.func @scaled(%x: tensor<64x96xf16>, %w: tensor<96x60xf16>, %scale: f32) -> tensor<64x60xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x60xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<64x60xf32>) -> tensor<64x60xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<64x96xf16>, tensor<96x60xf16>) outs(%acc : tensor<64x60xf32>) -> tensor<64x60xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<64x60xf32>) outs(%e : tensor<64x60xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.mulf %v, %scale : f32
    linalg.yield %s : f32
  } -> tensor<64x60xf32>
  return %r : tensor<64x60xf32>
}
