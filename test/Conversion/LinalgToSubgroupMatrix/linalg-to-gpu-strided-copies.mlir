// RUN: sm-opt %s -split-input-file --sm-linalg-to-gpu="target=nvidia-h100" | FileCheck %s

// A tensor.pad that no convolution reads bufferizes to a fill and a copy
// into a strided view of the padded buffer, which the runtime cannot copy:
// the copy becomes a kernel on the whole buffers, the view's offsets in its
// indexing (row 1, column 2 of the padded 8x10 planes: element 1*10+2).

// CHECK-LABEL: gpu.func @elementwise_1
// CHECK-SAME: (%[[SRC:.*]]: memref<420xf32>, %[[DST:.*]]: memref<960xf32>)
// CHECK: %[[V:.*]] = memref.load %[[SRC]]
// CHECK: memref.store %[[V]], %[[DST]]
// CHECK-LABEL: func.func @pad_alone
// CHECK-SAME: (%[[X:.*]]: memref<2x5x7x6xf32>)
// CHECK: %[[P:.*]] = memref.alloc() {{.*}} : memref<2x8x10x6xf32>
// CHECK: gpu.launch_func @kernels::@elementwise_0
// CHECK-NOT: memref.copy
// CHECK: %[[XF:.*]] = memref.collapse_shape %[[X]]
// CHECK: %[[PF:.*]] = memref.collapse_shape %[[P]]
// CHECK: gpu.launch_func @kernels::@elementwise_1 {{.*}} args(%[[XF]] : memref<420xf32>, %[[PF]] : memref<960xf32>)
// CHECK-NOT: memref.copy
// CHECK: return %[[P]]
func.func @pad_alone(%x: tensor<2x5x7x6xf32>) -> tensor<2x8x10x6xf32> {
  %half = arith.constant 0.5 : f32
  %p = tensor.pad %x low[0, 1, 2, 0] high[0, 2, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %half : f32
  } : tensor<2x5x7x6xf32> to tensor<2x8x10x6xf32>
  return %p : tensor<2x8x10x6xf32>
}
