// RUN: sm-opt %s -split-input-file --sm-linalg-to-gpu="target=nvidia-h100 split-k=1" | FileCheck %s
// (The numbers are checked by test/Integration/LinalgToGPU. K is never
// split here, so that small products keep their epilogues fused;
// linalg-to-gpu-split.mlir shows the automatic split.)

// Tensors are bufferized; the fill becomes the initial accumulator; the
// bias-add + ReLU consumer runs in the kernel (element by element on the
// way out, since the bias is a broadcast), and its intermediate buffer
// disappears.

// CHECK-LABEL: gpu.module @kernels
// CHECK-SAME: subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">
// CHECK: gpu.func @matmul_0(%[[X:.*]]: memref<131072xf16>, %[[W:.*]]: memref<524288xf16>, %[[BIAS:.*]]: memref<1024xf32>, %[[OUT:.*]]: memref<262144xf32>)
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: subgroup_matrix.splat %[[ZERO]] : f32 -> !subgroup_matrix.result<16x16xf32>
// CHECK: subgroup_matrix.mma
// CHECK: scf.if
// CHECK: %[[ACC:.*]] = memref.load %{{.*}} : memref<1024xf32, #gpu.address_space<workgroup>>
// CHECK: %[[B:.*]] = memref.load %[[BIAS]][%{{.*}}] : memref<1024xf32>
// CHECK: %[[SUM:.*]] = arith.addf %[[ACC]], %[[B]] : f32
// CHECK: %[[RELU:.*]] = arith.maximumf %[[SUM]], %{{.*}} : f32
// CHECK: memref.store %[[RELU]], %[[OUT]][%{{.*}}] : memref<262144xf32>
// CHECK-LABEL: func.func @mlp
// CHECK-SAME: (%[[HX:.*]]: memref<256x512xf16>, %[[HW:.*]]: memref<512x1024xf16>, %[[HB:.*]]: memref<1024xf32>) -> memref<256x1024xf32>
// CHECK: %[[RESULT:.*]] = memref.alloc() {{.*}} : memref<256x1024xf32>
// CHECK-NOT: memref.alloc
// CHECK: gpu.launch_func @kernels::@matmul_0 blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in
// CHECK-SAME: args(%{{.*}} : memref<131072xf16>, %{{.*}} : memref<524288xf16>, %[[HB]] : memref<1024xf32>, %{{.*}} : memref<262144xf32>)
// CHECK-NOT: linalg.
// CHECK: return %[[RESULT]]
#map = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>
func.func @mlp(%x: tensor<256x512xf16>, %w: tensor<512x1024xf16>, %bias: tensor<1024xf32>) -> tensor<256x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x1024xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<256x512xf16>, tensor<512x1024xf16>) outs(%acc : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  %e2 = tensor.empty() : tensor<256x1024xf32>
  %y = linalg.generic {indexing_maps = [#map, #bias, #map], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<256x1024xf32>, tensor<1024xf32>) outs(%e2 : tensor<256x1024xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %s, %z : f32
    linalg.yield %r : f32
  } -> tensor<256x1024xf32>
  return %y : tensor<256x1024xf32>
}

// -----

// A residual add and a cast to f16 on whole 16x16 result matrices: the
// epilogue is a subgroup_matrix.map over the accumulator and the loaded
// residual, before the single store of f16.

// CHECK-LABEL: gpu.func @matmul_0
// CHECK: %[[RES:.*]] = subgroup_matrix.load %{{.*}} : memref<16384xf32> -> !subgroup_matrix.result<16x16xf32>
// CHECK: %[[Y:.*]] = subgroup_matrix.map %{{.*}}, %[[RES]] : !subgroup_matrix.result<16x16xf32>, !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.result<16x16xf16>
// CHECK-NEXT: ^bb0(%{{.*}}: index, %{{.*}}: index, %[[A:.*]]: f32, %[[R:.*]]: f32):
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[A]], %[[R]] : f32
// CHECK-NEXT: %[[H:.*]] = arith.truncf %[[S]] : f32 to f16
// CHECK-NEXT: subgroup_matrix.yield %[[H]] : f16
// CHECK: subgroup_matrix.store %[[Y]], %{{.*}} : !subgroup_matrix.result<16x16xf16>, memref<16384xf16>
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @residual(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %res: memref<128x128xf32>, %out: memref<128x128xf16>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<128x128xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<128x128xf32>)
  linalg.matmul ins(%a, %b : memref<128x64xf16>, memref<64x128xf16>) outs(%c : memref<128x128xf32>)
  linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%c, %res : memref<128x128xf32>, memref<128x128xf32>) outs(%out : memref<128x128xf16>) {
  ^bb0(%x: f32, %r: f32, %o: f16):
    %s = arith.addf %x, %r : f32
    %h = arith.truncf %s : f32 to f16
    linalg.yield %h : f16
  }
  memref.dealloc %c : memref<128x128xf32>
  return
}

// -----

// An epilogue the matrix units cannot compute component-wise (SwiGLU's
// exp): the accumulators go through the subgroup's scratch once, each lane
// computes its run of a row with the gate read from memory, and stores it
// as one vector; no map on matrices, which would take the accumulator and
// the gate through the scratch and back before the store.

// CHECK-LABEL: gpu.func @matmul_0
// CHECK-SAME: (%{{.*}}: memref<8192xf16>, %{{.*}}: memref<8192xf16>, %[[GATE:.*]]: memref<16384xf16>, %[[OUT:.*]]: memref<16384xf16>)
// CHECK-SAME: workgroup({{.*}}, %[[SCRATCH:.*]] : memref<1024xf32, #gpu.address_space<workgroup>>)
// CHECK-NOT: subgroup_matrix.map
// CHECK: subgroup_matrix.store %{{.*}}, %[[SCRATCH]]
// CHECK-NEXT: subgroup_matrix.subgroup_barrier
// CHECK: %[[ACC:.*]] = vector.load %[[SCRATCH]]
// CHECK: %[[G:.*]] = memref.load %[[GATE]]
// CHECK: math.exp
// CHECK: vector.store %{{.*}}, %[[OUT]]
// CHECK-NOT: subgroup_matrix.map
// CHECK-LABEL: func.func @silu_product
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @silu_product(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %gate: memref<128x128xf16>, %out: memref<128x128xf16>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<128x128xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<128x128xf32>)
  linalg.matmul ins(%a, %b : memref<128x64xf16>, memref<64x128xf16>) outs(%c : memref<128x128xf32>)
  linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%c, %gate : memref<128x128xf32>, memref<128x128xf16>) outs(%out : memref<128x128xf16>) {
  ^bb0(%x: f32, %g: f16, %o: f16):
    %up = arith.truncf %x : f32 to f16
    %n = arith.negf %g : f16
    %e = math.exp %n : f16
    %one = arith.constant 1.0 : f16
    %d = arith.addf %e, %one : f16
    %s = arith.divf %g, %d : f16
    %y = arith.mulf %s, %up : f16
    linalg.yield %y : f16
  }
  memref.dealloc %c : memref<128x128xf32>
  return
}

// -----

// A batch runs along the grid's z dimension; an element-wise op that reads
// the product from a buffer the caller sees cannot be fused and becomes a
// kernel of its own, launched after the product.

// CHECK-LABEL: gpu.module @kernels
// CHECK: gpu.func @matmul_0
// CHECK: gpu.block_id  z
// CHECK: gpu.func @elementwise_1(%[[IN:.*]]: memref<6144xf32>, %[[OUT:.*]]: memref<6144xf32>)
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>
// CHECK: %[[V:.*]] = memref.load %[[IN]]
// CHECK: %[[N:.*]] = arith.negf %[[V]] : f32
// CHECK: memref.store %[[N]], %[[OUT]]
// CHECK-LABEL: func.func @batched
// CHECK: %[[C3:.*]] = arith.constant 3 : index
// CHECK: gpu.launch_func @kernels::@matmul_0 blocks in (%{{.*}}, %{{.*}}, %[[C3]])
// CHECK: gpu.launch_func @kernels::@elementwise_1
#map3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @batched(%a: memref<3x32x16xf16>, %b: memref<3x16x64xf16>, %c: memref<3x32x64xf32>, %d: memref<3x32x64xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<3x32x16xf16>, memref<3x16x64xf16>) outs(%c : memref<3x32x64xf32>)
  linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%c : memref<3x32x64xf32>) outs(%d : memref<3x32x64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  }
  return
}

// -----

// A 1x1 NHWC convolution is a product over views of its buffers.

// CHECK-LABEL: func.func @conv
// CHECK-DAG: memref.collapse_shape %{{.*}} {{\[\[}}0, 1, 2], [3]] : memref<2x4x4x32xf16> into memref<32x32xf16>
// CHECK-DAG: memref.collapse_shape %{{.*}} {{\[\[}}0, 1, 2], [3]] : memref<1x1x32x64xf16> into memref<32x64xf16>
// CHECK: gpu.launch_func @kernels::@matmul_0
// CHECK-NOT: linalg.
func.func @conv(%x: memref<2x4x4x32xf16>, %f: memref<1x1x32x64xf16>, %y: memref<2x4x4x64xf32>) {
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %f : memref<2x4x4x32xf16>, memref<1x1x32x64xf16>) outs(%y : memref<2x4x4x64xf32>)
  return
}

// -----

// M, N and K known only at run time (B transposed): the kernel takes them
// after its buffers, bounds every copy and store by them and copies scalars
// (a row of unknown length may start anywhere); the host reads M and K off
// A and N off B and computes the grid from them. The recorded launch names
// the sizes for sm-vulkan-runner --size.

// CHECK-LABEL: gpu.module @kernels
// CHECK: gpu.func @matmul_0(%{{.*}}: memref<?xf16>, %{{.*}}: memref<?xf16>, %{{.*}}: memref<?xf32>, %[[M:.*]]: index, %[[N:.*]]: index, %[[K:.*]]: index)
// CHECK-SAME: subgroup_matrix.launch = #subgroup_matrix.launch<grid = ["ceildiv(N,128)", "ceildiv(M,128)", 1], arguments = ["f16:{M*K}:random", "f16:{K*N}:random", "f32:{M*N}:random"], sizes = ["M", "N", "K"], check = "gemm:M={M},N={N},K={K},A=0,B=1,C=2,b-col-major,acc=2">
// CHECK: %[[KPLUS:.*]] = arith.addi %[[K]], %{{.*}} : index
// CHECK: %[[STEPS:.*]] = arith.divui %[[KPLUS]], %{{.*}} : index
// CHECK-NOT: vector.load
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[STEPS]]
// CHECK: arith.cmpi ult, %{{.*}}, %[[N]] : index
// CHECK-NOT: vector.load
// CHECK: scf.yield
// Out of the loop, a workgroup whose tile lies inside C (a condition the
// same for all its invocations) stores whole matrices, C's added a row of
// them at a time.
// CHECK: %[[COLUMNS_FIT:.*]] = arith.cmpi ule, %{{.*}}, %[[N]] : index
// CHECK: %[[ROWS_FIT:.*]] = arith.cmpi ule, %{{.*}}, %[[M]] : index
// CHECK-NEXT: %[[INSIDE:.*]] = arith.andi %[[ROWS_FIT]], %[[COLUMNS_FIT]] : i1
// CHECK-NEXT: scf.if %[[INSIDE]] {
// CHECK-COUNT-4: subgroup_matrix.load %{{.*}} stride %[[N]] : memref<?xf32> -> !subgroup_matrix.result<16x16xf32>
// CHECK: subgroup_matrix.map
// CHECK: subgroup_matrix.store %{{.*}} stride %[[N]] : !subgroup_matrix.result<16x16xf32>, memref<?xf32>
// CHECK: } else {
// Others go through the scratch: the elements of C this invocation adds
// are loaded first, without a branch (out of bounds, from a clamped address
// and replaced by zero); then each result element within M and N is read
// from the subgroup's scratch, C's element added and the sum stored.
// CHECK: %[[COLUMN_OK:.*]] = arith.cmpi ult, %{{.*}}, %[[N]] : index
// CHECK-NEXT: %[[ROW_OK:.*]] = arith.cmpi ult, %{{.*}}, %[[M]] : index
// CHECK-NEXT: %[[OK:.*]] = arith.andi %[[ROW_OK]], %[[COLUMN_OK]] : i1
// CHECK: %[[SAFE:.*]] = arith.select %[[OK]], %{{.*}}, %{{.*}} : index
// CHECK: %[[LOADED:.*]] = memref.load %[[GC:.*]][%{{.*}}] : memref<?xf32>
// CHECK-NEXT: %[[OLD:.*]] = arith.select %[[OK]], %[[LOADED]], %{{.*}} : f32
// CHECK-NOT: scf.if
// CHECK: subgroup_matrix.store %{{.*}}, %{{.*}} : !subgroup_matrix.result<16x16xf32>, memref<1024xf32, #gpu.address_space<workgroup>>
// CHECK: scf.if %[[OK]]
// CHECK-NEXT: %[[PRODUCT:.*]] = memref.load %{{.*}} : memref<1024xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[PRODUCT]], %[[OLD]] : f32
// CHECK: memref.store %[[SUM]], %[[GC]][%{{.*}}] : memref<?xf32>
// CHECK-LABEL: func.func @all_dynamic
// CHECK-SAME: (%[[A:.*]]: memref<?x?xf16>, %[[B:.*]]: memref<?x?xf16>, %[[C:.*]]: memref<?x?xf32>)
// The host first asserts that the operands' sizes of each loop agree: K of
// B against K of A, then M and N of C against A and B.
// CHECK: %[[KB:.*]] = memref.dim %[[B]], %c1
// CHECK: %[[KA:.*]] = memref.dim %[[A]], %c1
// CHECK: %[[SAME_K:.*]] = arith.cmpi eq, %[[KA]], %[[KB]] : index
// CHECK: cf.assert %[[SAME_K]], "the shapes of the arrays disagree: dimension 1 of operand 1 (memref<?x?xf16>) and dimension 1 of operand 0 (memref<?x?xf16>) are the same loop of 'linalg.matmul'"
// CHECK: cf.assert %{{.*}}, "the shapes of the arrays disagree: dimension 0 of operand 2 (memref<?x?xf32>) and dimension 0 of operand 0
// CHECK: cf.assert %{{.*}}, "the shapes of the arrays disagree: dimension 1 of operand 2 (memref<?x?xf32>) and dimension 0 of operand 1
// CHECK-DAG: %[[HM:.*]] = memref.dim %[[A]], %c0{{.*}} : memref<?x?xf16>
// CHECK-DAG: %[[HN:.*]] = memref.dim %[[B]], %c0{{.*}} : memref<?x?xf16>
// CHECK-DAG: %[[HK:.*]] = memref.dim %[[A]], %c1{{.*}} : memref<?x?xf16>
// CHECK-DAG: %[[GX:.*]] = arith.ceildivui %[[HN]], %c128
// CHECK-DAG: %[[GY:.*]] = arith.ceildivui %[[HM]], %c128
// CHECK: gpu.launch_func @kernels::@matmul_0 blocks in (%[[GX]], %[[GY]], %{{[a-z0-9_]+}})
// CHECK-SAME: %[[HM]] : index, %[[HN]] : index, %[[HK]] : index)
func.func @all_dynamic(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
    ins(%a, %b : memref<?x?xf16>, memref<?x?xf16>) outs(%c : memref<?x?xf32>)
  return
}

// -----

// An element-wise op on dynamic sizes takes its loops' sizes, and the host
// counts the grid as for static ones.

// CHECK-LABEL: gpu.module @kernels
// CHECK: gpu.func @elementwise_0(%{{.*}}: memref<?xf32>, %{{.*}}: memref<?xf32>, %{{.*}}: memref<?xf32>, %[[D0:.*]]: index, %[[D1:.*]]: index)
// CHECK-SAME: grid = ["min(ceildiv(d0*d1,256),65535)", "ceildiv(ceildiv(d0*d1,256),min(ceildiv(d0*d1,256),65535))", 1], arguments = ["f32:{d0*d1}:random", "f32:{d1}:random", "f32:{d0*d1}:random"], sizes = ["d0", "d1"]>
// CHECK: %[[TOTAL:.*]] = arith.muli %[[D0]], %[[D1]] : index
// CHECK: arith.cmpi ult, %{{.*}}, %[[TOTAL]] : index
// CHECK-LABEL: func.func @dynamic_bias
// The bias against x's columns; y's rows and columns against x's.
// CHECK-COUNT-3: cf.assert
// CHECK-DAG: %[[R:.*]] = memref.dim %arg0, %c0
// CHECK-DAG: %[[S:.*]] = memref.dim %arg0, %c1
// CHECK: %[[T:.*]] = arith.muli %[[R]], %[[S]] : index
// CHECK: %[[W:.*]] = arith.ceildivui %[[T]], %c256
// CHECK: %[[GX:.*]] = arith.minui %[[W]], %c65535
// CHECK: %[[GY:.*]] = arith.ceildivui %[[W]], %[[GX]]
// CHECK: gpu.launch_func @kernels::@elementwise_0 blocks in (%[[GX]], %[[GY]], %{{[a-z0-9_]+}})
// CHECK-SAME: %[[R]] : index, %[[S]] : index)
func.func @dynamic_bias(%x: memref<?x?xf32>, %bias: memref<?xf32>, %y: memref<?x?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %bias : memref<?x?xf32>, memref<?xf32>) outs(%y : memref<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A producer of A that keeps its element type (a scale) is applied as the
// kernel stages A: each 16-byte copy is unpacked word by word into f16
// pairs, scaled, and packed again; the program is one launch and the
// scaled copy of A never exists.

// CHECK-LABEL: gpu.module @kernels
// CHECK: gpu.func @matmul_0(%[[X:.*]]: memref<8192xf16>
// CHECK: %[[WORDS:.*]] = vector.bitcast %{{.*}} : vector<8xf16> to vector<4xi32>
// CHECK: %[[WORD:.*]] = vector.extract %[[WORDS]][0] : i32 from vector<4xi32>
// CHECK: %[[PAIR:.*]] = vector.from_elements %[[WORD]] : vector<1xi32>
// CHECK: %[[HALVES:.*]] = vector.bitcast %[[PAIR]] : vector<1xi32> to vector<2xf16>
// CHECK: %[[FIRST:.*]] = vector.extract %[[HALVES]][0] : f16 from vector<2xf16>
// CHECK: arith.mulf %[[FIRST]], %{{.*}} : f16
// CHECK-LABEL: func.func @scaled_input
// CHECK-NOT: linalg.
// CHECK: gpu.launch_func @kernels::@matmul_0
// CHECK-NOT: gpu.launch_func
func.func @scaled_input(%x: memref<128x64xf16>, %w: memref<64x128xf16>, %y: memref<128x128xf32>) {
  %scaled = memref.alloc() : memref<128x64xf16>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<128x64xf16>) outs(%scaled : memref<128x64xf16>) {
  ^bb0(%a: f16, %o: f16):
    %s = arith.constant 0.125 : f16
    %m = arith.mulf %a, %s : f16
    linalg.yield %m : f16
  }
  linalg.matmul ins(%scaled, %w : memref<128x64xf16>, memref<64x128xf16>) outs(%y : memref<128x128xf32>)
  memref.dealloc %scaled : memref<128x64xf16>
  return
}

// -----

// A batch summed over (linalg.batch_reduce_matmul) runs inside the K loop:
// 4 batches of 2 steps, each step finding its batch and its step within it;
// the grid has no depth.

// CHECK-LABEL: gpu.module @kernels
// CHECK: gpu.func @matmul_0
// CHECK-NOT: gpu.block_id  z
// CHECK: scf.for %[[STEP:.*]] = %{{.*}} to %c8{{.*}} step
// CHECK: %[[BATCH:.*]] = arith.divui %[[STEP]], %c2{{.*}} : index
// CHECK: arith.remui %[[STEP]], %c2{{.*}} : index
// CHECK: arith.muli %[[BATCH]], %c8192{{.*}} : index
// CHECK-LABEL: func.func @batch_reduce
// CHECK: %[[ONE:.*]] = arith.constant 1 : index
// CHECK: gpu.launch_func @kernels::@matmul_0 blocks in (%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %[[ONE]])
func.func @batch_reduce(%a: memref<4x128x64xf16>, %b: memref<4x64x128xf16>, %c: memref<128x128xf32>) {
  linalg.batch_reduce_matmul ins(%a, %b : memref<4x128x64xf16>, memref<4x64x128xf16>) outs(%c : memref<128x128xf32>)
  return
}

// -----

// A rank-0 scale (tensor<f32>): a one-element view of its buffer, whose
// element 0 the fused epilogue multiplies each result element by.

// CHECK-LABEL: gpu.func @matmul_0
// CHECK-SAME: %[[SCALE:[^:]*]]: memref<1xf32>
// CHECK: %[[ACC:.*]] = memref.load %{{.*}} : memref<{{.*}}xf32, #gpu.address_space<workgroup>>
// CHECK: %[[S:.*]] = memref.load %[[SCALE]][%{{.*}}] : memref<1xf32>
// CHECK: arith.mulf %[[ACC]], %[[S]] : f32
// CHECK-LABEL: func.func @rank0_scale
// CHECK-SAME: %[[HS:[^:]*]]: memref<f32>
// CHECK: %[[VIEW:.*]] = memref.expand_shape %[[HS]] [] output_shape [1] : memref<f32> into memref<1xf32>
// CHECK: gpu.launch_func @kernels::@matmul_0
// CHECK-SAME: %[[VIEW]] : memref<1xf32>
// CHECK-NOT: gpu.launch_func
func.func @rank0_scale(%x: tensor<64x32xf16>, %w: tensor<32x48xf16>, %s: tensor<f32>) -> tensor<64x48xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x48xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<64x48xf32>) -> tensor<64x48xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<64x32xf16>, tensor<32x48xf16>) outs(%acc : tensor<64x48xf32>) -> tensor<64x48xf32>
  %e2 = tensor.empty() : tensor<64x48xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %s : tensor<64x48xf32>, tensor<f32>) outs(%e2 : tensor<64x48xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    linalg.yield %p : f32
  } -> tensor<64x48xf32>
  return %y : tensor<64x48xf32>
}
