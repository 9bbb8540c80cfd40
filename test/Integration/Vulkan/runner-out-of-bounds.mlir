// REQUIRES: lavapipe
// RUN: sm-opt %s --sm-lower-to-vulkan=target=nvidia-h100 | sm-translate --serialize-spirv -o %t.spv
// RUN: spirv-val --target-env vulkan1.3 %t.spv
// RUN: %lavapipe %t.spv --entry in_bounds --arg f32:32:random --arg f32:32:poison \
// RUN:   --expect-same 1:0 | FileCheck %s --check-prefix=IN
// Zeros are written past the end: guard bytes are never zero, so all four
// of the element show as changed (random data could match one by chance).
// RUN: not %lavapipe %t.spv --entry past_end --arg f32:32:const:0 --arg f32:32:poison \
// RUN:   | FileCheck %s --check-prefix=PAST
// RUN: %lavapipe %t.spv --entry before_start --arg f32:32:random --arg f32:32:poison \
// RUN:   --dump 1 | FileCheck %s --check-prefix=BEFORE

// Every buffer lies between guard bytes inside its device allocation, bound
// at an offset, and its range reaches over the guard bytes after it. With
// robust buffer access off (as the runner creates the device), a kernel that
// writes past either end of an argument damages them, and the run fails
// naming the argument and the offset.
//
// Lavapipe bounds-checks every storage-buffer access against the binding's
// range and drops the rest, so a write before the start (a negative offset)
// never lands there: its run shows the element the kernel did not write
// instead (the last, still poison: NaN). On GPUs without robustness such a
// write lands in the guard bytes before the buffer and fails the bounds
// check; the host runners' tests (guard pages) cover that case on the CPU.

// IN: check bounds: PASSED: no argument accessed outside its buffer (2 arguments between guard regions)
// IN: check same: argument 1 after the run PASSED
// PAST: check bounds: argument 1 (f32 x 32): FAILED: written past its end at byte offset 128 (element 32), 4 guard bytes changed, the farthest at 131
// PAST-NOT: argument 0
// BEFORE: argument 1 (f32 x 32):{{( [-0-9.e]+)+}} {{-?}}nan{{$}}

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @in_bounds(%from: memref<32xf32>, %to: memref<32xf32>) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>} {
      %i = gpu.thread_id x
      %v = memref.load %from[%i] : memref<32xf32>
      memref.store %v, %to[%i] : memref<32xf32>
      gpu.return
    }
    // Invocation i writes element i + 1: the last writes element 32.
    gpu.func @past_end(%from: memref<32xf32>, %to: memref<32xf32>) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>} {
      %c1 = arith.constant 1 : index
      %i = gpu.thread_id x
      %v = memref.load %from[%i] : memref<32xf32>
      %j = arith.addi %i, %c1 : index
      memref.store %v, %to[%j] : memref<32xf32>
      gpu.return
    }
    // Invocation i writes element i - 1: the first writes element -1.
    gpu.func @before_start(%from: memref<32xf32>, %to: memref<32xf32>) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>} {
      %c1 = arith.constant 1 : index
      %i = gpu.thread_id x
      %v = memref.load %from[%i] : memref<32xf32>
      %j = arith.subi %i, %c1 : index
      memref.store %v, %to[%j] : memref<32xf32>
      gpu.return
    }
  }
}
