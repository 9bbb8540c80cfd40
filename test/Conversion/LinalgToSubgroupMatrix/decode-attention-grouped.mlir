// RUN: sm-opt %s -split-input-file --sm-linalg-to-gpu=target=nvidia-h100 | FileCheck %s
// RUN: sm-opt %s --sm-linalg-to-gpu=target=nvidia-h100 --sm-lower-to-vulkan=target=nvidia-h100 | sm-translate --serialize-spirv -o %t.spv
// RUN: spirv-val --target-env vulkan1.3 %t.spv
// (The numbers: this program against upstream MLIR in
// test/Integration/Reference/programs.test.)

// Grouped-query attention at one query: the four query heads of each
// key-value head share a workgroup (grid: 5 runs of 64 keys x 2 groups): its
// 16 states (4 subgroups of 4 keys at head dimension 64) keep 4 rows each
// (16 x 4 x 2 maxima and sums, 16 x 4 x 64 outputs in workgroup memory),
// and each K and V read serves the four (four keys in flight per
// invocation); the combining kernel runs a workgroup per query head.
// CHECK-LABEL: gpu.func @attention_0(
// CHECK-SAME: %{{.*}}: memref<512xf16>, %[[K:[a-z0-9]+]]: memref<38400xf16>, %{{.*}}: memref<38400xf16>, %{{.*}}: memref<2560xf32>, %{{.*}}: memref<80xf32>)
// CHECK-SAME: workgroup(%{{.*}} : memref<128xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<4096xf32, #gpu.address_space<workgroup>>)
// CHECK: scf.for
// CHECK-COUNT-4: vector.load %[[K]]
// CHECK-NOT: vector.load %[[K]]
// CHECK: scf.yield
// CHECK-LABEL: func.func @decode_attention_gqa
// CHECK: %[[RUNS:.*]] = arith.constant 5 : index
// CHECK: %[[GROUPS:.*]] = arith.constant 2 : index
// CHECK: gpu.launch_func @kernels::@attention_0 blocks in (%[[RUNS]], %[[GROUPS]],
// CHECK: %[[HEADS:.*]] = arith.constant 8 : index
// CHECK: gpu.launch_func @kernels::@attention_0_combine blocks in (%[[HEADS]],
func.func @decode_attention_gqa(%q: tensor<1x8x1x64xf16>, %k: tensor<1x2x300x64xf16>, %v: tensor<1x2x300x64xf16>) -> tensor<1x8x1x64xf16> {
  %zero = arith.constant 0.0 : f32
  %k_e = tensor.empty() : tensor<1x2x4x300x64xf16>
  %k_r = linalg.generic {indexing_maps = [affine_map<(b, g, r, s, d) -> (b, g, s, d)>, affine_map<(b, g, r, s, d) -> (b, g, r, s, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%k : tensor<1x2x300x64xf16>) outs(%k_e : tensor<1x2x4x300x64xf16>) {
  ^bb0(%x: f16, %unused: f16):
    linalg.yield %x : f16
  } -> tensor<1x2x4x300x64xf16>
  %k_h = tensor.collapse_shape %k_r [[0], [1, 2], [3], [4]] : tensor<1x2x4x300x64xf16> into tensor<1x8x300x64xf16>
  %v_e = tensor.empty() : tensor<1x2x4x300x64xf16>
  %v_r = linalg.generic {indexing_maps = [affine_map<(b, g, r, s, d) -> (b, g, s, d)>, affine_map<(b, g, r, s, d) -> (b, g, r, s, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%v : tensor<1x2x300x64xf16>) outs(%v_e : tensor<1x2x4x300x64xf16>) {
  ^bb0(%x: f16, %unused: f16):
    linalg.yield %x : f16
  } -> tensor<1x2x4x300x64xf16>
  %v_h = tensor.collapse_shape %v_r [[0], [1, 2], [3], [4]] : tensor<1x2x4x300x64xf16> into tensor<1x8x300x64xf16>
  %se = tensor.empty() : tensor<1x8x1x300xf32>
  %sf = linalg.fill ins(%zero : f32) outs(%se : tensor<1x8x1x300xf32>) -> tensor<1x8x1x300xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, h, i, j, d) -> (b, h, i, d)>, affine_map<(b, h, i, j, d) -> (b, h, j, d)>, affine_map<(b, h, i, j, d) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k_h : tensor<1x8x1x64xf16>, tensor<1x8x300x64xf16>) outs(%sf : tensor<1x8x1x300xf32>) {
  ^bb0(%a: f16, %b: f16, %c: f32):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %prod = arith.mulf %a32, %b32 : f32
    %r = arith.addf %c, %prod : f32
    linalg.yield %r : f32
  } -> tensor<1x8x1x300xf32>
  %me = tensor.empty() : tensor<1x8x1x300xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>, affine_map<(b, h, i, j) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s : tensor<1x8x1x300xf32>) outs(%me : tensor<1x8x1x300xf32>) {
  ^bb0(%x: f32, %o: f32):
    %c = arith.constant 0.125 : f32
    %y = arith.mulf %x, %c : f32
    linalg.yield %y : f32
  } -> tensor<1x8x1x300xf32>
  %pe = tensor.empty() : tensor<1x8x1x300xf32>
  %p = linalg.softmax dimension(3) ins(%m : tensor<1x8x1x300xf32>) outs(%pe : tensor<1x8x1x300xf32>) -> tensor<1x8x1x300xf32>
  %pne = tensor.empty() : tensor<1x8x1x300xf16>
  %pn = linalg.generic {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>, affine_map<(b, h, i, j) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%p : tensor<1x8x1x300xf32>) outs(%pne : tensor<1x8x1x300xf16>) {
  ^bb0(%x: f32, %o: f16):
    %y = arith.truncf %x : f32 to f16
    linalg.yield %y : f16
  } -> tensor<1x8x1x300xf16>
  %oe = tensor.empty() : tensor<1x8x1x64xf32>
  %of = linalg.fill ins(%zero : f32) outs(%oe : tensor<1x8x1x64xf32>) -> tensor<1x8x1x64xf32>
  %out = linalg.generic {indexing_maps = [affine_map<(b, h, i, d, j) -> (b, h, i, j)>, affine_map<(b, h, i, d, j) -> (b, h, j, d)>, affine_map<(b, h, i, d, j) -> (b, h, i, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%pn, %v_h : tensor<1x8x1x300xf16>, tensor<1x8x300x64xf16>) outs(%of : tensor<1x8x1x64xf32>) {
  ^bb0(%a: f16, %b: f16, %c: f32):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %prod = arith.mulf %a32, %b32 : f32
    %r = arith.addf %c, %prod : f32
    linalg.yield %r : f32
  } -> tensor<1x8x1x64xf32>
  %ne = tensor.empty() : tensor<1x8x1x64xf16>
  %outn = linalg.generic {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>, affine_map<(b, h, i, j) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%out : tensor<1x8x1x64xf32>) outs(%ne : tensor<1x8x1x64xf16>) {
  ^bb0(%x: f32, %unused: f16):
    %y = arith.truncf %x : f32 to f16
    linalg.yield %y : f16
  } -> tensor<1x8x1x64xf16>
  return %outn : tensor<1x8x1x64xf16>
}

// -----

// The same against a cache whose length is known only at run time: the
// repeats and reshapes of dynamic shape are read through as well (K and V
// read once for the four query heads, two launches), the runs share the
// keys (132 of them per group: two workgroups per compute unit whatever
// the length), and the length is read off K for the first kernel.
// CHECK-LABEL: gpu.func @attention_0(
// CHECK-SAME: %{{.*}}: memref<512xf16>, %[[K:[a-z0-9]+]]: memref<?xf16>, %{{.*}}: memref<?xf16>, %{{.*}}: memref<67584xf32>, %{{.*}}: memref<2112xf32>, %{{.*}}: index)
// CHECK: scf.for
// CHECK-COUNT-4: vector.load %[[K]]
// CHECK-NOT: vector.load %[[K]]
// CHECK: scf.yield
// CHECK-LABEL: func.func @decode_attention_cache
// CHECK-NOT: gpu.launch_func
// CHECK: %[[KEYS:.*]] = memref.dim %{{.*}}, %{{.*}} : memref<2x?x64xf16>
// CHECK-NOT: gpu.launch_func
// CHECK: %[[RUNS:.*]] = arith.constant 132 : index
// CHECK-NOT: gpu.launch_func
// CHECK: %[[GROUPS:.*]] = arith.constant 2 : index
// CHECK-NOT: gpu.launch_func
// CHECK: gpu.launch_func @kernels::@attention_0 blocks in (%[[RUNS]], %[[GROUPS]], {{.*}}, %[[KEYS]] : index)
// CHECK: gpu.launch_func @kernels::@attention_0_combine
// CHECK-NOT: gpu.launch_func
func.func @decode_attention_cache(%q: tensor<1x8x1x64xf16>, %k: tensor<1x2x?x64xf16>, %v: tensor<1x2x?x64xf16>) -> tensor<1x8x1x64xf16> {
  %zero = arith.constant 0.0 : f32
  %c2 = arith.constant 2 : index
  %keys = tensor.dim %k, %c2 : tensor<1x2x?x64xf16>
  %k_e = tensor.empty(%keys) : tensor<1x2x4x?x64xf16>
  %k_r = linalg.generic {indexing_maps = [affine_map<(b, g, r, s, d) -> (b, g, s, d)>, affine_map<(b, g, r, s, d) -> (b, g, r, s, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%k : tensor<1x2x?x64xf16>) outs(%k_e : tensor<1x2x4x?x64xf16>) {
  ^bb0(%x: f16, %unused: f16):
    linalg.yield %x : f16
  } -> tensor<1x2x4x?x64xf16>
  %k_h = tensor.collapse_shape %k_r [[0], [1, 2], [3], [4]] : tensor<1x2x4x?x64xf16> into tensor<1x8x?x64xf16>
  %v_e = tensor.empty(%keys) : tensor<1x2x4x?x64xf16>
  %v_r = linalg.generic {indexing_maps = [affine_map<(b, g, r, s, d) -> (b, g, s, d)>, affine_map<(b, g, r, s, d) -> (b, g, r, s, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%v : tensor<1x2x?x64xf16>) outs(%v_e : tensor<1x2x4x?x64xf16>) {
  ^bb0(%x: f16, %unused: f16):
    linalg.yield %x : f16
  } -> tensor<1x2x4x?x64xf16>
  %v_h = tensor.collapse_shape %v_r [[0], [1, 2], [3], [4]] : tensor<1x2x4x?x64xf16> into tensor<1x8x?x64xf16>
  %se = tensor.empty(%keys) : tensor<1x8x1x?xf32>
  %sf = linalg.fill ins(%zero : f32) outs(%se : tensor<1x8x1x?xf32>) -> tensor<1x8x1x?xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, h, i, j, d) -> (b, h, i, d)>, affine_map<(b, h, i, j, d) -> (b, h, j, d)>, affine_map<(b, h, i, j, d) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k_h : tensor<1x8x1x64xf16>, tensor<1x8x?x64xf16>) outs(%sf : tensor<1x8x1x?xf32>) {
  ^bb0(%a: f16, %b: f16, %c: f32):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %prod = arith.mulf %a32, %b32 : f32
    %r = arith.addf %c, %prod : f32
    linalg.yield %r : f32
  } -> tensor<1x8x1x?xf32>
  %me = tensor.empty(%keys) : tensor<1x8x1x?xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>, affine_map<(b, h, i, j) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s : tensor<1x8x1x?xf32>) outs(%me : tensor<1x8x1x?xf32>) {
  ^bb0(%x: f32, %o: f32):
    %c = arith.constant 0.125 : f32
    %y = arith.mulf %x, %c : f32
    linalg.yield %y : f32
  } -> tensor<1x8x1x?xf32>
  %pe = tensor.empty(%keys) : tensor<1x8x1x?xf32>
  %p = linalg.softmax dimension(3) ins(%m : tensor<1x8x1x?xf32>) outs(%pe : tensor<1x8x1x?xf32>) -> tensor<1x8x1x?xf32>
  %pne = tensor.empty(%keys) : tensor<1x8x1x?xf16>
  %pn = linalg.generic {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>, affine_map<(b, h, i, j) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%p : tensor<1x8x1x?xf32>) outs(%pne : tensor<1x8x1x?xf16>) {
  ^bb0(%x: f32, %o: f16):
    %y = arith.truncf %x : f32 to f16
    linalg.yield %y : f16
  } -> tensor<1x8x1x?xf16>
  %oe = tensor.empty() : tensor<1x8x1x64xf32>
  %of = linalg.fill ins(%zero : f32) outs(%oe : tensor<1x8x1x64xf32>) -> tensor<1x8x1x64xf32>
  %out = linalg.generic {indexing_maps = [affine_map<(b, h, i, d, j) -> (b, h, i, j)>, affine_map<(b, h, i, d, j) -> (b, h, j, d)>, affine_map<(b, h, i, d, j) -> (b, h, i, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%pn, %v_h : tensor<1x8x1x?xf16>, tensor<1x8x?x64xf16>) outs(%of : tensor<1x8x1x64xf32>) {
  ^bb0(%a: f16, %b: f16, %c: f32):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %prod = arith.mulf %a32, %b32 : f32
    %r = arith.addf %c, %prod : f32
    linalg.yield %r : f32
  } -> tensor<1x8x1x64xf32>
  %ne = tensor.empty() : tensor<1x8x1x64xf16>
  %outn = linalg.generic {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>, affine_map<(b, h, i, j) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%out : tensor<1x8x1x64xf32>) outs(%ne : tensor<1x8x1x64xf16>) {
  ^bb0(%x: f32, %unused: f16):
    %y = arith.truncf %x : f32 to f16
    linalg.yield %y : f16
  } -> tensor<1x8x1x64xf16>
  return %outn : tensor<1x8x1x64xf16>
}
