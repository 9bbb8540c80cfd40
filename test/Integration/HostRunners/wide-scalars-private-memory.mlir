// REQUIRES: lavapipe
// f64 and i64 kernels and per-invocation allocations, lowered for lavapipe
// (which has shaderFloat64 and shaderInt64) and run there, and for Xe-HPC
// and run on the Intel host runner. The expected
// values follow from the kernels: x * 2.5 over 0, 1, 2, ...; n + i over
// n = i; each invocation's four elements reversed through its own array.
// RUN: sm-opt %s --sm-lower-to-vulkan=target=cpu-lavapipe | sm-translate --serialize-spirv -o %t.spv
// RUN: spirv-val --target-env vulkan1.3 %t.spv
// RUN: %lavapipe %t.spv --entry scale --arg f64:16:iota --scalar f64:2.5 --arg i32:16:poison --dump 0 | FileCheck %s --check-prefix=F64
// RUN: %lavapipe %t.spv --entry reverse --arg f32:32:iota --dump 0 | FileCheck %s --check-prefix=REVERSE
// RUN: %lavapipe %t.spv --entry sum64 --arg f32:8:poison --dump 0 | FileCheck %s --check-prefix=I64
// The Intel path too: its SPIR-V (the arrays on the stack, in the Function
// storage class) and its host execution.
// RUN: sm-opt %s --sm-lower-to-intel=target=intel-xe-hpc -o %t.intel.mlir
// RUN: sm-translate --emit-intel-spirv %t.intel.mlir -o %t.intel.spv
// RUN: spirv-val --target-env spv1.4 %t.intel.spv
// RUN: sm-translate --emit-intel-host-llvm %t.intel.mlir -o %t.ll
// RUN: sm-intel-host-runner %t.ll --entry scale --arg f64:16:iota --scalar f64:2.5 --arg i32:16:poison --dump 0 | FileCheck %s --check-prefix=F64
// RUN: sm-intel-host-runner %t.ll --entry reverse --arg f32:32:iota --dump 0 | FileCheck %s --check-prefix=REVERSE
// RUN: sm-intel-host-runner %t.ll --entry sum64 --arg f32:8:poison --dump 0 | FileCheck %s --check-prefix=I64

// F64: argument 0 (f64 x 16): 0 2.5 5 7.5 10 12.5 15 17.5 20 22.5 25 27.5 30 32.5 35 37.5
// REVERSE: argument 0 (f32 x 32): 3 2 1 0 7 6 5 4 11 10 9 8 15 14 13 12 19 18 17 16 23 22 21 20 27 26 25 24 31 30 29 28
// 2^40 + i computed in i64 and printed to six digits (in 32 bits 2^40
// would wrap to 0 and the values be 0, 1, 2, ...).
// I64: argument 0 (f32 x 8): 1.09951e+12 1.09951e+12

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scale(%A: memref<?xf64>, %s: f64, %unused: memref<?xi32>) kernel
        attributes {known_block_size = array<i32: 16, 1, 1>} {
      %i = gpu.thread_id x
      %x = memref.load %A[%i] : memref<?xf64>
      %y = arith.mulf %x, %s : f64
      memref.store %y, %A[%i] : memref<?xf64>
      gpu.return
    }
    gpu.func @reverse(%A: memref<?xf32>) kernel
        attributes {known_block_size = array<i32: 8, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %t = gpu.thread_id x
      %base = arith.muli %t, %c4 : index
      %buffer = memref.alloc() : memref<4xf32, #gpu.address_space<private>>
      scf.for %k = %c0 to %c4 step %c1 {
        %at = arith.addi %base, %k : index
        %x = memref.load %A[%at] : memref<?xf32>
        %back = arith.subi %c3, %k : index
        memref.store %x, %buffer[%back] : memref<4xf32, #gpu.address_space<private>>
      }
      scf.for %k = %c0 to %c4 step %c1 {
        %x = memref.load %buffer[%k] : memref<4xf32, #gpu.address_space<private>>
        %at = arith.addi %base, %k : index
        memref.store %x, %A[%at] : memref<?xf32>
      }
      gpu.return
    }
    gpu.func @sum64(%A: memref<?xf32>) kernel
        attributes {known_block_size = array<i32: 8, 1, 1>} {
      %i = gpu.thread_id x
      %big = arith.constant 1099511627776 : i64
      %i32 = arith.index_cast %i : index to i32
      %i64 = arith.extsi %i32 : i32 to i64
      %sum = arith.addi %big, %i64 : i64
      %f = arith.sitofp %sum : i64 to f32
      memref.store %f, %A[%i] : memref<?xf32>
      gpu.return
    }
  }
}
