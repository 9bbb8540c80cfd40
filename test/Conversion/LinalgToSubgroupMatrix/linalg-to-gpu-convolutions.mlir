// RUN: sm-opt %s --sm-linalg-to-gpu=target=nvidia-h100 | FileCheck %s

// A 3x3 convolution after a tensor.pad is one kernel: the window is
// gathered from the unpadded input as A is staged (rows of 8 channels, one
// 16-byte load each), the padding is a bounds check of the image's two
// dimensions (an unsigned comparison catches the row before the first),
// and neither the padded input nor the window is ever allocated.
// CHECK-LABEL: gpu.func @matmul_0
// CHECK-SAME: (%[[X:.*]]: memref<2048xf16>, %[[F:.*]]: memref<18432xf16>, %[[Y:.*]]: memref<4096xf32>)
// CHECK: %[[H:.*]] = arith.addi %{{.*}}, %c-1 : index
// CHECK-NEXT: %[[HIN:.*]] = arith.cmpi ult, %[[H]], %c8 : index
// CHECK: %[[W:.*]] = arith.addi %{{.*}}, %c-1 : index
// CHECK-NEXT: %[[WIN:.*]] = arith.cmpi ult, %[[W]], %c8 : index
// CHECK-NEXT: %[[IN:.*]] = arith.andi %[[HIN]], %[[WIN]] : i1
// CHECK: %[[AT:.*]] = arith.select %[[IN]], %{{.*}}, %c0 : index
// CHECK-NEXT: vector.load %[[X]][%[[AT]]] : memref<2048xf16>, vector<8xf16>
// CHECK-LABEL: func.func @padded_conv
// CHECK-NOT: memref.copy
// CHECK: %[[OUT:.*]] = memref.alloc() {{.*}} : memref<64x64xf32>
// CHECK-NOT: memref.alloc
// CHECK: gpu.launch_func @kernels::@matmul_0
// CHECK-NOT: gpu.launch_func
func.func @padded_conv(%x: tensor<1x8x8x32xf16>, %f: tensor<3x3x32x64xf16>) -> tensor<1x8x8x64xf32> {
  %pad = arith.constant 0.0 : f16
  %xp = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %pad : f16
  } : tensor<1x8x8x32xf16> to tensor<1x10x10x32xf16>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x8x64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x8x64xf32>) -> tensor<1x8x8x64xf32>
  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%xp, %f : tensor<1x10x10x32xf16>, tensor<3x3x32x64xf16>) outs(%acc : tensor<1x8x8x64xf32>) -> tensor<1x8x8x64xf32>
  return %y : tensor<1x8x8x64xf32>
}
