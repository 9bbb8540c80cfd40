// RUN: sm-opt %s --sm-lower-to-intel | FileCheck %s
// RUN: sm-opt %s --sm-lower-to-intel | sm-translate --emit-intel-spirv -o %t.spv
// RUN: spirv-val --target-env spv1.4 %t.spv

// Each invocation holds known elements, so a bounded load reads each of its
// elements only where row and column lie inside the bounds (zero
// elsewhere; the guarded element moves as bits), and a bounded store writes
// only those.
// CHECK-LABEL: gpu.func @edge
// CHECK-SAME: (%[[IN:.*]]: memref<4096xf16>, %[[OUT:.*]]: memref<4096xf32>, %[[R:.*]]: index, %[[C:.*]]: index, %[[I:.*]]: index)
// CHECK: %[[LANE:.*]] = gpu.lane_id
// CHECK: %[[ADDRESS:.*]] = arith.addi %[[I]], %[[LANE]] : index
// CHECK: %[[COLUMN_OK:.*]] = arith.cmpi slt, %[[LANE]], %[[C]] : index
// CHECK: %[[ROW_OK:.*]] = arith.cmpi sgt, %[[R]], %{{.*}} : index
// CHECK: %[[INSIDE:.*]] = arith.andi %[[ROW_OK]], %[[COLUMN_OK]] : i1
// CHECK: scf.if %[[INSIDE]] -> (i16) {
// CHECK-NEXT: %[[ELEMENT:.*]] = memref.load %[[IN]][%[[ADDRESS]]] : memref<4096xf16>
// CHECK-NEXT: %[[BITS:.*]] = arith.bitcast %[[ELEMENT]] : f16 to i16
// CHECK-NEXT: scf.yield %[[BITS]] : i16
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %{{.*}} : i16
// CHECK: arith.cmpi slt, %{{.*}}, %[[C]] : index
// CHECK: scf.if %{{[0-9]+}} {
// CHECK-NEXT: memref.store %{{.*}}, %[[OUT]][%{{.*}}] : memref<4096xf32>
// CHECK-NEXT: }
// CHECK-NOT: subgroup_matrix.
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"intel-xe-hpc">} {
  gpu.func @edge(%in: memref<4096xf16>, %out: memref<4096xf32>, %r: index, %c: index, %i: index) kernel attributes {known_block_size = array<i32: 16, 1, 1>} {
    %s = arith.constant 40 : index
    %a = subgroup_matrix.load %in[%i] stride %s bounds [%r, %c] : memref<4096xf16> -> !subgroup_matrix.left<8x16xf16>
    %b = subgroup_matrix.load %in[%i] stride %s bounds [%c, %r] : memref<4096xf16> -> !subgroup_matrix.right<16x16xf16>
    %d = subgroup_matrix.multiply %a, %b : !subgroup_matrix.left<8x16xf16>, !subgroup_matrix.right<16x16xf16> -> !subgroup_matrix.result<8x16xf32>
    subgroup_matrix.store %d, %out[%i] stride %s bounds [%r, %c] : !subgroup_matrix.result<8x16xf32>, memref<4096xf32>
    gpu.return
  }
}
