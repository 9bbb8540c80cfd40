// RUN: sm-translate --emit-msl %s | FileCheck %s
// RUN: sm-translate --emit-msl %s -o %t.metal
// RUN: sm-msl-host-runner %t.metal --entry largest --arg f32:4:const:nan --arg f32:4:iota --arg f32:4:poison --dump 2 | FileCheck %s --check-prefix=NAN-FIRST
// RUN: sm-msl-host-runner %t.metal --entry largest --arg f32:4:iota --arg f32:4:const:nan --arg f32:4:poison --dump 2 | FileCheck %s --check-prefix=NAN-SECOND
// RUN: sm-msl-host-runner %t.metal --entry largest --arg f32:4:iota --arg f32:4:const:2 --arg f32:4:poison --dump 2 | FileCheck %s --check-prefix=NUMBERS

// arith.maximumf returns NaN when either operand is NaN, where MSL's max
// returns the other: sm-lower-to-metal spells it out in comparisons and
// selects (upstream's arith expansion), which the emitter prints.
// CHECK-LABEL: kernel void largest(
// CHECK-NOT: max(
// CHECK: isnan(
// NAN-FIRST: argument 2 (f32 x 4): nan nan nan nan
// NAN-SECOND: argument 2 (f32 x 4): nan nan nan nan
// NUMBERS: argument 2 (f32 x 4): 2 2 2 3
gpu.module @kernels {
  gpu.func @largest(%a: memref<4xf32>, %b: memref<4xf32>, %c: memref<4xf32>) kernel attributes {known_block_size = array<i32: 4, 1, 1>} {
    %i = gpu.thread_id x
    %x = memref.load %a[%i] : memref<4xf32>
    %y = memref.load %b[%i] : memref<4xf32>
    %m = arith.maximumf %x, %y : f32
    memref.store %m, %c[%i] : memref<4xf32>
    gpu.return
  }
}
