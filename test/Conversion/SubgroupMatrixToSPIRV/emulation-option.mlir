// RUN: sm-opt %s --sm-lower-to-vulkan=emulation=unsupported | FileCheck %s
// RUN: sm-opt %s --sm-lower-to-vulkan=emulation=unsupported | sm-translate --serialize-spirv -o %t.spv
// RUN: spirv-val --target-env vulkan1.3 %t.spv
// RUN: sm-opt %s --sm-lower-to-vulkan=emulation=all | FileCheck %s --check-prefix=ALL
// RUN: sm-opt %s --sm-lower-to-vulkan="emulation=all emulated-exchange=workgroup" | FileCheck %s --check-prefix=ALL
// RUN: sm-opt %s --sm-lower-to-vulkan="emulation=all emulated-exchange=subgroup" | FileCheck %s --check-prefix=SUBGROUP
// RUN: sm-opt %s --sm-lower-to-vulkan="emulation=all emulated-exchange=subgroup" | sm-translate --serialize-spirv -o %t.subgroup.spv
// RUN: spirv-val --target-env vulkan1.3 %t.subgroup.spv
// RUN: sm-opt %s --sm-lower-to-vulkan=target=cpu-lavapipe | FileCheck %s --check-prefix=LAVAPIPE
// Without the option the device rejects the 24x16 matrices (24 is no multiple of its flexible granularity, 16), as a driver would.
// RUN: not sm-opt %s --sm-lower-to-vulkan 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: not sm-opt %s --sm-lower-to-vulkan=emulation=some 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// On a target with matrix units, emulation=unsupported emulates the whole
// of each kernel that uses a shape the device lacks and leaves the others
// on the cooperative-matrix path; emulation=all emulates every kernel. The
// emulated operands go through workgroup memory there by default
// (emulated-exchange=auto), by shuffles with emulated-exchange=subgroup
// and on targets without matrix units.

// NONE: error: '!subgroup_matrix.left<24x16xf16>' is not supported by target 'nvidia-h100'
// NONE-NOT: spirv.module
// UNKNOWN: error: unknown emulation 'some'; expected 'none', 'unsupported' or 'all'

// CHECK: spirv.module @__spv__kernels
// CHECK-SAME: CooperativeMatrixKHR
// CHECK-LABEL: spirv.func @native
// CHECK: spirv.KHR.CooperativeMatrixMulAdd
// CHECK-NOT: spirv.Load "Workgroup"
// CHECK: spirv.Return
// CHECK-LABEL: spirv.func @wide
// CHECK-NOT: spirv.KHR.CooperativeMatrix
// CHECK-NOT: spirv.GroupNonUniformShuffle
// CHECK: spirv.ControlBarrier <Subgroup>, <Subgroup>
// CHECK: spirv.Load "Workgroup"
// CHECK: spirv.FMul
// CHECK-NOT: spirv.KHR.CooperativeMatrix
// CHECK-NOT: spirv.GroupNonUniformShuffle
// CHECK: spirv.Return

// ALL-LABEL: spirv.func @native
// ALL-NOT: spirv.KHR.CooperativeMatrix
// ALL-NOT: spirv.GroupNonUniformShuffle
// ALL: spirv.Load "Workgroup"
// ALL-LABEL: spirv.func @wide
// ALL-NOT: spirv.KHR.CooperativeMatrix
// ALL-NOT: spirv.GroupNonUniformShuffle
// ALL: spirv.Load "Workgroup"

// SUBGROUP-LABEL: spirv.func @native
// SUBGROUP-NOT: spirv.Load "Workgroup"
// SUBGROUP: spirv.GroupNonUniformShuffle <Subgroup>
// SUBGROUP-LABEL: spirv.func @wide
// SUBGROUP-NOT: spirv.Load "Workgroup"
// SUBGROUP: spirv.GroupNonUniformShuffle <Subgroup>

// On lavapipe's subgroups of 8 each invocation holds whole columns, so the
// left operand's elements come by broadcast.
// LAVAPIPE-LABEL: spirv.func @native
// LAVAPIPE-NOT: spirv.Load "Workgroup"
// LAVAPIPE: spirv.GroupNonUniformBroadcast <Subgroup>
// LAVAPIPE-LABEL: spirv.func @wide
// LAVAPIPE-NOT: spirv.Load "Workgroup"
// LAVAPIPE: spirv.GroupNonUniformBroadcast <Subgroup>
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @native(%a: memref<1024xf16>, %c: memref<1024xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %l = subgroup_matrix.load %a[%c0] stride %c16 : memref<1024xf16> -> !subgroup_matrix.left<16x16xf16>
    %r = subgroup_matrix.load %a[%c0] stride %c16 : memref<1024xf16> -> !subgroup_matrix.right<16x16xf16>
    %d = subgroup_matrix.multiply %l, %r : !subgroup_matrix.left<16x16xf16>, !subgroup_matrix.right<16x16xf16> -> !subgroup_matrix.result<16x16xf32>
    subgroup_matrix.store %d, %c[%c0] stride %c16 : !subgroup_matrix.result<16x16xf32>, memref<1024xf32>
    gpu.return
  }
  gpu.func @wide(%a: memref<1024xf16>, %c: memref<1024xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %l = subgroup_matrix.load %a[%c0] stride %c16 : memref<1024xf16> -> !subgroup_matrix.left<24x16xf16>
    %r = subgroup_matrix.load %a[%c0] stride %c16 : memref<1024xf16> -> !subgroup_matrix.right<16x16xf16>
    %d = subgroup_matrix.multiply %l, %r : !subgroup_matrix.left<24x16xf16>, !subgroup_matrix.right<16x16xf16> -> !subgroup_matrix.result<24x16xf32>
    subgroup_matrix.store %d, %c[%c0] stride %c16 : !subgroup_matrix.result<24x16xf32>, memref<1024xf32>
    gpu.return
  }
}
