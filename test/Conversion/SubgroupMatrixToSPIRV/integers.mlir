// RUN: sm-opt %s --sm-lower-to-vulkan | FileCheck %s
// RUN: sm-opt %s --sm-lower-to-vulkan | sm-translate --serialize-spirv -o %t.spv
// RUN: spirv-val --target-env vulkan1.3 %t.spv
// RUN: %if radv %{ %radv %t.spv --entry signed 2>&1 | FileCheck %s --check-prefix=RADV-SIGNED %}
// RUN: %if radv %{ %radv %t.spv --entry unsigned 2>&1 | FileCheck %s --check-prefix=RADV-UNSIGNED %}

// Signed components must say so in OpCooperativeMatrixMulAddKHR, or the
// device zero-extends them; 8-bit scalars are clamped to the component's
// range before they are narrowed.

// CHECK-LABEL: spirv.module @__spv__int8
// CHECK-SAME: Int8
// CHECK-SAME: StorageBuffer8BitAccess
// CHECK: spirv.func @signed
gpu.module @int8 attributes {subgroup_matrix.target = #subgroup_matrix.target<"amd-rdna3">} {
  gpu.func @signed(%a: memref<512xi8>, %c: memref<256xi32>, %s: index, %v: i32) kernel
      attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    // CHECK: %[[L:.*]] = spirv.KHR.CooperativeMatrixLoad {{.*}} -> !spirv.coopmatrix<16x16xi8, Subgroup, MatrixA>
    %l = subgroup_matrix.load %a[%c0] stride %c16 : memref<512xi8> -> !subgroup_matrix.left<16x16xsi8>
    // CHECK: %[[R:.*]] = spirv.KHR.CooperativeMatrixLoad {{.*}} -> !spirv.coopmatrix<16x16xi8, Subgroup, MatrixB>
    %r = subgroup_matrix.load %a[%c16] stride %s col_major : memref<512xi8> -> !subgroup_matrix.right<16x16xsi8>
    // A constant i32 of 300 clamps to 127 for si8; the accumulator is si32.
    // CHECK: %[[ACC:.*]] = spirv.Constant dense<-7> : !spirv.coopmatrix<16x16xi32, Subgroup, MatrixAcc>
    %minus7 = arith.constant -7 : i32
    %acc = subgroup_matrix.splat %minus7 : i32 -> !subgroup_matrix.result<16x16xsi32>
    // CHECK: %[[D:.*]] = spirv.KHR.CooperativeMatrixMulAdd %[[L]], %[[R]], %[[ACC]], <ASigned|BSigned|CSigned|ResultSigned>
    %d = subgroup_matrix.mma %l, %r, %acc : !subgroup_matrix.left<16x16xsi8>, !subgroup_matrix.right<16x16xsi8> -> !subgroup_matrix.result<16x16xsi32>
    // CHECK: %[[BIAS:.*]] = spirv.CompositeConstruct %{{.*}} : (i32) -> !spirv.coopmatrix<16x16xi32, Subgroup, MatrixAcc>
    // CHECK: spirv.IAdd %[[D]], %[[BIAS]]
    %e = subgroup_matrix.scalar_add %d, %v : !subgroup_matrix.result<16x16xsi32>, i32
    // CHECK: spirv.ISub
    %f = subgroup_matrix.scalar_sub %e, %v : !subgroup_matrix.result<16x16xsi32>, i32
    // CHECK: spirv.IMul
    %g = subgroup_matrix.scalar_mul %f, %v : !subgroup_matrix.result<16x16xsi32>, i32
    subgroup_matrix.store %g, %c[%c0] stride %c16 : !subgroup_matrix.result<16x16xsi32>, memref<256xi32>
    // An 8-bit matrix scaled by a run-time scalar: clamp to [-128, 127], then
    // narrow.
    // CHECK: %[[CLAMPED:.*]] = spirv.GL.SClamp %{{.*}}, %{{.*}}, %{{.*}} : i32
    // CHECK: %[[NARROW:.*]] = spirv.SConvert %[[CLAMPED]] : i32 to i8
    // CHECK: %[[SPLAT:.*]] = spirv.CompositeConstruct %[[NARROW]] : (i8) -> !spirv.coopmatrix<16x16xi8, Subgroup, MatrixA>
    // CHECK: spirv.IMul %[[L]], %[[SPLAT]] : !spirv.coopmatrix<16x16xi8, Subgroup, MatrixA>
    %scaled = subgroup_matrix.scalar_mul %l, %v : !subgroup_matrix.left<16x16xsi8>, i32
    subgroup_matrix.store %scaled, %a[%c0] stride %c16 : !subgroup_matrix.left<16x16xsi8>, memref<512xi8>
    gpu.return
  }

  // CHECK: spirv.func @unsigned
  gpu.func @unsigned(%a: memref<512xi8>, %c: memref<256xi32>, %v: i32) kernel
      attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %l = subgroup_matrix.load %a[%c0] stride %c16 : memref<512xi8> -> !subgroup_matrix.left<16x16xui8>
    %r = subgroup_matrix.load %a[%c16] stride %c16 : memref<512xi8> -> !subgroup_matrix.right<16x16xui8>
    // Unsigned components take no signedness operands.
    // CHECK: spirv.KHR.CooperativeMatrixMulAdd %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}} : !spirv.coopmatrix<16x16xi8, Subgroup, MatrixA>
    %d = subgroup_matrix.multiply %l, %r : !subgroup_matrix.left<16x16xui8>, !subgroup_matrix.right<16x16xui8> -> !subgroup_matrix.result<16x16xui32>
    subgroup_matrix.store %d, %c[%c0] stride %c16 : !subgroup_matrix.result<16x16xui32>, memref<256xi32>
    // A constant splat clamps at compile time: 300 becomes 255.
    // CHECK: spirv.Constant dense<-1> : !spirv.coopmatrix<16x16xi8, Subgroup, MatrixB>
    %c300 = arith.constant 300 : i32
    %big = subgroup_matrix.splat %c300 : i32 -> !subgroup_matrix.right<16x16xui8>
    subgroup_matrix.store %big, %a[%c0] stride %c16 : !subgroup_matrix.right<16x16xui8>, memref<512xi8>
    // CHECK: spirv.GL.UClamp
    // CHECK: spirv.UConvert
    %added = subgroup_matrix.scalar_add %l, %v : !subgroup_matrix.left<16x16xui8>, i32
    subgroup_matrix.store %added, %a[%c0] stride %c16 : !subgroup_matrix.left<16x16xui8>, memref<512xi8>
    gpu.return
  }
}

// The driver turns the signedness operands into WMMA's sign modifiers on A
// and B (neg_lo), and omits them for unsigned components.
// RADV-SIGNED: v_wmma_i32_16x16x16_iu8 v{{.*}} neg_lo:[1,1,0]
// RADV-SIGNED: pipeline: created
// RADV-UNSIGNED: v_wmma_i32_16x16x16_iu8 v[{{[0-9:]+}}], v[{{[0-9:]+}}], v[{{[0-9:]+}}], v[{{[0-9:]+}}] ;
// RADV-UNSIGNED: pipeline: created
