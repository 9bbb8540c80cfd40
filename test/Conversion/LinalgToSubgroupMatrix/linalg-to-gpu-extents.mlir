// RUN: sm-opt %s -split-input-file --sm-linalg-to-gpu=target=nvidia-h100 | FileCheck %s

// Convolutions that are not matrix products of views of their buffers (a
// window wider than 1x1, strides, dynamic sizes) are computed as what they
// are: one sum over the window per output element, an element-wise kernel.
// Dynamic dimensions that no loop spans alone (an input row indexed by
// output row plus window row, a constant row of a dynamic matrix) are
// arguments of the kernel that the host reads off the buffer.

// CHECK-LABEL: gpu.func @elementwise_0
// CHECK-SAME: (%{{.*}}: memref<2048xf16>, %{{.*}}: memref<18432xf16>, %{{.*}}: memref<2304xf32>)
// CHECK-LABEL: func.func @conv3x3
// CHECK: gpu.launch_func @kernels::@elementwise_0
func.func @conv3x3(%x: memref<1x8x8x32xf16>, %f: memref<3x3x32x64xf16>, %y: memref<1x6x6x64xf32>) {
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %f : memref<1x8x8x32xf16>, memref<3x3x32x64xf16>) outs(%y : memref<1x6x6x64xf32>)
  return
}

// -----

// CHECK-LABEL: gpu.func @elementwise_0
// CHECK-SAME: (%{{.*}}: memref<?xf16>, %{{.*}}: memref<4608xf16>, %{{.*}}: memref<?xf32>, %{{.*}}: index)
// CHECK-LABEL: func.func @dynamic_convolution
// CHECK-SAME: (%[[X:.*]]: memref<?x10x10x16xf16>
// CHECK: memref.dim %[[X]], %c0{{.*}} : memref<?x10x10x16xf16>
// CHECK: gpu.launch_func @kernels::@elementwise_0 {{.*}} args({{.*}} : memref<?xf32>, %{{.*}} : index)
// A convolution on tensors whose batch is dynamic.
func.func @dynamic_convolution(%x: tensor<?x10x10x16xf16>, %f: tensor<3x3x16x32xf16>, %y: tensor<?x8x8x32xf32>) -> tensor<?x8x8x32xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %f : tensor<?x10x10x16xf16>, tensor<3x3x16x32xf16>) outs(%y : tensor<?x8x8x32xf32>) -> tensor<?x8x8x32xf32>
  return %r : tensor<?x8x8x32xf32>
}

// -----

// CHECK-LABEL: gpu.func @elementwise_0
// CHECK-SAME: (%{{.*}}: memref<2048xf16>, %{{.*}}: memref<2048xf16>, %{{.*}}: memref<1024xf32>)
// CHECK-LABEL: func.func @strided
func.func @strided(%x: memref<1x8x8x32xf16>, %f: memref<1x1x32x64xf16>, %y: memref<1x4x4x64xf32>) {
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%x, %f : memref<1x8x8x32xf16>, memref<1x1x32x64xf16>) outs(%y : memref<1x4x4x64xf32>)
  return
}

// -----

// The loop's size is the matrix's row length; the number of rows, which
// only the constant index touches, is an extent.
// CHECK-LABEL: gpu.func @elementwise_0
// CHECK-SAME: (%{{.*}}: memref<?xf32>, %{{.*}}: memref<?xf32>, %{{.*}}: index, %{{.*}}: index)
// CHECK-LABEL: func.func @dynamic_constant_index
// CHECK-SAME: (%[[X:.*]]: memref<?x?xf32>
// CHECK-DAG: memref.dim %[[X]], %c1{{.*}} : memref<?x?xf32>
// CHECK-DAG: memref.dim %[[X]], %c0{{.*}} : memref<?x?xf32>
// CHECK: gpu.launch_func @kernels::@elementwise_0 {{.*}} args({{.*}} : memref<?xf32>, %{{.*}} : index, %{{.*}} : index)
func.func @dynamic_constant_index(%x: memref<?x?xf32>, %y: memref<?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (0, d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : memref<?x?xf32>) outs(%y : memref<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  }
  return
}

// -----

// CHECK-LABEL: gpu.func @elementwise_0
// CHECK-SAME: (%{{.*}}: memref<?xf32>, %{{.*}}: memref<32xf32>, %{{.*}}: index)
// CHECK-LABEL: func.func @shifted_dynamic
func.func @shifted_dynamic(%x: memref<?xf32>, %y: memref<32xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0 + 4)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : memref<?xf32>) outs(%y : memref<32xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  return
}
