// A decode body that uses the kernel's scalar arguments (the tensor's row
// stride and a scale): the decode function loads each from the argument's
// own variable, through the access chain by which the kernel loads it, and
// copies the buffer's variable; the binary is valid.
// RUN: sm-opt %s --sm-lower-to-vulkan | sm-translate --serialize-spirv -o %t.spv
// RUN: spirv-val --target-env vulkan1.3 %t.spv
// RUN: spirv-dis %t.spv | FileCheck %s

// CHECK: OpCooperativeMatrixLoadTensorNV %{{.*}} DecodeFunc %[[DECODE:.*]]
// CHECK: %[[DECODE]] = OpFunction %half None
// CHECK-NEXT: OpFunctionParameter
// CHECK-NEXT: %[[BLOCK:.*]] = OpFunctionParameter
// CHECK-NEXT: OpFunctionParameter
// CHECK-NEXT: OpLabel
// CHECK-NEXT: %[[ROW:.*]] = OpCompositeExtract %uint %[[BLOCK]] 0
// CHECK-NEXT: %[[COLUMN:.*]] = OpCompositeExtract %uint %[[BLOCK]] 1
// CHECK-NEXT: %[[STRIDE_AT:.*]] = OpAccessChain %_ptr_StorageBuffer_uint %scalars_arg_3 %uint_0
// CHECK-NEXT: %[[STRIDE:.*]] = OpLoad %uint %[[STRIDE_AT]]
// CHECK-NEXT: %[[Q:.*]] = OpCopyObject %{{.*}} %scalars_arg_0
// CHECK-NEXT: %[[SCALE_AT:.*]] = OpAccessChain %_ptr_StorageBuffer_float %scalars_arg_4 %uint_0
// CHECK-NEXT: %[[SCALE:.*]] = OpLoad %float %[[SCALE_AT]]
// CHECK-NEXT: %[[START:.*]] = OpIMul %uint %[[ROW]] %[[STRIDE]]
// CHECK-NEXT: OpIAdd %uint %[[START]] %[[COLUMN]]
// CHECK: OpAccessChain %{{.*}} %[[Q]] %uint_0
// CHECK: OpFMul %float %{{.*}} %[[SCALE]]
// CHECK: OpReturnValue
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @scalars(%q: memref<4096xi8>, %out: memref<4096xf16>, %k0: index, %n: index, %scale: f32) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %b = subgroup_matrix.decode_load [%k0, %c0] within [%c64, %n] : !subgroup_matrix.right<16x16xf16> {
    ^bb0(%row: index, %col: index):
      %start = arith.muli %row, %n : index
      %at = arith.addi %start, %col : index
      %byte = memref.load %q[%at] : memref<4096xi8>
      %value = arith.sitofp %byte : i8 to f32
      %scaled = arith.mulf %value, %scale : f32
      %element = arith.truncf %scaled : f32 to f16
      subgroup_matrix.yield %element : f16
    }
    subgroup_matrix.store %b, %out[%c0] stride %c64 : !subgroup_matrix.right<16x16xf16>, memref<4096xf16>
    gpu.return
  }
}
