// RUN: sm-opt %s -split-input-file --sm-linalg-to-gpu=target=nvidia-h100 -verify-diagnostics

func.func @dynamic_batch(%a: memref<?x64x64xf16>, %b: memref<?x64x64xf16>, %c: memref<?x64x64xf32>) {
  // expected-error @+1 {{cannot be tiled into a kernel: the batch size is dynamic (M, N and K may be, since the kernel takes them as arguments, but the batch is the launch's grid depth)}}
  linalg.batch_matmul ins(%a, %b : memref<?x64x64xf16>, memref<?x64x64xf16>) outs(%c : memref<?x64x64xf32>)
  return
}

// -----

// A scalar from outside becomes a kernel argument, but not a boolean (no
// Vulkan kernel interface holds one).
func.func @captured_boolean(%x: memref<64xf32>, %y: memref<64xf32>, %flag: i1) {
  // expected-error @+1 {{cannot be put on the GPU: its body uses a value of type 'i1' from outside, which kernels cannot take}}
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : memref<64xf32>) outs(%y : memref<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    %m = arith.select %flag, %a, %n : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// A tensor of dynamic rank reaches the product through a cast whose buffer
// has an unknown layout.
func.func @dynamic_rank(%a: tensor<*xf16>, %b: tensor<64x64xf16>, %c: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %ar = tensor.cast %a : tensor<*xf16> to tensor<?x64xf16>
  // expected-error @+1 {{is not a contiguous row-major memref (it is a cast of an unranked buffer, whose layout nothing knows: pass ranked tensors or memrefs)}}
  %r = linalg.matmul ins(%ar, %b : tensor<?x64xf16>, tensor<64x64xf16>) outs(%c : tensor<?x64xf32>) -> tensor<?x64xf32>
  return %r : tensor<?x64xf32>
}

// -----

// A linalg op that no kernel computes is reported, never left on the host
// (here bufferization already stops it).
func.func @winograd(%f: tensor<8x3x3x4xf32>, %t: tensor<6x6x4x8xf32>) -> tensor<6x6x4x8xf32> {
  // expected-error @+1 {{op was not bufferized}}
  %r = linalg.winograd_filter_transform fmr(F_4_3) ins(%f : tensor<8x3x3x4xf32>) outs(%t : tensor<6x6x4x8xf32>) -> tensor<6x6x4x8xf32>
  return %r : tensor<6x6x4x8xf32>
}

// -----

// An element-wise kernel indexes operands by sums of loops and constants,
// scaled, divided or wrapped by positive constants (windows, strides,
// packed and grouped elements); a reversed read scales by -1.
func.func @reversed_read(%x: memref<32xf32>, %y: memref<32xf32>) {
  // expected-error @+1 {{cannot be put on the GPU: an operand is indexed by '-d0 + 31', which is not built of loops and constants by +, and *, floordiv and mod by positive constants}}
  linalg.generic {indexing_maps = [affine_map<(d0) -> (31 - d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : memref<32xf32>) outs(%y : memref<32xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  return
}

// -----

// Matrix units multiply inputs of one signedness.
func.func @mixed_signedness(%a: tensor<32x64xi8>, %b: tensor<64x32xi8>, %c: tensor<32x32xi32>) -> tensor<32x32xi32> {
  // expected-error @+1 {{cannot be tiled into a kernel: its body extends one input as signed and the other as unsigned, and a matrix multiplication takes both of one signedness}}
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
      iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<32x64xi8>, tensor<64x32xi8>) outs(%c : tensor<32x32xi32>) {
  ^bb0(%x: i8, %y: i8, %z: i32):
    %x1 = arith.extsi %x : i8 to i32
    %y1 = arith.extui %y : i8 to i32
    %p = arith.muli %x1, %y1 : i32
    %s = arith.addi %z, %p : i32
    linalg.yield %s : i32
  } -> tensor<32x32xi32>
  return %r : tensor<32x32xi32>
}

// -----

// A gather from a table of dynamic size: the kernel would need the table's
// sizes to linearize the row it reads.
func.func @gather_dynamic_table(%ids: tensor<8xi64>, %table: tensor<?x16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  // expected-error @+1 {{cannot be put on the GPU: its body loads from 'memref<?x16xf32>', which is not a statically shaped row-major memref}}
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<8xi64>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%id: i64, %o: f32):
    %row = arith.index_cast %id : i64 to index
    %col = linalg.index 1 : index
    %v = tensor.extract %table[%row, %col] : tensor<?x16xf32>
    linalg.yield %v : f32
  } -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}
