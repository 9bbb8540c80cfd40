// RUN: sm-opt %s --sm-lower-to-vulkan | not sm-translate --serialize-spirv -o /dev/null 2>&1 | FileCheck %s

// A gpu.module without kernels lowers (its functions no kernel calls are
// dropped), but a Vulkan binary needs an entry point: sm-translate says so
// in one line instead of writing a binary spirv-val rejects.
// CHECK: error: spirv.module '__spv__kernels' has no entry point (its gpu.module has no kernel): there is nothing to write for Vulkan
// CHECK-NOT: see current operation
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  func.func @helper(%x: f32) -> f32 {
    %y = arith.addf %x, %x : f32
    return %y : f32
  }
}
