// RUN: sm-opt %s --sm-normalize-contractions -split-input-file | FileCheck %s

// A strided 3x3 NHWC convolution: the window becomes a gathering generic
// over (n, oh, ow, kh, kw, c) that reads the input through the
// convolution's own map, and the product of its [n*oh*ow, kh*kw*c] view
// with the filter's [kh*kw*c, f] view is one matrix product.
// CHECK-DAG: #[[$WINDOW:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 * 2 + d3, d2 * 2 + d4, d5)>
// CHECK-DAG: #[[$ID6:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
// CHECK-LABEL: func.func @strided_nhwc
// CHECK-SAME: (%[[X:.*]]: tensor<2x9x9x32xf16>, %[[F:.*]]: tensor<3x3x32x64xf16>)
// CHECK: %[[WE:.*]] = tensor.empty() : tensor<2x4x4x3x3x32xf16>
// CHECK: %[[W:.*]] = linalg.generic {indexing_maps = [#[[$WINDOW]], #[[$ID6]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[X]] : tensor<2x9x9x32xf16>) outs(%[[WE]] : tensor<2x4x4x3x3x32xf16>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f16, %{{.*}}: f16):
// CHECK-NEXT: linalg.yield %[[IN]] : f16
// CHECK: %[[A:.*]] = tensor.collapse_shape %[[W]] {{\[}}[0, 1, 2], [3, 4, 5]] : tensor<2x4x4x3x3x32xf16> into tensor<32x288xf16>
// CHECK: %[[B:.*]] = tensor.collapse_shape %[[F]] {{\[}}[0, 1, 2], [3]] : tensor<3x3x32x64xf16> into tensor<288x64xf16>
// CHECK: %[[P:.*]] = linalg.generic {{.*}} ins(%[[A]], %[[B]] : tensor<32x288xf16>, tensor<288x64xf16>) outs(%{{.*}} : tensor<32x64xf32>)
// CHECK: %[[R:.*]] = tensor.expand_shape %[[P]] {{\[}}[0, 1, 2], [3]] output_shape [2, 4, 4, 64]
// CHECK-NOT: linalg.conv
// CHECK: return %[[R]]
func.func @strided_nhwc(%x: tensor<2x9x9x32xf16>, %f: tensor<3x3x32x64xf16>) -> tensor<2x4x4x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4x4x64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4x4x64xf32>) -> tensor<2x4x4x64xf32>
  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %f : tensor<2x9x9x32xf16>, tensor<3x3x32x64xf16>)
      outs(%acc : tensor<2x4x4x64xf32>) -> tensor<2x4x4x64xf32>
  return %y : tensor<2x4x4x64xf32>
}

// -----

// A dilated NCHW convolution: the window's K loops keep the filter's order
// (c, kh, kw), so the filter is read as B given N x K without a copy; the
// output holds F between N and the image, so the product is transposed
// back into it.
// CHECK-DAG: #[[$WINDOW:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, d1 + d4 * 2, d2 + d5 * 2)>
// CHECK-DAG: #[[$BT:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @dilated_nchw
// CHECK: %[[W:.*]] = linalg.generic {indexing_maps = [#[[$WINDOW]], {{.*}}]
// CHECK-SAME: outs(%{{.*}} : tensor<2x5x5x16x3x3xf16>)
// CHECK: %[[A:.*]] = tensor.collapse_shape %[[W]] {{\[}}[0, 1, 2], [3, 4, 5]] : tensor<2x5x5x16x3x3xf16> into tensor<50x144xf16>
// CHECK: %[[B:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2, 3]] : tensor<24x16x3x3xf16> into tensor<24x144xf16>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[$BT]], #{{.*}}]
// CHECK-SAME: ins(%[[A]], %[[B]] : tensor<50x144xf16>, tensor<24x144xf16>)
// CHECK: linalg.transpose {{.*}} permutation = [0, 3, 1, 2]
func.func @dilated_nchw(%x: tensor<2x16x9x9xf16>, %f: tensor<24x16x3x3xf16>) -> tensor<2x24x5x5xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x24x5x5xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<2x24x5x5xf32>) -> tensor<2x24x5x5xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %f : tensor<2x16x9x9xf16>, tensor<24x16x3x3xf16>)
      outs(%acc : tensor<2x24x5x5xf32>) -> tensor<2x24x5x5xf32>
  return %y : tensor<2x24x5x5xf32>
}

// -----

// A grouped convolution: the groups are the product's batch, the window a
// batch of matrices.
// CHECK-LABEL: func.func @grouped
// CHECK: %[[W:.*]] = linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<2x1x6x6x3x3x8xf16>)
// CHECK: tensor.collapse_shape %[[W]] {{\[}}[0], [1, 2, 3], [4, 5, 6]] : tensor<2x1x6x6x3x3x8xf16> into tensor<2x36x72xf16>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]
func.func @grouped(%x: tensor<1x8x8x2x8xf16>, %f: tensor<2x16x3x3x8xf16>, %acc: tensor<1x6x6x2x16xf32>) -> tensor<1x6x6x2x16xf32> {
  %y = linalg.conv_2d_nhwgc_gfhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %f : tensor<1x8x8x2x8xf16>, tensor<2x16x3x3x8xf16>)
      outs(%acc : tensor<1x6x6x2x16xf32>) -> tensor<1x6x6x2x16xf32>
  return %y : tensor<1x6x6x2x16xf32>
}

// -----

// Left for later stages: a depthwise convolution (no output channels: the
// product would have no N), a 1x1 convolution with unit strides (viewed
// without a gather by sm-unit-convolutions-to-contractions) and a
// convolution of dynamic size.
// CHECK-LABEL: func.func @left_alone
// CHECK: linalg.depthwise_conv_2d_nhwc_hwc
// CHECK: linalg.conv_2d_nhwc_hwcf
// CHECK: linalg.conv_2d_nhwc_hwcf
// CHECK-NOT: linalg.generic
func.func @left_alone(%x: tensor<1x8x8x16xf16>, %dw: tensor<3x3x16xf16>, %dacc: tensor<1x6x6x16xf32>,
                      %w1: tensor<1x1x16x32xf16>, %acc1: tensor<1x8x8x32xf32>,
                      %xd: tensor<?x8x8x16xf16>, %w3: tensor<3x3x16x32xf16>, %accd: tensor<?x6x6x32xf32>)
    -> (tensor<1x6x6x16xf32>, tensor<1x8x8x32xf32>, tensor<?x6x6x32xf32>) {
  %d = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %dw : tensor<1x8x8x16xf16>, tensor<3x3x16xf16>) outs(%dacc : tensor<1x6x6x16xf32>) -> tensor<1x6x6x16xf32>
  %u = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w1 : tensor<1x8x8x16xf16>, tensor<1x1x16x32xf16>) outs(%acc1 : tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32>
  %v = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%xd, %w3 : tensor<?x8x8x16xf16>, tensor<3x3x16x32xf16>) outs(%accd : tensor<?x6x6x32xf32>) -> tensor<?x6x6x32xf32>
  return %d, %u, %v : tensor<1x6x6x16xf32>, tensor<1x8x8x32xf32>, tensor<?x6x6x32xf32>
}

// -----

// A quantized convolution: the window gathered as for any convolution, the
// product of the stored bytes, the window's sums taken from the input
// itself (the window stays the product's alone; a shape-only operand gives
// the window loops their sizes), the filter's column sums, and the zero
// points' corrections, K = 3 * 3 * 32 = 288.
// CHECK-LABEL: func.func @conv_quantized
// CHECK-SAME: (%[[X:.*]]: tensor<2x9x11x32xi8>, %[[F:.*]]: tensor<3x3x32x40xi8>)
// CHECK-DAG: %[[KZZ:.*]] = arith.constant -4320 : i32
// CHECK-DAG: %[[ZX:.*]] = arith.constant 5 : i32
// CHECK-DAG: %[[ZF:.*]] = arith.constant -3 : i32
// CHECK: %[[WINDOW:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<2x9x11x32xi8>) outs(%{{.*}} : tensor<2x7x9x3x3x32xi8>)
// CHECK: %[[SHAPE:.*]] = tensor.empty() : tensor<3x3xi32>
// CHECK: %[[ROWS:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[SHAPE]] : tensor<2x9x11x32xi8>, tensor<3x3xi32>) outs(%{{.*}} : tensor<2x7x9xi32>)
// CHECK: %[[COLUMNS:.*]] = linalg.generic {{.*}} ins(%[[F]] : tensor<3x3x32x40xi8>) outs(%{{.*}} : tensor<40xi32>)
// CHECK: %[[A:.*]] = tensor.collapse_shape %[[WINDOW]] {{\[\[}}0, 1, 2], [3, 4, 5]] : tensor<2x7x9x3x3x32xi8> into tensor<126x288xi8>
// CHECK: %[[PRODUCT:.*]] = linalg.generic {{.*}} ins(%[[A]], %{{.*}} : tensor<126x288xi8>, tensor<288x40xi8>)
// CHECK-NOT: arith.subi
// CHECK: %[[ROWS2:.*]] = tensor.collapse_shape %[[ROWS]]
// CHECK: linalg.generic {{.*}} ins(%[[PRODUCT]], %[[ROWS2]], %[[COLUMNS]] : tensor<126x40xi32>, tensor<126xi32>, tensor<40xi32>)
// CHECK: arith.muli %{{.*}}, %[[ZF]]
// CHECK: arith.muli %{{.*}}, %[[ZX]]
// CHECK: arith.addi %{{.*}}, %[[KZZ]]
func.func @conv_quantized(%x: tensor<2x9x11x32xi8>, %f: tensor<3x3x32x40xi8>) -> tensor<2x7x9x40xi32> {
  %zx = arith.constant 5 : i32
  %zf = arith.constant -3 : i32
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<2x7x9x40xi32>
  %init = linalg.fill ins(%zero : i32) outs(%e : tensor<2x7x9x40xi32>) -> tensor<2x7x9x40xi32>
  %r = linalg.conv_2d_nhwc_hwcf_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %f, %zx, %zf : tensor<2x9x11x32xi8>, tensor<3x3x32x40xi8>, i32, i32) outs(%init : tensor<2x7x9x40xi32>) -> tensor<2x7x9x40xi32>
  return %r : tensor<2x7x9x40xi32>
}
