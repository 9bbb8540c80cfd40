// RUN: sm-opt %s --sm-linalg-to-gpu=target=nvidia-h100 -split-input-file | FileCheck %s

// A batch of one whose long K is split: the parts are summed into all of
// C's 64 x 8 outputs (two workgroups of 256), C taken as its matrix.
// CHECK: gpu.func @elementwise_1(%{{.*}}: memref<8192xf32>, %{{.*}}: memref<512xf32>) {{.*}}grid = [2, 1, 1]
// CHECK-LABEL: func.func @batch_of_one
// CHECK: gpu.launch_func @kernels::@matmul_0
// CHECK: gpu.launch_func @kernels::@elementwise_1
func.func @batch_of_one(%a: tensor<1x64x2048xf16>, %b: tensor<1x2048x8xf16>) -> tensor<1x64x8xf16> {
  %empty = tensor.empty() : tensor<1x64x8xf16>
  %zero = arith.constant 0.0 : f16
  %fill = linalg.fill ins(%zero : f16) outs(%empty : tensor<1x64x8xf16>) -> tensor<1x64x8xf16>
  %r = linalg.batch_matmul ins(%a, %b : tensor<1x64x2048xf16>, tensor<1x2048x8xf16>) outs(%fill : tensor<1x64x8xf16>) -> tensor<1x64x8xf16>
  return %r : tensor<1x64x8xf16>
}

// -----

// si32 products, which the H100's matrix units lack, are emulated kernels
// (ordinary integer arithmetic, exact) instead of refused.
// CHECK-LABEL: gpu.func @matmul_0
// CHECK-SAME: subgroup_matrix.emulate
// CHECK: subgroup_matrix.mma {{.*}} -> !subgroup_matrix.result<{{.*}}xsi32>
// CHECK-LABEL: func.func @si32_product
func.func @si32_product(%a: memref<64x128xi32>, %b: memref<128x64xi32>, %c: memref<64x64xi32>) {
  linalg.matmul ins(%a, %b : memref<64x128xi32>, memref<128x64xi32>) outs(%c : memref<64x64xi32>)
  return
}
