// Bounded loads and stores on a device with tensor addressing: each is one
// OpCooperativeMatrixLoadTensorNV or OpCooperativeMatrixStoreTensorNV from
// the buffer's first element, through a one-dimensional layout sliced at
// element [0, 0] and a view whose strides and permutation address the rows
// (or columns) and whose clip is the bounds. With nv-coopmat2=false the
// same kernel goes through workgroup memory. Both binaries are valid.
// RUN: sm-opt %s --sm-lower-to-vulkan | sm-translate --serialize-spirv -o %t.spv
// RUN: spirv-val --target-env vulkan1.3 %t.spv
// RUN: spirv-dis %t.spv | FileCheck %s
// RUN: sm-opt %s --sm-lower-to-vulkan="nv-coopmat2=false" | sm-translate --serialize-spirv -o %t.khr.spv
// RUN: spirv-val --target-env vulkan1.3 %t.khr.spv
// RUN: spirv-dis %t.khr.spv | FileCheck %s --check-prefix=KHR

// CHECK-DAG: OpCapability CooperativeMatrixTensorAddressingNV
// CHECK-DAG: OpCapability TensorAddressingNV
// CHECK-DAG: OpExtension "SPV_NV_cooperative_matrix2"
// CHECK-DAG: OpExtension "SPV_NV_tensor_addressing"
// CHECK-NOT: __sm_nv_coopmat2__
// CHECK: %[[LAYOUT:.*]] = OpTypeTensorLayoutNV %uint_1 %uint_0
// CHECK: %[[ROWMAJOR:.*]] = OpTypeTensorViewNV %uint_2 %true %uint_0 %uint_1
// CHECK: %[[COLMAJOR:.*]] = OpTypeTensorViewNV %uint_2 %true %uint_1 %uint_0
// CHECK: %edge = OpFunction
// CHECK: %[[FIRST:.*]] = OpAccessChain %{{.*}} %{{.*}} %uint_0 %uint_0
// CHECK: %[[L0:.*]] = OpCreateTensorLayoutNV %[[LAYOUT]]
// CHECK: %[[L1:.*]] = OpTensorLayoutSetDimensionNV %[[LAYOUT]] %[[L0]] %uint_2147483647
// CHECK: %[[L:.*]] = OpTensorLayoutSliceNV %[[LAYOUT]] %[[L1]] %[[OFFSET:.*]] %uint_2147483647
// CHECK: %[[V0:.*]] = OpCreateTensorViewNV %[[ROWMAJOR]]
// CHECK: %[[V1:.*]] = OpTensorViewSetDimensionNV %[[ROWMAJOR]] %[[V0]] %[[ROWS:.*]] %[[COLUMNS:.*]]
// CHECK: %[[V2:.*]] = OpTensorViewSetStrideNV %[[ROWMAJOR]] %[[V1]] %uint_40 %uint_1
// CHECK: %[[V:.*]] = OpTensorViewSetClipNV %[[ROWMAJOR]] %[[V2]] %uint_0 %[[ROWS]] %uint_0 %[[COLUMNS]]
// CHECK: %[[A:.*]] = OpCooperativeMatrixLoadTensorNV %{{.*}} %[[FIRST]] %{{.*}} %[[L]] NonPrivatePointer TensorView %[[V]]
// CHECK: OpCreateTensorViewNV %[[COLMAJOR]]
// CHECK: OpCooperativeMatrixLoadTensorNV
// CHECK: OpCooperativeMatrixStoreTensorNV %{{.*}} %{{.*}} %{{.*}} NonPrivatePointer TensorView %{{.*}}
// CHECK-NOT: OpControlBarrier
// CHECK: OpFunctionEnd
// CHECK-NOT: OpFunctionCall

// KHR-NOT: Tensor
// KHR: OpControlBarrier
// KHR: OpCooperativeMatrixLoadKHR
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @edge(%in: memref<4096xf16>, %out: memref<4096xf32>, %r: index, %c: index, %i: index) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %s = arith.constant 40 : index
    %a = subgroup_matrix.load %in[%i] stride %s bounds [%r, %c] : memref<4096xf16> -> !subgroup_matrix.left<16x16xf16>
    %b = subgroup_matrix.load %in[%i] stride %s col_major bounds [%c, %r] : memref<4096xf16> -> !subgroup_matrix.right<16x16xf16>
    %d = subgroup_matrix.multiply %a, %b : !subgroup_matrix.left<16x16xf16>, !subgroup_matrix.right<16x16xf16> -> !subgroup_matrix.result<16x16xf32>
    subgroup_matrix.store %d, %out[%i] stride %s bounds [%r, %c] : !subgroup_matrix.result<16x16xf32>, memref<4096xf32>
    gpu.return
  }
}
