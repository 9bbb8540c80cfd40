// RUN: sm-opt %s --sm-linalg-to-gpu=target=nvidia-h100 | FileCheck %s

// The example of sm-linalg-to-gpu's description (Passes.td, the generated
// docs), as written there: what the description says it becomes.

// CHECK-LABEL: gpu.module @kernels
// CHECK: gpu.func @matmul_0(%{{.+}}: memref<131072xf16>, %{{.+}}: memref<524288xf16>, %[[WORKSPACE:.+]]: memref<524288xf32>)
// CHECK: subgroup_matrix.mma
// CHECK: gpu.func @elementwise_1(%{{.+}}: memref<524288xf32>, %{{.+}}: memref<262144xf32>)
// CHECK: arith.addf
// CHECK: gpu.func @elementwise_2(%{{.+}}: memref<262144xf32>, %{{.+}}: memref<1024xf32>)
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK-NOT: gpu.func
// CHECK-LABEL: func.func @mlp
// CHECK: %[[C8:.+]] = arith.constant 8 : index
// CHECK: gpu.launch_func @kernels::@matmul_0 blocks in (%[[C8]], %c2, %c2)
// CHECK: gpu.launch_func @kernels::@elementwise_1
// CHECK: gpu.launch_func @kernels::@elementwise_2
// CHECK-NOT: gpu.launch_func

#rows = affine_map<(d0, d1) -> (d0, d1)>
#columns = affine_map<(d0, d1) -> (d1)>
func.func @mlp(%x: tensor<256x512xf16>, %w: tensor<512x1024xf16>,
               %bias: tensor<1024xf32>) -> tensor<256x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x1024xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<256x1024xf32>)
      -> tensor<256x1024xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<256x512xf16>, tensor<512x1024xf16>)
                      outs(%acc : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  %y = linalg.generic {indexing_maps = [#rows, #columns, #rows],
                       iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<256x1024xf32>, tensor<1024xf32>)
      outs(%e : tensor<256x1024xf32>) {
  ^bb0(%m: f32, %b: f32, %out: f32):
    %s = arith.addf %m, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<256x1024xf32>
  return %y : tensor<256x1024xf32>
}
