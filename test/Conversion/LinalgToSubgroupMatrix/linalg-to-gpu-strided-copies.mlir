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
// CHECK-SAME: grid = [1, 1, 1]
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

// -----

// A matrix product of a slice of a wider matrix reads a contiguous copy of
// the slice (the copy is a strided copy's kernel); a slice it writes is
// copied in and, after the product, back.
// CHECK-LABEL: func.func @sliced_operands
// CHECK: %[[ACOPY:.*]] = memref.alloc() : memref<32x32xf16>
// CHECK: %[[AFLAT:.*]] = memref.collapse_shape %[[ACOPY]]
// CHECK: gpu.launch_func @kernels::@elementwise_{{.*}} args(%{{.*}} : memref<4096xf16>, %[[AFLAT]] : memref<1024xf16>)
// CHECK: %[[CCOPY:.*]] = memref.alloc() : memref<32x48xf32>
// CHECK: gpu.launch_func @kernels::@elementwise_{{.*}} args(%{{.*}} : memref<4096xf32>, %{{.*}} : memref<1536xf32>)
// CHECK: gpu.launch_func @kernels::@matmul_0
// CHECK: %[[CFLAT:.*]] = memref.collapse_shape %[[CCOPY]]
// CHECK: gpu.launch_func @kernels::@elementwise_{{.*}} args(%[[CFLAT]] : memref<1536xf32>, %{{.*}} : memref<4096xf32>)
func.func @sliced_operands(%a: memref<64x64xf16>, %b: memref<32x48xf16>, %c: memref<64x64xf32>) {
  %av = memref.subview %a[0, 16] [32, 32] [1, 1] : memref<64x64xf16> to memref<32x32xf16, strided<[64, 1], offset: 16>>
  %bv = memref.subview %b[0, 0] [32, 48] [1, 1] : memref<32x48xf16> to memref<32x48xf16, strided<[48, 1]>>
  %cv = memref.subview %c[8, 8] [32, 48] [1, 1] : memref<64x64xf32> to memref<32x48xf32, strided<[64, 1], offset: 520>>
  linalg.matmul ins(%av, %bv : memref<32x32xf16, strided<[64, 1], offset: 16>>, memref<32x48xf16, strided<[48, 1]>>)
                outs(%cv : memref<32x48xf32, strided<[64, 1], offset: 520>>)
  return
}

// -----

// A reduction of a slice whose reduced dimension only the slice spans
// cannot read the buffer through its maps (the loop would lose its size):
// it reads a contiguous copy of the slice, made by a strided copy's kernel.
// CHECK-LABEL: func.func @reduction_of_slice
// CHECK: %[[COPY:.*]] = memref.alloc() : memref<21x4xi32>
// CHECK: %[[FLAT:.*]] = memref.collapse_shape %[[COPY]]
// CHECK: gpu.launch_func @kernels::@elementwise_{{.*}} args(%{{.*}} : memref<200xi32>, %[[FLAT]] : memref<84xi32>)
// CHECK: gpu.launch_func @kernels::@elementwise_{{.*}} args(%{{.*}} : memref<84xi32>
func.func @reduction_of_slice(%x: memref<40x5xi32>, %sums: memref<4xi32>) {
  %v = memref.subview %x[13, 1] [21, 4] [1, 1] : memref<40x5xi32> to memref<21x4xi32, strided<[5, 1], offset: 66>>
  linalg.reduce ins(%v : memref<21x4xi32, strided<[5, 1], offset: 66>>) outs(%sums : memref<4xi32>) dimensions = [0]
    (%in: i32, %out: i32) {
      %s = arith.addi %in, %out : i32
      linalg.yield %s : i32
    }
  return
}

// -----

// A reshape that drops a unit dimension of a strided view (a batch of one
// folded away) is seen through: the kernel reads the whole buffer, and the
// views, which nothing reads any more, are gone.
// CHECK-LABEL: func.func @reshaped_slice
// CHECK-NOT: memref.subview
// CHECK: %[[FLAT:.*]] = memref.collapse_shape %arg0 {{\[\[}}0, 1, 2]] : memref<2x5x9xf16> into memref<90xf16>
// CHECK: gpu.launch_func @kernels::@elementwise_{{.*}} args(%[[FLAT]] : memref<90xf16>
func.func @reshaped_slice(%x: memref<2x5x9xf16>, %y: memref<1x3x6xf16>) {
  %v = memref.subview %x[1, 0, 2] [1, 3, 6] [1, 1, 1] : memref<2x5x9xf16> to memref<1x3x6xf16, strided<[45, 9, 1], offset: 47>>
  %c = memref.collapse_shape %v [[0, 1], [2]] : memref<1x3x6xf16, strided<[45, 9, 1], offset: 47>> into memref<3x6xf16, strided<[9, 1], offset: 47>>
  %d = memref.collapse_shape %y [[0, 1], [2]] : memref<1x3x6xf16> into memref<3x6xf16>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<3x6xf16, strided<[9, 1], offset: 47>>) outs(%d : memref<3x6xf16>) {
  ^bb0(%a: f16, %o: f16):
    %n = arith.negf %a : f16
    linalg.yield %n : f16
  }
  return
}

// -----

// A slice of a matrix seen as NHWC through a reshape (a convolution's
// result) is copied from the matrix itself, the reshape's indices
// linearized.
// CHECK-LABEL: func.func @slice_of_expanded
// CHECK-NOT: memref.copy
// CHECK: %[[FLAT:.*]] = memref.collapse_shape %arg0 {{\[\[}}0, 1]] : memref<24x16xf32> into memref<384xf32>
// CHECK: gpu.launch_func @kernels::@elementwise_{{.*}} args(%[[FLAT]] : memref<384xf32>
func.func @slice_of_expanded(%x: memref<24x16xf32>, %y: memref<1x3x4x5xf32>) {
  %e = memref.expand_shape %x [[0, 1, 2], [3]] output_shape [1, 4, 6, 16] : memref<24x16xf32> into memref<1x4x6x16xf32>
  %v = memref.subview %e[0, 1, 2, 10] [1, 3, 4, 5] [1, 1, 1, 1] : memref<1x4x6x16xf32> to memref<1x3x4x5xf32, strided<[384, 96, 16, 1], offset: 138>>
  memref.copy %v, %y : memref<1x3x4x5xf32, strided<[384, 96, 16, 1], offset: 138>> to memref<1x3x4x5xf32>
  return
}
