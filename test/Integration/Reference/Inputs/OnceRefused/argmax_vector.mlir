// The index of the largest element of a vector, as one element of a
// tensor: a reduction into rank-0 tensors (value and index), then a
// tensor.extract and a tensor.from_elements, which bufferize to a load and
// a store on the host. Was refused ("'memref.load' op is not run by the
// runtime").
#vector = affine_map<(i) -> (i)>
#scalar = affine_map<(i) -> ()>
func.func @argmax(%x: tensor<4096xf32>) -> tensor<1xi64> {
  %lowest = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0 : i64
  %values = tensor.empty() : tensor<f32>
  %indices = tensor.empty() : tensor<i64>
  %max = linalg.fill ins(%lowest : f32) outs(%values : tensor<f32>) -> tensor<f32>
  %first = linalg.fill ins(%zero : i64) outs(%indices : tensor<i64>) -> tensor<i64>
  %found:2 = linalg.generic {indexing_maps = [#vector, #scalar, #scalar], iterator_types = ["reduction"]}
      ins(%x : tensor<4096xf32>) outs(%max, %first : tensor<f32>, tensor<i64>) {
  ^bb0(%value: f32, %best: f32, %at: i64):
    %i = linalg.index 0 : index
    %index = arith.index_cast %i : index to i64
    %greater = arith.cmpf ogt, %value, %best : f32
    %newBest = arith.select %greater, %value, %best : f32
    %newAt = arith.select %greater, %index, %at : i64
    linalg.yield %newBest, %newAt : f32, i64
  } -> (tensor<f32>, tensor<i64>)
  %index = tensor.extract %found#1[] : tensor<i64>
  %result = tensor.from_elements %index : tensor<1xi64>
  return %result : tensor<1xi64>
}
