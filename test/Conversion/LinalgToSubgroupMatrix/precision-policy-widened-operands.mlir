// RUN: sm-opt %s -split-input-file --sm-apply-precision-policy="target=apple-m1 report=1" -verify-diagnostics | FileCheck %s
// RUN: sm-opt %s -split-input-file --sm-apply-precision-policy="target=intel-xe-hpc" | FileCheck %s --check-prefix=NATIVE
// RUN: sm-opt %s -split-input-file --sm-linalg-to-gpu="target=apple-m1" | FileCheck %s --check-prefix=KERNEL

// apple-m1 multiplies f32 and f16 -> f16 matrices but has no f16 -> f32:
// an f16 product into f32 reads its operands widened to f32 by element-wise
// extensions, and multiplies them in f32. A target with f16 -> f32 matrices
// keeps the product as it is.
// CHECK-LABEL: func.func @f16_into_f32
// CHECK-SAME: (%[[A:.*]]: memref<64x32xf16>, %[[B:.*]]: memref<32x48xf16>, %[[C:.*]]: memref<64x48xf32>)
// CHECK: %[[AW:.*]] = memref.alloc() : memref<64x32xf32>
// CHECK: linalg.generic {{.*}} ins(%[[A]] : memref<64x32xf16>) outs(%[[AW]] : memref<64x32xf32>)
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: %[[BW:.*]] = memref.alloc() : memref<32x48xf32>
// CHECK: linalg.generic {{.*}} ins(%[[B]] : memref<32x48xf16>) outs(%[[BW]] : memref<32x48xf32>)
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[AW]], %[[BW]] : memref<64x32xf32>, memref<32x48xf32>) outs(%[[C]] : memref<64x48xf32>)
// CHECK: memref.dealloc %[[AW]]
// CHECK: memref.dealloc %[[BW]]
// NATIVE-LABEL: func.func @f16_into_f32
// NATIVE-NOT: memref.alloc
// NATIVE: linalg.matmul
// The kernel stages the f16 tiles converted, on 8x8x8 f32 matrices.
// KERNEL-LABEL: gpu.func @matmul_0
// KERNEL-SAME: memref<2048xf16>, %{{.*}}: memref<1536xf16>
// KERNEL: arith.extf %{{.*}} : f16 to f32
// KERNEL: subgroup_matrix.mma {{.*}} !subgroup_matrix.left<8x8xf32>
func.func @f16_into_f32(%a: memref<64x32xf16>, %b: memref<32x48xf16>, %c: memref<64x48xf32>) {
  // expected-remark @below {{its 'f16' operands are widened to f32 as its kernel stages them: target 'apple-m1' multiplies f32 matrices and has none of that type}}
  linalg.matmul ins(%a, %b : memref<64x32xf16>, memref<32x48xf16>) outs(%c : memref<64x48xf32>)
  return
}

// -----

// A bf16 product into bf16 accumulates in f32 (the policy's first rule),
// and that f32 product reads its bf16 operands widened.
// CHECK-LABEL: func.func @bf16_into_bf16
// CHECK: %[[ACC:.*]] = memref.alloc() : memref<16x16xf32>
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : memref<16x8xf32>, memref<8x16xf32>) outs(%[[ACC]] : memref<16x16xf32>)
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// NATIVE-LABEL: func.func @bf16_into_bf16
// NATIVE: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : memref<16x8xbf16>, memref<8x16xbf16>)
// KERNEL-LABEL: gpu.func @matmul_0
// KERNEL: subgroup_matrix.mma {{.*}} !subgroup_matrix.left<8x8xf32>
func.func @bf16_into_bf16(%a: memref<16x8xbf16>, %b: memref<8x16xbf16>, %c: memref<16x16xbf16>) {
  // expected-remark @below {{its 'bf16' operands are widened to f32}}
  linalg.matmul ins(%a, %b : memref<16x8xbf16>, memref<8x16xbf16>) outs(%c : memref<16x16xbf16>)
  return
}

// -----

// An 8-bit product apple-m1 has no matrices for, widened or not, takes the
// emulated form (per-invocation arithmetic): nothing widens.
// CHECK-LABEL: func.func @i8_emulated
// CHECK-NOT: memref.alloc
// CHECK: linalg.matmul
// KERNEL-LABEL: gpu.func @matmul_0
// KERNEL-SAME: subgroup_matrix.emulate
// KERNEL: subgroup_matrix.mma {{.*}} !subgroup_matrix.left<16x16xsi8>
func.func @i8_emulated(%a: memref<16x32xi8>, %b: memref<32x16xi8>, %c: memref<16x16xi32>) {
  linalg.matmul ins(%a, %b : memref<16x32xi8>, memref<32x16xi8>) outs(%c : memref<16x16xi32>)
  return
}

// -----

// A Gram matrix reads one computed buffer as both operands: its producer
// writes f32 once, the product reads that buffer twice, and the narrow
// buffer goes once (it was erased twice: generate.py seed 2931 on
// apple-m1, a crash some runs).
// CHECK-LABEL: func.func @gram_of_computed_operand
// CHECK-NOT: memref.alloc() : memref<40x16xf16>
// CHECK: %[[WIDE:.*]] = memref.alloc() : memref<40x16xf32>
// CHECK-NOT: memref.alloc
// CHECK: linalg.generic {{.*}} outs(%[[WIDE]] : memref<40x16xf32>)
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[WIDE]], %[[WIDE]] : memref<40x16xf32>, memref<40x16xf32>)
// CHECK: memref.dealloc %[[WIDE]]
func.func @gram_of_computed_operand(%w: memref<16x40xf16>, %g: memref<40x40xf32>) {
  %x = memref.alloc() : memref<40x16xf16>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%w : memref<16x40xf16>) outs(%x : memref<40x16xf16>) {
  ^bb0(%in: f16, %out: f16):
    linalg.yield %in : f16
  }
  // expected-remark @below {{its 'f16' operands are widened to f32}}
  linalg.matmul indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (j, k)>, affine_map<(i, j, k) -> (i, j)>] ins(%x, %x : memref<40x16xf16>, memref<40x16xf16>) outs(%g : memref<40x40xf32>)
  memref.dealloc %x : memref<40x16xf16>
  return
}
