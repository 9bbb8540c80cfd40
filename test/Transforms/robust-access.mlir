// RUN: sm-opt %s --sm-robust-access | FileCheck %s
// RUN: sm-opt %s --sm-lower-to-vulkan=robust-access=1 | sm-translate --serialize-spirv -o %t.spv
// RUN: spirv-val --target-env vulkan1.3 %t.spv
// RUN: %if radv %{ %radv %t.spv 2>&1 | FileCheck %s --check-prefix=RADV %}

// RADV: pipeline: created

gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"amd-rdna3">} {
  // A runtime-sized buffer is bounded by the lengths argument the kernel
  // gains; a static one by its shape.
  // CHECK-LABEL: gpu.func @guarded
  // CHECK-SAME: (%[[A:.*]]: memref<?xf16>, %[[C:.*]]: memref<256xf32>, %[[OFF:.*]]: index, %[[S:.*]]: index, %[[LENGTHS:.*]]: memref<?xi32>)
  gpu.func @guarded(%a: memref<?xf16>, %c: memref<256xf32>, %off: index, %s: index) kernel
      attributes {known_block_size = array<i32: 32, 1, 1>} {
    // CHECK: %[[RAW:.*]] = memref.load %[[LENGTHS]][%{{.*}}] : memref<?xi32>
    // CHECK: %[[LEN:.*]] = arith.index_castui %[[RAW]] : i32 to index
    // CHECK: %[[FITS:.*]] = arith.cmpi ule, %{{.*}}, %[[LEN]] : index
    // CHECK: %[[AVAIL:.*]] = arith.subi %[[LEN]], %{{.*}} : index
    // CHECK: arith.cmpi ule
    // CHECK: %[[REST:.*]] = arith.subi %[[AVAIL]], %{{.*}} : index
    // CHECK: %[[MAX:.*]] = arith.divui %[[REST]], %{{.*}} : index
    // CHECK: arith.cmpi ule, %[[S]], %[[MAX]] : index
    // CHECK: %[[OK:.*]] = arith.andi
    // CHECK: %[[M:.*]] = scf.if %[[OK]] -> (!subgroup_matrix.left<16x16xf16>) {
    // CHECK:   %[[L:.*]] = subgroup_matrix.load %[[A]][%[[OFF]]] stride %[[S]]
    // CHECK:   scf.yield %[[L]]
    // CHECK: } else {
    // CHECK:   %[[ZERO:.*]] = arith.constant 0.000000e+00 : f16
    // CHECK:   %[[Z:.*]] = subgroup_matrix.splat %[[ZERO]] : f16 -> !subgroup_matrix.left<16x16xf16>
    // CHECK:   scf.yield %[[Z]]
    %l = subgroup_matrix.load %a[%off] stride %s : memref<?xf16> -> !subgroup_matrix.left<16x16xf16>
    %r = subgroup_matrix.load %a[%off] stride %s col_major : memref<?xf16> -> !subgroup_matrix.right<16x16xf16>
    %d = subgroup_matrix.multiply %l, %r : !subgroup_matrix.left<16x16xf16>, !subgroup_matrix.right<16x16xf16> -> !subgroup_matrix.result<16x16xf32>
    // CHECK: arith.constant 256 : index
    // CHECK: scf.if %{{.*}} {
    // CHECK-NEXT: subgroup_matrix.store %{{.*}}, %[[C]][%[[OFF]]] stride %[[S]]
    // CHECK-NEXT: }
    subgroup_matrix.store %d, %c[%off] stride %s : !subgroup_matrix.result<16x16xf32>, memref<256xf32>
    gpu.return
  }
}
