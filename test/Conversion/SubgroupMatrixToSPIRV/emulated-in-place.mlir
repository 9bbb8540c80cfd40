// Emulated multiplications read operands loaded from workgroup memory in
// place: each invocation loads the elements of its row of A and column of
// B from where the kernel staged them, with no exchange (no scratch, no
// subgroup barrier, no shuffle). An operand whose buffer is written between
// its load and the multiplication is exchanged as before.
// RUN: sm-opt %s --sm-lower-to-vulkan="target=nvidia-h100 emulation=all" | FileCheck %s
// RUN: sm-opt %s --sm-lower-to-vulkan="target=nvidia-h100 emulation=all" | sm-translate --serialize-spirv -o %t.h100.spv
// RUN: spirv-val --target-env vulkan1.3 %t.h100.spv
// RUN: sm-opt %s --sm-lower-to-vulkan=target=cpu-lavapipe | FileCheck %s --check-prefix=LAVAPIPE
// RUN: sm-opt %s --sm-lower-to-vulkan="target=cpu-lavapipe emulated-exchange=workgroup" | FileCheck %s
// RUN: sm-opt %s --sm-lower-to-vulkan="target=cpu-lavapipe emulated-exchange=workgroup" | sm-translate --serialize-spirv -o %t.spv
// RUN: spirv-val --target-env vulkan1.3 %t.spv
// RUN: %if lavapipe %{ %lavapipe %t.spv --entry staged --arg f16:2048:random --arg f16:2048:random \
// RUN:   --arg f32:1024:poison --grid 2,2 --check gemm:M=32,N=32,K=64,A=0,B=1,C=2 | FileCheck %s --check-prefix=EXECUTED %}
// RUN: %if lavapipe %{ %lavapipe %t.spv --entry written_between --arg f32:2048:random --arg f32:2048:random \
// RUN:   --arg f32:1024:poison --grid 2,2 --check gemm:M=32,N=32,K=64,A=0,B=1,C=2 | FileCheck %s --check-prefix=EXECUTED %}
// EXECUTED: check gemm 32x32x64 (C = argument 2, f32): PASSED: 1024 elements, 0 mismatches

// Both operands in place: A's elements read along its rows (f16, widened),
// B's down its columns of the N x K copy (col_major).
// CHECK-LABEL: spirv.func @staged
// CHECK-NOT: spirv.ControlBarrier <Subgroup>
// CHECK-NOT: spirv.GroupNonUniform
// CHECK: %[[A:.*]] = spirv.Load "Workgroup" %{{.*}} : f16
// CHECK: %[[WIDE:.*]] = spirv.FConvert %[[A]] : f16 to f32
// CHECK: %[[B:.*]] = spirv.Load "Workgroup" %{{.*}} : f16
// CHECK: %[[WIDEB:.*]] = spirv.FConvert %[[B]] : f16 to f32
// CHECK: spirv.FMul %[[WIDE]], %[[WIDEB]] : f32
// CHECK-NOT: spirv.ControlBarrier <Subgroup>
// CHECK-NOT: spirv.GroupNonUniform
// CHECK: spirv.Return

// A store into workgroup memory between A's load and the mma: A goes
// through the exchange scratch (between subgroup barriers); B, loaded after
// the store, is read in place.
// CHECK-LABEL: spirv.func @written_between
// CHECK: spirv.ControlBarrier <Subgroup>, <Subgroup>, <AcquireRelease|WorkgroupMemory>
// CHECK: spirv.ControlBarrier <Subgroup>, <Subgroup>, <AcquireRelease|WorkgroupMemory>
// CHECK: spirv.Return

// In-place reads come with the workgroup exchange (the default on GPUs with
// matrix units, asked for above on lavapipe so that both kernels run there
// in that form). lavapipe's default exchange, broadcasts, stays as it was:
// a broadcast is a register move there, a read of workgroup memory a gather.
// LAVAPIPE-LABEL: spirv.func @staged
// LAVAPIPE: spirv.GroupNonUniformBroadcast
// LAVAPIPE: spirv.Return
// LAVAPIPE-LABEL: spirv.func @written_between
// LAVAPIPE: spirv.GroupNonUniform
// LAVAPIPE: spirv.Return

// A is 32 x 64, B 64 x 32 (K x N), C 32 x 32, all row-major. A workgroup of
// one subgroup owns a 16x16 tile of C; for each K step of 16 its
// invocations stage A's 16x16 block as it is and B's as N x K.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @staged(%A: memref<32x64xf16>, %B: memref<64x32xf16>,
                     %C: memref<32x32xf32>) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c16 = arith.constant 16 : index
      %c32 = arith.constant 32 : index
      %c64 = arith.constant 64 : index
      %c256 = arith.constant 256 : index
      %zero = arith.constant 0.0 : f32
      %staged_a = memref.alloc() : memref<16x16xf16, #gpu.address_space<workgroup>>
      %staged_b = memref.alloc() : memref<16x16xf16, #gpu.address_space<workgroup>>
      %tid = gpu.thread_id x
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %row = arith.muli %by, %c16 : index
      %col = arith.muli %bx, %c16 : index
      %init = subgroup_matrix.splat %zero : f32 -> !subgroup_matrix.result<16x16xf32>
      %acc = scf.for %k = %c0 to %c64 step %c16
          iter_args(%c = %init) -> (!subgroup_matrix.result<16x16xf32>) {
        scf.for %e = %tid to %c256 step %c32 {
          %i = arith.divui %e, %c16 : index
          %j = arith.remui %e, %c16 : index
          %gm = arith.addi %row, %i : index
          %gk = arith.addi %k, %j : index
          %a = memref.load %A[%gm, %gk] : memref<32x64xf16>
          memref.store %a, %staged_a[%i, %j] : memref<16x16xf16, #gpu.address_space<workgroup>>
          %bk = arith.addi %k, %i : index
          %bn = arith.addi %col, %j : index
          %b = memref.load %B[%bk, %bn] : memref<64x32xf16>
          memref.store %b, %staged_b[%j, %i] : memref<16x16xf16, #gpu.address_space<workgroup>>
        }
        gpu.barrier
        %left = subgroup_matrix.load %staged_a[%c0, %c0] stride %c16
            : memref<16x16xf16, #gpu.address_space<workgroup>> -> !subgroup_matrix.left<16x16xf16>
        %right = subgroup_matrix.load %staged_b[%c0, %c0] stride %c16 col_major
            : memref<16x16xf16, #gpu.address_space<workgroup>> -> !subgroup_matrix.right<16x16xf16>
        %d = subgroup_matrix.mma %left, %right, %c
            : !subgroup_matrix.left<16x16xf16>, !subgroup_matrix.right<16x16xf16>
              -> !subgroup_matrix.result<16x16xf32>
        gpu.barrier
        scf.yield %d : !subgroup_matrix.result<16x16xf32>
      }
      subgroup_matrix.store %acc, %C[%row, %col] stride %c32
          : !subgroup_matrix.result<16x16xf32>, memref<32x32xf32>
      gpu.return
    }

    // f32 (emulated on request, as sm-linalg-to-gpu marks the f32 products
    // of targets without f32 matrices), B staged K x N in 17 rows: the last row is scratch that an
    // invocation writes between A's load and the mma.
    gpu.func @written_between(%A: memref<32x64xf32>, %B: memref<64x32xf32>,
                              %C: memref<32x32xf32>) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>,
                    subgroup_matrix.emulate} {
      %c0 = arith.constant 0 : index
      %c16 = arith.constant 16 : index
      %c32 = arith.constant 32 : index
      %c64 = arith.constant 64 : index
      %c256 = arith.constant 256 : index
      %zero = arith.constant 0.0 : f32
      %staged_a = memref.alloc() : memref<16x16xf32, #gpu.address_space<workgroup>>
      %staged_b = memref.alloc() : memref<17x16xf32, #gpu.address_space<workgroup>>
      %tid = gpu.thread_id x
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %row = arith.muli %by, %c16 : index
      %col = arith.muli %bx, %c16 : index
      %init = subgroup_matrix.splat %zero : f32 -> !subgroup_matrix.result<16x16xf32>
      %acc = scf.for %k = %c0 to %c64 step %c16
          iter_args(%c = %init) -> (!subgroup_matrix.result<16x16xf32>) {
        scf.for %e = %tid to %c256 step %c32 {
          %i = arith.divui %e, %c16 : index
          %j = arith.remui %e, %c16 : index
          %gm = arith.addi %row, %i : index
          %gk = arith.addi %k, %j : index
          %a = memref.load %A[%gm, %gk] : memref<32x64xf32>
          memref.store %a, %staged_a[%i, %j] : memref<16x16xf32, #gpu.address_space<workgroup>>
          %bk = arith.addi %k, %i : index
          %bn = arith.addi %col, %j : index
          %b = memref.load %B[%bk, %bn] : memref<64x32xf32>
          memref.store %b, %staged_b[%i, %j] : memref<17x16xf32, #gpu.address_space<workgroup>>
        }
        gpu.barrier
        %left = subgroup_matrix.load %staged_a[%c0, %c0] stride %c16
            : memref<16x16xf32, #gpu.address_space<workgroup>> -> !subgroup_matrix.left<16x16xf32>
        %c16_row = arith.constant 16 : index
        memref.store %zero, %staged_b[%c16_row, %c0] : memref<17x16xf32, #gpu.address_space<workgroup>>
        %right = subgroup_matrix.load %staged_b[%c0, %c0] stride %c16
            : memref<17x16xf32, #gpu.address_space<workgroup>> -> !subgroup_matrix.right<16x16xf32>
        %d = subgroup_matrix.mma %left, %right, %c
            : !subgroup_matrix.left<16x16xf32>, !subgroup_matrix.right<16x16xf32>
              -> !subgroup_matrix.result<16x16xf32>
        gpu.barrier
        scf.yield %d : !subgroup_matrix.result<16x16xf32>
      }
      subgroup_matrix.store %acc, %C[%row, %col] stride %c32
          : !subgroup_matrix.result<16x16xf32>, memref<32x32xf32>
      gpu.return
    }
  }
}
