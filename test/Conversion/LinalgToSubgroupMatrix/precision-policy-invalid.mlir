// RUN: sm-opt %s --sm-apply-precision-policy=accumulate=bf16 -verify-diagnostics

// expected-error @below {{sm-apply-precision-policy: unknown accumulate 'bf16' (expected 'f32' or 'f16')}}
module {
  func.func @mm(%a: memref<16x16xf16>, %c: memref<16x16xf16>) {
    linalg.matmul ins(%a, %a : memref<16x16xf16>, memref<16x16xf16>)
                  outs(%c : memref<16x16xf16>)
    return
  }
}
