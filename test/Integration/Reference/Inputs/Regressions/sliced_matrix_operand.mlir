// Found by generate.py (seed 1142): a matrix product of a slice of a wider
// matrix (a strided view) was refused ("not a contiguous row-major memref");
// the product now reads a contiguous copy of the slice.
func.func @main(%arg0: tensor<24x16xbf16>, %arg1: tensor<64x16xbf16>, %arg2: tensor<64xbf16>, %arg3: tensor<64x13xbf16>, %arg4: tensor<16x16xbf16>, %arg5: tensor<16xbf16>) -> (tensor<4x64x1xbf16>) {
  %empty1 = tensor.empty() : tensor<24x64xbf16>
  %c2 = arith.constant 0.0 : bf16
  %fill3 = linalg.fill ins(%c2 : bf16) outs(%empty1 : tensor<24x64xbf16>) -> tensor<24x64xbf16>
  %empty5 = tensor.empty() : tensor<16x64xbf16>
  %v6 = linalg.transpose ins(%arg1 : tensor<64x16xbf16>) outs(%empty5 : tensor<16x64xbf16>) permutation = [1, 0]
  %v4 = linalg.matmul ins(%arg0, %v6 : tensor<24x16xbf16>, tensor<16x64xbf16>) outs(%fill3 : tensor<24x64xbf16>) -> tensor<24x64xbf16>
  %empty7 = tensor.empty() : tensor<24x64xbf16>
  %v8 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v4, %arg2 : tensor<24x64xbf16>, tensor<64xbf16>) outs(%empty7 : tensor<24x64xbf16>) {
  ^bb0(%in0: bf16, %in1: bf16, %out: bf16):
    %r = arith.addf %in0, %in1 : bf16
    linalg.yield %r : bf16
  } -> tensor<24x64xbf16>
  %v9 = tensor.extract_slice %arg0[18, 2] [4, 13] [1, 1] : tensor<24x16xbf16> to tensor<4x13xbf16>
  %empty10 = tensor.empty() : tensor<4x64xbf16>
  %c11 = arith.constant 0.0 : bf16
  %fill12 = linalg.fill ins(%c11 : bf16) outs(%empty10 : tensor<4x64xbf16>) -> tensor<4x64xbf16>
  %empty14 = tensor.empty() : tensor<13x64xbf16>
  %v15 = linalg.transpose ins(%arg3 : tensor<64x13xbf16>) outs(%empty14 : tensor<13x64xbf16>) permutation = [1, 0]
  %v13 = linalg.matmul ins(%v9, %v15 : tensor<4x13xbf16>, tensor<13x64xbf16>) outs(%fill12 : tensor<4x64xbf16>) -> tensor<4x64xbf16>
  %empty16 = tensor.empty() : tensor<4x64xbf16>
  %v17 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v13, %arg2 : tensor<4x64xbf16>, tensor<64xbf16>) outs(%empty16 : tensor<4x64xbf16>) {
  ^bb0(%in0: bf16, %in1: bf16, %out: bf16):
    %r = arith.addf %in0, %in1 : bf16
    linalg.yield %r : bf16
  } -> tensor<4x64xbf16>
  %empty18 = tensor.empty() : tensor<64x16xbf16>
  %c19 = arith.constant 0.0 : bf16
  %fill20 = linalg.fill ins(%c19 : bf16) outs(%empty18 : tensor<64x16xbf16>) -> tensor<64x16xbf16>
  %v21 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%arg1, %arg4 : tensor<64x16xbf16>, tensor<16x16xbf16>) outs(%fill20 : tensor<64x16xbf16>) -> tensor<64x16xbf16>
  %empty22 = tensor.empty() : tensor<64x16xbf16>
  %v23 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v21, %arg5 : tensor<64x16xbf16>, tensor<16xbf16>) outs(%empty22 : tensor<64x16xbf16>) {
  ^bb0(%in0: bf16, %in1: bf16, %out: bf16):
    %r = arith.addf %in0, %in1 : bf16
    linalg.yield %r : bf16
  } -> tensor<64x16xbf16>
  %empty24 = tensor.empty() : tensor<16xbf16>
  %c25 = arith.constant 0.0 : bf16
  %fill26 = linalg.fill ins(%c25 : bf16) outs(%empty24 : tensor<16xbf16>) -> tensor<16xbf16>
  %v27 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%v23 : tensor<64x16xbf16>) outs(%fill26 : tensor<16xbf16>) {
  ^bb0(%in: bf16, %acc: bf16):
    %r = arith.addf %acc, %in : bf16
    linalg.yield %r : bf16
  } -> tensor<16xbf16>
  %empty28 = tensor.empty() : tensor<4x64x1xbf16>
  %v29 = linalg.broadcast ins(%v17 : tensor<4x64xbf16>) outs(%empty28 : tensor<4x64x1xbf16>) dimensions = [2]
  return %v29 : tensor<4x64x1xbf16>
}
