// RUN: not sm-opt %s --sm-check-target 2>&1 | FileCheck %s
// RUN: not sm-opt %s --sm-lower-to-vulkan 2>&1 | FileCheck %s

// A kernel-level error is one located line: the kernel printed in generic
// form after it (35 lines for a small kernel) used to bury it.
// CHECK: error: kernel 'k' uses subgroup matrices with a workgroup size x of 48, which is not a multiple of the subgroup size 32 of target 'nvidia-h100'
// CHECK-NOT: see current operation
// CHECK-NOT: "gpu.func"

gpu.module @h100_workgroup attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @k(%a: memref<?xf16>, %s: index) kernel attributes {known_block_size = array<i32: 48, 1, 1>} {
    %c0 = arith.constant 0 : index
    %l = subgroup_matrix.load %a[%c0] stride %s : memref<?xf16> -> !subgroup_matrix.left<16x16xf16>
    %r = subgroup_matrix.load %a[%c0] stride %s : memref<?xf16> -> !subgroup_matrix.right<16x16xf16>
    %z = arith.constant 0.0 : f32
    %c = subgroup_matrix.splat %z : f32 -> !subgroup_matrix.result<16x16xf32>
    %d = subgroup_matrix.mma %l, %r, %c : !subgroup_matrix.left<16x16xf16>, !subgroup_matrix.right<16x16xf16> -> !subgroup_matrix.result<16x16xf32>
    gpu.return
  }
}
