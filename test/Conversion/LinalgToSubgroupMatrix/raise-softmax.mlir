// RUN: sm-opt %s --sm-raise-softmax -split-input-file | FileCheck %s

// torch-mlir's decomposition on a 4-D attention score tensor: the maximum
// kept as a size-1 dimension (keepdim, read back through a zero), the
// difference and exp as steps of their own, and the probabilities narrowed
// to f16 in the division's step: one linalg.softmax, then the narrowing.
// CHECK-LABEL: func.func @keepdim_split_steps
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x8x16xf32>)
// CHECK-NOT: linalg.generic
// CHECK: %[[P:.*]] = linalg.softmax dimension(3) ins(%[[X]] : tensor<2x4x8x16xf32>) outs(%{{.*}} : tensor<2x4x8x16xf32>)
// CHECK: %[[H:.*]] = linalg.generic {{.*}} ins(%[[P]] : tensor<2x4x8x16xf32>)
// CHECK-NEXT: ^bb0(%[[V:.*]]: f32, %{{.*}}: f16):
// CHECK-NEXT: %[[T:.*]] = arith.truncf %[[V]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[T]] : f16
// CHECK: return %[[H]]
// CHECK-NOT: math.exp
#x = affine_map<(b, h, i, j) -> (b, h, i, j)>
#keep = affine_map<(b, h, i, j) -> (b, h, i, 0)>
func.func @keepdim_split_steps(%x: tensor<2x4x8x16xf32>) -> tensor<2x4x8x16xf16> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %rows = tensor.empty() : tensor<2x4x8x1xf32>
  %full = tensor.empty() : tensor<2x4x8x16xf32>
  %half = tensor.empty() : tensor<2x4x8x16xf16>
  %m0 = linalg.fill ins(%ninf : f32) outs(%rows : tensor<2x4x8x1xf32>) -> tensor<2x4x8x1xf32>
  %m = linalg.generic {indexing_maps = [#x, #keep], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x : tensor<2x4x8x16xf32>) outs(%m0 : tensor<2x4x8x1xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maximumf %acc, %a : f32
    linalg.yield %r : f32
  } -> tensor<2x4x8x1xf32>
  %d = linalg.generic {indexing_maps = [#x, #keep, #x], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %m : tensor<2x4x8x16xf32>, tensor<2x4x8x1xf32>) outs(%full : tensor<2x4x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.subf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<2x4x8x16xf32>
  %e = linalg.generic {indexing_maps = [#x, #x], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%d : tensor<2x4x8x16xf32>) outs(%full : tensor<2x4x8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<2x4x8x16xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%rows : tensor<2x4x8x1xf32>) -> tensor<2x4x8x1xf32>
  %s = linalg.generic {indexing_maps = [#x, #keep], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%e : tensor<2x4x8x16xf32>) outs(%s0 : tensor<2x4x8x1xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x4x8x1xf32>
  %p = linalg.generic {indexing_maps = [#x, #keep, #x], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%e, %s : tensor<2x4x8x16xf32>, tensor<2x4x8x1xf32>) outs(%half : tensor<2x4x8x16xf16>) {
  ^bb0(%a: f32, %b: f32, %o: f16):
    %q = arith.divf %a, %b : f32
    %t = arith.truncf %q : f32 to f16
    linalg.yield %t : f16
  } -> tensor<2x4x8x16xf16>
  return %p : tensor<2x4x8x16xf16>
}

// -----

// JAX's jax.nn.softmax over the first dimension of a dynamic tensor: the
// rows dropped, exp of the difference in one step, maxnumf from the lowest
// finite value.
// CHECK-LABEL: func.func @dynamic_first_dimension
// CHECK-SAME: (%[[X:.*]]: tensor<?x?xf32>)
// CHECK-NOT: linalg.generic
// CHECK: %[[P:.*]] = linalg.softmax dimension(0) ins(%[[X]] : tensor<?x?xf32>) outs(%{{.*}} : tensor<?x?xf32>)
// CHECK-NEXT: return %[[P]]
#all = affine_map<(i, j) -> (i, j)>
#column = affine_map<(i, j) -> (j)>
func.func @dynamic_first_dimension(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %lowest = arith.constant -3.40282347E+38 : f32
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x?xf32>
  %k = tensor.dim %x, %c1 : tensor<?x?xf32>
  %cols = tensor.empty(%k) : tensor<?xf32>
  %full = tensor.empty(%n, %k) : tensor<?x?xf32>
  %m0 = linalg.fill ins(%lowest : f32) outs(%cols : tensor<?xf32>) -> tensor<?xf32>
  %m = linalg.generic {indexing_maps = [#all, #column], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<?x?xf32>) outs(%m0 : tensor<?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maxnumf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %e = linalg.generic {indexing_maps = [#column, #all, #all], iterator_types = ["parallel", "parallel"]}
      ins(%m, %x : tensor<?xf32>, tensor<?x?xf32>) outs(%full : tensor<?x?xf32>) {
  ^bb0(%b: f32, %a: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%cols : tensor<?xf32>) -> tensor<?xf32>
  %s = linalg.generic {indexing_maps = [#all, #column], iterator_types = ["reduction", "parallel"]}
      ins(%e : tensor<?x?xf32>) outs(%s0 : tensor<?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %acc, %a : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %p = linalg.generic {indexing_maps = [#all, #column, #all], iterator_types = ["parallel", "parallel"]}
      ins(%e, %s : tensor<?x?xf32>, tensor<?xf32>) outs(%full : tensor<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.divf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>
  return %p : tensor<?x?xf32>
}

// -----

// Not a softmax: the exponentials are also returned (softmax would not
// keep them); the maximum starts from zero.
// CHECK-LABEL: func.func @exponentials_used_twice
// CHECK-NOT: linalg.softmax
// CHECK: return
// CHECK-LABEL: func.func @maximum_from_zero
// CHECK-NOT: linalg.softmax
// CHECK: return
#all = affine_map<(i, j) -> (i, j)>
#r = affine_map<(i, j) -> (i)>
func.func @exponentials_used_twice(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %rows = tensor.empty() : tensor<4xf32>
  %full = tensor.empty() : tensor<4x8xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%rows : tensor<4xf32>) -> tensor<4xf32>
  %m = linalg.generic {indexing_maps = [#all, #r], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%m0 : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %v = arith.maximumf %a, %acc : f32
    linalg.yield %v : f32
  } -> tensor<4xf32>
  %e = linalg.generic {indexing_maps = [#all, #r, #all], iterator_types = ["parallel", "parallel"]}
      ins(%x, %m : tensor<4x8xf32>, tensor<4xf32>) outs(%full : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    %v = math.exp %d : f32
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%rows : tensor<4xf32>) -> tensor<4xf32>
  %s = linalg.generic {indexing_maps = [#all, #r], iterator_types = ["parallel", "reduction"]}
      ins(%e : tensor<4x8xf32>) outs(%s0 : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %v = arith.addf %a, %acc : f32
    linalg.yield %v : f32
  } -> tensor<4xf32>
  %p = linalg.generic {indexing_maps = [#all, #r, #all], iterator_types = ["parallel", "parallel"]}
      ins(%e, %s : tensor<4x8xf32>, tensor<4xf32>) outs(%full : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.divf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  return %p, %e : tensor<4x8xf32>, tensor<4x8xf32>
}

func.func @maximum_from_zero(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %rows = tensor.empty() : tensor<4xf32>
  %full = tensor.empty() : tensor<4x8xf32>
  %m0 = linalg.fill ins(%zero : f32) outs(%rows : tensor<4xf32>) -> tensor<4xf32>
  %m = linalg.generic {indexing_maps = [#all, #r], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%m0 : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %v = arith.maximumf %a, %acc : f32
    linalg.yield %v : f32
  } -> tensor<4xf32>
  %e = linalg.generic {indexing_maps = [#all, #r, #all], iterator_types = ["parallel", "parallel"]}
      ins(%x, %m : tensor<4x8xf32>, tensor<4xf32>) outs(%full : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    %v = math.exp %d : f32
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%rows : tensor<4xf32>) -> tensor<4xf32>
  %s = linalg.generic {indexing_maps = [#all, #r], iterator_types = ["parallel", "reduction"]}
      ins(%e : tensor<4x8xf32>) outs(%s0 : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %v = arith.addf %a, %acc : f32
    linalg.yield %v : f32
  } -> tensor<4xf32>
  %p = linalg.generic {indexing_maps = [#all, #r, #all], iterator_types = ["parallel", "parallel"]}
      ins(%e, %s : tensor<4x8xf32>, tensor<4xf32>) outs(%full : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.divf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  return %p : tensor<4x8xf32>
}

// -----

// TOSA's decomposition through upstream's TOSA-to-linalg: the reductions
// as linalg.reduce with their row kept by a tensor.expand_shape, the
// division as a reciprocal (with its constant one inside the body) and a
// multiply: one linalg.softmax, no reduction, reshape or reciprocal left.
// CHECK-LABEL: func.func @tosa_reciprocal
// CHECK-SAME: (%[[X:.*]]: tensor<4x8x16xf32>)
// CHECK-NOT: linalg.reduce
// CHECK-NOT: tensor.expand_shape
// CHECK-NOT: linalg.generic
// CHECK: %[[P:.*]] = linalg.softmax dimension(2) ins(%[[X]] : tensor<4x8x16xf32>)
// CHECK-NOT: linalg.generic
// CHECK: return %[[P]]
#x3 = affine_map<(b, i, j) -> (b, i, j)>
#keep3 = affine_map<(b, i, j) -> (b, i, 0)>
func.func @tosa_reciprocal(%x: tensor<4x8x16xf32>) -> tensor<4x8x16xf32> {
  %lowest = arith.constant -3.40282347E+38 : f32
  %zero = arith.constant 0.0 : f32
  %rows = tensor.empty() : tensor<4x8xf32>
  %m0 = linalg.fill ins(%lowest : f32) outs(%rows : tensor<4x8xf32>) -> tensor<4x8xf32>
  %m = linalg.reduce ins(%x : tensor<4x8x16xf32>) outs(%m0 : tensor<4x8xf32>) dimensions = [2]
    (%a: f32, %acc: f32) {
      %r = arith.maximumf %a, %acc : f32
      linalg.yield %r : f32
    }
  %mk = tensor.expand_shape %m [[0], [1, 2]] output_shape [4, 8, 1] : tensor<4x8xf32> into tensor<4x8x1xf32>
  %full = tensor.empty() : tensor<4x8x16xf32>
  %d = linalg.generic {indexing_maps = [#x3, #keep3, #x3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %mk : tensor<4x8x16xf32>, tensor<4x8x1xf32>) outs(%full : tensor<4x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.subf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x8x16xf32>
  %e = linalg.generic {indexing_maps = [#x3, #x3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%d : tensor<4x8x16xf32>) outs(%full : tensor<4x8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<4x8x16xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%rows : tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = linalg.reduce ins(%e : tensor<4x8x16xf32>) outs(%s0 : tensor<4x8xf32>) dimensions = [2]
    (%a: f32, %acc: f32) {
      %r = arith.addf %a, %acc : f32
      linalg.yield %r : f32
    }
  %sk = tensor.expand_shape %s [[0], [1, 2]] output_shape [4, 8, 1] : tensor<4x8xf32> into tensor<4x8x1xf32>
  %kept = tensor.empty() : tensor<4x8x1xf32>
  %inv = linalg.generic {indexing_maps = [#x3, #x3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%sk : tensor<4x8x1xf32>) outs(%kept : tensor<4x8x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %r = arith.divf %one, %a : f32
    linalg.yield %r : f32
  } -> tensor<4x8x1xf32>
  %p = linalg.generic {indexing_maps = [#x3, #keep3, #x3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%e, %inv : tensor<4x8x16xf32>, tensor<4x8x1xf32>) outs(%full : tensor<4x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.mulf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x8x16xf32>
  return %p : tensor<4x8x16xf32>
}
