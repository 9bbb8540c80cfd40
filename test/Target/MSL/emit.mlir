// RUN: sm-translate --emit-msl %s | FileCheck %s
// RUN: sm-translate --emit-msl %s -o %t.metal
// RUN: sm-msl-host-runner %t.metal --entry ops --arg f16:512:random --arg f32:256:random --arg f32:512:poison --scalar f32:0.5 --grid 1 \
// RUN:   --check gemm:M=16,N=16,K=16,A=0,B=0,C=2,lda=16,ldb=16,b-col-major,b-offset=256,acc=1,mul=0.5,add=0.5 | FileCheck %s --check-prefix=HOST
// A reference that disagrees (no scalar ops) must fail.
// RUN: not sm-msl-host-runner %t.metal --entry ops --arg f16:512:random --arg f32:256:random --arg f32:512:poison --scalar f32:0.5 --grid 1 \
// RUN:   --check gemm:M=16,N=16,K=16,A=0,B=0,C=2,lda=16,ldb=16,b-col-major,b-offset=256,acc=1 | FileCheck %s --check-prefix=WRONG

// HOST-DAG: ran 'ops' on the host: grid 1,1,1 of threadgroups 64,1,1
// HOST-DAG: check gemm 16x16x16 (C = argument 2, f32): PASSED: 256 elements, 0 mismatches, 0 written outside C
// WRONG: check gemm 16x16x16 (C = argument 2, f32): FAILED

// CHECK: // Needs Metal Shading Language 2.3 (simdgroup_matrix)
// CHECK: #include <metal_stdlib>
// CHECK-NEXT: using namespace metal;
// CHECK: struct sm_matrix_half_16x16 {
// CHECK-NEXT:   simdgroup_half8x8 f[2][2];
// CHECK-NEXT: };
// CHECK: struct sm_matrix_float_16x16 {
// CHECK-NEXT:   simdgroup_float8x8 f[2][2];
// CHECK-NEXT: };

// CHECK-LABEL: kernel void ops(device half *arg0 {{\[\[}}buffer(0){{\]\]}},
// CHECK-NEXT:     device float *arg1 {{\[\[}}buffer(1){{\]\]}},
// CHECK-NEXT:     device float *arg2 {{\[\[}}buffer(2){{\]\]}},
// CHECK-NEXT:     constant float &arg3 {{\[\[}}buffer(3){{\]\]}},
// Only the position attributes the kernel reads.
// CHECK-NEXT:     uint3 thread_position_in_threadgroup {{\[\[}}thread_position_in_threadgroup{{\]\]}}) {
// CHECK-NEXT:   threadgroup float workgroup[256];
gpu.module @kernels {
  gpu.func @ops(%a: memref<512xf16>, %c: memref<256xf32>, %d: memref<512xf32>, %s: f32)
      workgroup(%wg: memref<256xf32, #gpu.address_space<workgroup>>) kernel
      attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %c256 = arith.constant 256 : index
    // CHECK: int tid_x = int(thread_position_in_threadgroup.x);
    %tid = gpu.thread_id x
    // Copy the accumulator through threadgroup memory.
    // CHECK: for (int i = tid_x; i < c256; i += c64) {
    // CHECK:   float v = arg1[i];
    // CHECK:   workgroup[i] = v;
    // CHECK: }
    // CHECK: threadgroup_barrier(mem_flags::mem_threadgroup | mem_flags::mem_device);
    %c64 = arith.constant 64 : index
    scf.for %i = %tid to %c256 step %c64 {
      %v = memref.load %c[%i] : memref<256xf32>
      memref.store %v, %wg[%i] : memref<256xf32, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    // CHECK: sm_matrix_half_16x16 m;
    // CHECK-NEXT: simdgroup_load(m.f[0][0], arg0 + c0, c16, ulong2(0, 0), false);
    // CHECK-NEXT: simdgroup_load(m.f[0][1], arg0 + c0 + 8, c16, ulong2(0, 0), false);
    // CHECK-NEXT: simdgroup_load(m.f[1][0], arg0 + c0 + 8 * c16, c16, ulong2(0, 0), false);
    // CHECK-NEXT: simdgroup_load(m.f[1][1], arg0 + c0 + 8 * c16 + 8, c16, ulong2(0, 0), false);
    %l = subgroup_matrix.load %a[%c0] stride %c16 : memref<512xf16> -> !subgroup_matrix.left<16x16xf16>
    // Column-major: fragment (0, 1) starts 8 columns in, and loads transposed.
    // CHECK: simdgroup_load(m_1.f[0][1], arg0 + c256 + 8 * c16, c16, ulong2(0, 0), true);
    %r = subgroup_matrix.load %a[%c256] stride %c16 col_major : memref<512xf16> -> !subgroup_matrix.right<16x16xf16>
    %acc = subgroup_matrix.load %wg[%c0] stride %c16 : memref<256xf32, #gpu.address_space<workgroup>> -> !subgroup_matrix.result<16x16xf32>
    // The multiply is unrolled over K fragments.
    // CHECK: simdgroup_multiply_accumulate(m_3.f[0][0], m.f[0][0], m_1.f[0][0], m_2.f[0][0]);
    // CHECK-NEXT: simdgroup_multiply_accumulate(m_3.f[0][0], m.f[0][1], m_1.f[1][0], m_3.f[0][0]);
    %mma = subgroup_matrix.mma %l, %r, %acc : !subgroup_matrix.left<16x16xf16>, !subgroup_matrix.right<16x16xf16> -> !subgroup_matrix.result<16x16xf32>
    // m * s through a diagonal matrix, m + s through the identity and a
    // filled matrix.
    // CHECK: simdgroup_float8x8 scalar_mul_diagonal = simdgroup_float8x8(arg3);
    // CHECK: simdgroup_multiply(m_4.f[0][0], m_3.f[0][0], scalar_mul_diagonal);
    %scaled = subgroup_matrix.scalar_mul %mma, %s : !subgroup_matrix.result<16x16xf32>, f32
    // CHECK: simdgroup_float8x8 scalar_add_identity = simdgroup_float8x8(float(1));
    // CHECK: simdgroup_float8x8 scalar_add_filled = make_filled_simdgroup_matrix<float, 8, 8>(arg3);
    // CHECK: simdgroup_multiply_accumulate(m_5.f[1][1], m_4.f[1][1], scalar_add_identity, scalar_add_filled);
    %biased = subgroup_matrix.scalar_add %scaled, %s : !subgroup_matrix.result<16x16xf32>, f32
    // CHECK: simdgroup_store(m_5.f[1][1], arg2 + c0 + 8 * c16 + 8, c16, ulong2(0, 0), false);
    subgroup_matrix.store %biased, %d[%c0] stride %c16 : !subgroup_matrix.result<16x16xf32>, memref<512xf32>
    gpu.return
  }
}

// CHECK: #ifdef SM_MSL_HOST
// CHECK: SM_MSL_HOST_KERNEL(ops, 64, 1, 1, "buffer:f16,buffer:f32,buffer:f32,scalar:f32") {
// CHECK:   ops((device half *)sm_buffers[0],
// CHECK:       *(constant float *)sm_buffers[3],
// CHECK:       sm_invocation.thread_position_in_threadgroup);
// CHECK: #endif // SM_MSL_HOST
