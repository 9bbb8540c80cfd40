// RUN: sm-opt %s --sm-warn-uninitialized-reductions -split-input-file -verify-diagnostics
// RUN: sm-opt %s --sm-linalg-to-gpu=target=cpu-lavapipe -split-input-file -verify-diagnostics -o /dev/null

// A product that accumulates into tensor.empty(): its result is undefined.
func.func @product(%a: tensor<16x8xf32>, %b: tensor<8x16xf32>) -> tensor<16x16xf32> {
  %c = tensor.empty() : tensor<16x16xf32>
  // expected-warning @+1 {{'linalg.matmul' op reduces into output 0, a tensor.empty() whose values are undefined: the result depends on what its memory held (fill it first, with linalg.fill)}}
  %r = linalg.matmul ins(%a, %b : tensor<16x8xf32>, tensor<8x16xf32>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

// -----

// The second output of an argmax-style reduction.
func.func @row_max_and_index(%x: tensor<8x16xf32>) -> (tensor<8xf32>, tensor<8xi32>) {
  %low = arith.constant -3.0e38 : f32
  %e = tensor.empty() : tensor<8xf32>
  %m = linalg.fill ins(%low : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %i = tensor.empty() : tensor<8xi32>
  // expected-warning @+1 {{reduces into output 1, a tensor.empty()}}
  %r:2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x16xf32>) outs(%m, %i : tensor<8xf32>, tensor<8xi32>) {
  ^bb0(%v: f32, %best: f32, %at: i32):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i32
    %greater = arith.cmpf ogt, %v, %best : f32
    %nb = arith.select %greater, %v, %best : f32
    %na = arith.select %greater, %ji, %at : i32
    linalg.yield %nb, %na : f32, i32
  } -> (tensor<8xf32>, tensor<8xi32>)
  return %r#0, %r#1 : tensor<8xf32>, tensor<8xi32>
}

// -----

// No warning: a filled accumulator, and a reduction whose body never reads
// its output (it overwrites each element).
func.func @defined(%a: tensor<16x8xf32>, %b: tensor<8x16xf32>) -> (tensor<16x16xf32>, tensor<16xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %r = linalg.matmul ins(%a, %b : tensor<16x8xf32>, tensor<8x16xf32>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  %l = tensor.empty() : tensor<16xf32>
  %last = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                          iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<16x8xf32>) outs(%l : tensor<16xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<16xf32>
  return %r, %last : tensor<16x16xf32>, tensor<16xf32>
}
