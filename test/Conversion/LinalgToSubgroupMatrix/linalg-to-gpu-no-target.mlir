// RUN: sm-opt %s --sm-linalg-to-gpu -verify-diagnostics

// expected-error @+1 {{sm-linalg-to-gpu needs a target: pass target=NAME or set subgroup_matrix.target on the module}}
module {
  func.func @f(%a: memref<64x64xf16>, %b: memref<64x64xf16>, %c: memref<64x64xf32>) {
    linalg.matmul ins(%a, %b : memref<64x64xf16>, memref<64x64xf16>) outs(%c : memref<64x64xf32>)
    return
  }
}
