// RUN: sm-opt %s -split-input-file --sm-linalg-to-gpu="target=nvidia-h100" | FileCheck %s

// A helper a front-end called (func.call) is inlined before dispatch
// formation: its element-wise op and the caller's merge into one kernel,
// and the helper, private and no longer called, is gone.

// CHECK-LABEL: gpu.func @elementwise_0
// CHECK-SAME: (%[[X:.*]]: memref<1024xf32>, %[[Y:.*]]: memref<1024xf32>)
// CHECK: %[[V:.*]] = memref.load %[[X]]
// CHECK: %[[W:.*]] = memref.load %[[X]]
// CHECK: %[[SQ:.*]] = arith.mulf %[[V]], %[[W]] : f32
// CHECK: %[[T:.*]] = math.tanh %[[SQ]] : f32
// CHECK: memref.store %[[T]], %[[Y]]
// CHECK-NOT: func.func @square
// CHECK-LABEL: func.func @main
// CHECK-NOT: call
// CHECK-COUNT-1: gpu.launch_func
// CHECK-NOT: gpu.launch_func
func.func private @square(%x: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %e = tensor.empty() : tensor<16x64xf32>
  %r = linalg.mul ins(%x, %x : tensor<16x64xf32>, tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  return %r : tensor<16x64xf32>
}
func.func @main(%x: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %s = func.call @square(%x) : (tensor<16x64xf32>) -> tensor<16x64xf32>
  %e = tensor.empty() : tensor<16x64xf32>
  %t = linalg.map { math.tanh } ins(%s : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>)
  return %t : tensor<16x64xf32>
}
