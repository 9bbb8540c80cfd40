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

// -----

// A copy into one row of a buffer: the kernel on the whole buffers runs one
// invocation per element of the row (64, one workgroup), the row loop's
// size taken from the source that it indexes first, not from the 18-row
// buffer; and the fill before it stays a kernel of its own (the copy writes
// one row of the buffer, not all of it).

// CHECK-LABEL: gpu.func @elementwise_1
// CHECK-SAME: (%[[ROW:.*]]: memref<64xf32>, %[[DST:.*]]: memref<1152xf32>)
// CHECK-SAME: grid = array<i32: 1, 1, 1>
// CHECK: %[[TOTAL:.*]] = arith.muli %c1{{.*}}, %c64{{.*}} : index
// CHECK: arith.cmpi ult, %{{.*}}, %[[TOTAL]] : index
// CHECK: %[[V:.*]] = memref.load %[[ROW]]
// CHECK: memref.store %[[V]], %[[DST]]
// CHECK-LABEL: func.func @insert_row
// CHECK: %[[C5:.*]] = arith.constant 5 : index
// CHECK: gpu.launch_func @kernels::@elementwise_0 blocks in (%[[C5]],
// CHECK: gpu.launch_func @kernels::@elementwise_1
func.func @insert_row(%row: tensor<1x64xf32>) -> tensor<18x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<18x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<18x64xf32>) -> tensor<18x64xf32>
  %q = tensor.insert_slice %row into %f[0, 0] [1, 64] [1, 1] : tensor<1x64xf32> into tensor<18x64xf32>
  return %q : tensor<18x64xf32>
}
