// RUN: sm-opt %s --sm-lower-to-vulkan=emulated-exchange=workgroup | FileCheck %s
// RUN: sm-opt %s --sm-lower-to-vulkan="target=nvidia-h100 emulation=all emulated-exchange=workgroup" | FileCheck %s --check-prefix=GPU
// RUN: sm-opt %s --sm-lower-to-vulkan="target=nvidia-h100 emulation=all emulated-exchange=workgroup" | sm-translate --serialize-spirv -o %t.gpu.spv
// RUN: spirv-val --target-env vulkan1.3 %t.gpu.spv
// RUN: sm-opt %s --sm-lower-to-vulkan=emulated-exchange=workgroup | sm-translate --serialize-spirv -o %t.spv
// RUN: spirv-val --target-env vulkan1.3 %t.spv
// RUN: %if lavapipe %{ %lavapipe %t.spv --arg f16:256:random --arg f16:256:random --arg f32:256:random \
// RUN:   --check gemm:M=16,N=16,K=16,A=0,B=1,C=2,acc=2 | FileCheck %s --check-prefix=EXECUTED %}
// RUN: not sm-opt %s --sm-lower-to-vulkan=emulated-exchange=shared 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// The emulated mma's left operand through workgroup memory instead of
// subgroup broadcasts: each invocation writes its elements (as 32-bit words
// of the compute type) into its subgroup's region of a scratch buffer,
// between subgroup barriers, and reads the elements of its rows back. Four
// subgroups of 8 (known_block_size 32; every subgroup computes the same
// product), 256 words each.

// CHECK-LABEL: spirv.module @__spv__kernels
// CHECK: spirv.GlobalVariable @{{.*}} : !spirv.ptr<!spirv.struct<(!spirv.array<1024 x i32>)>, Workgroup>
// CHECK-LABEL: spirv.func @mma
// CHECK-NOT: spirv.GroupNonUniformBroadcast
// CHECK: spirv.ControlBarrier <Subgroup>, <Subgroup>, <AcquireRelease|WorkgroupMemory>
// CHECK: %[[WORD:.*]] = spirv.Bitcast %{{.*}} : f32 to i32
// CHECK: spirv.Store "Workgroup" %{{.*}}, %[[WORD]] ["NonPrivatePointer"] : i32
// CHECK: spirv.ControlBarrier <Subgroup>, <Subgroup>, <AcquireRelease|WorkgroupMemory>
// CHECK: %[[READ:.*]] = spirv.Load "Workgroup" %{{.*}} : i32
// CHECK: spirv.Bitcast %[[READ]] : i32 to f32
// CHECK-NOT: spirv.GroupNonUniformBroadcast
// CHECK: spirv.Return
// The same when a GPU with matrix units emulates (subgroups of 32).
// GPU-LABEL: spirv.func @mma
// GPU-NOT: spirv.KHR.CooperativeMatrix
// GPU: spirv.ControlBarrier <Subgroup>, <Subgroup>, <AcquireRelease|WorkgroupMemory>
// EXECUTED: check gemm 16x16x16 (C = argument 2, f32): PASSED: 256 elements, 0 mismatches
// UNKNOWN: error: unknown emulated-exchange 'shared'; expected 'auto', 'subgroup' or 'workgroup'
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"cpu-lavapipe">} {
  gpu.func @mma(%a: memref<256xf16>, %b: memref<256xf16>, %c: memref<256xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %l = subgroup_matrix.load %a[%c0] stride %c16 : memref<256xf16> -> !subgroup_matrix.left<16x16xf16>
    %r = subgroup_matrix.load %b[%c0] stride %c16 : memref<256xf16> -> !subgroup_matrix.right<16x16xf16>
    %acc = subgroup_matrix.load %c[%c0] stride %c16 : memref<256xf32> -> !subgroup_matrix.result<16x16xf32>
    %d = subgroup_matrix.mma %l, %r, %acc : !subgroup_matrix.left<16x16xf16>, !subgroup_matrix.right<16x16xf16> -> !subgroup_matrix.result<16x16xf32>
    subgroup_matrix.store %d, %c[%c0] stride %c16 : !subgroup_matrix.result<16x16xf32>, memref<256xf32>
    gpu.return
  }
}
