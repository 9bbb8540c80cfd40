// RUN: sm-opt --sm-tile-matmul=target=nvidia-h100 --split-input-file %s | FileCheck %s
// RUN: sm-opt --sm-tile-matmul="target=nvidia-h100 stage-b-transposed=0" --split-input-file %s | FileCheck %s --check-prefix=AS-IS
// RUN: sm-opt --sm-tile-matmul=target=intel-xe-hpc --split-input-file %s | FileCheck %s --check-prefix=INTEL
// RUN: sm-opt --sm-tile-matmul="target=nvidia-h100 stage-b-transposed=1 tile-m=64 tile-n=32 subgroups-m=2 subgroups-n=2" --split-input-file %s | FileCheck %s --check-prefix=FEWER
// (execution.test lowers the transposing copy to SPIR-V and validates it.)

// An 8-bit B given K x N is transposed on its way into workgroup memory
// on the H100 (the default there): each invocation loads blocks of 8 rows
// by 4 bytes, four consecutive invocations down K and then the next four
// across N (a subgroup's loads cover 32 bytes of four rows), and stores
// each of a block's 4 columns as 8 bytes at row `column` of a 128 x
// (64 + 16) buffer, which the right matrices are then read from
// column-major.

// CHECK-LABEL: gpu.func @matmul
// CHECK-SAME: workgroup(%{{.*}} : memref<10240xi8, #gpu.address_space<workgroup>>, %[[BSHARED:.*]] : memref<10240xi8, #gpu.address_space<workgroup>>)
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[GROUP:.*]] = arith.divui %[[TID]], %c4
// CHECK: %[[INGROUP:.*]] = arith.remui %[[TID]], %c4
// CHECK: %[[ROWGROUP:.*]] = arith.divui %[[GROUP]], %c32
// CHECK: %[[GROUPROW:.*]] = arith.muli %[[ROWGROUP]], %c4
// CHECK: %[[BLOCKROW:.*]] = arith.addi %[[GROUPROW]], %[[INGROUP]]
// CHECK: %[[ROW:.*]] = arith.muli %[[BLOCKROW]], %c8
// CHECK: %[[BLOCKCOL:.*]] = arith.remui %[[GROUP]], %c32
// CHECK: %[[COL:.*]] = arith.muli %[[BLOCKCOL]], %c4
// CHECK: %[[COLOFFSET:.*]] = arith.muli %[[COL]], %c80
// CHECK: %[[OFFSET:.*]] = arith.addi %[[COLOFFSET]], %[[ROW]]
// CHECK: scf.for
// CHECK-COUNT-8: vector.load %arg1[%{{.*}}] : memref<8192xi8>, vector<4xi8>
// CHECK: %[[FIRST:.*]] = arith.addi %c0, %[[OFFSET]]
// CHECK: %[[WORDS:.*]] = vector.from_elements %{{.*}}, %{{.*}} : vector<2xi32>
// CHECK: %[[COLUMN:.*]] = vector.bitcast %[[WORDS]] : vector<2xi32> to vector<8xi8>
// CHECK: vector.store %[[COLUMN]], %[[BSHARED]][%[[FIRST]]] : memref<10240xi8, #gpu.address_space<workgroup>>, vector<8xi8>
// CHECK: %[[NEXT:.*]] = arith.addi %[[FIRST]], %c80
// CHECK: vector.store %{{.*}}, %[[BSHARED]][%[[NEXT]]] : memref<10240xi8, #gpu.address_space<workgroup>>, vector<8xi8>
// CHECK: gpu.barrier
// CHECK: subgroup_matrix.load %[[BSHARED]][%{{.*}}] stride %c80 col_major : memref<10240xi8, #gpu.address_space<workgroup>> -> !subgroup_matrix.right<32x16xsi8>

// Staged as it is: 16-byte rows, right matrices read row-major.
// AS-IS-LABEL: gpu.func @matmul
// AS-IS-NOT: vector<8xi8>
// AS-IS: vector.load %arg1[%{{.*}}] : memref<8192xi8>, vector<16xi8>
// AS-IS-NOT: col_major
// AS-IS: subgroup_matrix.load %{{.*}} stride %c144 : memref<9216xi8, #gpu.address_space<workgroup>> -> !subgroup_matrix.right<32x16xsi8>

// A 64x32 tile of B is 64 blocks for 128 invocations: those past the last
// block load it again and store nothing.
// FEWER-LABEL: gpu.func @matmul
// FEWER: %[[TID:.*]] = gpu.thread_id x
// FEWER: %[[ACTIVE:.*]] = arith.cmpi ult, %[[TID]], %c64
// FEWER: %[[BLOCK:.*]] = arith.minui %[[TID]], %c63
// FEWER: arith.remui %[[BLOCK]], %c4
// FEWER: scf.for
// FEWER-COUNT-8: vector.load %arg1
// FEWER: scf.if %[[ACTIVE]] {
// FEWER-COUNT-4: vector.store %{{.*}} : memref<2560xi8, #gpu.address_space<workgroup>>, vector<8xi8>
// FEWER-NEXT: }
// FEWER: gpu.barrier

// Only the H100 transposes by default.
// INTEL-LABEL: gpu.func @matmul
// INTEL-NOT: col_major
// INTEL: gpu.return

func.func @int8(%a: memref<128x64xi8>, %b: memref<64x128xi8>, %c: memref<128x128xi32>) {
  linalg.matmul ins(%a, %b : memref<128x64xi8>, memref<64x128xi8>) outs(%c : memref<128x128xi32>)
  return
}

// -----

// A decode step (M of 8) streams B with wide copies instead.

// CHECK-LABEL: gpu.func @matmul
// CHECK-NOT: vector<8xi8>
// CHECK: vector.load %arg1[%{{.*}}] : memref<{{.*}}xi8>, vector<16xi8>
// CHECK-NOT: col_major
// CHECK: gpu.return
func.func @decode(%a: memref<8x256xi8>, %b: memref<256x512xi8>, %c: memref<8x512xi32>) {
  linalg.matmul ins(%a, %b : memref<8x256xi8>, memref<256x512xi8>) outs(%c : memref<8x512xi32>)
  return
}
