// RUN: sm-translate --emit-msl %s | FileCheck %s

// bfloat matrices need MSL 3.1.
// CHECK: // Needs Metal Shading Language 3.1 (bfloat)
// CHECK: struct sm_matrix_bfloat_8x8 {
// CHECK-NEXT:   simdgroup_bfloat8x8 f[1][1];
// CHECK: kernel void bf16(device bfloat *arg0 {{\[\[}}buffer(0){{\]\]}},
// CHECK: simdgroup_load(m.f[0][0], arg0 + c0, c8, ulong2(0, 0), false);
// CHECK: simdgroup_multiply(m_2.f[0][0], m.f[0][0], m_1.f[0][0]);
gpu.module @kernels {
  gpu.func @bf16(%a: memref<64xbf16>, %c: memref<64xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %l = subgroup_matrix.load %a[%c0] stride %c8 : memref<64xbf16> -> !subgroup_matrix.left<8x8xbf16>
    %r = subgroup_matrix.load %a[%c0] stride %c8 : memref<64xbf16> -> !subgroup_matrix.right<8x8xbf16>
    %d = subgroup_matrix.multiply %l, %r : !subgroup_matrix.left<8x8xbf16>, !subgroup_matrix.right<8x8xbf16> -> !subgroup_matrix.result<8x8xf32>
    subgroup_matrix.store %d, %c[%c0] stride %c8 : !subgroup_matrix.result<8x8xf32>, memref<64xf32>
    gpu.return
  }
}
