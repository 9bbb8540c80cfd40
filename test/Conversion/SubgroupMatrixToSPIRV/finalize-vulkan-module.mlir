// RUN: sm-opt %s --pass-pipeline='builtin.module(spirv.module(sm-mark-shared-accesses-nonprivate))' | FileCheck %s --check-prefix=NONPRIVATE
// RUN: sm-opt %s --pass-pipeline='builtin.module(spirv.module(sm-add-vulkan-capabilities))' | FileCheck %s --check-prefix=CAPABILITIES

// Accesses to workgroup and storage-buffer memory are non-private under the
// Vulkan memory model; those to function memory stay plain.

// NONPRIVATE-LABEL: spirv.func @accesses
// NONPRIVATE: spirv.Load "Workgroup" %{{.*}} ["NonPrivatePointer"] : f32
// NONPRIVATE: spirv.Store "Function" %{{.*}}, %{{.*}} : f32
// NONPRIVATE: spirv.Load "Function" %{{.*}} : f32

// The module gets VulkanMemoryModel, and GroupNonUniform for its use of a
// subgroup built-in.

// CAPABILITIES: spirv.module Logical Vulkan requires #spirv.vce<v1.6, [Shader, VulkanMemoryModel, GroupNonUniform], []>
spirv.module Logical Vulkan requires #spirv.vce<v1.6, [Shader], []> {
  spirv.GlobalVariable @tile : !spirv.ptr<!spirv.array<4 x f32>, Workgroup>
  spirv.GlobalVariable @lane built_in("SubgroupLocalInvocationId") : !spirv.ptr<i32, Input>
  spirv.func @accesses() -> f32 "None" {
    %c0 = spirv.Constant 0 : i32
    %private = spirv.Variable : !spirv.ptr<f32, Function>
    %base = spirv.mlir.addressof @tile : !spirv.ptr<!spirv.array<4 x f32>, Workgroup>
    %p = spirv.AccessChain %base[%c0] : !spirv.ptr<!spirv.array<4 x f32>, Workgroup>, i32 -> !spirv.ptr<f32, Workgroup>
    %x = spirv.Load "Workgroup" %p : f32
    spirv.Store "Function" %private, %x : f32
    %y = spirv.Load "Function" %private : f32
    spirv.ReturnValue %y : f32
  }
}

// A memory scope of Device (the atomics that store sub-byte elements) needs
// VulkanMemoryModelDeviceScope under the Vulkan memory model.

// CAPABILITIES: spirv.module Logical Vulkan requires #spirv.vce<v1.6, [Shader, VulkanMemoryModel, VulkanMemoryModelDeviceScope], []>
// NONPRIVATE-LABEL: spirv.func @device_scope_atomic
spirv.module Logical Vulkan requires #spirv.vce<v1.6, [Shader], []> {
  spirv.GlobalVariable @words : !spirv.ptr<!spirv.struct<(!spirv.rtarray<i32, stride=4> [0])>, StorageBuffer>
  spirv.func @device_scope_atomic() "None" {
    %c0 = spirv.Constant 0 : i32
    %mask = spirv.Constant 15 : i32
    %base = spirv.mlir.addressof @words : !spirv.ptr<!spirv.struct<(!spirv.rtarray<i32, stride=4> [0])>, StorageBuffer>
    %p = spirv.AccessChain %base[%c0, %c0] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<i32, stride=4> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<i32, StorageBuffer>
    %old = spirv.AtomicAnd <Device> <AcquireRelease> %p, %mask : !spirv.ptr<i32, StorageBuffer>
    spirv.Return
  }
}

// A cooperative matrix of bf16 needs BFloat16CooperativeMatrixKHR beside the
// BFloat16TypeKHR that spirv-update-vce derives (SPV_KHR_bfloat16; spirv-val
// 2026 refuses the module without it); one of f16 does not.

// CAPABILITIES: spirv.module Logical Vulkan requires #spirv.vce<v1.6, [Shader, CooperativeMatrixKHR, BFloat16TypeKHR, VulkanMemoryModel, BFloat16CooperativeMatrixKHR], [SPV_KHR_cooperative_matrix, SPV_KHR_bfloat16]>
// NONPRIVATE-LABEL: spirv.func @bf16_matrix
spirv.module Logical Vulkan requires #spirv.vce<v1.6, [Shader, CooperativeMatrixKHR, BFloat16TypeKHR], [SPV_KHR_cooperative_matrix, SPV_KHR_bfloat16]> {
  spirv.func @bf16_matrix() "None" {
    %zero = spirv.Constant 0.0 : bf16
    %matrix = spirv.CompositeConstruct %zero : (bf16) -> !spirv.coopmatrix<16x16xbf16, Subgroup, MatrixA>
    spirv.Return
  }
}

// CAPABILITIES: spirv.module Logical Vulkan requires #spirv.vce<v1.6, [Shader, CooperativeMatrixKHR, Float16, VulkanMemoryModel], [SPV_KHR_cooperative_matrix]>
// NONPRIVATE-LABEL: spirv.func @f16_matrix
spirv.module Logical Vulkan requires #spirv.vce<v1.6, [Shader, CooperativeMatrixKHR, Float16], [SPV_KHR_cooperative_matrix]> {
  spirv.func @f16_matrix() "None" {
    %zero = spirv.Constant 0.0 : f16
    %matrix = spirv.CompositeConstruct %zero : (f16) -> !spirv.coopmatrix<16x16xf16, Subgroup, MatrixA>
    spirv.Return
  }
}

// An atomic that orders memory names the memory it orders (Vulkan requires
// a storage-class bit beside AcquireRelease): its pointer's.

// NONPRIVATE-LABEL: spirv.func @ordered_atomic
// NONPRIVATE: spirv.AtomicAnd <Device> <AcquireRelease|UniformMemory>
// NONPRIVATE: spirv.AtomicOr <Workgroup> <AcquireRelease|WorkgroupMemory>
// NONPRIVATE: spirv.AtomicOr <Device> <None>
spirv.module Logical Vulkan requires #spirv.vce<v1.6, [Shader], []> {
  spirv.GlobalVariable @words : !spirv.ptr<!spirv.struct<(!spirv.rtarray<i32, stride=4> [0])>, StorageBuffer>
  spirv.GlobalVariable @shared : !spirv.ptr<!spirv.array<4 x i32>, Workgroup>
  spirv.func @ordered_atomic() "None" {
    %c0 = spirv.Constant 0 : i32
    %mask = spirv.Constant 15 : i32
    %base = spirv.mlir.addressof @words : !spirv.ptr<!spirv.struct<(!spirv.rtarray<i32, stride=4> [0])>, StorageBuffer>
    %p = spirv.AccessChain %base[%c0, %c0] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<i32, stride=4> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<i32, StorageBuffer>
    %old = spirv.AtomicAnd <Device> <AcquireRelease> %p, %mask : !spirv.ptr<i32, StorageBuffer>
    %tile = spirv.mlir.addressof @shared : !spirv.ptr<!spirv.array<4 x i32>, Workgroup>
    %q = spirv.AccessChain %tile[%c0] : !spirv.ptr<!spirv.array<4 x i32>, Workgroup>, i32 -> !spirv.ptr<i32, Workgroup>
    %older = spirv.AtomicOr <Workgroup> <AcquireRelease> %q, %mask : !spirv.ptr<i32, Workgroup>
    %oldest = spirv.AtomicOr <Device> <None> %p, %mask : !spirv.ptr<i32, StorageBuffer>
    spirv.Return
  }
}
