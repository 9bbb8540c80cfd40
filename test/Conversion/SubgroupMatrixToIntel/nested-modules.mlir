// RUN: sm-opt %s -split-input-file --sm-linalg-to-gpu=target=intel-xe-hpc | sm-opt --sm-lower-to-intel | FileCheck %s --check-prefix=INTEL
// RUN: sm-opt %s -split-input-file --sm-linalg-to-gpu=target=cpu-lavapipe | sm-opt --sm-lower-to-vulkan | FileCheck %s --check-prefix=VULKAN

// The output of `sm-opt -split-input-file` piped into another sm-opt is one
// module holding each case's module: the kernel lowerings take the
// gpu.modules wherever they sit (they used to lower nothing and succeed).

// INTEL: gpu.func @matmul_0{{.*}}intel_reqd_sub_group_size = 16 : i32
// INTEL-NOT: subgroup_matrix.mma
// INTEL: gpu.func @matmul_0{{.*}}intel_reqd_sub_group_size = 16 : i32
// INTEL-NOT: subgroup_matrix.mma

// VULKAN-COUNT-2: spirv.module @__spv__kernels

func.func @first(%a: memref<64x64xf16>, %b: memref<64x64xf16>, %c: memref<64x64xf32>) {
  linalg.matmul ins(%a, %b : memref<64x64xf16>, memref<64x64xf16>) outs(%c : memref<64x64xf32>)
  return
}

// -----

func.func @second(%a: memref<32x128xf16>, %b: memref<128x64xf16>, %c: memref<32x64xf32>) {
  linalg.matmul ins(%a, %b : memref<32x128xf16>, memref<128x64xf16>) outs(%c : memref<32x64xf32>)
  return
}
