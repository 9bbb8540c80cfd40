// RUN: sm-opt %s -split-input-file --sm-apply-precision-policy | FileCheck %s
// RUN: sm-opt %s -split-input-file --sm-apply-precision-policy=accumulate=f16 | FileCheck %s --check-prefix=F16
// RUN: sm-opt %s -split-input-file --sm-apply-precision-policy="f32-matmul=bf16 target=nvidia-h100" | FileCheck %s --check-prefix=ROUNDED
// RUN: sm-opt %s -split-input-file --sm-apply-precision-policy="f32-matmul=f16 target=intel-xe-hpc" | FileCheck %s --check-prefix=NATIVE

// A bf16 product into bf16 after a constant fill: the fill moves to an f32
// buffer (its value widened, still a constant), the product accumulates
// there from extended factors, and one truncation writes C.
// CHECK-LABEL: func.func @bf16_filled
// CHECK-SAME: (%[[A:.*]]: memref<64x32xbf16>, %[[B:.*]]: memref<32x48xbf16>, %[[C:.*]]: memref<64x48xbf16>)
// CHECK: %[[WIDE:.*]] = memref.alloc() : memref<64x48xf32>
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: linalg.fill ins(%[[ZERO]] : f32) outs(%[[WIDE]] : memref<64x48xf32>)
// CHECK-NOT: linalg.fill
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[A]], %[[B]] : memref<64x32xbf16>, memref<32x48xbf16>) outs(%[[WIDE]] : memref<64x48xf32>)
// CHECK: ^bb0(%[[X:.*]]: bf16, %[[Y:.*]]: bf16, %[[ACC:.*]]: f32):
// CHECK-DAG: %[[XW:.*]] = arith.extf %[[X]] : bf16 to f32
// CHECK-DAG: %[[YW:.*]] = arith.extf %[[Y]] : bf16 to f32
// CHECK: %[[P:.*]] = arith.mulf %[[XW]], %[[YW]] : f32
// CHECK: %[[S:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK: linalg.yield %[[S]] : f32
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[WIDE]] : memref<64x48xf32>) outs(%[[C]] : memref<64x48xbf16>)
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: memref.dealloc %[[WIDE]]
// CHECK-NOT: linalg.matmul
// The policy widens bf16 outputs with accumulate=f16 too.
// F16-LABEL: func.func @bf16_filled
// F16: memref.alloc() : memref<64x48xf32>
func.func @bf16_filled(%a: memref<64x32xbf16>, %b: memref<32x48xbf16>,
                       %c: memref<64x48xbf16>) {
  %zero = arith.constant 0.0 : bf16
  linalg.fill ins(%zero : bf16) outs(%c : memref<64x48xbf16>)
  linalg.matmul ins(%a, %b : memref<64x32xbf16>, memref<32x48xbf16>)
                outs(%c : memref<64x48xbf16>)
  return
}

// -----

// An f16 product that reads C (dynamic M): C is widened first, into a
// buffer of C's sizes.
// CHECK-LABEL: func.func @f16_accumulating
// CHECK-SAME: (%[[A:.*]]: memref<?x64xf16>, %[[B:.*]]: memref<64x16xf16>, %[[C:.*]]: memref<?x16xf16>)
// CHECK: %[[M:.*]] = memref.dim %[[C]], %c0
// CHECK: %[[WIDE:.*]] = memref.alloc(%[[M]]) : memref<?x16xf32>
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[C]] : memref<?x16xf16>) outs(%[[WIDE]] : memref<?x16xf32>)
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: linalg.generic
// CHECK-SAME: outs(%[[WIDE]] : memref<?x16xf32>)
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[WIDE]] : memref<?x16xf32>) outs(%[[C]] : memref<?x16xf16>)
// CHECK: arith.truncf %{{.*}} : f32 to f16
// With accumulate=f16, f16 into f16 stays as written.
// F16-LABEL: func.func @f16_accumulating
// F16-NOT: memref.alloc
// F16: linalg.matmul
func.func @f16_accumulating(%a: memref<?x64xf16>, %b: memref<64x16xf16>,
                            %c: memref<?x16xf16>) {
  linalg.matmul ins(%a, %b : memref<?x64xf16>, memref<64x16xf16>)
                outs(%c : memref<?x16xf16>)
  return
}

// -----

// What already accumulates in f32, and 8-bit products, are left alone.
// CHECK-LABEL: func.func @untouched
// CHECK-NOT: memref.alloc
// CHECK: linalg.matmul
// CHECK: linalg.matmul
func.func @untouched(%a: memref<16x16xf16>, %c: memref<16x16xf32>,
                     %q: memref<16x16xi8>, %r: memref<16x16xi32>) {
  linalg.matmul ins(%a, %a : memref<16x16xf16>, memref<16x16xf16>)
                outs(%c : memref<16x16xf32>)
  linalg.matmul ins(%q, %q : memref<16x16xi8>, memref<16x16xi8>)
                outs(%r : memref<16x16xi32>)
  return
}

// -----

// The fill of another buffer right before the product is not C's.
// CHECK-LABEL: func.func @fill_of_another_buffer
// CHECK: linalg.fill ins(%{{.*}} : f16) outs(%{{.*}} : memref<16x16xf16>)
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}} : memref<16x16xf16>) outs(%{{.*}} : memref<16x16xf32>)
func.func @fill_of_another_buffer(%a: memref<16x16xf16>, %c: memref<16x16xf16>,
                                  %other: memref<16x16xf16>) {
  %zero = arith.constant 0.0 : f16
  linalg.fill ins(%zero : f16) outs(%other : memref<16x16xf16>)
  linalg.matmul ins(%a, %a : memref<16x16xf16>, memref<16x16xf16>)
                outs(%c : memref<16x16xf16>)
  return
}

// -----

// f32 products are left to emulated kernels by default. With
// f32-matmul=bf16 on a target whose matrix units lack f32, A and B are
// rounded into bf16 temporaries and the product accumulates in f32 from
// them; a target with f32 matrices keeps its f32 product.
// CHECK-LABEL: func.func @f32_product
// CHECK-NOT: memref.alloc
// CHECK: linalg.matmul
// ROUNDED-LABEL: func.func @f32_product
// ROUNDED-SAME: (%[[A:.*]]: memref<?x32xf32>, %[[B:.*]]: memref<32x48xf32>, %[[C:.*]]: memref<?x48xf32>)
// ROUNDED: %[[M:.*]] = memref.dim %[[A]], %{{.*}} : memref<?x32xf32>
// ROUNDED: %[[RA:.*]] = memref.alloc(%[[M]]) : memref<?x32xbf16>
// ROUNDED: linalg.generic {{.*}} ins(%[[A]] : memref<?x32xf32>) outs(%[[RA]] : memref<?x32xbf16>)
// ROUNDED: arith.truncf %{{.*}} : f32 to bf16
// ROUNDED: %[[RB:.*]] = memref.alloc() : memref<32x48xbf16>
// ROUNDED: linalg.generic {{.*}} ins(%[[B]] : memref<32x48xf32>) outs(%[[RB]] : memref<32x48xbf16>)
// ROUNDED: linalg.generic
// ROUNDED-SAME: ins(%[[RA]], %[[RB]] : memref<?x32xbf16>, memref<32x48xbf16>) outs(%[[C]] : memref<?x48xf32>)
// ROUNDED: arith.extf %{{.*}} : bf16 to f32
// ROUNDED: memref.dealloc %[[RA]]
// ROUNDED: memref.dealloc %[[RB]]
// ROUNDED-NOT: linalg.matmul
// NATIVE-LABEL: func.func @f32_product
// NATIVE-NOT: memref.alloc
// NATIVE: linalg.matmul
func.func @f32_product(%a: memref<?x32xf32>, %b: memref<32x48xf32>,
                       %c: memref<?x48xf32>) {
  linalg.matmul ins(%a, %b : memref<?x32xf32>, memref<32x48xf32>)
                outs(%c : memref<?x48xf32>)
  return
}
