// RUN: sm-opt %s --sm-lower-to-intel | FileCheck %s
// RUN: sm-opt %s --sm-lower-to-intel | sm-translate --emit-intel-spirv -o %t.spv
// RUN: spirv-val --target-env spv1.4 %t.spv
// RUN: %if ocloc %{ %ocloc %t.spv pvc | FileCheck %s --check-prefix=OCLOC %}
// Without the request, Xe-HPC has no 32-bit integer matrices.
// RUN: sed 's/, subgroup_matrix.emulate}/}/' %s | not sm-opt --sm-lower-to-intel 2>&1 | FileCheck %s --check-prefix=UNREQUESTED

// A kernel that asks for emulation (the kernel stage marks the products
// chooseProductForm gives the emulated form, here si32 on Xe-HPC) is
// checked against the target's emulation and emulated: scalar
// multiply-adds whose operands come from the other invocations by
// shuffles (OpenCL has no broadcast in MLIR's lowering; a shuffle from one
// lane is one). The kernel beside it keeps the extension's builtin.

// OCLOC: Build succeeded.
// UNREQUESTED: error: '!subgroup_matrix.left<8x16xsi32>' is not supported by target 'intel-xe-hpc'

// CHECK-LABEL: gpu.func @si32_product
// CHECK-SAME: subgroup_matrix.emulated
// CHECK-NOT: subgroup_matrix.
// CHECK-NOT: gpu.subgroup_broadcast
// CHECK-NOT: SubgroupMatrixMultiplyAccumulateINTEL
// CHECK: gpu.shuffle idx
// CHECK: arith.muli
// CHECK: arith.addi
// CHECK: gpu.return
// CHECK-LABEL: gpu.func @si8_product
// CHECK: func.call @_Z45__spirv_SubgroupMatrixMultiplyAccumulateINTEL
module attributes {subgroup_matrix.target = #subgroup_matrix.target<"intel-xe-hpc">} {
  gpu.module @kernels {
    gpu.func @si32_product(%a: memref<128xi32>, %b: memref<256xi32>, %c: memref<128xi32>) kernel
        attributes {known_block_size = array<i32: 16, 1, 1>, subgroup_matrix.emulate} {
      %c0 = arith.constant 0 : index
      %c16 = arith.constant 16 : index
      %l = subgroup_matrix.load %a[%c0] stride %c16 : memref<128xi32> -> !subgroup_matrix.left<8x16xsi32>
      %r = subgroup_matrix.load %b[%c0] stride %c16 : memref<256xi32> -> !subgroup_matrix.right<16x16xsi32>
      %acc = subgroup_matrix.load %c[%c0] stride %c16 : memref<128xi32> -> !subgroup_matrix.result<8x16xsi32>
      %p = subgroup_matrix.mma %l, %r, %acc : !subgroup_matrix.left<8x16xsi32>, !subgroup_matrix.right<16x16xsi32> -> !subgroup_matrix.result<8x16xsi32>
      subgroup_matrix.store %p, %c[%c0] stride %c16 : !subgroup_matrix.result<8x16xsi32>, memref<128xi32>
      gpu.return
    }
    gpu.func @si8_product(%a: memref<256xi8>, %b: memref<512xi8>, %c: memref<128xi32>) kernel
        attributes {known_block_size = array<i32: 16, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c16 = arith.constant 16 : index
      %c32 = arith.constant 32 : index
      %l = subgroup_matrix.load %a[%c0] stride %c32 : memref<256xi8> -> !subgroup_matrix.left<8x32xsi8>
      %r = subgroup_matrix.load %b[%c0] stride %c16 : memref<512xi8> -> !subgroup_matrix.right<32x16xsi8>
      %acc = subgroup_matrix.load %c[%c0] stride %c16 : memref<128xi32> -> !subgroup_matrix.result<8x16xsi32>
      %p = subgroup_matrix.mma %l, %r, %acc : !subgroup_matrix.left<8x32xsi8>, !subgroup_matrix.right<32x16xsi8> -> !subgroup_matrix.result<8x16xsi32>
      subgroup_matrix.store %p, %c[%c0] stride %c16 : !subgroup_matrix.result<8x16xsi32>, memref<128xi32>
      gpu.return
    }
  }
}
