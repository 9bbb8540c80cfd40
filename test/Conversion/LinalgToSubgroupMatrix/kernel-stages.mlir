// The stages of sm-linalg-to-gpu that make kernels, each on its own input.
// RUN: sm-opt %s --split-input-file --sm-attention-to-kernels=target=nvidia-h100 | FileCheck %s --check-prefix=SOFTMAX
// RUN: sm-opt %s --split-input-file --sm-contractions-to-kernels=target=nvidia-h100 | FileCheck %s --check-prefix=PRODUCT
// RUN: awk '/^\/\/ -----/ { n++; next } n == 1' %s | sm-opt --sm-contractions-to-kernels=target=nvidia-h100 | sm-opt --sm-elementwise-to-kernels | FileCheck %s --check-prefix=REST
// RUN: not sm-opt %s --split-input-file --sm-elementwise-to-kernels 2>&1 | FileCheck %s --check-prefix=NO-TARGET

// NO-TARGET: error: sm-linalg-to-gpu needs a target: pass target=NAME or set subgroup_matrix.target on the module

// A softmax with no products around it becomes the generics that compute
// it: the row's max, the sum of the shifted exponentials, and the quotient,
// which computes them again (no buffer holds them); products are left to
// the next stage.

// SOFTMAX-LABEL: func.func @softmax
// SOFTMAX-NOT: linalg.softmax
// SOFTMAX: linalg.fill
// SOFTMAX: linalg.generic {{.*}}["parallel", "reduction"]{{.*}} ins(%[[X:.*]] : memref<8x64xf32>) outs(%[[MAX:.*]] : memref<8xf32>)
// SOFTMAX: arith.maximumf
// SOFTMAX: linalg.fill
// SOFTMAX: linalg.generic {{.*}}["parallel", "reduction"]{{.*}} ins(%[[X]], %[[MAX]] : {{.*}}) outs(%[[SUM:.*]] : memref<8xf32>)
// SOFTMAX: math.exp
// SOFTMAX: arith.addf
// SOFTMAX: linalg.generic {{.*}}["parallel", "parallel"]{{.*}} ins(%[[X]], %[[MAX]], %[[SUM]] : {{.*}}) outs(%{{.*}} : memref<8x64xf32>)
// SOFTMAX: math.exp
// SOFTMAX: arith.divf
// SOFTMAX: linalg.matmul
func.func @softmax(%x: memref<8x64xf32>, %y: memref<8x64xf32>, %a: memref<64x64xf16>,
                   %b: memref<64x64xf16>, %c: memref<64x64xf32>) {
  linalg.softmax dimension(1) ins(%x : memref<8x64xf32>) outs(%y : memref<8x64xf32>)
  linalg.matmul ins(%a, %b : memref<64x64xf16>, memref<64x64xf16>)
                outs(%c : memref<64x64xf32>)
  return
}

// -----

// A product whose tiles of C cannot fill the H100 splits K: its kernel and
// the reduction adding the parts are made together, numbered in order; the
// element-wise op after it is left to the last stage, which numbers on
// (taking the target of the kernels already made).

// PRODUCT-LABEL: gpu.module @kernels
// PRODUCT: gpu.func @matmul_0
// PRODUCT: gpu.func @elementwise_1
// PRODUCT-LABEL: func.func @split
// PRODUCT: gpu.launch_func @kernels::@matmul_0 blocks in (%{{.*}}, %{{.*}}, %c2)
// PRODUCT: gpu.launch_func @kernels::@elementwise_1
// PRODUCT: linalg.add

// REST-LABEL: gpu.module @kernels
// REST: gpu.func @matmul_0
// REST: gpu.func @elementwise_1
// REST: gpu.func @elementwise_2
// REST-LABEL: func.func @split
// REST-NOT: linalg.
// REST: gpu.launch_func @kernels::@elementwise_2
func.func @split(%x: memref<256x512xf16>, %w: memref<512x1024xf16>,
                 %y: memref<256x1024xf32>, %z: memref<256x1024xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<256x1024xf32>)
  linalg.matmul ins(%x, %w : memref<256x512xf16>, memref<512x1024xf16>)
                outs(%y : memref<256x1024xf32>)
  linalg.add ins(%y, %y : memref<256x1024xf32>, memref<256x1024xf32>)
             outs(%z : memref<256x1024xf32>)
  return
}
