// RUN: sm-opt %s --sm-linalg-to-gpu=target=nvidia-h100 | FileCheck %s
// RUN: sm-opt %s --sm-linalg-to-gpu=target=nvidia-h100 | sm-opt --sm-lower-to-vulkan | sm-translate --serialize-spirv -o %t.spv
// RUN: %if spirv-val-bf16 %{ %spirv_val_path --target-env vulkan1.3 %t.spv %}
// RUN: %spirv_dis_path %t.spv | FileCheck %s --check-prefix=BINARY
// RUN: sm-opt %s --sm-linalg-to-gpu="target=nvidia-h100 nv-coopmat2=false" | FileCheck %s --check-prefix=KHR

// An additive f16 mask shared by the batch, over whole blocks of queries
// and keys (128 of each): with the softmax on result matrices
// (VK_NV_cooperative_matrix2), each score matrix's block of the mask is one
// load of a result matrix at the block's position, with the mask's row
// stride, issued a key block ahead and carried into the next step, widened
// to f32 and added in the map of the program's scale; the
// map stays the matrices' own arithmetic (no per-element function for it,
// no trip through workgroup memory). Without cooperative matrix 2 the
// softmax runs on scalars through workgroup memory, which read the mask
// element by element.

// CHECK-LABEL: gpu.func @attention_0(
// CHECK-SAME:    %[[MASK:[a-z0-9]+]]: memref<16384xf16>) workgroup(
// CHECK-NOT:     memref.load %[[MASK]]
// CHECK:         %[[TILE:.*]] = subgroup_matrix.load %[[MASK]][%{{.*}}] stride %[[STRIDE:.*]] : memref<16384xf16> -> !subgroup_matrix.result<16x16xf16>
// CHECK:         scf.for {{.*}} iter_args({{.*}}%[[CARRIED:[a-z0-9]+]] = %[[TILE]],
// CHECK:           gpu.barrier
// CHECK:           %[[NEXT:.*]] = subgroup_matrix.load %[[MASK]][%{{.*}}] stride %{{.*}} : memref<16384xf16> -> !subgroup_matrix.result<16x16xf16>
// CHECK:           %[[WIDE:.*]] = subgroup_matrix.convert %[[CARRIED]] : !subgroup_matrix.result<16x16xf16> -> !subgroup_matrix.result<16x16xf32>
// CHECK:         subgroup_matrix.map %{{.*}}, %[[WIDE]] : !subgroup_matrix.result<16x16xf32>, !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.result<16x16xf32> {
// CHECK-NEXT:    ^bb0(%{{.*}}: index, %{{.*}}: index, %[[S:.*]]: f32, %[[M:.*]]: f32):
// CHECK-NEXT:      %[[SCALE:.*]] = arith.constant 1.250000e-01 : f32
// CHECK-NEXT:      %[[SCALED:.*]] = arith.mulf %[[S]], %[[SCALE]] : f32
// CHECK-NEXT:      %[[SUM:.*]] = arith.addf %[[SCALED]], %[[M]] : f32
// CHECK-NEXT:      subgroup_matrix.yield %[[SUM]] : f32
// CHECK:           scf.yield {{.*}}%[[NEXT]],
// CHECK-NOT:     memref.load %[[MASK]]
// CHECK:         gpu.return

// The mask's map is matrix arithmetic: four per-element functions fewer
// than the scalar step would take, and no barrier beyond K and V's.
// BINARY-COUNT-7: OpCooperativeMatrixPerElementOp
// BINARY-NOT:     OpCooperativeMatrixPerElementOp

// KHR-LABEL: gpu.func @attention_0(
// KHR-SAME:    %[[MASK:[a-z0-9]+]]: memref<16384xf16>) workgroup(
// KHR-NOT:     subgroup_matrix.load %[[MASK]]
// KHR:         memref.load %[[MASK]]
func.func @masked_attention(%q: tensor<2x128x64xf16>, %k: tensor<2x128x64xf16>, %v: tensor<2x128x64xf16>, %mask: tensor<128x128xf16>) -> tensor<2x128x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x128x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x128x128xf32>) -> tensor<2x128x128xf32>
  %s = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
    ins(%q, %k : tensor<2x128x64xf16>, tensor<2x128x64xf16>) outs(%f : tensor<2x128x128xf32>) -> tensor<2x128x128xf32>
  %e1 = tensor.empty() : tensor<2x128x128xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %mask : tensor<2x128x128xf32>, tensor<128x128xf16>) outs(%e1 : tensor<2x128x128xf32>) {
  ^bb0(%x: f32, %bias: f16, %o: f32):
    %c = arith.constant 0.125 : f32
    %scaled = arith.mulf %x, %c : f32
    %wide = arith.extf %bias : f16 to f32
    %y = arith.addf %scaled, %wide : f32
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

