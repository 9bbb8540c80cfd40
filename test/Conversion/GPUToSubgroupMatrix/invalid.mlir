// RUN: sm-opt %s -split-input-file --sm-convert-gpu-mma -verify-diagnostics

gpu.module @kernels {
  gpu.func @thread_local(%a: memref<256xf32>) kernel {
    %c0 = arith.constant 0 : index
    %m = gpu.subgroup_mma_load_matrix %a[%c0] {leadDimension = 16 : index} : memref<256xf32> -> !gpu.mma_matrix<16x16xf32, "COp">
    // expected-error @+1 {{'gpu.subgroup_mma_extract_thread_local' op reads or writes the elements one invocation holds, which no portable layout defines: use subgroup_matrix.map, which gives each element its row and column}}
    %x = gpu.subgroup_mma_extract_thread_local %m[%c0] : !gpu.mma_matrix<16x16xf32, "COp"> -> f32
    gpu.return
  }
}

// -----

gpu.module @kernels {
  gpu.func @f64(%a: memref<256xf64>) kernel {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{'gpu.subgroup_mma_load_matrix' op uses '!gpu.mma_matrix<8x8xf64, "COp">', which cannot become a subgroup matrix: its element type has no subgroup matrix component (f16, f32, 8- and 32-bit integers)}}
    %m = gpu.subgroup_mma_load_matrix %a[%c0] {leadDimension = 8 : index} : memref<256xf64> -> !gpu.mma_matrix<8x8xf64, "COp">
    gpu.subgroup_mma_store_matrix %m, %a[%c0] {leadDimension = 8 : index} : !gpu.mma_matrix<8x8xf64, "COp">, memref<256xf64>
    gpu.return
  }
}

// -----

gpu.module @kernels {
  // expected-error @+1 {{'func.func' @helper takes a !gpu.mma_matrix argument; pass the memory and load the matrix inside instead}}
  func.func @helper(%m: !gpu.mma_matrix<16x16xf32, "COp">) {
    return
  }
}

// -----

// A function that returns a matrix used to fail with "failed to legalize
// unresolved materialization" and the IR of the cast.
gpu.module @kernels {
  // expected-error @+1 {{'func.func' @make returns a !gpu.mma_matrix; store the matrix to memory the caller passes instead}}
  func.func @make(%A: memref<16x16xf16>) -> !gpu.mma_matrix<16x16xf16, "AOp"> {
    %c0 = arith.constant 0 : index
    %a = gpu.subgroup_mma_load_matrix %A[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xf16> -> !gpu.mma_matrix<16x16xf16, "AOp">
    return %a : !gpu.mma_matrix<16x16xf16, "AOp">
  }
}

// -----

gpu.module @kernels {
  func.func private @consume(memref<16x16xf16>)
  func.func @call(%A: memref<16x16xf16>) {
    %c0 = arith.constant 0 : index
    %a = gpu.subgroup_mma_load_matrix %A[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xf16> -> !gpu.mma_matrix<16x16xf16, "AOp">
    // expected-error @+1 {{'builtin.unrealized_conversion_cast' op takes a !gpu.mma_matrix value, which only the gpu.subgroup_mma_* ops and scf control flow can take when they become subgroup matrix ops; pass memory instead}}
    %m = builtin.unrealized_conversion_cast %a : !gpu.mma_matrix<16x16xf16, "AOp"> to memref<16x16xf16>
    func.call @consume(%m) : (memref<16x16xf16>) -> ()
    return
  }
}
