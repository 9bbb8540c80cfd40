// RUN: sm-opt %s --sm-linalg-to-gpu=target=cpu-lavapipe-coopmat | FileCheck %s
// RUN: sm-opt %s --sm-linalg-to-gpu=target=cpu-lavapipe-coopmat | sm-opt --sm-lower-to-vulkan | sm-translate --serialize-spirv -o %t.spv
// RUN: %spirv_val_path --target-env vulkan1.3 %t.spv

// Attention as torch-mlir writes F.scaled_dot_product_attention with an
// additive mask (the corpus's sdpa_attn_mask_torch at its reduced sizes):
// K transposed by linalg.transpose, both products linalg.batch_matmul on
// collapsed tensors, the [1, 1, queries, keys] f16 mask read through zeros
// in its map, the softmax written out (max, exp of the difference, sum,
// divide). sm-raise-softmax makes the softmax one op, sm-fold-batch-loops
// reads the mask through a collapse of its size-1 dimensions: one flash
// attention kernel, whose softmax on result matrices loads each block of
// the mask as a result matrix with the mask's row stride (64).
// CHECK: gpu.module @kernels
// CHECK: gpu.func @attention_0(%{{.*}}: memref<2048xf16>, %{{.*}}: memref<2048xf16>, %{{.*}}: memref<2048xf16>, %{{.*}}: memref<2048xf32>, %[[MASK:.*]]: memref<4096xf16>)
// CHECK: subgroup_matrix.load %[[MASK]][%{{.*}}] stride %{{.*}} : memref<4096xf16> -> !subgroup_matrix.result<8x8xf16>
// CHECK-NOT: gpu.func
// CHECK: gpu.launch_func @kernels::@attention_0
// CHECK-NOT: gpu.launch_func
#all = affine_map<(b, h, i, j) -> (b, h, i, j)>
#mask = affine_map<(b, h, i, j) -> (0, 0, i, j)>
#row = affine_map<(b, h, i, j) -> (b, h, i)>
func.func @sdpa(%q: tensor<1x2x64x16xf16>, %k: tensor<1x2x64x16xf16>,
                %v: tensor<1x2x64x16xf16>, %mask: tensor<1x1x64x64xf16>)
    -> tensor<1x2x64x16xf32> {
  %zero = arith.constant 0.0 : f32
  %lowest = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.125 : f32
  %kt_empty = tensor.empty() : tensor<1x2x16x64xf16>
  %kt = linalg.transpose ins(%k : tensor<1x2x64x16xf16>)
      outs(%kt_empty : tensor<1x2x16x64xf16>) permutation = [0, 1, 3, 2]
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<1x2x64x16xf16> into tensor<2x64x16xf16>
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<1x2x16x64xf16> into tensor<2x16x64xf16>
  %s_empty = tensor.empty() : tensor<2x64x64xf32>
  %s_init = linalg.fill ins(%zero : f32) outs(%s_empty : tensor<2x64x64xf32>) -> tensor<2x64x64xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<2x64x16xf16>, tensor<2x16x64xf16>)
      outs(%s_init : tensor<2x64x64xf32>) -> tensor<2x64x64xf32>
  %s = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [1, 2, 64, 64] : tensor<2x64x64xf32> into tensor<1x2x64x64xf32>
  %m_empty = tensor.empty() : tensor<1x2x64x64xf32>
  %masked = linalg.generic {indexing_maps = [#all, #mask, #all],
                            iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s, %mask : tensor<1x2x64x64xf32>, tensor<1x1x64x64xf16>)
      outs(%m_empty : tensor<1x2x64x64xf32>) {
  ^bb0(%x: f32, %a: f16, %out: f32):
    %scaled = arith.mulf %x, %scale : f32
    %aw = arith.extf %a : f16 to f32
    %y = arith.addf %scaled, %aw : f32
    linalg.yield %y : f32
  } -> tensor<1x2x64x64xf32>
  %r_empty = tensor.empty() : tensor<1x2x64xf32>
  %max_init = linalg.fill ins(%lowest : f32) outs(%r_empty : tensor<1x2x64xf32>) -> tensor<1x2x64xf32>
  %max = linalg.generic {indexing_maps = [#all, #row],
                         iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%masked : tensor<1x2x64x64xf32>) outs(%max_init : tensor<1x2x64xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %m = arith.maximumf %x, %acc : f32
    linalg.yield %m : f32
  } -> tensor<1x2x64xf32>
  %e = linalg.generic {indexing_maps = [#all, #row, #all],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%masked, %max : tensor<1x2x64x64xf32>, tensor<1x2x64xf32>)
      outs(%m_empty : tensor<1x2x64x64xf32>) {
  ^bb0(%x: f32, %m: f32, %out: f32):
    %d = arith.subf %x, %m : f32
    %ex = math.exp %d : f32
    linalg.yield %ex : f32
  } -> tensor<1x2x64x64xf32>
  %sum_init = linalg.fill ins(%zero : f32) outs(%r_empty : tensor<1x2x64xf32>) -> tensor<1x2x64xf32>
  %sum = linalg.generic {indexing_maps = [#all, #row],
                         iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%e : tensor<1x2x64x64xf32>) outs(%sum_init : tensor<1x2x64xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %t = arith.addf %x, %acc : f32
    linalg.yield %t : f32
  } -> tensor<1x2x64xf32>
  %p_empty = tensor.empty() : tensor<1x2x64x64xf16>
  %p = linalg.generic {indexing_maps = [#all, #row, #all],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%e, %sum : tensor<1x2x64x64xf32>, tensor<1x2x64xf32>)
      outs(%p_empty : tensor<1x2x64x64xf16>) {
  ^bb0(%x: f32, %l: f32, %out: f16):
    %n = arith.divf %x, %l : f32
    %h = arith.truncf %n : f32 to f16
    linalg.yield %h : f16
  } -> tensor<1x2x64x64xf16>
  %p3 = tensor.collapse_shape %p [[0, 1], [2], [3]] : tensor<1x2x64x64xf16> into tensor<2x64x64xf16>
  %v3 = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<1x2x64x16xf16> into tensor<2x64x16xf16>
  %o_empty = tensor.empty() : tensor<2x64x16xf32>
  %o_init = linalg.fill ins(%zero : f32) outs(%o_empty : tensor<2x64x16xf32>) -> tensor<2x64x16xf32>
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<2x64x64xf16>, tensor<2x64x16xf16>)
      outs(%o_init : tensor<2x64x16xf32>) -> tensor<2x64x16xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [1, 2, 64, 16] : tensor<2x64x16xf32> into tensor<1x2x64x16xf32>
  return %o : tensor<1x2x64x16xf32>
}
