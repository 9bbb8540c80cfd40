// RUN: sm-opt %s --sm-apply-precision-policy=accumulate=bf16 -verify-diagnostics
// RUN: not sm-opt %s --sm-apply-precision-policy=f32-matmul=tf32 2>&1 | FileCheck %s --check-prefix=F32-MATMUL

// expected-error @below {{sm-apply-precision-policy: unknown accumulate 'bf16' (expected 'f32' or 'f16')}}
module {
  func.func @mm(%a: memref<16x16xf16>, %c: memref<16x16xf16>) {
    linalg.matmul ins(%a, %a : memref<16x16xf16>, memref<16x16xf16>)
                  outs(%c : memref<16x16xf16>)
    return
  }
}

// F32-MATMUL: error: sm-apply-precision-policy: unknown f32-matmul 'tf32' (expected 'emulate', 'f16' or 'bf16')
