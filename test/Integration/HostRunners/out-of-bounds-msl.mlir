// RUN: sm-translate --emit-msl %s -o %t.metal
// In bounds: 8 rows of 8 at stride 8 fill all 64 elements.
// RUN: sm-msl-host-runner %t.metal --entry store_rows --arg f32:64:poison --scalar i32:0 --scalar i32:8 \
// RUN:   | FileCheck %s --check-prefix=IN
// One element further on, the last store reaches the guard page after the
// buffer (its end is 64-byte aligned) and stops the kernel there.
// RUN: not sm-msl-host-runner %t.metal --entry store_rows --arg f32:64:poison --scalar i32:1 --scalar i32:8 \
// RUN:   | FileCheck %s --check-prefix=PAGE
// 60 elements: the last 4 stores land in the canary bytes between the
// buffer's end and its 64-byte-aligned end, found after the run.
// RUN: not sm-msl-host-runner %t.metal --entry store_rows --arg f32:60:poison --scalar i32:0 --scalar i32:8 \
// RUN:   | FileCheck %s --check-prefix=CANARY
// One element before the start: the canary bytes before the buffer.
// RUN: not sm-msl-host-runner %t.metal --entry store_rows --arg f32:64:poison --scalar i32:-1 --scalar i32:8 \
// RUN:   | FileCheck %s --check-prefix=BEFORE
// A read past the end hits the guard page too.
// RUN: not sm-msl-host-runner %t.metal --entry load_rows --arg f32:64:random --arg f32:64:poison \
// RUN:   --scalar i32:1 --scalar i32:8 | FileCheck %s --check-prefix=READ

// The Metal host runner places every argument between guard pages and
// canary bytes, so a kernel that accesses past its buffers fails its run with
// a report instead of corrupting the runner's memory.

// IN: check bounds: PASSED: no argument accessed outside its buffer (3 arguments between guard regions)
// PAGE: check bounds: argument 0 (f32 x 64): FAILED: written past its end at byte offset 256 (element 64); the kernel was stopped there by a guard page
// CANARY: check bounds: argument 0 (f32 x 60): FAILED: written past its end at byte offset 240 (element 60), 16 guard bytes changed, the farthest at 255
// BEFORE: check bounds: argument 0 (f32 x 64): FAILED: written before its start at byte offset -4 (element -1), 4 guard bytes changed, the farthest at -4
// READ: check bounds: argument 0 (f32 x 64): FAILED: read past its end at byte offset 256 (element 64); the kernel was stopped there by a guard page

gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"apple-m1">} {
  gpu.func @store_rows(%D: memref<?xf32>, %offset: index, %stride: index) kernel
      attributes {known_block_size = array<i32: 32, 1, 1>} {
    %one = arith.constant 1.0 : f32
    %m = subgroup_matrix.splat %one : f32 -> !subgroup_matrix.result<8x8xf32>
    subgroup_matrix.store %m, %D[%offset] stride %stride : !subgroup_matrix.result<8x8xf32>, memref<?xf32>
    gpu.return
  }
  gpu.func @load_rows(%S: memref<?xf32>, %D: memref<?xf32>, %offset: index, %stride: index) kernel
      attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %m = subgroup_matrix.load %S[%offset] stride %stride : memref<?xf32> -> !subgroup_matrix.result<8x8xf32>
    subgroup_matrix.store %m, %D[%c0] stride %stride : !subgroup_matrix.result<8x8xf32>, memref<?xf32>
    gpu.return
  }
}
