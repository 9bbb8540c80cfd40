// RUN: sm-opt %s --sm-lower-to-intel=target=intel-xe-hpc | sm-translate --emit-intel-host-llvm | FileCheck %s
// RUN: sm-opt %s --sm-lower-to-intel=target=intel-xe-hpc | sm-translate --emit-intel-host-llvm -o %t.ll
// RUN: sm-intel-host-runner %t.ll --entry nibbles --arg i8:2:const:-9 --arg i32:8:poison --dump 1 | FileCheck %s --check-prefix=HOST
// RUN: sm-opt %s --sm-lower-to-intel=target=intel-xe-hpc | sm-translate --emit-intel-spirv -o %t.spv
// RUN: spirv-val --target-env spv1.4 %t.spv

// The Intel kernels' LLVM IR (and the binary made from it) read a buffer
// of i4 as the bytes that pack it, as the Metal source does
// (../MSL/packed-integers.mlir): each byte here is 0xF7, elements 7 and -1
// (15 unsigned).
// CHECK-LABEL: define {{.*}} @nibbles(
// CHECK: load i8, ptr addrspace(1)
// CHECK: ashr i8
// HOST: argument 1 (i32 x 8): 7 -1 7 -1 7 15 7 15
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"intel-xe-hpc">} {
  gpu.func @nibbles(%packed: memref<4xi4>, %ints: memref<8xi32>) kernel attributes {known_block_size = array<i32: 16, 1, 1>} {
    %i = gpu.thread_id x
    %c4 = arith.constant 4 : index
    %in = arith.cmpi ult, %i, %c4 : index
    scf.if %in {
      %v = memref.load %packed[%i] : memref<4xi4>
      %s = arith.extsi %v : i4 to i32
      %u = arith.extui %v : i4 to i32
      %j = arith.addi %i, %c4 : index
      memref.store %s, %ints[%i] : memref<8xi32>
      memref.store %u, %ints[%j] : memref<8xi32>
    }
    gpu.return
  }
}
