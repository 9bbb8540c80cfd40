// RUN: sm-opt %s --sm-normalize-contractions -split-input-file | FileCheck %s

// Attention scores on [batch, seq, heads, dim] operands: Q and K are
// transposed to [batch, heads, seq, dim] (K keeps its dim innermost and is
// read as B given N x K), batch and heads collapse into one batch, and the
// zero fill moves onto the collapsed accumulator.
// CHECK-DAG: #[[$A:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[$BT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-DAG: #[[$C:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @scores_heads_moved
// CHECK-SAME: (%[[Q:.*]]: tensor<2x64x8x32xf16>, %[[K:.*]]: tensor<2x64x8x32xf16>)
// CHECK: %[[QT:.*]] = linalg.transpose ins(%[[Q]] : {{.*}}) outs({{.*}} : tensor<2x8x64x32xf16>) permutation = [0, 2, 1, 3]
// CHECK: %[[QC:.*]] = tensor.collapse_shape %[[QT]] {{\[}}[0, 1], [2], [3]] : tensor<2x8x64x32xf16> into tensor<16x64x32xf16>
// CHECK: %[[KT:.*]] = linalg.transpose ins(%[[K]] : {{.*}}) outs({{.*}} : tensor<2x8x64x32xf16>) permutation = [0, 2, 1, 3]
// CHECK: %[[KC:.*]] = tensor.collapse_shape %[[KT]] {{\[}}[0, 1], [2], [3]]
// CHECK: %[[FILL:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<16x64x64xf32>)
// CHECK: %[[P:.*]] = linalg.generic {indexing_maps = [#[[$A]], #[[$BT]], #[[$C]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[QC]], %[[KC]] : tensor<16x64x32xf16>, tensor<16x64x32xf16>) outs(%[[FILL]] : tensor<16x64x64xf32>)
// CHECK: arith.extf
// CHECK: %[[R:.*]] = tensor.expand_shape %[[P]] {{\[}}[0, 1], [2], [3]] output_shape [2, 8, 64, 64]
// CHECK: return %[[R]]
#q = affine_map<(b, h, s, t, d) -> (b, s, h, d)>
#k = affine_map<(b, h, s, t, d) -> (b, t, h, d)>
#s = affine_map<(b, h, s, t, d) -> (b, h, s, t)>
func.func @scores_heads_moved(%q: tensor<2x64x8x32xf16>, %k: tensor<2x64x8x32xf16>) -> tensor<2x8x64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x64x64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x64x64xf32>) -> tensor<2x8x64x64xf32>
  %r = linalg.generic {indexing_maps = [#q, #k, #s],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x64x8x32xf16>, tensor<2x64x8x32xf16>)
      outs(%acc : tensor<2x8x64x64xf32>) {
  ^bb0(%a: f16, %b: f16, %c: f32):
    %x = arith.extf %a : f16 to f32
    %y = arith.extf %b : f16 to f32
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x8x64x64xf32>
  return %r : tensor<2x8x64x64xf32>
}

// -----

// The batch between two M loops: A and C are transposed to put the batch
// first, the M loops collapse into one, and the result is transposed back.
// CHECK-LABEL: func.func @batch_between_m_loops
// CHECK-SAME: (%[[A:.*]]: tensor<4x3x16x64xf16>, %[[B:.*]]: tensor<3x32x64xf16>, %[[C:.*]]: tensor<4x3x16x32xf32>)
// CHECK: %[[AT:.*]] = linalg.transpose ins(%[[A]] : {{.*}}) outs({{.*}} : tensor<3x4x16x64xf16>) permutation = [1, 0, 2, 3]
// CHECK: %[[AC:.*]] = tensor.collapse_shape %[[AT]] {{\[}}[0], [1, 2], [3]] : tensor<3x4x16x64xf16> into tensor<3x64x64xf16>
// CHECK: %[[CT:.*]] = linalg.transpose ins(%[[C]] : {{.*}}) outs({{.*}} : tensor<3x4x16x32xf32>) permutation = [1, 0, 2, 3]
// CHECK: %[[CC:.*]] = tensor.collapse_shape %[[CT]] {{\[}}[0], [1, 2], [3]]
// CHECK: %[[P:.*]] = linalg.generic
// CHECK-SAME: ins(%[[AC]], %[[B]] : tensor<3x64x64xf16>, tensor<3x32x64xf16>) outs(%[[CC]] : tensor<3x64x32xf32>)
// CHECK: %[[E:.*]] = tensor.expand_shape %[[P]] {{\[}}[0], [1, 2], [3]] output_shape [3, 4, 16, 32]
// CHECK: %[[R:.*]] = linalg.transpose ins(%[[E]] : {{.*}}) outs({{.*}} : tensor<4x3x16x32xf32>) permutation = [1, 0, 2, 3]
// CHECK: return %[[R]]
func.func @batch_between_m_loops(%a: tensor<4x3x16x64xf16>, %b: tensor<3x32x64xf16>, %c: tensor<4x3x16x32xf32>) -> tensor<4x3x16x32xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(m0, b, m1, n, k) -> (m0, b, m1, k)>, affine_map<(m0, b, m1, n, k) -> (b, n, k)>, affine_map<(m0, b, m1, n, k) -> (m0, b, m1, n)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<4x3x16x64xf16>, tensor<3x32x64xf16>)
      outs(%c : tensor<4x3x16x32xf32>) {
  ^bb0(%x: f16, %y: f16, %z: f32):
    %x1 = arith.extf %x : f16 to f32
    %y1 = arith.extf %y : f16 to f32
    %p = arith.mulf %x1, %y1 : f32
    %s = arith.addf %z, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x3x16x32xf32>
  return %r : tensor<4x3x16x32xf32>
}

// -----

// A matrix-vector product: the vectors get a unit N.
// CHECK-LABEL: func.func @matvec
// CHECK-SAME: (%[[A:.*]]: tensor<64x128xf16>, %[[X:.*]]: tensor<128xf16>, %[[Y:.*]]: tensor<64xf32>)
// CHECK: %[[XE:.*]] = tensor.expand_shape %[[X]] {{\[}}[0, 1]] output_shape [128, 1] : tensor<128xf16> into tensor<128x1xf16>
// CHECK: %[[YE:.*]] = tensor.expand_shape %[[Y]] {{\[}}[0, 1]] output_shape [64, 1] : tensor<64xf32> into tensor<64x1xf32>
// CHECK: %[[P:.*]] = linalg.generic
// CHECK-SAME: ins(%[[A]], %[[XE]] : tensor<64x128xf16>, tensor<128x1xf16>) outs(%[[YE]] : tensor<64x1xf32>)
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[P]] {{\[}}[0, 1]] : tensor<64x1xf32> into tensor<64xf32>
// CHECK: return %[[R]]
func.func @matvec(%a: tensor<64x128xf16>, %x: tensor<128xf16>, %y: tensor<64xf32>) -> tensor<64xf32> {
  %r = linalg.matvec ins(%a, %x : tensor<64x128xf16>, tensor<128xf16>) outs(%y : tensor<64xf32>) -> tensor<64xf32>
  return %r : tensor<64xf32>
}

// -----

// A transpose that only feeds the product folds into B's map: the weight
// is read as N x K where it is.
// CHECK-DAG: #[[$BT:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @transposed_weight
// CHECK-SAME: (%[[A:.*]]: tensor<64x128xf16>, %[[W:.*]]: tensor<32x128xf16>, %[[C:.*]]: tensor<64x32xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[$BT]], #{{.*}}]
// CHECK-SAME: ins(%[[A]], %[[W]] : tensor<64x128xf16>, tensor<32x128xf16>) outs(%[[C]] : tensor<64x32xf32>)
func.func @transposed_weight(%a: tensor<64x128xf16>, %w: tensor<32x128xf16>, %c: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %e = tensor.empty() : tensor<128x32xf16>
  %t = linalg.transpose ins(%w : tensor<32x128xf16>) outs(%e : tensor<128x32xf16>) permutation = [1, 0]
  %r = linalg.matmul ins(%a, %t : tensor<64x128xf16>, tensor<128x32xf16>) outs(%c : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %r : tensor<64x32xf32>
}

// -----

// A weight broadcast over the batch folds into B's map: the kernel reads
// one weight for every batch.
// CHECK-DAG: #[[$B:.*]] = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
// CHECK-LABEL: func.func @broadcast_weight
// CHECK-SAME: (%[[A:.*]]: tensor<3x16x64xf16>, %[[W:.*]]: tensor<64x32xf16>, %[[C:.*]]: tensor<3x16x32xf32>)
// CHECK-NOT: linalg.broadcast
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[$B]], #{{.*}}]
// CHECK-SAME: ins(%[[A]], %[[W]] : tensor<3x16x64xf16>, tensor<64x32xf16>)
func.func @broadcast_weight(%a: tensor<3x16x64xf16>, %w: tensor<64x32xf16>, %c: tensor<3x16x32xf32>) -> tensor<3x16x32xf32> {
  %e = tensor.empty() : tensor<3x64x32xf16>
  %wb = linalg.broadcast ins(%w : tensor<64x32xf16>) outs(%e : tensor<3x64x32xf16>) dimensions = [0]
  %r = linalg.batch_matmul ins(%a, %wb : tensor<3x16x64xf16>, tensor<3x64x32xf16>) outs(%c : tensor<3x16x32xf32>) -> tensor<3x16x32xf32>
  return %r : tensor<3x16x32xf32>
}

// -----

// C holds N before M, and K spans two loops: the inputs swap roles
// (C^T = B^T A^T), so that C needs no transpose. The new A (the old B) is
// read as K x M where it is; the new B needs its K loops in A's order.
// CHECK-DAG: #[[$AT:.*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[$BT:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @output_transposed_two_k
// CHECK-SAME: (%[[A:.*]]: tensor<64x4x32xi8>, %[[B:.*]]: tensor<32x4x48xi8>, %[[C:.*]]: tensor<48x64xi32>)
// CHECK: %[[BC:.*]] = tensor.collapse_shape %[[B]] {{\[}}[0, 1], [2]] : tensor<32x4x48xi8> into tensor<128x48xi8>
// CHECK: %[[AT:.*]] = linalg.transpose ins(%[[A]] : {{.*}}) outs({{.*}} : tensor<64x32x4xi8>) permutation = [0, 2, 1]
// CHECK: %[[AC:.*]] = tensor.collapse_shape %[[AT]] {{\[}}[0], [1, 2]] : tensor<64x32x4xi8> into tensor<64x128xi8>
// CHECK: %[[P:.*]] = linalg.generic {indexing_maps = [#[[$AT]], #[[$BT]], #{{.*}}]
// CHECK-SAME: ins(%[[BC]], %[[AC]] : tensor<128x48xi8>, tensor<64x128xi8>) outs(%[[C]] : tensor<48x64xi32>)
// The body reads its operands the other way round.
// CHECK: ^bb0(%[[X:.*]]: i8, %[[Y:.*]]: i8, %[[Z:.*]]: i32):
// CHECK: %[[XW:.*]] = arith.extsi %[[Y]] : i8 to i32
// CHECK: %[[YW:.*]] = arith.extui %[[X]] : i8 to i32
// CHECK: arith.muli %[[XW]], %[[YW]]
// CHECK: return %[[P]]
func.func @output_transposed_two_k(%a: tensor<64x4x32xi8>, %b: tensor<32x4x48xi8>, %c: tensor<48x64xi32>) -> tensor<48x64xi32> {
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k0, k1) -> (m, k0, k1)>, affine_map<(m, n, k0, k1) -> (k1, k0, n)>, affine_map<(m, n, k0, k1) -> (n, m)>],
      iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%a, %b : tensor<64x4x32xi8>, tensor<32x4x48xi8>)
      outs(%c : tensor<48x64xi32>) {
  ^bb0(%x: i8, %y: i8, %z: i32):
    %x1 = arith.extsi %x : i8 to i32
    %y1 = arith.extui %y : i8 to i32
    %p = arith.muli %x1, %y1 : i32
    %s = arith.addi %z, %p : i32
    linalg.yield %s : i32
  } -> tensor<48x64xi32>
  return %r : tensor<48x64xi32>
}

// -----

// Several dynamic M loops collapse into one; the result is expanded with
// the sizes of C.
// CHECK-LABEL: func.func @dynamic_m_loops
// CHECK-SAME: (%[[A:.*]]: tensor<?x?x64xf16>, %[[B:.*]]: tensor<64x32xf16>, %[[C:.*]]: tensor<?x?x32xf32>)
// CHECK: %[[AT:.*]] = linalg.transpose ins(%[[A]] : {{.*}}) {{.*}} permutation = [1, 0, 2]
// CHECK: %[[AC:.*]] = tensor.collapse_shape %[[AT]] {{\[}}[0, 1], [2]] : tensor<?x?x64xf16> into tensor<?x64xf16>
// CHECK: %[[CC:.*]] = tensor.collapse_shape %[[C]] {{\[}}[0, 1], [2]] : tensor<?x?x32xf32> into tensor<?x32xf32>
// CHECK: %[[P:.*]] = linalg.generic {{.*}} ins(%[[AC]], %[[B]] : {{.*}}) outs(%[[CC]] : tensor<?x32xf32>)
// CHECK: %[[D0:.*]] = tensor.dim %[[C]], %{{.*}}
// CHECK: %[[D1:.*]] = tensor.dim %[[C]], %{{.*}}
// CHECK: tensor.expand_shape %[[P]] {{\[}}[0, 1], [2]] output_shape [%[[D0]], %[[D1]], 32]
func.func @dynamic_m_loops(%a: tensor<?x?x64xf16>, %b: tensor<64x32xf16>, %c: tensor<?x?x32xf32>) -> tensor<?x?x32xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j, n, k) -> (i, j, k)>, affine_map<(i, j, n, k) -> (k, n)>, affine_map<(i, j, n, k) -> (j, i, n)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<?x?x64xf16>, tensor<64x32xf16>) outs(%c : tensor<?x?x32xf32>) {
  ^bb0(%x: f16, %y: f16, %z: f32):
    %x1 = arith.extf %x : f16 to f32
    %y1 = arith.extf %y : f16 to f32
    %p = arith.mulf %x1, %y1 : f32
    %s = arith.addf %z, %p : f32
    linalg.yield %s : f32
  } -> tensor<?x?x32xf32>
  return %r : tensor<?x?x32xf32>
}

// -----

// Left alone: a product already in the kernels' form, and a dot product
// (no M and no N).
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: tensor.expand_shape
// CHECK-NOT: linalg.generic
// CHECK: linalg.matmul
// CHECK: linalg.dot
func.func @left_alone(%a: tensor<16x64xf16>, %b: tensor<64x32xf16>, %c: tensor<16x32xf32>,
                      %x: tensor<64xf32>, %y: tensor<64xf32>, %s: tensor<f32>) -> (tensor<16x32xf32>, tensor<f32>) {
  %r = linalg.matmul ins(%a, %b : tensor<16x64xf16>, tensor<64x32xf16>) outs(%c : tensor<16x32xf32>) -> tensor<16x32xf32>
  %d = linalg.dot ins(%x, %y : tensor<64xf32>, tensor<64xf32>) outs(%s : tensor<f32>) -> tensor<f32>
  return %r, %d : tensor<16x32xf32>, tensor<f32>
}

// -----

// A quantized product with constant zero points: the product of the stored
// bytes, the row sums of A and column sums of B (computed first, so that
// the corrections can run in the product's kernel), and the corrections
// -zb * rowsum(A) - za * colsum(B) + K * za * zb element-wise.
// CHECK-LABEL: func.func @quantized
// CHECK-SAME: (%[[A:.*]]: tensor<32x64xi8>, %[[B:.*]]: tensor<64x48xi8>)
// CHECK-DAG: %[[ZA:.*]] = arith.constant 3 : i32
// CHECK-DAG: %[[ZB:.*]] = arith.constant -5 : i32
// CHECK-DAG: %[[KZZ:.*]] = arith.constant -960 : i32
// CHECK: %[[ROWS:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[A]] : tensor<32x64xi8>) outs(%{{.*}} : tensor<32xi32>)
// CHECK: %[[COLS:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[B]] : tensor<64x48xi8>) outs(%{{.*}} : tensor<48xi32>)
// CHECK: %[[P:.*]] = linalg.generic {{.*}} ins(%[[A]], %[[B]] : tensor<32x64xi8>, tensor<64x48xi8>) outs(%{{.*}} : tensor<32x48xi32>)
// CHECK: arith.muli
// CHECK: linalg.generic {{.*}} ins(%[[P]], %[[ROWS]], %[[COLS]] : tensor<32x48xi32>, tensor<32xi32>, tensor<48xi32>)
// CHECK: %[[R1:.*]] = arith.muli %{{.*}}, %[[ZB]] : i32
// CHECK: %[[S1:.*]] = arith.subi %{{.*}}, %[[R1]] : i32
// CHECK: %[[R2:.*]] = arith.muli %{{.*}}, %[[ZA]] : i32
// CHECK: %[[S2:.*]] = arith.subi %[[S1]], %[[R2]] : i32
// CHECK: arith.addi %[[S2]], %[[KZZ]] : i32
// CHECK-NOT: linalg.quantized_matmul
func.func @quantized(%a: tensor<32x64xi8>, %b: tensor<64x48xi8>) -> tensor<32x48xi32> {
  %za = arith.constant 3 : i32
  %zb = arith.constant -5 : i32
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<32x48xi32>
  %acc = linalg.fill ins(%zero : i32) outs(%e : tensor<32x48xi32>) -> tensor<32x48xi32>
  %r = linalg.quantized_matmul ins(%a, %b, %za, %zb : tensor<32x64xi8>, tensor<64x48xi8>, i32, i32) outs(%acc : tensor<32x48xi32>) -> tensor<32x48xi32>
  return %r : tensor<32x48xi32>
}

// -----

// A producer with another user stays (nothing is computed twice).
#rows = affine_map<(m, n) -> (m, n)>
// CHECK-LABEL: func.func @shared_producer
// CHECK: %[[NEG:.*]] = linalg.generic
// CHECK: arith.negf
// CHECK: %[[EXP:.*]] = linalg.generic
// CHECK-SAME: ins(%[[NEG]]
// CHECK: return %[[NEG]], %[[EXP]]
func.func @shared_producer(%x: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %e = tensor.empty() : tensor<8x8xf32>
  %n = linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.negf %v : f32
    linalg.yield %r : f32
  } -> tensor<8x8xf32>
  %x2 = linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%n : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.exp %v : f32
    linalg.yield %r : f32
  } -> tensor<8x8xf32>
  return %n, %x2 : tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

// tosa.matmul's batch of one (a 2-D layer between reshapes) is a matmul;
// the reshapes cancel, so the bias add reads the product itself.
// CHECK-LABEL: func.func @unit_batch
// CHECK-SAME: (%[[X:.*]]: tensor<32x64xf32>, %[[W:.*]]: tensor<64x48xf32>
// CHECK-NOT: tensor.expand_shape
// CHECK-NOT: batch_matmul
// CHECK: %[[MM:.*]] = linalg.matmul ins(%[[X]], %[[W]] : tensor<32x64xf32>, tensor<64x48xf32>)
// CHECK-NOT: tensor.collapse_shape
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[MM]]
func.func @unit_batch(%x: tensor<32x64xf32>, %w: tensor<64x48xf32>, %b: tensor<48xf32>) -> tensor<32x48xf32> {
  %zero = arith.constant 0.0 : f32
  %x3 = tensor.expand_shape %x [[0, 1], [2]] output_shape [1, 32, 64] : tensor<32x64xf32> into tensor<1x32x64xf32>
  %w3 = tensor.expand_shape %w [[0, 1], [2]] output_shape [1, 64, 48] : tensor<64x48xf32> into tensor<1x64x48xf32>
  %e = tensor.empty() : tensor<1x32x48xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<1x32x48xf32>) -> tensor<1x32x48xf32>
  %mm = linalg.batch_matmul ins(%x3, %w3 : tensor<1x32x64xf32>, tensor<1x64x48xf32>) outs(%acc : tensor<1x32x48xf32>) -> tensor<1x32x48xf32>
  %mm2 = tensor.collapse_shape %mm [[0, 1], [2]] : tensor<1x32x48xf32> into tensor<32x48xf32>
  %e2 = tensor.empty() : tensor<32x48xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m, n)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%mm2, %b : tensor<32x48xf32>, tensor<48xf32>) outs(%e2 : tensor<32x48xf32>) {
  ^bb0(%v: f32, %c: f32, %o: f32):
    %s = arith.addf %v, %c : f32
    linalg.yield %s : f32
  } -> tensor<32x48xf32>
  return %r : tensor<32x48xf32>
}

// -----

// Two products that start from one fill get a fill each.
// CHECK-LABEL: func.func @shared_fill
// CHECK: %[[F1:.*]] = linalg.fill
// CHECK: %[[F2:.*]] = linalg.fill
// CHECK: linalg.matmul {{.*}} outs(%[[F2]]
// CHECK: linalg.matmul {{.*}} outs(%[[F1]]
func.func @shared_fill(%x: tensor<32x64xf16>, %w1: tensor<64x48xf16>, %w2: tensor<64x48xf16>) -> (tensor<32x48xf32>, tensor<32x48xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x48xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<32x48xf32>) -> tensor<32x48xf32>
  %a = linalg.matmul ins(%x, %w1 : tensor<32x64xf16>, tensor<64x48xf16>) outs(%acc : tensor<32x48xf32>) -> tensor<32x48xf32>
  %b = linalg.matmul ins(%x, %w2 : tensor<32x64xf16>, tensor<64x48xf16>) outs(%acc : tensor<32x48xf32>) -> tensor<32x48xf32>
  return %a, %b : tensor<32x48xf32>, tensor<32x48xf32>
}

// -----

// A unit batch whose result stays 3-D (the two products of an attention,
// which their matcher reads as batched) is left as it is.
// CHECK-LABEL: func.func @unit_batch_kept
// CHECK: linalg.batch_matmul
func.func @unit_batch_kept(%x: tensor<1x32x64xf16>, %w: tensor<1x64x48xf16>) -> tensor<1x32x48xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x48xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<1x32x48xf32>) -> tensor<1x32x48xf32>
  %mm = linalg.batch_matmul ins(%x, %w : tensor<1x32x64xf16>, tensor<1x64x48xf16>) outs(%acc : tensor<1x32x48xf32>) -> tensor<1x32x48xf32>
  return %mm : tensor<1x32x48xf32>
}

// -----

// An element-wise op that reads a product through a reshape to more loops
// (a convolution's [N*H*W, F] product seen as [N*H, W, F]) is collapsed to
// read the product itself, and the reshape moves after it.
#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#bias = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @epilogue_through_reshape
// CHECK: %[[MM:.*]] = linalg.matmul
// CHECK: %[[R:.*]] = linalg.generic
// CHECK-SAME: ins(%[[MM]], %{{.*}} : tensor<6272x128xf16>, tensor<128xf16>)
// CHECK: %[[E:.*]] = tensor.expand_shape %[[R]] {{\[\[}}0, 1], [2]] output_shape [224, 28, 128]
// CHECK: return %[[E]]
func.func @epilogue_through_reshape(%a: tensor<6272x64xf16>, %b: tensor<64x128xf16>, %bias: tensor<128xf16>) -> tensor<224x28x128xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<6272x128xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<6272x128xf16>) -> tensor<6272x128xf16>
  %mm = linalg.matmul ins(%a, %b : tensor<6272x64xf16>, tensor<64x128xf16>) outs(%acc : tensor<6272x128xf16>) -> tensor<6272x128xf16>
  %x = tensor.expand_shape %mm [[0, 1], [2]] output_shape [224, 28, 128] : tensor<6272x128xf16> into tensor<224x28x128xf16>
  %e3 = tensor.empty() : tensor<224x28x128xf16>
  %r = linalg.generic {indexing_maps = [#map, #bias, #map], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %bias : tensor<224x28x128xf16>, tensor<128xf16>) outs(%e3 : tensor<224x28x128xf16>) {
  ^bb0(%v: f16, %c: f16, %o: f16):
    %s = arith.addf %v, %c : f16
    linalg.yield %s : f16
  } -> tensor<224x28x128xf16>
  return %r : tensor<224x28x128xf16>
}

// -----

// Zero points that are function arguments: the corrections read them from
// outside their body (kernel arguments, later), K * za * zb included.
// CHECK-LABEL: func.func @quantized_zero_point_arguments
// CHECK-SAME: %[[ZA:[a-z0-9]+]]: i32, %[[ZB:[a-z0-9]+]]: i32
// CHECK: %[[K:.*]] = arith.constant 96 : i32
// CHECK: linalg.generic
// CHECK: linalg.generic
// CHECK: linalg.generic
// CHECK: linalg.generic
// CHECK: arith.muli %[[ZB]]
// CHECK: arith.muli %[[ZA]]
// CHECK: %[[BOTH:.*]] = arith.muli %[[ZA]], %[[ZB]]
// CHECK: arith.muli %[[BOTH]], %[[K]]
func.func @quantized_zero_point_arguments(%a: tensor<40x96xi8>, %b: tensor<96x56xi8>, %za: i32, %zb: i32) -> tensor<40x56xi32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<40x56xi32>
  %acc = linalg.fill ins(%zero : i32) outs(%e : tensor<40x56xi32>) -> tensor<40x56xi32>
  %r = linalg.quantized_matmul ins(%a, %b, %za, %zb : tensor<40x96xi8>, tensor<96x56xi8>, i32, i32) outs(%acc : tensor<40x56xi32>) -> tensor<40x56xi32>
  return %r : tensor<40x56xi32>
}

// -----

// A broadcast of A along M (every row of A the same) stays a broadcast:
// folded into A's map, M would be C's loop alone, which is no matrix
// product.
// CHECK-LABEL: func.func @rows_broadcast_into_a
// CHECK: %[[A:.*]] = linalg.broadcast
// CHECK: linalg.matmul ins(%[[A]], %{{.*}} : tensor<32x100xf32>, tensor<100x24xf32>)
func.func @rows_broadcast_into_a(%v: tensor<100xf32>, %b: tensor<100x24xf32>, %c: tensor<32x24xf32>) -> tensor<32x24xf32> {
  %e = tensor.empty() : tensor<32x100xf32>
  %a = linalg.broadcast ins(%v : tensor<100xf32>) outs(%e : tensor<32x100xf32>) dimensions = [0]
  %r = linalg.matmul ins(%a, %b : tensor<32x100xf32>, tensor<100x24xf32>) outs(%c : tensor<32x24xf32>) -> tensor<32x24xf32>
  return %r : tensor<32x24xf32>
}

// -----

// A fill that nothing reads (a fuzzer's mutant: the slice is inserted into
// the empty tensor instead) has no product to give a fill of its own, and
// stays as it is.
// CHECK-LABEL: func.func @unused_fill
// CHECK: linalg.fill
// CHECK: %[[S:.*]] = tensor.insert_slice
// CHECK: return %[[S]]
func.func @unused_fill(%row: tensor<1x64xf32>) -> tensor<18x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<18x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<18x64xf32>) -> tensor<18x64xf32>
  %q = tensor.insert_slice %row into %e[0, 0] [1, 64] [1, 1] : tensor<1x64xf32> into tensor<18x64xf32>
  return %q : tensor<18x64xf32>
}
