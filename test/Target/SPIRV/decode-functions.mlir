// Decode loads on a device with tensor addressing and block loads: each is
// one OpCooperativeMatrixLoadTensorNV through a two-dimensional layout of
// the decoded tensor's bounds (clamp mode Constant: zeros outside, not
// decoded), sliced at the tile, with the op's body as the DecodeFunc. The
// function takes the pointer, block coordinates and coordinates in the block
// that the extension passes; the row and column are the block coordinates
// (blocks of one element), and the buffers it reads are the kernel's
// variables. With nv-coopmat2=false each invocation decodes its elements
// into workgroup memory instead. Both binaries are valid.
// RUN: sm-opt %s --sm-lower-to-vulkan | sm-translate --serialize-spirv -o %t.spv
// RUN: spirv-val --target-env vulkan1.3 %t.spv
// RUN: spirv-dis %t.spv | FileCheck %s
// RUN: sm-opt %s --sm-lower-to-vulkan="nv-coopmat2=false" | sm-translate --serialize-spirv -o %t.khr.spv
// RUN: spirv-val --target-env vulkan1.3 %t.khr.spv
// RUN: spirv-dis %t.khr.spv | FileCheck %s --check-prefix=KHR

// CHECK-DAG: OpCapability CooperativeMatrixTensorAddressingNV
// CHECK-DAG: OpCapability TensorAddressingNV
// CHECK-DAG: OpCapability CooperativeMatrixBlockLoadsNV
// CHECK-DAG: OpCapability PhysicalStorageBufferAddresses
// CHECK-DAG: OpExtension "SPV_NV_cooperative_matrix2"
// CHECK-DAG: OpExtension "SPV_NV_tensor_addressing"
// CHECK: OpMemoryModel PhysicalStorageBuffer64 Vulkan
// CHECK-NOT: __sm_nv_coopmat2__
// CHECK: OpDecorate %[[POINTER:.*]] Aliased
// CHECK: %[[LAYOUT:.*]] = OpTypeTensorLayoutNV %uint_2 %uint_1
// CHECK: %[[BYTE_POINTER:.*]] = OpTypePointer PhysicalStorageBuffer %uchar
// CHECK: %[[COORDINATES:.*]] = OpTypeArray %uint %uint_2
// CHECK: %[[DECODE_TYPE:.*]] = OpTypeFunction %half %[[BYTE_POINTER]] %[[COORDINATES]] %[[COORDINATES]]
// CHECK: %dequantize = OpFunction
// CHECK: %[[FIRST:.*]] = OpAccessChain %{{.*}} %[[WEIGHTS:dequantize_arg_0]] %uint_0 %uint_0
// CHECK: %[[L0:.*]] = OpCreateTensorLayoutNV %[[LAYOUT]]
// CHECK: %[[L1:.*]] = OpTensorLayoutSetDimensionNV %[[LAYOUT]] %[[L0]] %[[K:.*]] %uint_64
// CHECK: %[[L:.*]] = OpTensorLayoutSliceNV %[[LAYOUT]] %[[L1]] %[[K0:.*]] %uint_16 %[[N0:.*]] %uint_16
// CHECK: %[[B:.*]] = OpCooperativeMatrixLoadTensorNV %{{.*}} %[[FIRST]] %{{.*}} %[[L]] NonPrivatePointer DecodeFunc %[[DECODE:.*]]
// CHECK: OpCooperativeMatrixStoreKHR %{{.*}} %[[B]]
// CHECK-NOT: OpControlBarrier
// CHECK: OpFunctionEnd
// CHECK: %[[DECODE]] = OpFunction %half None %[[DECODE_TYPE]]
// CHECK-NEXT: %[[POINTER]] = OpFunctionParameter %[[BYTE_POINTER]]
// CHECK-NEXT: %[[BLOCK:.*]] = OpFunctionParameter %[[COORDINATES]]
// CHECK-NEXT: OpFunctionParameter %[[COORDINATES]]
// CHECK-NEXT: OpLabel
// CHECK-NEXT: %[[ROW:.*]] = OpCompositeExtract %uint %[[BLOCK]] 0
// CHECK-NEXT: %[[COLUMN:.*]] = OpCompositeExtract %uint %[[BLOCK]] 1
// CHECK-NEXT: %[[Q:.*]] = OpCopyObject %{{.*}} %[[WEIGHTS]]
// CHECK-NEXT: %[[SCALES:.*]] = OpCopyObject %{{.*}} %dequantize_arg_1
// CHECK: OpIMul %uint %[[ROW]] %uint_64
// CHECK: OpAccessChain %{{.*}} %[[Q]] %uint_0
// CHECK: OpConvertSToF %half
// CHECK: OpAccessChain %{{.*}} %[[SCALES]] %uint_0 %[[COLUMN]]
// CHECK: OpFMul %half
// CHECK: OpReturnValue
// CHECK-NOT: OpFunctionCall

// KHR-NOT: Tensor
// KHR-NOT: PhysicalStorageBuffer
// KHR: OpControlBarrier
// KHR: OpCooperativeMatrixLoadKHR
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @dequantize(%q: memref<4096xi8>, %scale: memref<64xf16>, %out: memref<4096xf16>, %k0: index, %n0: index, %k: index) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %n = arith.constant 64 : index
    %b = subgroup_matrix.decode_load [%k0, %n0] within [%k, %n]
        : !subgroup_matrix.right<16x16xf16> {
    ^bb0(%row: index, %col: index):
      %rowStart = arith.muli %row, %n : index
      %at = arith.addi %rowStart, %col : index
      %byte = memref.load %q[%at] : memref<4096xi8>
      %value = arith.sitofp %byte : i8 to f16
      %s = memref.load %scale[%col] : memref<64xf16>
      %scaled = arith.mulf %value, %s : f16
      subgroup_matrix.yield %scaled : f16
    }
    subgroup_matrix.store %b, %out[%c0] stride %n
        : !subgroup_matrix.right<16x16xf16>, memref<4096xf16>
    gpu.return
  }
}
