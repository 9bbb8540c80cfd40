// RUN: sm-opt %s -split-input-file --sm-linalg-to-gpu="target=nvidia-h100" | FileCheck %s

// A softmax written out as torch-mlir imports it (a max, the shifted
// exponentials, their sum, the quotient): the exponentials merge into both
// of their readers, and the two reductions and the quotient become one
// kernel, one workgroup per row (12 rows; 128 invocations for rows of 100):
// the max folded from -inf, combined in workgroup memory, the sum of the
// exponentials shifted by that max, then the row written.

// CHECK-LABEL: gpu.func @row_group_0
// CHECK-SAME: (%[[X:.*]]: memref<1200xf32>, %[[Y:.*]]: memref<1200xf32>)
// CHECK-SAME: workgroup(%[[MAXES:.*]] : memref<128xf32, #gpu.address_space<workgroup>>, %[[SUMS:.*]] : memref<128xf32, #gpu.address_space<workgroup>>)
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>
// CHECK-SAME: grid = [12, 1, 1]
// CHECK: %[[T:.*]] = gpu.thread_id x
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[PART:.*]] = scf.for %{{.*}} = %[[T]] to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[NEGINF]])
// CHECK: memref.load %[[X]]
// CHECK: arith.maximumf
// CHECK: memref.store %[[PART]], %[[MAXES]][%[[T]]]
// CHECK-COUNT-8: gpu.barrier
// CHECK: %[[TOP:.*]] = memref.load %[[MAXES]]
// CHECK: %[[MAX:.*]] = arith.maximumf %{{.*}}, %[[TOP]]
// CHECK: scf.for
// CHECK: %[[SHIFTED:.*]] = arith.subf %{{.*}}, %[[MAX]]
// CHECK: math.exp %[[SHIFTED]]
// CHECK: arith.addf
// CHECK-COUNT-8: gpu.barrier
// CHECK: %[[TOTAL:.*]] = memref.load %[[SUMS]]
// CHECK: %[[SUM:.*]] = arith.addf %{{.*}}, %[[TOTAL]]
// CHECK: scf.for
// CHECK: arith.subf %{{.*}}, %[[MAX]]
// CHECK: %[[E:.*]] = math.exp
// CHECK: %[[Q:.*]] = arith.divf %[[E]], %[[SUM]]
// CHECK: memref.store %[[Q]], %[[Y]]
// CHECK-NOT: gpu.func
// CHECK-LABEL: func.func @softmax
// CHECK: memref.alloc() {{.*}} : memref<12x100xf32>
// CHECK-NOT: memref.alloc
// CHECK: gpu.launch_func @kernels::@row_group_0 blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in (%{{.*}}, %{{.*}}, %{{.*}}) args(%{{.*}} : memref<1200xf32>, %{{.*}} : memref<1200xf32>)
// CHECK-NOT: gpu.launch_func
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @softmax(%x: tensor<12x100xf32>) -> tensor<12x100xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %re = tensor.empty() : tensor<12xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%re : tensor<12xf32>) -> tensor<12xf32>
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<12x100xf32>) outs(%mi : tensor<12xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.maximumf %v, %acc : f32
    linalg.yield %r : f32
  } -> tensor<12xf32>
  %e = tensor.empty() : tensor<12x100xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %m : tensor<12x100xf32>, tensor<12xf32>) outs(%e : tensor<12x100xf32>) {
  ^bb0(%v: f32, %mx: f32, %o: f32):
    %s = arith.subf %v, %mx : f32
    %r = math.exp %s : f32
    linalg.yield %r : f32
  } -> tensor<12x100xf32>
  %si = linalg.fill ins(%zero : f32) outs(%re : tensor<12xf32>) -> tensor<12xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<12x100xf32>) outs(%si : tensor<12xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.addf %v, %acc : f32
    linalg.yield %r : f32
  } -> tensor<12xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%ex, %s : tensor<12x100xf32>, tensor<12xf32>) outs(%e : tensor<12x100xf32>) {
  ^bb0(%v: f32, %sum: f32, %o: f32):
    %r = arith.divf %v, %sum : f32
    linalg.yield %r : f32
  } -> tensor<12x100xf32>
  return %y : tensor<12x100xf32>
}

// -----

// Dynamic sizes: the grid is one workgroup per row (d0 * d1 rows, at most
// 65535 along x), the row length a kernel argument; 256 invocations.

// CHECK-LABEL: gpu.func @row_group_0
// CHECK-SAME: (%{{.*}}: memref<?xf32>, %{{.*}}: memref<?xf32>, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index)
// CHECK-SAME: workgroup(%{{.*}} : memref<256xf32, #gpu.address_space<workgroup>>)
// CHECK-SAME: grid = ["min(d0*d1,65535)", "ceildiv(d0*d1,min(d0*d1,65535))", 1], arguments = [{{.*}}], sizes = ["d0", "d1", "d2"]>
// CHECK-LABEL: func.func @rms_norm_dynamic
// CHECK-NOT: linalg.fill
// CHECK: %[[ROWS:.*]] = arith.muli
// CHECK: %[[GX:.*]] = arith.minui %[[ROWS]], %{{.*}}
// CHECK: %[[GY:.*]] = arith.ceildivui %[[ROWS]], %[[GX]]
// CHECK: gpu.launch_func @kernels::@row_group_0 blocks in (%[[GX]], %[[GY]], %{{.*}})
// CHECK-NOT: gpu.launch_func
#id3 = affine_map<(b, i, j) -> (b, i, j)>
#row3 = affine_map<(b, i, j) -> (b, i)>
func.func @rms_norm_dynamic(%x: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %d0 = tensor.dim %x, %c0 : tensor<?x?x?xf32>
  %d1 = tensor.dim %x, %c1 : tensor<?x?x?xf32>
  %d2 = tensor.dim %x, %c2 : tensor<?x?x?xf32>
  %re = tensor.empty(%d0, %d1) : tensor<?x?xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%re : tensor<?x?xf32>) -> tensor<?x?xf32>
  %s = linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<?x?x?xf32>) outs(%s0 : tensor<?x?xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %sq = arith.mulf %v, %v : f32
    %r = arith.addf %sq, %acc : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>
  %e = tensor.empty(%d0, %d1, %d2) : tensor<?x?x?xf32>
  %y = linalg.generic {indexing_maps = [#id3, #row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %s : tensor<?x?x?xf32>, tensor<?x?xf32>) outs(%e : tensor<?x?x?xf32>) {
  ^bb0(%v: f32, %sum: f32, %o: f32):
    %r = math.rsqrt %sum : f32
    %n = arith.mulf %v, %r : f32
    linalg.yield %n : f32
  } -> tensor<?x?x?xf32>
  return %y : tensor<?x?x?xf32>
}

// -----

// A reduction whose result the function also returns stays a kernel of its
// own (its buffer is needed), and so does the op that reads it. The fill
// before the reduction is no kernel: the reduction starts from its value.

// CHECK-LABEL: gpu.func @elementwise_0
// CHECK-SAME: (%{{.*}}: memref<1200xf32>, %[[MAX:.*]]: memref<12xf32>)
// CHECK: %[[START:.*]] = arith.constant 0xFF800000 : f32
// CHECK-NOT: memref.load %[[MAX]]
// CHECK: gpu.barrier
// CHECK: %[[TOTAL:.*]] = memref.load %{{.*}}[%c0
// CHECK-NEXT: %[[RESULT:.*]] = arith.maximumf %[[START]], %[[TOTAL]]
// CHECK: memref.store %[[RESULT]], %[[MAX]]
// CHECK-LABEL: func.func @max_also_returned
// CHECK-NOT: linalg.fill
// CHECK: gpu.launch_func @kernels::@elementwise_0
// CHECK: gpu.launch_func @kernels::@elementwise_1
// CHECK-NOT: gpu.launch_func
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @max_also_returned(%x: tensor<12x100xf32>) -> (tensor<12x100xf32>, tensor<12xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %re = tensor.empty() : tensor<12xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%re : tensor<12xf32>) -> tensor<12xf32>
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<12x100xf32>) outs(%mi : tensor<12xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.maximumf %v, %acc : f32
    linalg.yield %r : f32
  } -> tensor<12xf32>
  %e = tensor.empty() : tensor<12x100xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %m : tensor<12x100xf32>, tensor<12xf32>) outs(%e : tensor<12x100xf32>) {
  ^bb0(%v: f32, %mx: f32, %o: f32):
    %s = arith.subf %v, %mx : f32
    linalg.yield %s : f32
  } -> tensor<12x100xf32>
  return %y, %m : tensor<12x100xf32>, tensor<12xf32>
}
