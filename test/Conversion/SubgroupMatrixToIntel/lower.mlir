// RUN: sm-opt %s -split-input-file --sm-lower-to-intel -canonicalize -cse | FileCheck %s

// Xe-HPC, subgroup 16, f16 into f32: M = 8, K = 16 = N. Each invocation
// holds one column of A (8 x i16), its column of B with two rows per i32
// (VNNI, 8 x i32) and its column of C (8 x f32).
// CHECK-LABEL: gpu.module @hpc_f16
// CHECK: func.func private @_Z45__spirv_SubgroupMatrixMultiplyAccumulateINTELiDv8_sDv8_iDv8_fi(i32, vector<8xi16>, vector<8xi32>, vector<8xf32>, i32) -> vector<8xf32>
// CHECK: gpu.func @k
// CHECK-SAME: intel_reqd_sub_group_size = 16 : i32
// K = 16 (also the shift that packs the second row of B).
// CHECK-DAG: %[[K:.*]] = arith.constant 16 : i32
// The operands say A and B hold packed f16 (0x400 | 0x800).
// CHECK-DAG: %[[OPS:.*]] = arith.constant 3072 : i32
// CHECK: %[[LANE:.*]] = gpu.lane_id
// Row 0 of A, column `lane`: element [lane] (row-major, stride %s).
// CHECK: memref.load %{{.*}}[%[[LANE]]] : memref<?xf16>
// CHECK: %[[A:.*]] = vector.from_elements {{.*}} : vector<8xi16>
// Rows 0 and 1 of B's column `lane`, packed low row first.
// CHECK: %[[B0:.*]] = arith.extui %{{.*}} : i16 to i32
// CHECK: %[[B1:.*]] = arith.extui %{{.*}} : i16 to i32
// CHECK: %[[HI:.*]] = arith.shli %[[B1]], %[[K]] : i32
// CHECK: arith.ori %[[B0]], %[[HI]] : i32
// CHECK: %[[B:.*]] = vector.from_elements {{.*}} : vector<8xi32>
// CHECK: %[[C:.*]] = vector.from_elements {{.*}} : vector<8xf32>
// CHECK: %[[D:.*]] = func.call @_Z45__spirv_SubgroupMatrixMultiplyAccumulateINTELiDv8_sDv8_iDv8_fi(%[[K]], %[[A]], %[[B]], %[[C]], %[[OPS]])
// CHECK: vector.extract %[[D]][0] : f32 from vector<8xf32>
gpu.module @hpc_f16 attributes {subgroup_matrix.target = #subgroup_matrix.target<"intel-xe-hpc">} {
  gpu.func @k(%a: memref<?xf16>, %c: memref<?xf32>, %s: index) kernel attributes {known_block_size = array<i32: 16, 1, 1>} {
    %c0 = arith.constant 0 : index
    %l = subgroup_matrix.load %a[%c0] stride %s : memref<?xf16> -> !subgroup_matrix.left<8x16xf16>
    %r = subgroup_matrix.load %a[%c0] stride %s : memref<?xf16> -> !subgroup_matrix.right<16x16xf16>
    %acc = subgroup_matrix.load %c[%c0] stride %s : memref<?xf32> -> !subgroup_matrix.result<8x16xf32>
    %d = subgroup_matrix.mma %l, %r, %acc : !subgroup_matrix.left<8x16xf16>, !subgroup_matrix.right<16x16xf16> -> !subgroup_matrix.result<8x16xf32>
    subgroup_matrix.store %d, %c[%c0] stride %s : !subgroup_matrix.result<8x16xf32>, memref<?xf32>
    gpu.return
  }
}

// -----

// Xe-HPG, subgroup 8: K = 16 > N = 8, so each invocation packs two columns
// of A into one i32 per row, as IGC requires for DG2; the repeated vector
// type is a substitution (S_) in the mangled name.
// CHECK-LABEL: gpu.module @hpg_f16
// CHECK: func.func private @_Z45__spirv_SubgroupMatrixMultiplyAccumulateINTELiDv8_iS_Dv8_fi(i32, vector<8xi32>, vector<8xi32>, vector<8xf32>, i32) -> vector<8xf32>
// CHECK: gpu.func @k
// CHECK-SAME: intel_reqd_sub_group_size = 8 : i32
gpu.module @hpg_f16 attributes {subgroup_matrix.target = #subgroup_matrix.target<"intel-xe-hpg">} {
  gpu.func @k(%a: memref<?xf16>, %c: memref<?xf32>, %s: index) kernel attributes {known_block_size = array<i32: 8, 1, 1>} {
    %c0 = arith.constant 0 : index
    %l = subgroup_matrix.load %a[%c0] stride %s : memref<?xf16> -> !subgroup_matrix.left<8x16xf16>
    %r = subgroup_matrix.load %a[%c0] stride %s : memref<?xf16> -> !subgroup_matrix.right<16x8xf16>
    %d = subgroup_matrix.multiply %l, %r : !subgroup_matrix.left<8x16xf16>, !subgroup_matrix.right<16x8xf16> -> !subgroup_matrix.result<8x8xf32>
    subgroup_matrix.store %d, %c[%c0] stride %s : !subgroup_matrix.result<8x8xf32>, memref<?xf32>
    gpu.return
  }
}

// -----

// Signed 8-bit: K = 32, two columns of A per i16, four rows of B per i32,
// and the operands add MatrixA/BSignedComponentsINTEL: 0x10|0x20|0x1|0x2.
// A 16-row matrix on a 32-wide N is four instructions (2 chunks x 2 tiles).
// CHECK-LABEL: gpu.module @hpc_int8_split
// CHECK-DAG: arith.constant 51 : i32
// CHECK-DAG: arith.constant 32 : i32
// CHECK-COUNT-4: func.call @_Z45__spirv_SubgroupMatrixMultiplyAccumulateINTELiDv8_sDv8_iS0_i
gpu.module @hpc_int8_split attributes {subgroup_matrix.target = #subgroup_matrix.target<"intel-xe-hpc">} {
  gpu.func @k(%a: memref<?xi8>, %c: memref<?xi32>, %s: index) kernel attributes {known_block_size = array<i32: 16, 1, 1>} {
    %c0 = arith.constant 0 : index
    %l = subgroup_matrix.load %a[%c0] stride %s col_major : memref<?xi8> -> !subgroup_matrix.left<16x32xsi8>
    %r = subgroup_matrix.load %a[%c0] stride %s : memref<?xi8> -> !subgroup_matrix.right<32x32xsi8>
    %d = subgroup_matrix.multiply %l, %r : !subgroup_matrix.left<16x32xsi8>, !subgroup_matrix.right<32x32xsi8> -> !subgroup_matrix.result<16x32xsi32>
    subgroup_matrix.store %d, %c[%c0] stride %s : !subgroup_matrix.result<16x32xsi32>, memref<?xi32>
    gpu.return
  }
}

// -----

// tf32: K = 8 < N = 16, so the rows of each column of A are spread over
// two invocations (4 x f32 each for M = 8); operands MatrixA/BTF32INTEL.
// CHECK-LABEL: gpu.module @hpc_tf32
// CHECK-DAG: arith.constant 768 : i32
// CHECK: func.call @_Z45__spirv_SubgroupMatrixMultiplyAccumulateINTELiDv4_fDv8_fS0_i
gpu.module @hpc_tf32 attributes {subgroup_matrix.target = #subgroup_matrix.target<"intel-xe-hpc">} {
  gpu.func @k(%a: memref<?xf32>, %c: memref<?xf32>, %s: index) kernel attributes {known_block_size = array<i32: 16, 1, 1>} {
    %c0 = arith.constant 0 : index
    %l = subgroup_matrix.load %a[%c0] stride %s : memref<?xf32> -> !subgroup_matrix.left<8x8xf32>
    %r = subgroup_matrix.load %a[%c0] stride %s : memref<?xf32> -> !subgroup_matrix.right<8x16xf32>
    %d = subgroup_matrix.multiply %l, %r : !subgroup_matrix.left<8x8xf32>, !subgroup_matrix.right<8x16xf32> -> !subgroup_matrix.result<8x16xf32>
    subgroup_matrix.store %d, %c[%c0] stride %s : !subgroup_matrix.result<8x16xf32>, memref<?xf32>
    gpu.return
  }
}
