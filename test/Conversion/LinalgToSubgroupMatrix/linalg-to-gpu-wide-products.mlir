// RUN: sm-opt %s --sm-linalg-to-gpu=target=cpu-lavapipe -split-input-file | FileCheck %s
// RUN: sm-opt %s "--sm-linalg-to-gpu=target=cpu-lavapipe report=1" -split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=REPORT
// RUN: sm-opt %s --sm-linalg-to-gpu=target=nvidia-h100 -split-input-file | FileCheck %s --check-prefix=H100

// Products that no matrix unit computes are reductions like any other:
// one invocation per output, summing in the program's own type (f64
// exactly, i8 and i64 wrapping), on every target.

// REPORT: remark: became kernel 'elementwise_0': {{.*}} (a contraction that is no matrix product: 'f64' inputs accumulated into 'f64' is not a subgroup-matrix multiplication)
// CHECK-LABEL: gpu.func @elementwise_0
// CHECK-NOT: subgroup_matrix.{{load|mma|store}}
// CHECK: scf.for {{.*}} -> (f64)
// CHECK: %[[P:.*]] = arith.mulf %{{.*}}, %{{.*}} : f64
// CHECK: arith.addf %{{.*}}, %[[P]] : f64
// H100-LABEL: gpu.func @elementwise_0
// H100-NOT: subgroup_matrix.{{load|mma|store}}
// H100: arith.mulf {{.*}} : f64
func.func @f64_product(%a: memref<16x32xf64>, %b: memref<32x8xf64>, %c: memref<16x8xf64>) {
  linalg.matmul ins(%a, %b : memref<16x32xf64>, memref<32x8xf64>) outs(%c : memref<16x8xf64>)
  return
}

// -----

// REPORT: remark: became kernel 'elementwise_0': {{.*}}'i8' inputs accumulated into 'i8' is not a subgroup-matrix multiplication
// CHECK-LABEL: gpu.func @elementwise_0
// CHECK: scf.for {{.*}} -> (i8)
// CHECK: %[[P:.*]] = arith.muli %{{.*}}, %{{.*}} : i8
// CHECK: arith.addi %{{.*}}, %[[P]] : i8
// H100-LABEL: gpu.func @elementwise_0
// H100: arith.muli {{.*}} : i8
func.func @i8_wrapping_product(%a: tensor<16x32xi8>, %b: tensor<32x8xi8>) -> tensor<16x8xi8> {
  %zero = arith.constant 0 : i8
  %empty = tensor.empty() : tensor<16x8xi8>
  %c = linalg.fill ins(%zero : i8) outs(%empty : tensor<16x8xi8>) -> tensor<16x8xi8>
  %r = linalg.matmul ins(%a, %b : tensor<16x32xi8>, tensor<32x8xi8>) outs(%c : tensor<16x8xi8>) -> tensor<16x8xi8>
  return %r : tensor<16x8xi8>
}

// -----

// REPORT: remark: became kernel 'elementwise_0': {{.*}}'i64' inputs accumulated into 'i64' is not a subgroup-matrix multiplication
// CHECK-LABEL: gpu.func @elementwise_0
// CHECK: arith.muli {{.*}} : i64
func.func @i64_batch_product(%a: memref<2x4x8xi64>, %b: memref<2x8x4xi64>, %c: memref<2x4x4xi64>) {
  linalg.batch_matmul ins(%a, %b : memref<2x4x8xi64>, memref<2x8x4xi64>) outs(%c : memref<2x4x4xi64>)
  return
}
