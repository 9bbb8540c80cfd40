// The stages of sm-linalg-to-gpu that prepare a program, each on its own input.
// RUN: sm-opt %s --split-input-file --sm-fold-batch-loops | FileCheck %s --check-prefix=FOLD
// RUN: sm-opt %s --split-input-file --sm-bufferize-program | FileCheck %s --check-prefix=BUFFERIZE
// RUN: sm-opt %s --split-input-file --sm-insert-shape-checks | FileCheck %s --check-prefix=CHECKS
// RUN: sm-opt %s --split-input-file --sm-unit-convolutions-to-contractions | FileCheck %s --check-prefix=CONV

// Two leading batch loops become one, between reshapes.

// FOLD-LABEL: func.func @heads
// FOLD: %[[X:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2], [3]] : tensor<2x4x8x8xf32> into tensor<8x8x8xf32>
// FOLD: %[[Y:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<8x8x8xf32>)
// FOLD: tensor.expand_shape %[[Y]] {{\[}}[0, 1], [2], [3]] output_shape [2, 4, 8, 8]

// BUFFERIZE-LABEL: func.func @heads
// BUFFERIZE-SAME: (%{{.*}}: memref<2x4x8x8xf32>) -> memref<2x4x8x8xf32>
#map = affine_map<(b, h, i, j) -> (b, h, i, j)>
func.func @heads(%x: tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32> {
  %e = tensor.empty() : tensor<2x4x8x8xf32>
  %y = linalg.generic {indexing_maps = [#map, #map],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<2x4x8x8xf32>) outs(%e : tensor<2x4x8x8xf32>) {
  ^bb0(%v: f32, %out: f32):
    %s = arith.addf %v, %v : f32
    linalg.yield %s : f32
  } -> tensor<2x4x8x8xf32>
  return %y : tensor<2x4x8x8xf32>
}

// -----

// Multi-query attention: K broadcast over the heads loop is read through a
// copy repeated over the heads, so that the score product's two batch
// loops fold as the softmax's do. A batched product whose result reaches no
// softmax keeps its broadcast operand. A plan written by hand stays with the
// folded softmax.

// FOLD-LABEL: func.func @multi_query
// FOLD:         %[[REPEATED:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<2x32x16xf16>) outs(%{{.*}} : tensor<2x4x32x16xf16>)
// FOLD:         %[[K:.*]] = tensor.collapse_shape %[[REPEATED]] {{\[}}[0, 1], [2], [3]] : tensor<2x4x32x16xf16> into tensor<8x32x16xf16>
// FOLD:         %[[S:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %[[K]] : tensor<8x32x16xf16>, tensor<8x32x16xf16>) outs(%{{.*}} : tensor<8x32x32xf32>)
// FOLD:         linalg.softmax {subgroup_matrix.plan = #subgroup_matrix.decode_attention_plan<keys_per_workgroup = 64, subgroups = 2>} dimension(2) ins(%{{.*}} : tensor<8x32x32xf32>)
// FOLD-LABEL: func.func @shared_operand
// FOLD-NOT:     tensor.empty() : tensor<2x4x32x16xf16>
// FOLD:         linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x4x32x16xf16>, tensor<2x32x16xf16>)
func.func @multi_query(%q: tensor<2x4x32x16xf16>, %k: tensor<2x32x16xf16>) -> tensor<2x4x32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %se = tensor.empty() : tensor<2x4x32x32xf32>
  %sf = linalg.fill ins(%zero : f32) outs(%se : tensor<2x4x32x32xf32>) -> tensor<2x4x32x32xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, h, i, j, d) -> (b, h, i, d)>, affine_map<(b, h, i, j, d) -> (b, j, d)>, affine_map<(b, h, i, j, d) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x4x32x16xf16>, tensor<2x32x16xf16>) outs(%sf : tensor<2x4x32x32xf32>) {
  ^bb0(%a: f16, %b: f16, %c: f32):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %prod = arith.mulf %a32, %b32 : f32
    %r = arith.addf %c, %prod : f32
    linalg.yield %r : f32
  } -> tensor<2x4x32x32xf32>
  %pe = tensor.empty() : tensor<2x4x32x32xf32>
  %p = linalg.softmax {subgroup_matrix.plan = #subgroup_matrix.decode_attention_plan<keys_per_workgroup = 64, subgroups = 2>} dimension(3) ins(%s : tensor<2x4x32x32xf32>) outs(%pe : tensor<2x4x32x32xf32>) -> tensor<2x4x32x32xf32>
  return %p : tensor<2x4x32x32xf32>
}
func.func @shared_operand(%q: tensor<2x4x32x16xf16>, %k: tensor<2x32x16xf16>) -> tensor<2x4x32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %se = tensor.empty() : tensor<2x4x32x32xf32>
  %sf = linalg.fill ins(%zero : f32) outs(%se : tensor<2x4x32x32xf32>) -> tensor<2x4x32x32xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, h, i, j, d) -> (b, h, i, d)>, affine_map<(b, h, i, j, d) -> (b, j, d)>, affine_map<(b, h, i, j, d) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x4x32x16xf16>, tensor<2x32x16xf16>) outs(%sf : tensor<2x4x32x32xf32>) {
  ^bb0(%a: f16, %b: f16, %c: f32):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %prod = arith.mulf %a32, %b32 : f32
    %r = arith.addf %c, %prod : f32
    linalg.yield %r : f32
  } -> tensor<2x4x32x32xf32>
  return %s : tensor<2x4x32x32xf32>
}

// A dynamic number of heads: no copy repeated over them is made.
// FOLD-LABEL: func.func @multi_query_dynamic_heads
// FOLD-NOT:     tensor<2x?x64x16xf16>) outs
// FOLD:         linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x?x64x16xf16>, tensor<2x64x16xf16>)
func.func @multi_query_dynamic_heads(%q: tensor<2x?x64x16xf16>, %k: tensor<2x64x16xf16>) -> tensor<2x?x64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %c1 = arith.constant 1 : index
  %h = tensor.dim %q, %c1 : tensor<2x?x64x16xf16>
  %se = tensor.empty(%h) : tensor<2x?x64x64xf32>
  %sf = linalg.fill ins(%zero : f32) outs(%se : tensor<2x?x64x64xf32>) -> tensor<2x?x64x64xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, h, i, j, d) -> (b, h, i, d)>, affine_map<(b, h, i, j, d) -> (b, j, d)>, affine_map<(b, h, i, j, d) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x?x64x16xf16>, tensor<2x64x16xf16>) outs(%sf : tensor<2x?x64x64xf32>) {
  ^bb0(%a: f16, %b: f16, %c: f32):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %prod = arith.mulf %a32, %b32 : f32
    %r = arith.addf %c, %prod : f32
    linalg.yield %r : f32
  } -> tensor<2x?x64x64xf32>
  %pe = tensor.empty(%h) : tensor<2x?x64x64xf32>
  %p = linalg.softmax dimension(3) ins(%s : tensor<2x?x64x64xf32>) outs(%pe : tensor<2x?x64x64xf32>) -> tensor<2x?x64x64xf32>
  return %p : tensor<2x?x64x64xf32>
}

// -----

// A [1, 1, queries, keys] mask broadcast over batch and heads through zeros
// in its map (as torch-mlir writes it) is read through a collapse of its
// size-1 dimensions, so that the batch loops still fold.

// FOLD-LABEL: func.func @broadcast_mask
// FOLD-SAME: (%[[S:.*]]: tensor<2x4x8x8xf32>, %[[MASK:.*]]: tensor<1x1x8x8xf16>)
// FOLD: %[[M:.*]] = tensor.collapse_shape %[[MASK]] {{\[}}[0, 1, 2], [3]] : tensor<1x1x8x8xf16> into tensor<8x8xf16>
// FOLD: %[[X:.*]] = tensor.collapse_shape %[[S]] {{\[}}[0, 1], [2], [3]] : tensor<2x4x8x8xf32> into tensor<8x8x8xf32>
// FOLD: %[[Y:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #[[MAP:.*]], #{{.*}}], {{.*}} ins(%[[X]], %[[M]] : tensor<8x8x8xf32>, tensor<8x8xf16>)
// FOLD: tensor.expand_shape %[[Y]] {{\[}}[0, 1], [2], [3]] output_shape [2, 4, 8, 8]
#all = affine_map<(b, h, i, j) -> (b, h, i, j)>
#mask = affine_map<(b, h, i, j) -> (0, 0, i, j)>
func.func @broadcast_mask(%s: tensor<2x4x8x8xf32>, %mask: tensor<1x1x8x8xf16>) -> tensor<2x4x8x8xf32> {
  %e = tensor.empty() : tensor<2x4x8x8xf32>
  %y = linalg.generic {indexing_maps = [#all, #mask, #all],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s, %mask : tensor<2x4x8x8xf32>, tensor<1x1x8x8xf16>) outs(%e : tensor<2x4x8x8xf32>) {
  ^bb0(%v: f32, %m: f16, %out: f32):
    %w = arith.extf %m : f16 to f32
    %r = arith.addf %v, %w : f32
    linalg.yield %r : f32
  } -> tensor<2x4x8x8xf32>
  return %y : tensor<2x4x8x8xf32>
}

// -----

// The caller's arrays must agree on the loop they share.

// CHECKS-LABEL: func.func @add
// CHECKS-SAME: (%[[X:.*]]: memref<?xf32>, %[[Y:.*]]: memref<?xf32>)
// CHECKS: %[[OUT:.*]] = memref.dim %[[Y]]
// CHECKS: %[[IN:.*]] = memref.dim %[[X]]
// CHECKS: %[[SAME:.*]] = arith.cmpi eq, %[[IN]], %[[OUT]] : index
// CHECKS: cf.assert %[[SAME]], "the shapes of the arrays disagree: dimension 0 of operand 2
// CHECKS: linalg.add
func.func @add(%x: memref<?xf32>, %y: memref<?xf32>) {
  linalg.add ins(%x, %x : memref<?xf32>, memref<?xf32>) outs(%y : memref<?xf32>)
  return
}

// -----

// A 1x1 convolution is a product of the collapsed images and filter.

// CONV-LABEL: func.func @conv
// CONV: %[[A:.*]] = memref.collapse_shape %{{.*}} {{\[}}[0, 1, 2], [3]] : memref<1x8x8x32xf16> into memref<64x32xf16>
// CONV: %[[B:.*]] = memref.collapse_shape %{{.*}} {{\[}}[0, 1, 2], [3]] : memref<1x1x32x64xf16> into memref<32x64xf16>
// CONV: %[[C:.*]] = memref.collapse_shape %{{.*}} {{\[}}[0, 1, 2], [3]] : memref<1x8x8x64xf32> into memref<64x64xf32>
// CONV: linalg.generic {{.*}} ins(%[[A]], %[[B]] : memref<64x32xf16>, memref<32x64xf16>) outs(%[[C]] : memref<64x64xf32>)
// CONV-NOT: linalg.conv_2d
func.func @conv(%x: memref<1x8x8x32xf16>, %w: memref<1x1x32x64xf16>,
                %y: memref<1x8x8x64xf32>) {
  linalg.conv_2d_nhwc_hwcf
      {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : memref<1x8x8x32xf16>, memref<1x1x32x64xf16>)
      outs(%y : memref<1x8x8x64xf32>)
  return
}

// -----

// An element-wise cast of a whole tensor becomes the linalg.generic it is,
// which bufferizes (and which the contraction kernel later fuses).
// BUFFERIZE-LABEL: func.func @tensor_cast
// BUFFERIZE-SAME: (%[[A:.*]]: memref<4x8xi8>) -> memref<4x8xi32>
// BUFFERIZE: %[[W:.*]] = memref.alloc() {{.*}} : memref<4x8xi32>
// BUFFERIZE: linalg.generic {{.*}} ins(%[[A]] : memref<4x8xi8>) outs(%[[W]] : memref<4x8xi32>)
// BUFFERIZE: arith.extsi %{{.*}} : i8 to i32
// BUFFERIZE: return %[[W]]
func.func @tensor_cast(%a: tensor<4x8xi8>) -> tensor<4x8xi32> {
  %w = arith.extsi %a : tensor<4x8xi8> to tensor<4x8xi32>
  return %w : tensor<4x8xi32>
}

// -----

// A plan written by hand on a softmax of tensors survives bufferization
// (upstream's rebuilds the op without it); so do the plans of other ops.

// BUFFERIZE-LABEL: func.func @planned_softmax
// BUFFERIZE: linalg.softmax {subgroup_matrix.plan = #subgroup_matrix.decode_attention_plan<keys_per_workgroup = 128, subgroups = 2>} dimension(1) ins(%{{.*}} : memref<4x256xf32>)
// BUFFERIZE: linalg.softmax dimension(1) ins(%{{.*}} : memref<4x256xf32>)
func.func @planned_softmax(%x: tensor<4x256xf32>) -> (tensor<4x256xf32>, tensor<4x256xf32>) {
  %e = tensor.empty() : tensor<4x256xf32>
  %p = linalg.softmax {subgroup_matrix.plan = #subgroup_matrix.decode_attention_plan<keys_per_workgroup = 128, subgroups = 2>} dimension(1) ins(%x : tensor<4x256xf32>) outs(%e : tensor<4x256xf32>) -> tensor<4x256xf32>
  %f = tensor.empty() : tensor<4x256xf32>
  %q = linalg.softmax dimension(1) ins(%x : tensor<4x256xf32>) outs(%f : tensor<4x256xf32>) -> tensor<4x256xf32>
  return %p, %q : tensor<4x256xf32>, tensor<4x256xf32>
}

// -----

// A reduction that keeps its reduced dimension (torch's keepdim: a zero in
// the output's map) keeps its batch loops (upstream's collapse crashed on
// it; found by the fuzzer); the step reading the kept sums folds them.

// FOLD-LABEL: func.func @keepdim_sum
// FOLD:         %[[SUM:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<2x4x8x16xf32>) outs(%{{.*}} : tensor<2x4x8x1xf32>)
// FOLD:         tensor.collapse_shape %[[SUM]] {{\[}}[0, 1], [2, 3]] : tensor<2x4x8x1xf32> into tensor<8x8xf32>
#x = affine_map<(b, h, i, j) -> (b, h, i, j)>
#keep = affine_map<(b, h, i, j) -> (b, h, i, 0)>
func.func @keepdim_sum(%x: tensor<2x4x8x16xf32>) -> tensor<2x4x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %rows = tensor.empty() : tensor<2x4x8x1xf32>
  %full = tensor.empty() : tensor<2x4x8x16xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%rows : tensor<2x4x8x1xf32>) -> tensor<2x4x8x1xf32>
  %s = linalg.generic {indexing_maps = [#x, #keep], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x : tensor<2x4x8x16xf32>) outs(%s0 : tensor<2x4x8x1xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x4x8x1xf32>
  %p = linalg.generic {indexing_maps = [#x, #keep, #x], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %s : tensor<2x4x8x16xf32>, tensor<2x4x8x1xf32>) outs(%full : tensor<2x4x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %q = arith.divf %a, %b : f32
    linalg.yield %q : f32
  } -> tensor<2x4x8x16xf32>
  return %p : tensor<2x4x8x16xf32>
}
