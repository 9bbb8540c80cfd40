// RUN: sm-translate --emit-msl %s | FileCheck %s

// An xor shuffle (attention's row maxima and sums combine so) is Metal's
// simd_shuffle_xor; its validity flag is the partner's lane being inside
// the width.
// CHECK-LABEL: kernel void row_pairs(
// CHECK-NEXT: uint thread_index_in_simdgroup {{\[\[}}thread_index_in_simdgroup{{\]\]}}
// CHECK: float [[V:.*]] = {{.*}}[
// CHECK: float [[R:.*]] = simd_shuffle_xor([[V]], ushort([[ONE:.*]]));
// CHECK: bool [[OK:.*]] = (int(thread_index_in_simdgroup) ^ [[ONE]]) < [[WIDTH:.*]];
// CHECK: [[OK]] ? [[R]] : [[V]]
gpu.module @kernels {
  gpu.func @row_pairs(%a: memref<64xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %lane = gpu.lane_id
    %v = memref.load %a[%lane] : memref<64xf32>
    %c1 = arith.constant 1 : i32
    %c32 = arith.constant 32 : i32
    %r, %ok = gpu.shuffle xor %v, %c1, %c32 : f32
    %x = arith.select %ok, %r, %v : f32
    memref.store %x, %a[%lane] : memref<64xf32>
    gpu.return
  }
}
