// RUN: not sm-translate --serialize-spirv %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not sm-translate --serialize-spirv --spirv-module=missing %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not sm-translate --emit-intel-spirv %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=INTEL

// Errors about the whole input are one located line each: the module they
// concern is not printed after them (it used to follow in generic form,
// thousands of lines for a lowered program).

// CHECK-NOT: see current operation
// CHECK: error: the input holds 2 spirv.modules; choose one with --spirv-module=NAME: __spv__kernels __spv__kernels (named alike: they come from several input modules
// CHECK-NOT: spirv.module @
// CHECK-NOT: see current operation

// MISSING: error: no spirv.module named 'missing' to serialize; lower the input first
// MISSING-NOT: see current operation

// INTEL: error: expected one gpu.module to translate, found 0
// INTEL-NOT: see current operation
module {
  module {
    spirv.module @__spv__kernels Logical Vulkan requires #spirv.vce<v1.3, [Shader, VulkanMemoryModel], []> {
    }
  }
  module {
    spirv.module @__spv__kernels Logical Vulkan requires #spirv.vce<v1.3, [Shader, VulkanMemoryModel], []> {
    }
  }
}
