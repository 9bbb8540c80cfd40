// A tuning table's line applies to contractions of its types and B layout
// whose M and N are from its own to twice them (K from half to twice) where
// no tiling option is given.
// RUN: sm-opt %s -split-input-file --sm-tile-matmul="target=nvidia-h100 tuning-table=%S/Inputs/tuning.tuning" | FileCheck %s --check-prefix=TABLE
// RUN: sm-opt %s -split-input-file --sm-tile-matmul="target=nvidia-h100 tuning-table=none" | FileCheck %s --check-prefix=NONE
// An explicit tiling option turns the table off.
// RUN: sm-opt %s -split-input-file --sm-tile-matmul="target=nvidia-h100 tuning-table=%S/Inputs/tuning.tuning group-m=1" | FileCheck %s --check-prefix=OPTION
// sm-linalg-to-gpu reads the same table, a line's split-k included.
// RUN: sm-opt %s -split-input-file --sm-linalg-to-gpu="target=nvidia-h100 tuning-table=%S/Inputs/tuning.tuning" | FileCheck %s --check-prefix=GRAPH

// 1024^3 is the line's own problem: 16x16 workgroups of 2 subgroups.
// TABLE-LABEL: func.func @tuned
// TABLE: gpu.launch_func @{{.*}} blocks in (%c16{{(_[0-9]+)?}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) threads in (%c64{{(_[0-9]+)?}}, 
// NONE-LABEL: func.func @tuned
// NONE: gpu.launch_func @{{.*}} blocks in (%c8{{(_[0-9]+)?}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) threads in (%c128{{(_[0-9]+)?}}, 
// OPTION-LABEL: func.func @tuned
// OPTION: gpu.launch_func @{{.*}} threads in (%c128{{(_[0-9]+)?}}, 
// GRAPH-LABEL: func.func @tuned
// GRAPH: gpu.launch_func @kernels::@matmul_0 blocks in (%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) threads in (%c64{{(_[0-9]+)?}}, 
func.func @tuned(%a: memref<1024x1024xf16>, %b: memref<1024x1024xf16>, %c: memref<1024x1024xf32>) {
  linalg.matmul ins(%a, %b : memref<1024x1024xf16>, memref<1024x1024xf16>) outs(%c : memref<1024x1024xf32>)
  return
}

// -----

// Twice the line's M and N, half its K: still the line's tiling.
// TABLE-LABEL: func.func @near
// TABLE: threads in (%c64{{(_[0-9]+)?}}, 
func.func @near(%a: memref<2048x512xf16>, %b: memref<512x2048xf16>, %c: memref<2048x2048xf32>) {
  linalg.matmul ins(%a, %b : memref<2048x512xf16>, memref<512x2048xf16>) outs(%c : memref<2048x2048xf32>)
  return
}

// -----

// Smaller M than the line's (its tiles could leave SMs idle), another
// accumulator type: the defaults.
// TABLE-LABEL: func.func @smaller
// TABLE: threads in (%c128{{(_[0-9]+)?}}, 
// TABLE-LABEL: func.func @other_types
// TABLE: threads in (%c128{{(_[0-9]+)?}}, 
func.func @smaller(%a: memref<512x1024xf16>, %b: memref<1024x1024xf16>, %c: memref<512x1024xf32>) {
  linalg.matmul ins(%a, %b : memref<512x1024xf16>, memref<1024x1024xf16>) outs(%c : memref<512x1024xf32>)
  return
}
func.func @other_types(%a: memref<1024x1024xf16>, %b: memref<1024x1024xf16>, %c: memref<1024x1024xf16>) {
  linalg.matmul ins(%a, %b : memref<1024x1024xf16>, memref<1024x1024xf16>) outs(%c : memref<1024x1024xf16>)
  return
}

// -----

// B stored N x K: the bt line (one subgroup of 32 invocations; with
// sm-linalg-to-gpu, K split in 2 along the grid's z; sm-tile-matmul, which
// leaves no reduction kernel, does not split).
// TABLE-LABEL: func.func @transposed
// TABLE: threads in (%c32{{(_[0-9]+)?}}, 
// GRAPH-LABEL: func.func @transposed
// GRAPH: %[[WORKSPACE:.*]] = memref.alloc() : memref<2048x1024xf32>
// GRAPH: gpu.launch_func @kernels::@matmul_0 blocks in (%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %c2{{(_[0-9]+)?}}) threads
func.func @transposed(%a: memref<1024x1024xf16>, %b: memref<1024x1024xf16>, %c: memref<1024x1024xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
    ins(%a, %b : memref<1024x1024xf16>, memref<1024x1024xf16>) outs(%c : memref<1024x1024xf32>)
  return
}
