// RUN: sm-opt %s -split-input-file --sm-linalg-to-gpu="target=nvidia-h100" | FileCheck %s

// Few outputs of a long reduction: one workgroup per output (a grid of 40),
// each invocation folding every 256th term from the identity of the
// combination (-inf for a maximum), the parts combined pairwise in
// workgroup memory (8 halvings, a barrier after each), the first
// invocation folding the total into the output's value.

// CHECK-LABEL: gpu.func @elementwise_0
// CHECK-SAME: workgroup(%[[PARTS:.*]] : memref<256xf32, #gpu.address_space<workgroup>>)
// CHECK-SAME: grid = array<i32: 40, 1, 1>
// CHECK: %[[T:.*]] = gpu.thread_id x
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[C256:.*]] = arith.constant 256 : index
// CHECK: %[[C1000:.*]] = arith.constant 1000 : index
// CHECK: %[[PART:.*]] = scf.for %{{.*}} = %[[T]] to %[[C1000]] step %[[C256]] iter_args(%[[ACC:.*]] = %[[NEGINF]]) -> (f32)
// CHECK: arith.maximumf
// CHECK: memref.store %[[PART]], %[[PARTS]][%[[T]]]
// CHECK-COUNT-9: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: scf.if
// CHECK: %[[TOTAL:.*]] = memref.load %[[PARTS]]
// CHECK: arith.maximumf %{{.*}}, %[[TOTAL]]
// CHECK: memref.store
// CHECK-LABEL: func.func @long_rows
// CHECK: gpu.launch_func @kernels::@elementwise_0 blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in
func.func @long_rows(%x: memref<40x1000xf32>, %y: memref<40xf32>) {
  linalg.reduce ins(%x : memref<40x1000xf32>) outs(%y : memref<40xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %m = arith.maximumf %in, %acc : f32
      linalg.yield %m : f32
    }
  return
}

// -----

// Short reductions (32 terms) keep one invocation per output.
// CHECK-LABEL: gpu.func @elementwise_0
// CHECK-NOT: workgroup(
// CHECK-NOT: gpu.barrier
// CHECK: scf.for
// CHECK-LABEL: func.func @short_rows
func.func @short_rows(%x: memref<40x32xf32>, %y: memref<40xf32>) {
  linalg.reduce ins(%x : memref<40x32xf32>) outs(%y : memref<40xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %m = arith.addf %in, %acc : f32
      linalg.yield %m : f32
    }
  return
}
