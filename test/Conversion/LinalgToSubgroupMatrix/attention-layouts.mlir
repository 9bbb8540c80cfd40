// RUN: sm-opt %s --split-input-file --sm-linalg-to-gpu=target=nvidia-h100 | FileCheck %s
// (The numbers: test/Integration/LinalgToGPU, attention_bshd_f16_out,
// attention_gqa_bshd_causal and attention_gqa_bhsd.)

// Attention on [batch, seq, heads, dim] tensors, the products as JAX's
// einsums write them: the transposes into heads that normalizing the
// products makes, the transpose of the output back and its narrowing are
// copies the kernel reads and writes through. One kernel over the 2 x 3
// (batch, head) pairs reads the caller's Q, K and V and writes the f16
// result in place: the batch is the block's y, its head the remainder.
// CHECK-LABEL: gpu.func @attention_0(%{{.*}}: memref<15360xf16>, %{{.*}}: memref<19200xf16>, %{{.*}}: memref<19200xf16>, %{{.*}}: memref<15360xf16>)
// CHECK: %[[PAIR:.*]] = gpu.block_id  y
// CHECK: arith.divui %[[PAIR]], %{{.*}} : index
// CHECK: arith.remui %[[PAIR]], %{{.*}} : index
// CHECK-LABEL: func.func @attention_bshd(
// CHECK-SAME: %[[Q:.*]]: memref<2x40x3x64xf16>, %[[K:.*]]: memref<2x50x3x64xf16>, %[[V:.*]]: memref<2x50x3x64xf16>)
// CHECK-NOT: linalg.
// CHECK-DAG: %[[QF:.*]] = memref.collapse_shape %[[Q]] {{\[}}[0, 1, 2, 3]]
// CHECK-DAG: %[[KF:.*]] = memref.collapse_shape %[[K]] {{\[}}[0, 1, 2, 3]]
// CHECK-DAG: %[[VF:.*]] = memref.collapse_shape %[[V]] {{\[}}[0, 1, 2, 3]]
// CHECK-DAG: %[[PAIRS:.*]] = arith.constant 6 : index
// CHECK: gpu.launch_func @kernels::@attention_0 blocks in (%{{.*}}, %[[PAIRS]], %{{.*}}) threads in ({{.*}}) args(%[[QF]] : memref<15360xf16>, %[[KF]] : memref<19200xf16>, %[[VF]] : memref<19200xf16>, %{{.*}} : memref<15360xf16>)
// CHECK-NOT: gpu.launch_func
// CHECK-NOT: linalg.
func.func @attention_bshd(%q: tensor<2x40x3x64xf16>, %k: tensor<2x50x3x64xf16>, %v: tensor<2x50x3x64xf16>) -> tensor<2x40x3x64xf16> {
  %zero = arith.constant 0.0 : f32
  %se = tensor.empty() : tensor<2x3x40x50xf32>
  %sf = linalg.fill ins(%zero : f32) outs(%se : tensor<2x3x40x50xf32>) -> tensor<2x3x40x50xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, h, i, j, d) -> (b, i, h, d)>, affine_map<(b, h, i, j, d) -> (b, j, h, d)>, affine_map<(b, h, i, j, d) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x40x3x64xf16>, tensor<2x50x3x64xf16>) outs(%sf : tensor<2x3x40x50xf32>) {
  ^bb0(%a: f16, %b: f16, %c: f32):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %prod = arith.mulf %a32, %b32 : f32
    %r = arith.addf %c, %prod : f32
    linalg.yield %r : f32
  } -> tensor<2x3x40x50xf32>
  %me = tensor.empty() : tensor<2x3x40x50xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>, affine_map<(b, h, i, j) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x3x40x50xf32>) outs(%me : tensor<2x3x40x50xf32>) {
  ^bb0(%x: f32, %o: f32):
    %c = arith.constant 0.125 : f32
    %y = arith.mulf %x, %c : f32
    linalg.yield %y : f32
  } -> tensor<2x3x40x50xf32>
  %pe = tensor.empty() : tensor<2x3x40x50xf32>
  %p = linalg.softmax dimension(3) ins(%m : tensor<2x3x40x50xf32>) outs(%pe : tensor<2x3x40x50xf32>) -> tensor<2x3x40x50xf32>
  %pne = tensor.empty() : tensor<2x3x40x50xf16>
  %pn = linalg.generic {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>, affine_map<(b, h, i, j) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%p : tensor<2x3x40x50xf32>) outs(%pne : tensor<2x3x40x50xf16>) {
  ^bb0(%x: f32, %o: f16):
    %y = arith.truncf %x : f32 to f16
    linalg.yield %y : f16
  } -> tensor<2x3x40x50xf16>
  %oe = tensor.empty() : tensor<2x40x3x64xf32>
  %of = linalg.fill ins(%zero : f32) outs(%oe : tensor<2x40x3x64xf32>) -> tensor<2x40x3x64xf32>
  %out = linalg.generic {indexing_maps = [affine_map<(b, h, i, d, j) -> (b, h, i, j)>, affine_map<(b, h, i, d, j) -> (b, j, h, d)>, affine_map<(b, h, i, d, j) -> (b, i, h, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%pn, %v : tensor<2x3x40x50xf16>, tensor<2x50x3x64xf16>) outs(%of : tensor<2x40x3x64xf32>) {
  ^bb0(%a: f16, %b: f16, %c: f32):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %prod = arith.mulf %a32, %b32 : f32
    %r = arith.addf %c, %prod : f32
    linalg.yield %r : f32
  } -> tensor<2x40x3x64xf32>
  %ne = tensor.empty() : tensor<2x40x3x64xf16>
  %outn = linalg.generic {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>, affine_map<(b, h, i, j) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%out : tensor<2x40x3x64xf32>) outs(%ne : tensor<2x40x3x64xf16>) {
  ^bb0(%x: f32, %unused: f16):
    %y = arith.truncf %x : f32 to f16
    linalg.yield %y : f16
  } -> tensor<2x40x3x64xf16>
  return %outn : tensor<2x40x3x64xf16>
}

// -----

// Grouped-query attention as torch writes it: 2 key-value heads repeated
// for 6 query heads (a broadcast into a new dimension, collapsed into the
// heads). The kernel reads K and V's 2 heads where they are: no repeat is
// made, and each pair (batch, query head) finds its key-value head by
// dividing.
// CHECK-LABEL: gpu.func @attention_0(%{{.*}}: memref<30720xf16>, %{{.*}}: memref<12800xf16>, %{{.*}}: memref<12800xf16>, %{{.*}}: memref<30720xf32>)
// CHECK-LABEL: func.func @attention_gqa(
// CHECK-SAME: %{{.*}}: memref<2x6x40x64xf16>, %[[K:.*]]: memref<2x2x50x64xf16>, %[[V:.*]]: memref<2x2x50x64xf16>)
// CHECK-NOT: linalg.
// CHECK: memref.collapse_shape %[[K]]
// CHECK-NOT: linalg.
// CHECK: gpu.launch_func @kernels::@attention_0
// CHECK-NOT: gpu.launch_func
// CHECK-NOT: linalg.
func.func @attention_gqa(%q: tensor<2x6x40x64xf16>, %k: tensor<2x2x50x64xf16>, %v: tensor<2x2x50x64xf16>) -> tensor<2x6x40x64xf32> {
  %zero = arith.constant 0.0 : f32
  %k_e = tensor.empty() : tensor<2x2x3x50x64xf16>
  %k_r = linalg.generic {indexing_maps = [affine_map<(b, g, r, s, d) -> (b, g, s, d)>, affine_map<(b, g, r, s, d) -> (b, g, r, s, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%k : tensor<2x2x50x64xf16>) outs(%k_e : tensor<2x2x3x50x64xf16>) {
  ^bb0(%x: f16, %unused: f16):
    linalg.yield %x : f16
  } -> tensor<2x2x3x50x64xf16>
  %k_h = tensor.collapse_shape %k_r [[0], [1, 2], [3], [4]] : tensor<2x2x3x50x64xf16> into tensor<2x6x50x64xf16>
  %v_e = tensor.empty() : tensor<2x2x3x50x64xf16>
  %v_r = linalg.generic {indexing_maps = [affine_map<(b, g, r, s, d) -> (b, g, s, d)>, affine_map<(b, g, r, s, d) -> (b, g, r, s, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%v : tensor<2x2x50x64xf16>) outs(%v_e : tensor<2x2x3x50x64xf16>) {
  ^bb0(%x: f16, %unused: f16):
    linalg.yield %x : f16
  } -> tensor<2x2x3x50x64xf16>
  %v_h = tensor.collapse_shape %v_r [[0], [1, 2], [3], [4]] : tensor<2x2x3x50x64xf16> into tensor<2x6x50x64xf16>
  %se = tensor.empty() : tensor<2x6x40x50xf32>
  %sf = linalg.fill ins(%zero : f32) outs(%se : tensor<2x6x40x50xf32>) -> tensor<2x6x40x50xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, h, i, j, d) -> (b, h, i, d)>, affine_map<(b, h, i, j, d) -> (b, h, j, d)>, affine_map<(b, h, i, j, d) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k_h : tensor<2x6x40x64xf16>, tensor<2x6x50x64xf16>) outs(%sf : tensor<2x6x40x50xf32>) {
  ^bb0(%a: f16, %b: f16, %c: f32):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %prod = arith.mulf %a32, %b32 : f32
    %r = arith.addf %c, %prod : f32
    linalg.yield %r : f32
  } -> tensor<2x6x40x50xf32>
  %me = tensor.empty() : tensor<2x6x40x50xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>, affine_map<(b, h, i, j) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x6x40x50xf32>) outs(%me : tensor<2x6x40x50xf32>) {
  ^bb0(%x: f32, %o: f32):
    %c = arith.constant 0.125 : f32
    %scaled = arith.mulf %x, %c : f32
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %above = arith.cmpi ugt, %j, %i : index
    %ninf = arith.constant 0xFF800000 : f32
    %y = arith.select %above, %ninf, %scaled : f32
    linalg.yield %y : f32
  } -> tensor<2x6x40x50xf32>
  %pe = tensor.empty() : tensor<2x6x40x50xf32>
  %p = linalg.softmax dimension(3) ins(%m : tensor<2x6x40x50xf32>) outs(%pe : tensor<2x6x40x50xf32>) -> tensor<2x6x40x50xf32>
  %pne = tensor.empty() : tensor<2x6x40x50xf16>
  %pn = linalg.generic {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>, affine_map<(b, h, i, j) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%p : tensor<2x6x40x50xf32>) outs(%pne : tensor<2x6x40x50xf16>) {
  ^bb0(%x: f32, %o: f16):
    %y = arith.truncf %x : f32 to f16
    linalg.yield %y : f16
  } -> tensor<2x6x40x50xf16>
  %oe = tensor.empty() : tensor<2x6x40x64xf32>
  %of = linalg.fill ins(%zero : f32) outs(%oe : tensor<2x6x40x64xf32>) -> tensor<2x6x40x64xf32>
  %out = linalg.generic {indexing_maps = [affine_map<(b, h, i, d, j) -> (b, h, i, j)>, affine_map<(b, h, i, d, j) -> (b, h, j, d)>, affine_map<(b, h, i, d, j) -> (b, h, i, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%pn, %v_h : tensor<2x6x40x50xf16>, tensor<2x6x50x64xf16>) outs(%of : tensor<2x6x40x64xf32>) {
  ^bb0(%a: f16, %b: f16, %c: f32):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %prod = arith.mulf %a32, %b32 : f32
    %r = arith.addf %c, %prod : f32
    linalg.yield %r : f32
  } -> tensor<2x6x40x64xf32>
  return %out : tensor<2x6x40x64xf32>
}

// -----

// A copy of V that the program overwrites before the attention reads the
// copy: the kernel keeps reading the copy (reading V itself would see the
// zeros), so the copy and the fill stay kernels of their own, before it.
// CHECK-LABEL: func.func @overwritten_values(
// CHECK-SAME: %{{.*}}: memref<2x40x64xf16>, %{{.*}}: memref<2x50x64xf16>, %[[V:.*]]: memref<2x50x64xf16>,
// CHECK: %[[COPY:.*]] = memref.alloc() : memref<2x50x64xf16>
// CHECK: gpu.launch_func @kernels::@elementwise_1
// CHECK: gpu.launch_func @kernels::@elementwise_2
// CHECK: %[[COPY_FLAT:.*]] = memref.collapse_shape %[[COPY]]
// CHECK: gpu.launch_func @kernels::@attention_0 {{.*}} args({{.*}}, %[[COPY_FLAT]] : memref<6400xf16>, {{.*}})
func.func @overwritten_values(%q: memref<2x40x64xf16>, %k: memref<2x50x64xf16>, %v: memref<2x50x64xf16>, %o: memref<2x40x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %zero16 = arith.constant 0.0 : f16
  %vc = memref.alloc() : memref<2x50x64xf16>
  linalg.copy ins(%v : memref<2x50x64xf16>) outs(%vc : memref<2x50x64xf16>)
  linalg.fill ins(%zero16 : f16) outs(%v : memref<2x50x64xf16>)
  %s = memref.alloc() : memref<2x40x50xf32>
  linalg.fill ins(%zero : f32) outs(%s : memref<2x40x50xf32>)
  linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
    ins(%q, %k : memref<2x40x64xf16>, memref<2x50x64xf16>) outs(%s : memref<2x40x50xf32>)
  %m = memref.alloc() : memref<2x40x50xf32>
  linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : memref<2x40x50xf32>) outs(%m : memref<2x40x50xf32>) {
  ^bb0(%x: f32, %unused: f32):
    %c = arith.constant 0.125 : f32
    %y = arith.mulf %x, %c : f32
    linalg.yield %y : f32
  }
  %p = memref.alloc() : memref<2x40x50xf32>
  linalg.softmax dimension(2) ins(%m : memref<2x40x50xf32>) outs(%p : memref<2x40x50xf32>)
  %pn = memref.alloc() : memref<2x40x50xf16>
  linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p : memref<2x40x50xf32>) outs(%pn : memref<2x40x50xf16>) {
  ^bb0(%x: f32, %unused: f16):
    %y = arith.truncf %x : f32 to f16
    linalg.yield %y : f16
  }
  linalg.fill ins(%zero : f32) outs(%o : memref<2x40x64xf32>)
  linalg.batch_matmul ins(%pn, %vc : memref<2x40x50xf16>, memref<2x50x64xf16>) outs(%o : memref<2x40x64xf32>)
  return
}

// -----

// Grouped-query attention on [batch, seq, heads, dim], as a Llama model
// keeps it: 2 key-value heads repeated for 8 query heads along the heads
// dimension. The repeat folds once with the sequence (its loops are not
// attention's), and the kernel reads K and V's 2 heads in place.
// CHECK-LABEL: gpu.func @attention_0(%{{.*}}: memref<131072xf16>, %{{.*}}: memref<32768xf16>, %{{.*}}: memref<32768xf16>, %{{.*}}: memref<131072xf16>)
// CHECK-NOT: gpu.func
// CHECK-LABEL: func.func @attention_gqa_bshd(
// CHECK: gpu.launch_func @kernels::@attention_0
// CHECK-NOT: gpu.launch_func
func.func @attention_gqa_bshd(%q: tensor<1x256x8x64xf16>, %k: tensor<1x256x2x64xf16>, %v: tensor<1x256x2x64xf16>) -> tensor<1x256x8x64xf16> {
  %zero = arith.constant 0.0 : f32
  %k_e = tensor.empty() : tensor<1x256x2x4x64xf16>
  %k_r = linalg.generic {indexing_maps = [affine_map<(b, s, g, r, d) -> (b, s, g, d)>, affine_map<(b, s, g, r, d) -> (b, s, g, r, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%k : tensor<1x256x2x64xf16>) outs(%k_e : tensor<1x256x2x4x64xf16>) {
  ^bb0(%x: f16, %unused: f16):
    linalg.yield %x : f16
  } -> tensor<1x256x2x4x64xf16>
  %k_h = tensor.collapse_shape %k_r [[0], [1], [2, 3], [4]] : tensor<1x256x2x4x64xf16> into tensor<1x256x8x64xf16>
  %v_e = tensor.empty() : tensor<1x256x2x4x64xf16>
  %v_r = linalg.generic {indexing_maps = [affine_map<(b, s, g, r, d) -> (b, s, g, d)>, affine_map<(b, s, g, r, d) -> (b, s, g, r, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%v : tensor<1x256x2x64xf16>) outs(%v_e : tensor<1x256x2x4x64xf16>) {
  ^bb0(%x: f16, %unused: f16):
    linalg.yield %x : f16
  } -> tensor<1x256x2x4x64xf16>
  %v_h = tensor.collapse_shape %v_r [[0], [1], [2, 3], [4]] : tensor<1x256x2x4x64xf16> into tensor<1x256x8x64xf16>
  %se = tensor.empty() : tensor<1x8x256x256xf32>
  %sf = linalg.fill ins(%zero : f32) outs(%se : tensor<1x8x256x256xf32>) -> tensor<1x8x256x256xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, h, i, j, d) -> (b, i, h, d)>, affine_map<(b, h, i, j, d) -> (b, j, h, d)>, affine_map<(b, h, i, j, d) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k_h : tensor<1x256x8x64xf16>, tensor<1x256x8x64xf16>) outs(%sf : tensor<1x8x256x256xf32>) {
  ^bb0(%a: f16, %b: f16, %c: f32):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %prod = arith.mulf %a32, %b32 : f32
    %r = arith.addf %c, %prod : f32
    linalg.yield %r : f32
  } -> tensor<1x8x256x256xf32>
  %me = tensor.empty() : tensor<1x8x256x256xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>, affine_map<(b, h, i, j) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s : tensor<1x8x256x256xf32>) outs(%me : tensor<1x8x256x256xf32>) {
  ^bb0(%x: f32, %o: f32):
    %c = arith.constant 0.125 : f32
    %y = arith.mulf %x, %c : f32
    linalg.yield %y : f32
  } -> tensor<1x8x256x256xf32>
  %pe = tensor.empty() : tensor<1x8x256x256xf32>
  %p = linalg.softmax dimension(3) ins(%m : tensor<1x8x256x256xf32>) outs(%pe : tensor<1x8x256x256xf32>) -> tensor<1x8x256x256xf32>
  %pne = tensor.empty() : tensor<1x8x256x256xf16>
  %pn = linalg.generic {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>, affine_map<(b, h, i, j) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%p : tensor<1x8x256x256xf32>) outs(%pne : tensor<1x8x256x256xf16>) {
  ^bb0(%x: f32, %o: f16):
    %y = arith.truncf %x : f32 to f16
    linalg.yield %y : f16
  } -> tensor<1x8x256x256xf16>
  %oe = tensor.empty() : tensor<1x256x8x64xf32>
  %of = linalg.fill ins(%zero : f32) outs(%oe : tensor<1x256x8x64xf32>) -> tensor<1x256x8x64xf32>
  %out = linalg.generic {indexing_maps = [affine_map<(b, h, i, d, j) -> (b, h, i, j)>, affine_map<(b, h, i, d, j) -> (b, j, h, d)>, affine_map<(b, h, i, d, j) -> (b, i, h, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%pn, %v_h : tensor<1x8x256x256xf16>, tensor<1x256x8x64xf16>) outs(%of : tensor<1x256x8x64xf32>) {
  ^bb0(%a: f16, %b: f16, %c: f32):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %prod = arith.mulf %a32, %b32 : f32
    %r = arith.addf %c, %prod : f32
    linalg.yield %r : f32
  } -> tensor<1x256x8x64xf32>
  %ne = tensor.empty() : tensor<1x256x8x64xf16>
  %outn = linalg.generic {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>, affine_map<(b, h, i, j) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%out : tensor<1x256x8x64xf32>) outs(%ne : tensor<1x256x8x64xf16>) {
  ^bb0(%x: f32, %unused: f16):
    %y = arith.truncf %x : f32 to f16
    linalg.yield %y : f16
  } -> tensor<1x256x8x64xf16>
  return %outn : tensor<1x256x8x64xf16>
}

