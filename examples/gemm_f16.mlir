// A tiled GEMM, C = A * B, in f16 with f32 accumulation, for the H100.
//
// Each workgroup of 128 invocations (4 subgroups of 32) computes a 64x16 tile
// of C: subgroup `sg` owns the 16x16 tile at rows 16 * sg of the workgroup's
// tile, walks K in steps of 16 and stores its accumulator once.
// A is M x K, B is K x N and C is M x N, all row-major with leading
// dimensions %lda, %ldb and %ldc.
module attributes {gpu.container_module} {
  gpu.module @kernels attributes {
      subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
    gpu.func @gemm(%A: memref<?xf16>, %B: memref<?xf16>, %C: memref<?xf32>,
                   %K: index, %lda: index, %ldb: index, %ldc: index) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c16 = arith.constant 16 : index
      %c64 = arith.constant 64 : index
      %zero = arith.constant 0.0 : f32
      %sg = gpu.subgroup_id : index
      %bx = gpu.block_id x
      %by = gpu.block_id y
      // Top-left corner of this subgroup's tile of C.
      %tileRow = arith.muli %by, %c64 : index
      %sgRow = arith.muli %sg, %c16 : index
      %row = arith.addi %tileRow, %sgRow : index
      %col = arith.muli %bx, %c16 : index
      %aRowStart = arith.muli %row, %lda : index

      %init = subgroup_matrix.splat %zero : f32 -> !subgroup_matrix.result<16x16xf32>
      %acc = scf.for %k = %c0 to %K step %c16
          iter_args(%c = %init) -> (!subgroup_matrix.result<16x16xf32>) {
        %aOffset = arith.addi %aRowStart, %k : index
        %a = subgroup_matrix.load %A[%aOffset] stride %lda
            : memref<?xf16> -> !subgroup_matrix.left<16x16xf16>
        %bRowStart = arith.muli %k, %ldb : index
        %bOffset = arith.addi %bRowStart, %col : index
        %b = subgroup_matrix.load %B[%bOffset] stride %ldb
            : memref<?xf16> -> !subgroup_matrix.right<16x16xf16>
        %d = subgroup_matrix.mma %a, %b, %c
            : !subgroup_matrix.left<16x16xf16>, !subgroup_matrix.right<16x16xf16>
              -> !subgroup_matrix.result<16x16xf32>
        scf.yield %d : !subgroup_matrix.result<16x16xf32>
      }
      %cRowStart = arith.muli %row, %ldc : index
      %cOffset = arith.addi %cRowStart, %col : index
      subgroup_matrix.store %acc, %C[%cOffset] stride %ldc
          : !subgroup_matrix.result<16x16xf32>, memref<?xf32>
      gpu.return
    }
  }
}
