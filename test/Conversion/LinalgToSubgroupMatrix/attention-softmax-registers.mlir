// RUN: sm-opt %s --sm-linalg-to-gpu=target=nvidia-h100 | FileCheck %s
// RUN: sm-opt %s --sm-linalg-to-gpu=target=nvidia-h100 | sm-opt --sm-lower-to-vulkan | sm-translate --serialize-spirv -o %t.spv
// RUN: %spirv_val_path --target-env vulkan1.3 %t.spv
// RUN: %spirv_dis_path %t.spv | FileCheck %s --check-prefix=BINARY

// The online softmax on result matrices (VK_NV_cooperative_matrix2) of an
// attention whose score step scales and adds a zero (a "no mask" as a
// program may write it): the zero goes (it could change only the sign of a
// zero score, which the softmax does not see), so the step is the
// matrices' own product by the scale. The maxima (element-wise over the
// block's matrices, along the rows, and against the running maximum)
// assume no NaN: a NaN score reaches its row's output through its
// probability exp(NaN - m) whatever the maximum is (the execution suite's
// attention_mask_nan_and_masked_rows shows it), and Vulkan's FMax then
// needs no NaN tests.

// CHECK-LABEL: gpu.func @attention_0(
// CHECK:         scf.for
// CHECK:           %[[S:.*]] = subgroup_matrix.map %{{.*}} : !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.result<16x16xf32> {
// CHECK-NEXT:      ^bb0(%{{.*}}: index, %{{.*}}: index, %[[X:.*]]: f32):
// CHECK-NEXT:        %[[SCALE:.*]] = arith.constant 1.250000e-01 : f32
// CHECK-NEXT:        %[[SCALED:.*]] = arith.mulf %[[X]], %[[SCALE]] : f32
// CHECK-NEXT:        subgroup_matrix.yield %[[SCALED]] : f32
// CHECK:           subgroup_matrix.map %[[S]], %{{.*}}, %{{.*}}, %{{.*}} :
// CHECK:             arith.maximumf %{{.*}}, %{{.*}} fastmath<nnan> : f32
// CHECK:           %[[ROWMAX:.*]] = subgroup_matrix.reduce max rows %{{.*}} fastmath<nnan> : !subgroup_matrix.result<16x16xf32>
// CHECK:           subgroup_matrix.map %{{.*}}, %[[ROWMAX]] :
// CHECK-NEXT:      ^bb0(
// CHECK-NEXT:        arith.maximumf %{{.*}}, %{{.*}} fastmath<nnan> : f32
// The row sums are the products of P's left matrices with a matrix of ones
// (on the matrix units), not a reduction.
// CHECK:           %[[P:.*]] = subgroup_matrix.convert %{{.*}} : !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.left<16x16xf16>
// CHECK:           %[[ONES:.*]] = subgroup_matrix.splat %{{.*}} : f16 -> !subgroup_matrix.right<16x16xf16>
// CHECK:           subgroup_matrix.mma %[[P]], %[[ONES]]
// CHECK-NOT:       subgroup_matrix.reduce add
// CHECK:           subgroup_matrix.mma %[[P]]
// CHECK:         gpu.return

// In the binary: the scale is a matrix times a scalar, and no maximum tests
// for NaN.
// BINARY-NOT: OpIsNan
// BINARY:     OpCooperativeMatrixReduce{{NV|EXT}}
// BINARY-NOT: OpIsNan
func.func @unmasked_attention(%q: tensor<2x128x64xf16>, %k: tensor<2x128x64xf16>, %v: tensor<2x128x64xf16>) -> tensor<2x128x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x128x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x128x128xf32>) -> tensor<2x128x128xf32>
  %s = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
    ins(%q, %k : tensor<2x128x64xf16>, tensor<2x128x64xf16>) outs(%f : tensor<2x128x128xf32>) -> tensor<2x128x128xf32>
  %e1 = tensor.empty() : tensor<2x128x128xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x128x128xf32>) outs(%e1 : tensor<2x128x128xf32>) {
  ^bb0(%x: f32, %o: f32):
    %c = arith.constant 0.125 : f32
    %scaled = arith.mulf %x, %c : f32
    %y = arith.addf %scaled, %zero : f32
    linalg.yield %y : f32
  } -> tensor<2x128x128xf32>
  %e2 = tensor.empty() : tensor<2x128x128xf32>
  %p = linalg.softmax dimension(2) ins(%m : tensor<2x128x128xf32>) outs(%e2 : tensor<2x128x128xf32>) -> tensor<2x128x128xf32>
  %e3 = tensor.empty() : tensor<2x128x128xf16>
  %pn = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p : tensor<2x128x128xf32>) outs(%e3 : tensor<2x128x128xf16>) {
  ^bb0(%x: f32, %o: f16):
    %y = arith.truncf %x : f32 to f16
    linalg.yield %y : f16
  } -> tensor<2x128x128xf16>
  %e4 = tensor.empty() : tensor<2x128x64xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<2x128x64xf32>) -> tensor<2x128x64xf32>
  %out = linalg.batch_matmul ins(%pn, %v : tensor<2x128x128xf16>, tensor<2x128x64xf16>) outs(%f4 : tensor<2x128x64xf32>) -> tensor<2x128x64xf32>
  return %out : tensor<2x128x64xf32>
}

