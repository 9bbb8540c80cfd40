// sm-lower-to-vulkan is its stages, in this order, each shown by name.
// RUN: sm-opt %s --sm-lower-to-vulkan=target=nvidia-h100 -mlir-print-ir-after-all -o /dev/null 2>&1 | FileCheck %s
// Running the stages by hand gives the same output as the pipeline.
// RUN: sm-opt %s --sm-lower-to-vulkan="target=nvidia-h100 robust-access=1 emulation=all" -o %t.pipeline.mlir
// RUN: sm-opt %s --pass-pipeline="builtin.module(sm-check-target{target=nvidia-h100 allow-emulation=1}, sm-check-uniformity, sm-attach-vulkan-target{target=nvidia-h100}, sm-normalize-kernel-memory, sm-expand-math, sm-emulate-matrices{robust-access=1 emulation=all}, sm-expand-through-workgroup-memory, sm-pack-wide-accesses, sm-robust-access, sm-hold-bf16-as-bits, sm-convert-kernels-to-spirv, spirv.module(spirv-lower-abi-attrs, sm-mark-shared-accesses-nonprivate, spirv-update-vce, sm-preserve-inf-nan, sm-add-vulkan-capabilities))" -o %t.stages.mlir
// RUN: diff %t.pipeline.mlir %t.stages.mlir

// CHECK: IR Dump After CheckTargetPass (sm-check-target)
// CHECK: IR Dump After CheckUniformityPass (sm-check-uniformity)
// CHECK: IR Dump After AttachVulkanTargetPass (sm-attach-vulkan-target)
// CHECK: IR Dump After NormalizeKernelMemoryPass (sm-normalize-kernel-memory)
// CHECK: IR Dump After ExpandMathPass (sm-expand-math)
// CHECK: IR Dump After EmulateMatricesPass (sm-emulate-matrices)
// CHECK: IR Dump After ExpandThroughWorkgroupMemoryPass (sm-expand-through-workgroup-memory)
// CHECK: IR Dump After PackWideAccessesPass (sm-pack-wide-accesses)
// CHECK: IR Dump After HoldBFloat16AsBitsPass (sm-hold-bf16-as-bits)
// CHECK: IR Dump After ConvertKernelsToSPIRVPass (sm-convert-kernels-to-spirv)
// CHECK: IR Dump After SPIRVLowerABIAttributesPass (spirv-lower-abi-attrs)
// CHECK: IR Dump After MarkSharedAccessesNonPrivatePass (sm-mark-shared-accesses-nonprivate)
// CHECK: IR Dump After SPIRVUpdateVCEPass (spirv-update-vce)
// CHECK: IR Dump After PreserveInfNanPass (sm-preserve-inf-nan)
// CHECK: IR Dump After AddVulkanCapabilitiesPass (sm-add-vulkan-capabilities)
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @copy(%in: memref<?xf16>, %out: memref<256xf16>) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c16 = arith.constant 16 : index
      %m = subgroup_matrix.load %in[%c0] stride %c16
          : memref<?xf16> -> !subgroup_matrix.left<16x16xf16>
      subgroup_matrix.store %m, %out[%c0] stride %c16
          : !subgroup_matrix.left<16x16xf16>, memref<256xf16>
      gpu.return
    }
  }
}
