// REQUIRES: lavapipe
// RUN: sm-opt %s --sm-lower-to-vulkan=target=nvidia-h100 | sm-translate --serialize-spirv -o %t.spv
// RUN: spirv-val --target-env vulkan1.3 %t.spv
// RUN: %lavapipe %t.spv --entry copy --arg f32:32:random --arg f32:32:poison \
// RUN:   --expect-same 1:0 | FileCheck %s --check-prefix=COPY
// RUN: %lavapipe %t.spv --entry add --arg f32:32:iota --arg f32:32:const:0 \
// RUN:   --arg f32:32:poison --expect-same 2:0 | FileCheck %s --check-prefix=ADD
// Each entry point takes exactly its own arguments: two for the copy, three
// for the add, whichever the module declares first.
// RUN: not %lavapipe %t.spv --entry copy --arg f32:32:random --arg f32:32:poison \
// RUN:   --arg f32:32:poison 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: not %lavapipe %t.spv --arg f32:32:random 2>&1 | FileCheck %s --check-prefix=WHICH

// A module of two kernels with different numbers of arguments: the runner
// binds the interface of the chosen entry point, not the module's widest.

// COPY: pipeline: created for entry point 'copy'
// COPY: check same: argument 1 after the run PASSED: equals argument 0 before it
// ADD: pipeline: created for entry point 'add'
// ADD: check same: argument 2 after the run PASSED: equals argument 0 before it
// COUNT: error: kernel 'copy' takes 2 arguments (f32 buffer, f32 buffer), but 3 --arg/--scalar were given
// WHICH: error: the kernel has 2 entry points; choose one with --entry

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @add(%x: memref<32xf32>, %y: memref<32xf32>, %sum: memref<32xf32>) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>} {
      %i = gpu.thread_id x
      %a = memref.load %x[%i] : memref<32xf32>
      %b = memref.load %y[%i] : memref<32xf32>
      %s = arith.addf %a, %b : f32
      memref.store %s, %sum[%i] : memref<32xf32>
      gpu.return
    }
    gpu.func @copy(%from: memref<32xf32>, %to: memref<32xf32>) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>} {
      %i = gpu.thread_id x
      %v = memref.load %from[%i] : memref<32xf32>
      memref.store %v, %to[%i] : memref<32xf32>
      gpu.return
    }
  }
}
