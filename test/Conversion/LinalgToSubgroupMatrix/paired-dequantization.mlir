// RUN: sm-opt %s -split-input-file --sm-linalg-to-gpu=target=nvidia-h100 | FileCheck %s
// RUN: sm-opt %s --sm-linalg-to-gpu=target=nvidia-h100 --sm-lower-to-vulkan=target=nvidia-h100 | sm-translate --serialize-spirv -o %t.spv
// RUN: spirv-val --target-env vulkan1.3 %t.spv
// (The numbers: the decode_* and dequant_* cases of
// test/Integration/LinalgToGPU, on lavapipe.)

// Dequantizing producers run on two elements at once where their bytes lie
// 16 bits apart in a loaded word (PairedDequantization.cpp). Signed bytes:
// the top bit of each half flipped (0x00800080) gives the byte plus 128, so
// 1024 + 128 is subtracted from the halves placed in 1024.0's mantissa.
// CHECK-LABEL: gpu.func @matmul_0(
// CHECK: %[[WORDS:.*]] = vector.bitcast %{{.*}} : vector<16xi8> to vector<4xi32>
// CHECK: %[[WORD:.*]] = vector.extract %[[WORDS]][0]
// CHECK: %[[BYTES:.*]] = arith.andi %[[WORD]], %{{.*}} : i32
// CHECK: %[[FLIP:.*]] = arith.constant 8388736 : i32
// CHECK: %[[SIGNED:.*]] = arith.xori %[[BYTES]], %[[FLIP]] : i32
// CHECK: %[[BITS:.*]] = arith.ori %[[SIGNED]], %{{.*}} : i32
// CHECK: %[[HALVES:.*]] = vector.bitcast %{{.*}} : vector<1xi32> to vector<2xf16>
// CHECK: %[[BIAS:.*]] = arith.constant dense<1.152000e+03> : vector<2xf16>
// CHECK: arith.subf %[[HALVES]], %[[BIAS]] : vector<2xf16>
// CHECK-NOT: arith.sitofp
// CHECK: gpu.return
func.func @int8_per_column(%a: tensor<1x512xf16>, %q: tensor<64x512xi8>, %s: tensor<64xf16>) -> tensor<1x64xf32> {
  %ew = tensor.empty() : tensor<64x512xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%q, %s : tensor<64x512xi8>, tensor<64xf16>) outs(%ew : tensor<64x512xf16>) {
  ^bb0(%q_v: i8, %s_v: f16, %o: f16):
    %value = arith.sitofp %q_v : i8 to f16
    %weight = arith.mulf %value, %s_v : f16
    linalg.yield %weight : f16
  } -> tensor<64x512xf16>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x64xf32>) -> tensor<1x64xf32>
  %r = linalg.matmul
    indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
    ins(%a, %w : tensor<1x512xf16>, tensor<64x512xf16>) outs(%f : tensor<1x64xf32>) -> tensor<1x64xf32>
  return %r : tensor<1x64xf32>
}

// -----

// Unsigned bytes with a zero point per group subtracted as floats: no
// flip, 1024 subtracted, the zero point and the scale shared by the pair.
// CHECK-LABEL: gpu.func @matmul_0(
// CHECK-NOT: arith.xori
// CHECK: %[[HALVES:.*]] = vector.bitcast %{{.*}} : vector<1xi32> to vector<2xf16>
// CHECK: %[[BIAS:.*]] = arith.constant dense<1.024000e+03> : vector<2xf16>
// CHECK: %[[VALUES:.*]] = arith.subf %[[HALVES]], %[[BIAS]] : vector<2xf16>
// CHECK: %[[ZERO:.*]] = arith.uitofp %{{.*}} : i8 to f16
// CHECK: %[[ZEROS:.*]] = vector.broadcast %[[ZERO]] : f16 to vector<2xf16>
// CHECK: arith.subf %[[VALUES]], %[[ZEROS]] : vector<2xf16>
// CHECK: gpu.return
func.func @uint8_zero_points(%a: tensor<1x512xf16>, %q: tensor<64x512xi8>, %s: tensor<64x8xf16>, %z: tensor<64x8xi8>) -> tensor<1x64xf32> {
  %ew = tensor.empty() : tensor<64x512xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1 floordiv 64)>, affine_map<(d0, d1) -> (d0, d1 floordiv 64)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%q, %s, %z : tensor<64x512xi8>, tensor<64x8xf16>, tensor<64x8xi8>) outs(%ew : tensor<64x512xf16>) {
  ^bb0(%q_v: i8, %s_v: f16, %z_v: i8, %o: f16):
    %value = arith.uitofp %q_v : i8 to f16
    %zero_point = arith.uitofp %z_v : i8 to f16
    %centred = arith.subf %value, %zero_point : f16
    %weight = arith.mulf %centred, %s_v : f16
    linalg.yield %weight : f16
  } -> tensor<64x512xf16>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x64xf32>) -> tensor<1x64xf32>
  %r = linalg.matmul
    indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
    ins(%a, %w : tensor<1x512xf16>, tensor<64x512xf16>) outs(%f : tensor<1x64xf32>) -> tensor<1x64xf32>
  return %r : tensor<1x64xf32>
}

// -----

// Integer arithmetic the pairs do not know (a product of the byte) keeps
// the element-wise body.
// CHECK-LABEL: gpu.func @matmul_0(
// CHECK: arith.muli %{{.*}}, %{{.*}} : i8
// CHECK: arith.sitofp %{{.*}} : i8 to f16
// CHECK-NOT: arith.subf %{{.*}} : vector<2xf16>
// CHECK: gpu.return
func.func @unknown_integer_step(%a: tensor<1x512xf16>, %q: tensor<64x512xi8>) -> tensor<1x64xf32> {
  %ew = tensor.empty() : tensor<64x512xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%q : tensor<64x512xi8>) outs(%ew : tensor<64x512xf16>) {
  ^bb0(%q_v: i8, %o: f16):
    %c3 = arith.constant 3 : i8
    %tripled = arith.muli %q_v, %c3 : i8
    %weight = arith.sitofp %tripled : i8 to f16
    linalg.yield %weight : f16
  } -> tensor<64x512xf16>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x64xf32>) -> tensor<1x64xf32>
  %r = linalg.matmul
    indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
    ins(%a, %w : tensor<1x512xf16>, tensor<64x512xf16>) outs(%f : tensor<1x64xf32>) -> tensor<1x64xf32>
  return %r : tensor<1x64xf32>
}
