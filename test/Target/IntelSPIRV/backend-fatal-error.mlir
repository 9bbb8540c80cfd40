// RUN: sm-translate --emit-intel-spirv %s --verify-diagnostics -o /dev/null

// LLVM's SPIR-V backend cannot legalize a phi of 20 floats (more than a
// SPIR-V vector's 16 components, and no multiple of 8 that the translation
// could split it into) and reports a fatal error, which used to end the
// process (and a Python caller with it). The backend runs in llc, a
// process of its own, and the error comes back located.

// expected-error @+1 {{LLVM's SPIR-V backend failed on these kernels: unable to legalize instruction}}
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"intel-xe-hpg">} {
  gpu.func @odd_phi(%A: memref<?xf32>, %n: index) kernel attributes {known_block_size = array<i32: 8, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %init = arith.constant dense<1.0> : vector<20xf32>
    %sum = scf.for %i = %c0 to %n step %c1 iter_args(%v = %init) -> (vector<20xf32>) {
      %twice = arith.addf %v, %v : vector<20xf32>
      scf.yield %twice : vector<20xf32>
    }
    %e = vector.extract %sum[3] : f32 from vector<20xf32>
    memref.store %e, %A[%c0] : memref<?xf32>
    gpu.return
  }
}
