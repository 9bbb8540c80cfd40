// A reduction across the columns of a left matrix reads elements of a
// 32-component per-invocation vector at indices known only at run time.
// LLVM 22's SPIR-V backend spills such a vector into a Function variable
// decorated with an Alignment read from uninitialized memory (a different
// binary every run); the translation reads 16-component chunks instead.
// The binary is valid, has no Function variables, and is the same each time.
// RUN: sm-opt %s --sm-lower-to-intel | sm-translate --emit-intel-spirv -o %t.first.spv
// RUN: sm-opt %s --sm-lower-to-intel | sm-translate --emit-intel-spirv -o %t.second.spv
// RUN: cmp %t.first.spv %t.second.spv
// RUN: spirv-val --target-env spv1.4 %t.first.spv
// RUN: spirv-dis %t.first.spv | FileCheck %s
// RUN: %if ocloc %{ %ocloc %t.first.spv pvc | FileCheck %s --check-prefix=OCLOC %}

// CHECK-NOT: Alignment
// CHECK-NOT: OpVariable %{{.*}} Function
// CHECK: OpFunction
// CHECK-NOT: OpVariable %{{.*}} Function
// CHECK: OpVectorExtractDynamic
// CHECK: OpSelect
// CHECK: OpFunctionEnd

// OCLOC: Build succeeded.
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"intel-xe-hpc">} {
  gpu.func @reduce_max_columns(%in: memref<1024xi8>, %out: memref<1024xi8>) kernel
      attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %c256 = arith.constant 256 : index
    %workgroup = gpu.block_id x
    %subgroup = gpu.subgroup_id : index
    %first = arith.muli %workgroup, %c2 : index
    %tile = arith.addi %first, %subgroup : index
    %offset = arith.muli %tile, %c256 : index
    %x = subgroup_matrix.load %in[%offset] stride %c32
        : memref<1024xi8> -> !subgroup_matrix.left<8x32xsi8>
    %y = subgroup_matrix.reduce max columns %x : !subgroup_matrix.left<8x32xsi8>
    subgroup_matrix.store %y, %out[%offset] stride %c32
        : !subgroup_matrix.left<8x32xsi8>, memref<1024xi8>
    gpu.return
  }
}
