// RUN: sm-opt %s --sm-linalg-to-gpu=target=cpu-lavapipe -split-input-file | FileCheck %s

// A fill that the next op reads through an input as well as writes (as
// bufferization leaves a fused SiLU writing over its tensor of ones) is
// done before it, in a kernel of its own: the op cannot start from the
// fill's value, its input needs the ones.
// CHECK-LABEL: gpu.func @elementwise_0
// CHECK: memref.store %{{.*}} : memref<128xf32>
// CHECK-LABEL: gpu.func @elementwise_1
// CHECK: %[[IN:.*]] = memref.load %[[BUF:.*]][%{{.*}}] : memref<128xf32>
// CHECK: %[[SUM:.*]] = arith.addf %[[IN]], %[[IN]] : f32
// CHECK: memref.store %[[SUM]], %[[BUF]]
// CHECK-LABEL: func.func @fill_read_in_place
// CHECK: gpu.launch_func @kernels::@elementwise_0
// CHECK: gpu.launch_func @kernels::@elementwise_1
func.func @fill_read_in_place(%x: memref<8x16xf32>) {
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%one : f32) outs(%x : memref<8x16xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<8x16xf32>) outs(%x : memref<8x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %in : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A reduction that starts from its fill, then a named reduction generalized
// after it: the named op's starting fill is its own (the sanitizer build
// caught the generalized op taking the erased generic's entry).
// CHECK-LABEL: gpu.func @elementwise_0
// CHECK: scf.for {{.*}} -> (f32)
// CHECK: arith.addf
// CHECK-LABEL: gpu.func @elementwise_1
// CHECK: scf.for {{.*}} -> (f32)
// CHECK: arith.maximumf
// CHECK-LABEL: func.func @two_reductions
// CHECK-COUNT-2: gpu.launch_func
// CHECK-NOT: gpu.launch_func
func.func @two_reductions(%x: memref<8x16xf32>, %sum: memref<8xf32>, %max: memref<16xf32>) {
  %zero = arith.constant 0.0 : f32
  %low = arith.constant -3.0e38 : f32
  linalg.fill ins(%zero : f32) outs(%sum : memref<8xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x16xf32>) outs(%sum : memref<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in : f32
    linalg.yield %s : f32
  }
  linalg.fill ins(%low : f32) outs(%max : memref<16xf32>)
  linalg.reduce ins(%x : memref<8x16xf32>) outs(%max : memref<16xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %m = arith.maximumf %in, %acc : f32
      linalg.yield %m : f32
    }
  return
}
