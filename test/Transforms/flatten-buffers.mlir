// RUN: sm-opt %s --sm-flatten-buffers --split-input-file | FileCheck %s

// A kernel's 2-D arguments become 1-D buffers of the same elements, and
// every access uses the element's linear index; the matrix stride stays.

// CHECK-LABEL: gpu.func @static_2d
// CHECK-SAME: (%[[A:.*]]: memref<16384xf16>, %[[C:.*]]: memref<4096xf32>, %[[ROW:.*]]: index, %[[K:.*]]: index)
// CHECK: %[[STRIDE:.*]] = arith.constant 256 : index
// CHECK: %[[ROWA:.*]] = arith.muli %[[ROW]], %{{.*}} : index
// CHECK: %[[LA:.*]] = arith.addi %[[ROWA]], %[[K]] : index
// CHECK: subgroup_matrix.load %[[A]][%[[LA]]] stride %[[STRIDE]] : memref<16384xf16>
// CHECK: %[[C64:.*]] = arith.constant 64 : index
// CHECK: %[[ROWC:.*]] = arith.muli %[[ROW]], %[[C64]] : index
// CHECK: %[[LC:.*]] = arith.addi %[[ROWC]], %[[K]] : index
// CHECK: memref.load %[[C]][%[[LC]]] : memref<4096xf32>
gpu.module @kernels {
  gpu.func @static_2d(%A: memref<64x256xf16>, %C: memref<64x64xf32>, %row: index, %k: index) kernel {
    %c256 = arith.constant 256 : index
    %a = subgroup_matrix.load %A[%row, %k] stride %c256 : memref<64x256xf16> -> !subgroup_matrix.left<16x16xf16>
    %x = memref.load %C[%row, %k] : memref<64x64xf32>
    gpu.return
  }
}

// -----

// Workgroup memory of any shape, and a dynamic outer dimension with static
// strides (memref<?x32xf16>), which becomes a runtime-sized buffer.

// CHECK-LABEL: gpu.func @workgroup_and_dynamic
// CHECK-SAME: (%[[B:.*]]: memref<?xf16>, %[[I:.*]]: index)
// CHECK: %[[WG:.*]] = memref.alloc() : memref<512xf16, #gpu.address_space<workgroup>>
// CHECK: %[[ROWB:.*]] = arith.muli %[[I]], %{{.*}} : index
// CHECK: memref.load %[[B]][%[[ROWB]]] : memref<?xf16>
// CHECK: %[[ROWW:.*]] = arith.muli %[[I]], %{{.*}} : index
// CHECK: %[[LW:.*]] = arith.addi %[[ROWW]], %[[I]] : index
// CHECK: memref.store %{{.*}}, %[[WG]][%[[LW]]] : memref<512xf16, #gpu.address_space<workgroup>>
// CHECK: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK: subgroup_matrix.load %[[WG]][%[[ZERO]]] stride %{{.*}} col_major : memref<512xf16, #gpu.address_space<workgroup>>
gpu.module @kernels {
  gpu.func @workgroup_and_dynamic(%B: memref<?x32xf16>, %i: index) kernel {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %wg = memref.alloc() : memref<16x32xf16, #gpu.address_space<workgroup>>
    %v = memref.load %B[%i, %c0] : memref<?x32xf16>
    memref.store %v, %wg[%i, %i] : memref<16x32xf16, #gpu.address_space<workgroup>>
    %m = subgroup_matrix.load %wg[%c0, %c0] stride %c32 col_major : memref<16x32xf16, #gpu.address_space<workgroup>> -> !subgroup_matrix.right<16x16xf16>
    gpu.return
  }
}

// -----

// A subview folds into the accesses through it (offsets added, strides
// multiplied, a dropped dimension addressed at its offset); then the source
// is flattened. A strided argument keeps its offset and strides in the
// linear index and the length SPIR-V gives it (1024 + 64 * 256).

// CHECK-LABEL: gpu.func @subview_and_strided
// CHECK-SAME: (%[[A:.*]]: memref<16384xf16>, %[[S:.*]]: memref<17408xf32>, %[[I:.*]]: index, %[[J:.*]]: index)
// CHECK-NOT: memref.subview
// CHECK: %[[R:.*]] = arith.addi %[[I]], %[[I]] : index
// CHECK: %[[C16:.*]] = arith.constant 16 : index
// CHECK: %[[C:.*]] = arith.addi %[[C16]], %[[J]] : index
// CHECK: %[[RS:.*]] = arith.muli %[[R]], %{{.*}} : index
// CHECK: %[[L:.*]] = arith.addi %[[RS]], %[[C]] : index
// CHECK: subgroup_matrix.load %[[A]][%[[L]]] stride
// CHECK: %[[SR:.*]] = arith.muli %[[I]], %{{.*}} : index
// CHECK: %[[C1024:.*]] = arith.constant 1024 : index
// CHECK: %[[SO:.*]] = arith.addi %[[C1024]], %[[SR]] : index
// CHECK: %[[SL:.*]] = arith.addi %[[SO]], %[[J]] : index
// CHECK: subgroup_matrix.store %{{.*}}, %[[S]][%[[SL]]] stride
gpu.module @kernels {
  gpu.func @subview_and_strided(%A: memref<64x256xf16>, %S: memref<64x64xf32, strided<[256, 1], offset: 1024>>, %i: index, %j: index) kernel {
    %c256 = arith.constant 256 : index
    %view = memref.subview %A[%i, 16] [32, 64] [1, 1] : memref<64x256xf16> to memref<32x64xf16, strided<[256, 1], offset: ?>>
    %a = subgroup_matrix.load %view[%i, %j] stride %c256 : memref<32x64xf16, strided<[256, 1], offset: ?>> -> !subgroup_matrix.result<16x16xf16>
    %f = subgroup_matrix.convert %a : !subgroup_matrix.result<16x16xf16> -> !subgroup_matrix.result<16x16xf32>
    subgroup_matrix.store %f, %S[%i, %j] stride %c256 : !subgroup_matrix.result<16x16xf32>, memref<64x64xf32, strided<[256, 1], offset: 1024>>
    gpu.return
  }
}

// -----

// A subview of a rank-reducing subview (one plane of a 3-D buffer) folds
// through both: A[2, i + j, 8 + j], element 8192 + (i + j) * 64 + 8 + j.

// CHECK-LABEL: gpu.func @chained_and_rank_reducing
// CHECK-SAME: (%[[A:.*]]: memref<16384xf16>, %[[I:.*]]: index, %[[J:.*]]: index)
// CHECK-NOT: memref.subview
// CHECK: %[[ROW:.*]] = arith.addi %[[I]], %[[J]] : index
// CHECK: %[[C8:.*]] = arith.constant 8 : index
// CHECK: %[[COL:.*]] = arith.addi %[[C8]], %[[J]] : index
// CHECK: %[[C64:.*]] = arith.constant 64 : index
// CHECK: %[[ROWS:.*]] = arith.muli %[[ROW]], %[[C64]] : index
// CHECK: %[[C8192:.*]] = arith.constant 8192 : index
// CHECK: %[[BASE:.*]] = arith.addi %[[C8192]], %[[ROWS]] : index
// CHECK: %[[L:.*]] = arith.addi %[[BASE]], %[[COL]] : index
// CHECK: subgroup_matrix.load %[[A]][%[[L]]] stride
gpu.module @kernels {
  gpu.func @chained_and_rank_reducing(%A: memref<4x64x64xf16>, %i: index, %j: index) kernel {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %plane = memref.subview %A[2, 0, 0] [1, 64, 64] [1, 1, 1]
        : memref<4x64x64xf16> to memref<64x64xf16, strided<[64, 1], offset: 8192>>
    %tile = memref.subview %plane[%i, 8] [16, 16] [1, 1]
        : memref<64x64xf16, strided<[64, 1], offset: 8192>> to memref<16x16xf16, strided<[64, 1], offset: ?>>
    %m = subgroup_matrix.load %tile[%j, %j] stride %c64
        : memref<16x16xf16, strided<[64, 1], offset: ?>> -> !subgroup_matrix.result<16x16xf16>
    subgroup_matrix.store %m, %A[%c0, %c0, %c0] stride %c64
        : !subgroup_matrix.result<16x16xf16>, memref<4x64x64xf16>
    gpu.return
  }
}
