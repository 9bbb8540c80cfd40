// Found by generate.py (seed 1168): a linalg.reduce left on the host
// ("sm-linalg-to-gpu has no kernel for it"): generalized after a row
// group's ops were erased, it took the address of one and passed for one
// of the group.
func.func @main(%arg0: tensor<64x8xi32>) -> (tensor<64x8xi32>, tensor<64xi32>) {
  %empty1 = tensor.empty() : tensor<64xi32>
  %c2 = arith.constant 2147483647 : i32
  %fill3 = linalg.fill ins(%c2 : i32) outs(%empty1 : tensor<64xi32>) -> tensor<64xi32>
  %v4 = linalg.reduce ins(%arg0 : tensor<64x8xi32>) outs(%fill3 : tensor<64xi32>) dimensions = [1]
    (%in: i32, %acc: i32) {
      %r = arith.minsi %in, %acc : i32
      linalg.yield %r : i32
    }
  %empty5 = tensor.empty() : tensor<8xi32>
  %c6 = arith.constant 2147483647 : i32
  %fill7 = linalg.fill ins(%c6 : i32) outs(%empty5 : tensor<8xi32>) -> tensor<8xi32>
  %v8 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%arg0 : tensor<64x8xi32>) outs(%fill7 : tensor<8xi32>) {
  ^bb0(%in: i32, %acc: i32):
    %r = arith.minsi %acc, %in : i32
    linalg.yield %r : i32
  } -> tensor<8xi32>
  %c9 = arith.constant 0 : i32
  %v10 = tensor.pad %arg0 low[1, 0] high[1, 0] {
  ^bb0(%i0: index, %i1: index):
    tensor.yield %c9 : i32
  } : tensor<64x8xi32> to tensor<66x8xi32>
  %empty11 = tensor.empty() : tensor<64x8xi32>
  %v12 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg0, %v8 : tensor<64x8xi32>, tensor<8xi32>) outs(%empty11 : tensor<64x8xi32>) {
  ^bb0(%in0: i32, %in1: i32, %out: i32):
    %r = arith.addi %in0, %in1 : i32
    linalg.yield %r : i32
  } -> tensor<64x8xi32>
  return %v12, %v4 : tensor<64x8xi32>, tensor<64xi32>
}
