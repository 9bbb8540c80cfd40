// RUN: sm-opt %s --sm-linalg-to-gpu="target=nvidia-h100 split-k=1" | FileCheck %s
// RUN: sm-opt %s --sm-linalg-to-gpu="target=nvidia-h100 split-k=1" --sm-lower-to-vulkan=target=nvidia-h100 | sm-translate --serialize-spirv -o %t.spv
// RUN: spirv-val --target-env vulkan1.3 %t.spv
// (The numbers: the corpus's matvec_int4_groupwise_torch, test/Integration/Corpus.)

// An i4 tensor (one value per element, as torch-mlir types an unpacked
// int4 weight) dequantized with group-wise scales as B is staged: its
// elements are read one at a time (the SPIR-V lowering emulates i4 in
// 32-bit words and has no vectors of it), the scales and A still as
// vectors; the binary passes spirv-val.

// CHECK-LABEL: gpu.func @matmul_0
// CHECK-SAME: %[[W:[a-z0-9]+]]: memref<16384xi4>
// CHECK-NOT: vector<{{[0-9]+}}xi4>
// CHECK: memref.load %[[W]]
// CHECK: arith.sitofp %{{.*}} : i4 to f16
// CHECK-NOT: vector<{{[0-9]+}}xi4>
// CHECK: subgroup_matrix.mma
// CHECK-LABEL: func.func @linear_int4
#weight = affine_map<(n, k) -> (n, k)>
#group = affine_map<(n, k) -> (n, k floordiv 32)>
func.func @linear_int4(%x: tensor<16x128xf16>, %w: tensor<128x128xi4>,
                       %scales: tensor<128x4xf16>) -> tensor<16x128xf32> {
  %zero = arith.constant 0.0 : f32
  %w_empty = tensor.empty() : tensor<128x128xf16>
  %dequantized = linalg.generic {indexing_maps = [#weight, #group, #weight], iterator_types = ["parallel", "parallel"]}
      ins(%w, %scales : tensor<128x128xi4>, tensor<128x4xf16>)
      outs(%w_empty : tensor<128x128xf16>) {
  ^bb0(%q: i4, %s: f16, %out: f16):
    %f = arith.sitofp %q : i4 to f16
    %d = arith.mulf %f, %s : f16
    linalg.yield %d : f16
  } -> tensor<128x128xf16>
  %y_empty = tensor.empty() : tensor<16x128xf32>
  %y_init = linalg.fill ins(%zero : f32) outs(%y_empty : tensor<16x128xf32>) -> tensor<16x128xf32>
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %dequantized : tensor<16x128xf16>, tensor<128x128xf16>)
      outs(%y_init : tensor<16x128xf32>) -> tensor<16x128xf32>
  return %y : tensor<16x128xf32>
}
