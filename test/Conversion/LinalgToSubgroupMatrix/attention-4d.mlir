// RUN: sm-opt %s --sm-linalg-to-gpu=target=nvidia-h100 | FileCheck %s
// (The numbers: test/Integration/LinalgToGPU, attention_4d_generic.)

// Attention over (batch, heads) written with linalg.generic products and a
// 4-D softmax: the two leading loops fold into one (2 x 3 -> 6) before the
// ops are matched, so the program is one attention kernel over 6 batches,
// launched on views of the caller's 4-D buffers.
// CHECK-LABEL: gpu.module @kernels
// CHECK: gpu.func @attention_0(%{{.*}}: memref<15360xf16>, %{{.*}}: memref<19200xf16>, %{{.*}}: memref<19200xf16>, %{{.*}}: memref<15360xf16>)
// CHECK-LABEL: func.func @attention_4d_generic(
// CHECK-SAME: %[[Q:.*]]: memref<2x3x40x64xf16>, %[[K:.*]]: memref<2x3x50x64xf16>, %[[V:.*]]: memref<2x3x50x64xf16>) -> memref<2x3x40x64xf16>
// CHECK-NOT: linalg.
// CHECK: memref.collapse_shape %[[Q]] {{\[}}[0, 1], [2], [3]]
// CHECK-NOT: linalg.
// CHECK: %[[BATCH:.*]] = arith.constant 6 : index
// CHECK: gpu.launch_func @kernels::@attention_0 blocks in (%{{.*}}, %[[BATCH]], %{{.*}})
// CHECK-NOT: gpu.launch_func
// CHECK-NOT: linalg.
func.func @attention_4d_generic(%q: tensor<2x3x40x64xf16>, %k: tensor<2x3x50x64xf16>, %v: tensor<2x3x50x64xf16>) -> tensor<2x3x40x64xf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3x40x50xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x3x40x50xf32>) -> tensor<2x3x40x50xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, h, m, n, k) -> (b, h, m, k)>, affine_map<(b, h, m, n, k) -> (b, h, n, k)>, affine_map<(b, h, m, n, k) -> (b, h, m, n)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x3x40x64xf16>, tensor<2x3x50x64xf16>) outs(%f : tensor<2x3x40x50xf32>) {
  ^bb0(%a: f16, %b: f16, %c: f32):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %prod = arith.mulf %a32, %b32 : f32
    %r = arith.addf %c, %prod : f32
    linalg.yield %r : f32
  } -> tensor<2x3x40x50xf32>
  %e1 = tensor.empty() : tensor<2x3x40x50xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>, affine_map<(b, h, i, j) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x3x40x50xf32>) outs(%e1 : tensor<2x3x40x50xf32>) {
  ^bb0(%x: f32, %o: f32):
    %c = arith.constant 0.125 : f32
    %scaled = arith.mulf %x, %c : f32
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %above = arith.cmpi ugt, %j, %i : index
    %ninf = arith.constant 0xFF800000 : f32
    %y = arith.select %above, %ninf, %scaled : f32
    linalg.yield %y : f32
  } -> tensor<2x3x40x50xf32>
  %e2 = tensor.empty() : tensor<2x3x40x50xf32>
  %p = linalg.softmax dimension(3) ins(%m : tensor<2x3x40x50xf32>) outs(%e2 : tensor<2x3x40x50xf32>) -> tensor<2x3x40x50xf32>
  %pn_e = tensor.empty() : tensor<2x3x40x50xf16>
  %pn = linalg.generic {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>, affine_map<(b, h, i, j) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%p : tensor<2x3x40x50xf32>) outs(%pn_e : tensor<2x3x40x50xf16>) {
  ^bb0(%x: f32, %o: f16):
    %y = arith.truncf %x : f32 to f16
    linalg.yield %y : f16
  } -> tensor<2x3x40x50xf16>
  %e4 = tensor.empty() : tensor<2x3x40x64xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<2x3x40x64xf32>) -> tensor<2x3x40x64xf32>
  %out = linalg.generic {indexing_maps = [affine_map<(b, h, m, n, k) -> (b, h, m, k)>, affine_map<(b, h, m, n, k) -> (b, h, k, n)>, affine_map<(b, h, m, n, k) -> (b, h, m, n)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%pn, %v : tensor<2x3x40x50xf16>, tensor<2x3x50x64xf16>) outs(%f4 : tensor<2x3x40x64xf32>) {
  ^bb0(%a: f16, %b: f16, %c: f32):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %prod = arith.mulf %a32, %b32 : f32
    %r = arith.addf %c, %prod : f32
    linalg.yield %r : f32
  } -> tensor<2x3x40x64xf32>
  %outn_e = tensor.empty() : tensor<2x3x40x64xf16>
  %outn = linalg.generic {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>, affine_map<(b, h, i, j) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%out : tensor<2x3x40x64xf32>) outs(%outn_e : tensor<2x3x40x64xf16>) {
  ^bb0(%x: f32, %o: f16):
    %y = arith.truncf %x : f32 to f16
    linalg.yield %y : f16
  } -> tensor<2x3x40x64xf16>
  return %outn : tensor<2x3x40x64xf16>
}

