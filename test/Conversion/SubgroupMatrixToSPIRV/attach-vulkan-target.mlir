// RUN: sm-opt %s --sm-attach-vulkan-target=target=nvidia-h100 --split-input-file --verify-diagnostics | FileCheck %s
// RUN: sm-opt %s --sm-attach-vulkan-target=target=cpu-lavapipe --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=LAVAPIPE

// The copy to lower comes first, named as its SPIR-V module will be, with the
// target and the Vulkan target environment; both kernels get the entry-point
// ABI carrying their workgroup size.

// CHECK-LABEL: gpu.module @__spv__kernels
// CHECK-SAME: spirv.target_env = #spirv.target_env<#spirv.vce<v1.6, [Shader, VulkanMemoryModel
// CHECK-SAME: CooperativeMatrixKHR
// CHECK-SAME: subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">
// CHECK: gpu.func @fill
// CHECK-SAME: spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [64, 1, 1]>
// CHECK: gpu.func @helper()
// CHECK-NOT: spirv.entry_point_abi
// CHECK-LABEL: gpu.module @kernels {
// CHECK: gpu.func @fill
// CHECK-SAME: spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [64, 1, 1]>

// LAVAPIPE-LABEL: gpu.module @__spv__kernels
// LAVAPIPE-NOT: CooperativeMatrixKHR
// LAVAPIPE-SAME: subgroup_size = 8
// LAVAPIPE-SAME: subgroup_matrix.target = #subgroup_matrix.target<"cpu-lavapipe">
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @fill(%out: memref<256xf32>) kernel
        attributes {known_block_size = array<i32: 64, 1, 1>} {
      gpu.return
    }
    gpu.func @helper() {
      gpu.return
    }
  }
}

// -----

gpu.module @kernels {
  // expected-error @below {{kernel 'unsized' needs a known workgroup size (known_block_size): a Vulkan compute shader declares its workgroup size}}
  gpu.func @unsized(%out: memref<256xf32>) kernel {
    gpu.return
  }
}

// -----

gpu.module @kernels {
  // expected-error @below {{kernel 'shared' takes argument 0 of type 'memref<256xf32, #gpu.address_space<workgroup>>', which is not in global memory: Vulkan kernel arguments are storage buffers}}
  gpu.func @shared(%tile: memref<256xf32, #gpu.address_space<workgroup>>) kernel
      attributes {known_block_size = array<i32: 32, 1, 1>} {
    gpu.return
  }
}

// -----

// A target environment written on the input is replaced by the target's on
// the copy and removed from the original, so that the later stages, which
// lower the gpu.modules carrying one, leave the original to the host.

// CHECK-LABEL: gpu.module @__spv__written
// CHECK-SAME: spirv.target_env = #spirv.target_env<#spirv.vce<v1.6, [Shader, VulkanMemoryModel
// CHECK-LABEL: gpu.module @written {
gpu.module @written attributes {spirv.target_env = #spirv.target_env<#spirv.vce<v1.0, [Shader], []>, #spirv.resource_limits<>>} {
  gpu.func @fill(%out: memref<256xf32>) kernel
      attributes {known_block_size = array<i32: 32, 1, 1>} {
    gpu.return
  }
}
