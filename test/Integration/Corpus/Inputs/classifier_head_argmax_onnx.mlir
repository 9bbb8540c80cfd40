// Front-end style: ONNX (a ResNet-50 classifier head: GlobalAveragePool,
// Flatten, Gemm with transB and bias, ArgMax over the classes) imported to
// linalg: the pool as linalg.pooling_nhwc_sum over the whole 7x7 plane with
// the 1/49 as an element-wise step, Flatten as collapse_shape, the Gemm as
// a matmul with a transposed weight, ArgMax as a two-output reduction that
// tracks the value and its i64 index through linalg.index. The graph
// returns the logits and the predicted classes.
// Pattern: global pooling, a classifier product and argmax; two results.
// Sizes: batch 8, 2048 features, 1000 classes.
// REDUCED: 8=3 2048=96 1000=40 7=3 49=9
#nhwc = affine_map<(n, c) -> (n, c)>
#bias = affine_map<(n, c) -> (c)>
#logits = affine_map<(n, c) -> (n, c)>
#class = affine_map<(n, c) -> (n)>
func.func @classify(%features: tensor<8x7x7x2048xf32>, %w: tensor<1000x2048xf32>,
                    %b: tensor<1000xf32>) -> (tensor<8x1000xf32>, tensor<8xi64>) {
  %zero = arith.constant 0.0 : f32
  %plane = arith.constant 49.0 : f32
  %lowest = arith.constant 0xFF800000 : f32
  %first = arith.constant 0 : i64
  %window = tensor.empty() : tensor<7x7xf32>
  %pool_empty = tensor.empty() : tensor<8x1x1x2048xf32>
  %pool_init = linalg.fill ins(%zero : f32) outs(%pool_empty : tensor<8x1x1x2048xf32>) -> tensor<8x1x1x2048xf32>
  %sum = linalg.pooling_nhwc_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%features, %window : tensor<8x7x7x2048xf32>, tensor<7x7xf32>)
      outs(%pool_init : tensor<8x1x1x2048xf32>) -> tensor<8x1x1x2048xf32>
  %flat = tensor.collapse_shape %sum [[0, 1, 2], [3]] : tensor<8x1x1x2048xf32> into tensor<8x2048xf32>
  %avg_empty = tensor.empty() : tensor<8x2048xf32>
  %avg = linalg.generic {indexing_maps = [#nhwc, #nhwc], iterator_types = ["parallel", "parallel"]}
      ins(%flat : tensor<8x2048xf32>) outs(%avg_empty : tensor<8x2048xf32>) {
  ^bb0(%s: f32, %out: f32):
    %a = arith.divf %s, %plane : f32
    linalg.yield %a : f32
  } -> tensor<8x2048xf32>
  %y_empty = tensor.empty() : tensor<8x1000xf32>
  %y_init = linalg.fill ins(%zero : f32) outs(%y_empty : tensor<8x1000xf32>) -> tensor<8x1000xf32>
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%avg, %w : tensor<8x2048xf32>, tensor<1000x2048xf32>)
      outs(%y_init : tensor<8x1000xf32>) -> tensor<8x1000xf32>
  %logits = linalg.generic {indexing_maps = [#logits, #bias, #logits], iterator_types = ["parallel", "parallel"]}
      ins(%y, %b : tensor<8x1000xf32>, tensor<1000xf32>) outs(%y_empty : tensor<8x1000xf32>) {
  ^bb0(%v: f32, %bv: f32, %out: f32):
    %s = arith.addf %v, %bv : f32
    linalg.yield %s : f32
  } -> tensor<8x1000xf32>
  %max_empty = tensor.empty() : tensor<8xf32>
  %max_init = linalg.fill ins(%lowest : f32) outs(%max_empty : tensor<8xf32>) -> tensor<8xf32>
  %index_empty = tensor.empty() : tensor<8xi64>
  %index_init = linalg.fill ins(%first : i64) outs(%index_empty : tensor<8xi64>) -> tensor<8xi64>
  %best:2 = linalg.generic {indexing_maps = [#logits, #class, #class], iterator_types = ["parallel", "reduction"]}
      ins(%logits : tensor<8x1000xf32>) outs(%max_init, %index_init : tensor<8xf32>, tensor<8xi64>) {
  ^bb0(%v: f32, %m: f32, %i: i64):
    %c = linalg.index 1 : index
    %ci = arith.index_cast %c : index to i64
    %greater = arith.cmpf ogt, %v, %m : f32
    %nm = arith.select %greater, %v, %m : f32
    %ni = arith.select %greater, %ci, %i : i64
    linalg.yield %nm, %ni : f32, i64
  } -> (tensor<8xf32>, tensor<8xi64>)
  return %logits, %best#1 : tensor<8x1000xf32>, tensor<8xi64>
}
