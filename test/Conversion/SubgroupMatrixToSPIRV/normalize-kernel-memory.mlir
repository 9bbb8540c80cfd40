// RUN: sm-opt %s --sm-normalize-kernel-memory --split-input-file --verify-diagnostics | FileCheck %s

// A workgroup attribution becomes an allocation at the start of the kernel,
// and an access through a subview addresses the viewed buffer.

// CHECK-LABEL: gpu.func @attribution_and_subview
// CHECK-SAME: (%[[IN:.*]]: memref<64x64xf16>, %[[OUT:.*]]: memref<256xf16>, %[[ROW:.*]]: index)
// CHECK-NOT: workgroup(
// CHECK: %[[TILE:.*]] = memref.alloc() : memref<256xf16, #gpu.address_space<workgroup>>
// CHECK-NOT: memref.subview
// CHECK: %[[A:.*]] = subgroup_matrix.load %[[IN]][%[[ROW]], %{{.*}}] stride
// CHECK-SAME: memref<64x64xf16>
// CHECK: subgroup_matrix.store %[[A]], %[[TILE]]
// CHECK: subgroup_matrix.load %[[TILE]]
// CHECK: subgroup_matrix.store %{{.*}}, %[[OUT]]
gpu.module @kernels {
  gpu.func @attribution_and_subview(%in: memref<64x64xf16>, %out: memref<256xf16>, %row: index)
      workgroup(%tile: memref<256xf16, #gpu.address_space<workgroup>>) kernel {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %rows = memref.subview %in[%row, 0] [16, 64] [1, 1]
        : memref<64x64xf16> to memref<16x64xf16, strided<[64, 1], offset: ?>>
    %a = subgroup_matrix.load %rows[%c0, %c0] stride %c64
        : memref<16x64xf16, strided<[64, 1], offset: ?>> -> !subgroup_matrix.left<16x16xf16>
    subgroup_matrix.store %a, %tile[%c0] stride %c16
        : !subgroup_matrix.left<16x16xf16>, memref<256xf16, #gpu.address_space<workgroup>>
    %b = subgroup_matrix.load %tile[%c0] stride %c16
        : memref<256xf16, #gpu.address_space<workgroup>> -> !subgroup_matrix.left<16x16xf16>
    subgroup_matrix.store %b, %out[%c0] stride %c16
        : !subgroup_matrix.left<16x16xf16>, memref<256xf16>
    gpu.return
  }
}

// -----

gpu.module @kernels {
  gpu.func @dynamic_strides(%in: memref<?x?xf16>, %out: memref<256xf16>) kernel {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    // expected-error @below {{has dynamic strides or offset, and SPIR-V addresses memrefs through static ones (use a 1-D memref and the stride operand)}}
    %a = subgroup_matrix.load %in[%c0, %c0] stride %c16
        : memref<?x?xf16> -> !subgroup_matrix.left<16x16xf16>
    subgroup_matrix.store %a, %out[%c0] stride %c16
        : !subgroup_matrix.left<16x16xf16>, memref<256xf16>
    gpu.return
  }
}
