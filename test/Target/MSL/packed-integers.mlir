// RUN: sm-translate --emit-msl %s -split-input-file -verify-diagnostics | FileCheck %s
// RUN: split-file %s %t.parts
// RUN: sm-translate --emit-msl %t.parts/nibbles.mlir -o %t.nibbles.metal
// RUN: sm-msl-host-runner %t.nibbles.metal --entry nibbles --arg i8:2:const:-9 --arg i32:8:poison --arg f32:4:poison --dump 1 --dump 2 | FileCheck %s --check-prefix=HOST

// MSL has no 4-bit integers: a kernel takes a buffer of i4 as the bytes
// that pack it, two to a byte with the first element in the low bits, and
// takes each element out of its byte with shifts, signed for extsi and
// sitofp, masked for extui. Every byte here is 0xF7: the elements are 7
// and -1 (15 unsigned).
// CHECK-LABEL: kernel void nibbles(device char *arg0 {{\[\[}}buffer(0)]]
// CHECK: char [[BYTE:[a-z0-9_]+]] = arg0[
// CHECK: char [[UP:[a-z0-9_]+]] = [[BYTE]] << 
// CHECK: char {{[a-z0-9_]+}} = [[UP]] >> 
// HOST: argument 1 (i32 x 8): 7 -1 7 -1 7 15 7 15
// HOST: argument 2 (f32 x 4): 7 -1 7 -1
//--- nibbles.mlir
gpu.module @kernels {
  gpu.func @nibbles(%packed: memref<4xi4>, %ints: memref<8xi32>, %floats: memref<4xf32>) kernel attributes {known_block_size = array<i32: 4, 1, 1>} {
    %i = gpu.thread_id x
    %c4 = arith.constant 4 : index
    %v = memref.load %packed[%i] : memref<4xi4>
    %s = arith.extsi %v : i4 to i32
    %u = arith.extui %v : i4 to i32
    %f = arith.sitofp %v : i4 to f32
    %j = arith.addi %i, %c4 : index
    memref.store %s, %ints[%i] : memref<8xi32>
    memref.store %u, %ints[%j] : memref<8xi32>
    memref.store %f, %floats[%i] : memref<4xf32>
    gpu.return
  }
}

// -----
//--- writes.mlir

// A kernel that writes a packed buffer is refused (a byte shared by two
// invocations would need atomics); Emulation/property.test counts that as
// what the path does not support.
gpu.module @kernels {
  gpu.func @writes(%packed: memref<4xi4>) kernel attributes {known_block_size = array<i32: 4, 1, 1>} {
    %i = gpu.thread_id x
    %c1 = arith.constant 1 : i4
    // expected-error @below {{'memref.store' op uses a buffer of 'i4' elements in a way the host-compiled paths (Metal source, the Intel kernels' LLVM IR) do not support: they read packed integers as bytes, one element at a time, each converted to a wider type}}
    memref.store %c1, %packed[%i] : memref<4xi4>
    gpu.return
  }
}
