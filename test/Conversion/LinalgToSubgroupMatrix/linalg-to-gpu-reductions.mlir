// RUN: sm-opt %s -split-input-file --sm-linalg-to-gpu="target=nvidia-h100" | FileCheck %s

// Few outputs of a long reduction: one workgroup per output (a grid of 40),
// each invocation folding every 256th term from the identity of the
// combination (-inf for a maximum), the parts combined pairwise in
// workgroup memory (8 halvings, a barrier after each), the first
// invocation folding the total into the output's value.

// CHECK-LABEL: gpu.func @elementwise_0
// CHECK-SAME: workgroup(%[[PARTS:.*]] : memref<256xf32, #gpu.address_space<workgroup>>)
// CHECK-SAME: grid = [40, 1, 1]
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

// -----

// An argmax (torch-mlir's: the maximum and its index, two outputs of one
// reduction): one kernel, both running values carried through the loop and
// both started from their fills' values, neither fill a kernel. An i64
// buffer is not one the runners fill: no launch of its own is described.

// CHECK-LABEL: gpu.func @elementwise_0
// CHECK-SAME: (%[[X:.*]]: memref<32000xf32>, %[[MAX:.*]]: memref<32xf32>, %[[INDEX:.*]]: memref<32xi64>)
// CHECK-NOT: subgroup_matrix.launch
// CHECK-DAG: %[[LOWEST:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[FIRST:.*]] = arith.constant 0 : i64
// CHECK: %[[BEST:.*]]:2 = scf.for %[[J:.*]] = %{{.*}} to %c1000{{.*}} step %{{.*}} iter_args(%[[M:.*]] = %[[LOWEST]], %[[I:.*]] = %[[FIRST]]) -> (f32, i64)
// CHECK: %[[V:.*]] = memref.load %[[X]]
// CHECK: %[[JI:.*]] = arith.index_cast %[[J]] : index to i64
// CHECK: %[[GT:.*]] = arith.cmpf ogt, %[[V]], %[[M]] : f32
// CHECK: %[[NM:.*]] = arith.select %[[GT]], %[[V]], %[[M]] : f32
// CHECK: %[[NI:.*]] = arith.select %[[GT]], %[[JI]], %[[I]] : i64
// CHECK: scf.yield %[[NM]], %[[NI]] : f32, i64
// CHECK: memref.store %[[BEST]]#0, %[[MAX]]
// CHECK: memref.store %[[BEST]]#1, %[[INDEX]]
// CHECK-LABEL: func.func @argmax_rows
// CHECK-COUNT-1: gpu.launch_func
// CHECK-NOT: gpu.launch_func
func.func @argmax_rows(%x: tensor<32x1000xf32>) -> (tensor<32xf32>, tensor<32xi64>) {
  %lowest = arith.constant 0xFF800000 : f32
  %first = arith.constant 0 : i64
  %e0 = tensor.empty() : tensor<32xf32>
  %e1 = tensor.empty() : tensor<32xi64>
  %f0 = linalg.fill ins(%lowest : f32) outs(%e0 : tensor<32xf32>) -> tensor<32xf32>
  %f1 = linalg.fill ins(%first : i64) outs(%e1 : tensor<32xi64>) -> tensor<32xi64>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<32x1000xf32>) outs(%f0, %f1 : tensor<32xf32>, tensor<32xi64>) {
  ^bb0(%a: f32, %m: f32, %idx: i64):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i64
    %gt = arith.cmpf ogt, %a, %m : f32
    %nm = arith.select %gt, %a, %m : f32
    %ni = arith.select %gt, %ji, %idx : i64
    linalg.yield %nm, %ni : f32, i64
  } -> (tensor<32xf32>, tensor<32xi64>)
  return %r#0, %r#1 : tensor<32xf32>, tensor<32xi64>
}

// -----

// Max pooling (a named op, generalized before fills are matched): one
// kernel that starts each output from the -inf of its fill and folds the
// 3x3 window; the window tensor only gives the window loops their sizes
// and is no argument of the kernel.

// CHECK-LABEL: gpu.func @elementwise_0
// CHECK-SAME: (%[[X:.*]]: memref<32768xf32>, %[[Y:.*]]: memref<7200xf32>)
// CHECK: %[[LOWEST:.*]] = arith.constant 0xFF800000 : f32
// CHECK: scf.for %{{.*}} = %{{.*}} to %c3{{.*}} iter_args(%{{.*}} = %[[LOWEST]])
// CHECK: scf.for
// CHECK: memref.load %[[X]]
// CHECK: arith.maximumf
// CHECK: memref.store %{{.*}}, %[[Y]]
// CHECK-LABEL: func.func @max_pool
// CHECK-COUNT-1: gpu.launch_func
// CHECK-NOT: gpu.launch_func
func.func @max_pool(%x: tensor<2x32x32x16xf32>) -> tensor<2x15x15x16xf32> {
  %lowest = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<2x15x15x16xf32>
  %f = linalg.fill ins(%lowest : f32) outs(%e : tensor<2x15x15x16xf32>) -> tensor<2x15x15x16xf32>
  %window = tensor.empty() : tensor<3x3xf32>
  %r = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %window : tensor<2x32x32x16xf32>, tensor<3x3xf32>)
      outs(%f : tensor<2x15x15x16xf32>) -> tensor<2x15x15x16xf32>
  return %r : tensor<2x15x15x16xf32>
}
