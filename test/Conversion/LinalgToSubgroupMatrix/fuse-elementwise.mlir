// RUN: sm-opt %s --sm-fuse-elementwise -split-input-file | FileCheck %s

// Element-wise producers with several readers merge into each of them when
// every reader takes them, reductions included: a softmax's exponentials
// are computed again in the sum and in the quotient, and no generic keeps
// them. The products' fills written as generics become linalg.fill.

// CHECK-LABEL: func.func @softmax_exponentials
// CHECK-SAME: (%[[X:.*]]: tensor<4x32xf32>)
// CHECK: %[[FILL:.*]] = linalg.fill
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}}["parallel", "reduction"]{{.*}} ins(%[[X]] : tensor<4x32xf32>) outs(%[[FILL]] : tensor<4xf32>)
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: %[[Y:.*]] = linalg.generic {{.*}}["parallel", "parallel"]{{.*}} ins(%[[X]], %[[SUM]] : tensor<4x32xf32>, tensor<4xf32>)
// CHECK: math.exp
// CHECK: arith.divf
// CHECK-NOT: linalg.generic
// CHECK: return %[[Y]]
#sx = affine_map<(i, j) -> (i, j)>
#srow = affine_map<(i, j) -> (i)>
func.func @softmax_exponentials(%x: tensor<4x32xf32>) -> tensor<4x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x32xf32>
  %ex = linalg.generic {indexing_maps = [#sx, #sx], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x32xf32>) outs(%e : tensor<4x32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.exp %v : f32
    linalg.yield %r : f32
  } -> tensor<4x32xf32>
  %re = tensor.empty() : tensor<4xf32>
  %s0 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      outs(%re : tensor<4xf32>) {
  ^bb0(%o: f32):
    linalg.yield %zero : f32
  } -> tensor<4xf32>
  %s = linalg.generic {indexing_maps = [#sx, #srow], iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<4x32xf32>) outs(%s0 : tensor<4xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.addf %v, %acc : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %y = linalg.generic {indexing_maps = [#sx, #srow, #sx], iterator_types = ["parallel", "parallel"]}
      ins(%ex, %s : tensor<4x32xf32>, tensor<4xf32>) outs(%e : tensor<4x32xf32>) {
  ^bb0(%v: f32, %sum: f32, %o: f32):
    %r = arith.divf %v, %sum : f32
    linalg.yield %r : f32
  } -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

// A producer that a product also reads is kept (the product's kernel reads
// its operands as stored), and so it is not merged into its other reader.

// CHECK-LABEL: func.func @shared_with_a_product
// CHECK: %[[SCALED:.*]] = linalg.generic
// CHECK: linalg.matmul ins(%[[SCALED]]
// CHECK: linalg.generic {{.*}} ins(%[[SCALED]]
func.func @shared_with_a_product(%a: tensor<32x32xf16>, %b: tensor<32x32xf16>) -> (tensor<32x32xf32>, tensor<32x32xf16>) {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f16
  %e = tensor.empty() : tensor<32x32xf16>
  %scaled = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<32x32xf16>) outs(%e : tensor<32x32xf16>) {
  ^bb0(%v: f16, %o: f16):
    %r = arith.mulf %v, %two : f16
    linalg.yield %r : f16
  } -> tensor<32x32xf16>
  %ce = tensor.empty() : tensor<32x32xf32>
  %c0 = linalg.fill ins(%zero : f32) outs(%ce : tensor<32x32xf32>) -> tensor<32x32xf32>
  %c = linalg.matmul ins(%scaled, %b : tensor<32x32xf16>, tensor<32x32xf16>) outs(%c0 : tensor<32x32xf32>) -> tensor<32x32xf32>
  %neg = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%scaled : tensor<32x32xf16>) outs(%e : tensor<32x32xf16>) {
  ^bb0(%v: f16, %o: f16):
    %r = arith.negf %v : f16
    linalg.yield %r : f16
  } -> tensor<32x32xf16>
  return %c, %neg : tensor<32x32xf32>, tensor<32x32xf16>
}

// -----

// A reduction's result seen with keepdim ([4] expanded to [4, 1], read
// through a constant-0 map) is read directly: the reshape goes.

// CHECK: #[[ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @keepdim_read
// CHECK-SAME: (%[[X:.*]]: tensor<4x32xf32>)
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}}["parallel", "reduction"]
// CHECK-NOT: tensor.expand_shape
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[ROW]], #{{.*}}], {{.*}} ins(%[[X]], %[[SUM]] : tensor<4x32xf32>, tensor<4xf32>)
func.func @keepdim_read(%x: tensor<4x32xf32>) -> tensor<4x32xf32> {
  %zero = arith.constant 0.0 : f32
  %re = tensor.empty() : tensor<4xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%re : tensor<4xf32>) -> tensor<4xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x32xf32>) outs(%s0 : tensor<4xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.addf %v, %acc : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %kept = tensor.expand_shape %s [[0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
  %e = tensor.empty() : tensor<4x32xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, 0)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %kept : tensor<4x32xf32>, tensor<4x1xf32>) outs(%e : tensor<4x32xf32>) {
  ^bb0(%v: f32, %sum: f32, %o: f32):
    %r = arith.divf %v, %sum : f32
    linalg.yield %r : f32
  } -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

// A chain of element-wise generics (a bias add, then an activation) is one
// generic; the product in front of it is untouched.
#rows = affine_map<(m, n) -> (m, n)>
#cols = affine_map<(m, n) -> (n)>
// CHECK-LABEL: func.func @elementwise_chain
// CHECK-SAME: (%[[X:.*]]: tensor<64x32xf16>, %[[W:.*]]: tensor<32x48xf16>, %[[B:.*]]: tensor<48xf32>)
// CHECK: %[[MM:.*]] = linalg.matmul
// CHECK: %[[R:.*]] = linalg.generic
// CHECK-SAME: ins(%[[MM]], %[[B]] : tensor<64x48xf32>, tensor<48xf32>)
// CHECK: arith.addf
// CHECK-NOT: linalg.generic
// CHECK: math.tanh
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
func.func @elementwise_chain(%x: tensor<64x32xf16>, %w: tensor<32x48xf16>, %b: tensor<48xf32>) -> tensor<64x48xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x48xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<64x48xf32>) -> tensor<64x48xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<64x32xf16>, tensor<32x48xf16>) outs(%acc : tensor<64x48xf32>) -> tensor<64x48xf32>
  %biased = linalg.generic {indexing_maps = [#rows, #cols, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<64x48xf32>, tensor<48xf32>) outs(%e : tensor<64x48xf32>) {
  ^bb0(%v: f32, %c: f32, %o: f32):
    %s = arith.addf %v, %c : f32
    linalg.yield %s : f32
  } -> tensor<64x48xf32>
  %t = linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%biased : tensor<64x48xf32>) outs(%e : tensor<64x48xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.tanh %v : f32
    linalg.yield %r : f32
  } -> tensor<64x48xf32>
  return %t : tensor<64x48xf32>
}

// -----

// An element of a rank-0 tensor that a body uses through tensor.extract
// (torch-mlir's scales) becomes an input of the generic.
// CHECK-LABEL: func.func @extracted_scale
// CHECK-SAME: %[[SCALE:[a-z0-9]+]]: tensor<f32>
// CHECK-NOT: tensor.extract
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %[[SCALE]] : tensor<64x80xf32>, tensor<f32>)
// CHECK: ^bb0(%[[V:.*]]: f32, %[[S:.*]]: f32, %{{.*}}: f32):
// CHECK: arith.mulf %[[V]], %[[S]]
func.func @extracted_scale(%x: tensor<64x96xf16>, %w: tensor<96x80xf16>, %scale: tensor<f32>) -> tensor<64x80xf32> {
  %zero = arith.constant 0.0 : f32
  %s = tensor.extract %scale[] : tensor<f32>
  %e = tensor.empty() : tensor<64x80xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<64x80xf32>) -> tensor<64x80xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<64x96xf16>, tensor<96x80xf16>) outs(%acc : tensor<64x80xf32>) -> tensor<64x80xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<64x80xf32>) outs(%e : tensor<64x80xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.mulf %v, %s : f32
    linalg.yield %m : f32
  } -> tensor<64x80xf32>
  return %r : tensor<64x80xf32>
}

// -----

// Named element-wise ops (as a graph compiler emits them) are generics, and
// their chain one generic; the fill stays a fill.
// CHECK-LABEL: func.func @named_elementwise_chain
// CHECK-SAME: (%[[A:.*]]: tensor<64x32xf32>, %[[B:.*]]: tensor<64x32xf32>, %[[V:.*]]: tensor<32xf32>)
// CHECK-NOT: linalg.add
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[A]], %[[B]], %[[B]], %[[V]] : tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<32xf32>)
// CHECK: arith.addf
// CHECK: arith.mulf
// CHECK: math.exp
// CHECK: arith.divf
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
func.func @named_elementwise_chain(%a: tensor<64x32xf32>, %b: tensor<64x32xf32>, %v: tensor<32xf32>) -> tensor<64x32xf32> {
  %e = tensor.empty() : tensor<64x32xf32>
  %s = linalg.add ins(%a, %b : tensor<64x32xf32>, tensor<64x32xf32>) outs(%e : tensor<64x32xf32>) -> tensor<64x32xf32>
  %m = linalg.mul ins(%s, %b : tensor<64x32xf32>, tensor<64x32xf32>) outs(%e : tensor<64x32xf32>) -> tensor<64x32xf32>
  %x = linalg.exp ins(%m : tensor<64x32xf32>) outs(%e : tensor<64x32xf32>) -> tensor<64x32xf32>
  %bc = linalg.broadcast ins(%v : tensor<32xf32>) outs(%e : tensor<64x32xf32>) dimensions = [0]
  %d = linalg.div ins(%x, %bc : tensor<64x32xf32>, tensor<64x32xf32>) outs(%e : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %d : tensor<64x32xf32>
}

// -----

// A rotary embedding's rotate_half: the second half negated, concatenated
// before the first. The concatenation is read part by part ((d + 0) mod 4
// into each half, the part chosen by the position), the slices through
// their offsets, and the negation merges in: one generic that reads %x
// three times.

// CHECK-DAG: #[[FIRST:.*]] = affine_map<(d0, d1) -> (d0, d1 mod 4)>
// CHECK-DAG: #[[SECOND:.*]] = affine_map<(d0, d1) -> (d0, d1 mod 4 + 4)>
// CHECK-LABEL: func.func @rotate_half
// CHECK-SAME: (%[[X:.*]]: tensor<6x8xf32>)
// CHECK-NOT: tensor.concat
// CHECK-NOT: tensor.extract_slice
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[SECOND]], #[[FIRST]], #{{.*}}], {{.*}} ins(%[[X]], %[[X]] : tensor<6x8xf32>, tensor<6x8xf32>)
// CHECK: ^bb0(%[[HIGH:.*]]: f32, %[[LOW:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[NEG:.*]] = arith.negf %[[HIGH]]
// CHECK: %[[I:.*]] = linalg.index 1
// CHECK: %[[BEFORE:.*]] = arith.cmpi ult, %[[I]], %c4
// CHECK: %[[PICK:.*]] = arith.select %[[BEFORE]], %[[NEG]], %[[LOW]]
// CHECK: linalg.yield %[[PICK]]
// CHECK: return %[[R]]
func.func @rotate_half(%x: tensor<6x8xf32>) -> tensor<6x8xf32> {
  %low = tensor.extract_slice %x[0, 0] [6, 4] [1, 1] : tensor<6x8xf32> to tensor<6x4xf32>
  %high = tensor.extract_slice %x[0, 4] [6, 4] [1, 1] : tensor<6x8xf32> to tensor<6x4xf32>
  %e = tensor.empty() : tensor<6x4xf32>
  %neg = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%high : tensor<6x4xf32>) outs(%e : tensor<6x4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %n = arith.negf %v : f32
    linalg.yield %n : f32
  } -> tensor<6x4xf32>
  %rot = tensor.concat dim(1) %neg, %low : (tensor<6x4xf32>, tensor<6x4xf32>) -> tensor<6x8xf32>
  %e2 = tensor.empty() : tensor<6x8xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%rot : tensor<6x8xf32>) outs(%e2 : tensor<6x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<6x8xf32>
  return %y : tensor<6x8xf32>
}

// -----

// A concatenation with an empty part is left as it is (its parts are read
// modulo their sizes).

// CHECK-LABEL: func.func @empty_part
// CHECK: tensor.concat
func.func @empty_part(%a: tensor<6x0xf32>, %b: tensor<6x8xf32>) -> tensor<6x8xf32> {
  %cat = tensor.concat dim(1) %a, %b : (tensor<6x0xf32>, tensor<6x8xf32>) -> tensor<6x8xf32>
  %e = tensor.empty() : tensor<6x8xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%cat : tensor<6x8xf32>) outs(%e : tensor<6x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %n = arith.negf %v : f32
    linalg.yield %n : f32
  } -> tensor<6x8xf32>
  return %y : tensor<6x8xf32>
}

// -----

// A slice that keeps the start of a longer dimension stays a slice: read
// through it, that dimension would be a bare loop over the source's longer
// extent, which linalg's sizing of loops forbids. A slice that starts
// inside its dimension is read through.

// CHECK: #[[INSIDE:.*]] = affine_map<(d0, d1) -> (d0 + 1, d1 + 2)>
// CHECK-LABEL: func.func @slice_keeping_start
// CHECK: %[[SLICE:.*]] = tensor.extract_slice %{{.*}}[0, 2] [5, 6] [1, 1]
// CHECK: linalg.generic {{.*}} ins(%[[SLICE]], %[[SLICE]] : tensor<5x6xf32>, tensor<5x6xf32>)
// CHECK-LABEL: func.func @slice_inside
// CHECK-NOT: tensor.extract_slice
// CHECK: linalg.generic {indexing_maps = [#[[INSIDE]], {{.*}} ins(%{{.*}} : tensor<8x8xf32>)
func.func @slice_keeping_start(%x: tensor<8x8xf32>) -> tensor<5x6xf32> {
  %s = tensor.extract_slice %x[0, 2] [5, 6] [1, 1] : tensor<8x8xf32> to tensor<5x6xf32>
  %e = tensor.empty() : tensor<5x6xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%s, %s : tensor<5x6xf32>, tensor<5x6xf32>) outs(%e : tensor<5x6xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.minimumf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<5x6xf32>
  return %y : tensor<5x6xf32>
}
func.func @slice_inside(%x: tensor<8x8xf32>) -> tensor<5x6xf32> {
  %s = tensor.extract_slice %x[1, 2] [5, 6] [1, 1] : tensor<8x8xf32> to tensor<5x6xf32>
  %e = tensor.empty() : tensor<5x6xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<5x6xf32>) outs(%e : tensor<5x6xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  } -> tensor<5x6xf32>
  return %y : tensor<5x6xf32>
}

// -----

// A reduction over a slice keeps the slice when the slice alone gives the
// reduced loop its size: read through, the loop would be indexed only as
// `d1 + 3`, which linalg cannot size.

// CHECK-LABEL: func.func @reduction_over_slice
// CHECK: %[[SLICE:.*]] = tensor.extract_slice %{{.*}}[0, 3] [9, 12] [1, 1]
// CHECK: linalg.generic {{.*}} ins(%[[SLICE]] : tensor<9x12xf32>)
func.func @reduction_over_slice(%x: tensor<9x20xf32>, %acc: tensor<9xf32>) -> tensor<9xf32> {
  %s = tensor.extract_slice %x[0, 3] [9, 12] [1, 1] : tensor<9x20xf32> to tensor<9x12xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%s : tensor<9x12xf32>) outs(%acc : tensor<9xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %o : f32
    linalg.yield %m : f32
  } -> tensor<9xf32>
  return %y : tensor<9xf32>
}
