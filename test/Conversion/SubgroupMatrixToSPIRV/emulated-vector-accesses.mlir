// RUN: sm-opt %s --sm-lower-to-vulkan | FileCheck %s
// RUN: sm-opt %s --sm-lower-to-vulkan | sm-translate --serialize-spirv -o %t.spv
// RUN: spirv-val --target-env vulkan1.3 %t.spv
// RUN: %if lavapipe %{ %lavapipe %t.spv --entry f32_columns \
// RUN:   --arg f32:400:random --arg f32:400:random --arg f32:400:random --arg f32:400:poison \
// RUN:   --check gemm:M=16,N=16,K=16,A=0,B=1,C=3,acc=2,lda=24,a-offset=16,a-col-major,ldb=20,b-offset=8,b-col-major,ldacc=16,acc-offset=4,acc-col-major,ldc=16,c-offset=4,c-col-major \
// RUN:   | FileCheck %s --check-prefix=F32 %}
// RUN: %if lavapipe %{ %lavapipe %t.spv --entry f16_words \
// RUN:   --arg f16:256:random --arg f16:512:random --arg f32:256:random \
// RUN:   --check gemm:M=16,N=16,K=16,A=0,B=1,C=2,acc=2,ldb=24,b-offset=8,b-col-major,c-col-major,acc-col-major \
// RUN:   | FileCheck %s --check-prefix=F16 %}
// RUN: %if lavapipe %{ %lavapipe %t.spv --entry i8_words \
// RUN:   --arg i8:256:random --arg i8:528:random --arg i32:256:random \
// RUN:   --check gemm:M=16,N=16,K=16,A=0,B=1,C=2,acc=2,ldb=32,b-offset=16,b-col-major,c-col-major,acc-col-major \
// RUN:   | FileCheck %s --check-prefix=I8 %}
// RUN: %if lavapipe %{ %lavapipe %t.spv --entry bf16_words \
// RUN:   --arg bf16:256:random --arg bf16:256:random --arg f32:256:poison \
// RUN:   --check gemm:M=16,N=16,K=16,A=0,B=1,C=2,init=0,b-col-major \
// RUN:   | FileCheck %s --check-prefix=BF16 %}

// RUN: %if lavapipe %{ %lavapipe %t.spv --entry half_packed_copy \
// RUN:   --arg f16:64:random --arg f16:64:poison --arg f16:8:poison --expect-same 1:0 \
// RUN:   | FileCheck %s --check-prefix=COPY %}

// Emulated matrices of column-major memory: each invocation holds whole
// columns, which lie contiguously, so it reads and writes them four
// elements at a time (128 bits of f32 or i32, 64 of f16 and bf16, 32 of
// 8-bit integers) wherever every access of the buffer is provably aligned;
// elsewhere the same accesses are element by element.


// CHECK-LABEL: spirv.module @__spv__kernels
// CHECK: spirv.GlobalVariable @f32_columns_arg_0 bind(0, 0) : !spirv.ptr<!spirv.struct<(!spirv.array<100 x vector<4xi32>, stride=16> [0])>, StorageBuffer>
// CHECK-LABEL: spirv.func @f32_columns
// CHECK: %[[A:.*]] = spirv.Load "StorageBuffer" %{{.*}} : vector<4xi32>
// CHECK: spirv.Bitcast %[[A]] : vector<4xi32> to vector<4xf32>
// CHECK: %[[D:.*]] = spirv.Bitcast %{{.*}} : vector<4xf32> to vector<4xi32>
// CHECK: spirv.Store "StorageBuffer" %{{.*}}, %[[D]] ["NonPrivatePointer"] : vector<4xi32>
// CHECK: spirv.Return
// CHECK: spirv.GlobalVariable @f16_words_arg_1 bind(0, 1) : !spirv.ptr<!spirv.struct<(!spirv.array<128 x vector<2xi32>, stride=8> [0])>, StorageBuffer>
// F32: check gemm 16x16x16 (C = argument 3, f32): PASSED: 256 elements, 0 mismatches
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"cpu-lavapipe">} {
  gpu.func @f32_columns(%a: memref<400xf32>, %b: memref<400xf32>, %c: memref<400xf32>, %d: memref<400xf32>) kernel attributes {known_block_size = array<i32: 8, 1, 1>} {
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c20 = arith.constant 20 : index
    %c24 = arith.constant 24 : index
    %l = subgroup_matrix.load %a[%c16] stride %c24 col_major : memref<400xf32> -> !subgroup_matrix.left<16x16xf32>
    %r = subgroup_matrix.load %b[%c8] stride %c20 col_major : memref<400xf32> -> !subgroup_matrix.right<16x16xf32>
    %acc = subgroup_matrix.load %c[%c4] stride %c16 col_major : memref<400xf32> -> !subgroup_matrix.result<16x16xf32>
    %m = subgroup_matrix.mma %l, %r, %acc : !subgroup_matrix.left<16x16xf32>, !subgroup_matrix.right<16x16xf32> -> !subgroup_matrix.result<16x16xf32>
    subgroup_matrix.store %m, %d[%c4] stride %c16 col_major : !subgroup_matrix.result<16x16xf32>, memref<400xf32>
    gpu.return
  }

// CHECK-LABEL: spirv.func @f16_words
// CHECK: %[[B:.*]] = spirv.Load "StorageBuffer" %{{.*}} : vector<2xi32>
// CHECK: spirv.Bitcast %[[B]] : vector<2xi32> to vector<4xf16>
// CHECK: spirv.Load "StorageBuffer" %{{.*}} : vector<4xi32>
// CHECK: spirv.Store "StorageBuffer" %{{.*}}, %{{.*}} ["NonPrivatePointer"] : vector<4xi32>
// CHECK: spirv.Return
// CHECK: spirv.GlobalVariable @i8_words_arg_1 bind(0, 1) : !spirv.ptr<!spirv.struct<(!spirv.array<132 x i32, stride=4> [0])>, StorageBuffer>
// F16: check gemm 16x16x16 (C = argument 2, f32): PASSED: 256 elements, 0 mismatches
  gpu.func @f16_words(%a: memref<256xf16>, %b: memref<512xf16>, %c: memref<256xf32>) kernel attributes {known_block_size = array<i32: 8, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c24 = arith.constant 24 : index
    %l = subgroup_matrix.load %a[%c0] stride %c16 : memref<256xf16> -> !subgroup_matrix.left<16x16xf16>
    %r = subgroup_matrix.load %b[%c8] stride %c24 col_major : memref<512xf16> -> !subgroup_matrix.right<16x16xf16>
    %acc = subgroup_matrix.load %c[%c0] stride %c16 col_major : memref<256xf32> -> !subgroup_matrix.result<16x16xf32>
    %m = subgroup_matrix.mma %l, %r, %acc : !subgroup_matrix.left<16x16xf16>, !subgroup_matrix.right<16x16xf16> -> !subgroup_matrix.result<16x16xf32>
    subgroup_matrix.store %m, %c[%c0] stride %c16 col_major : !subgroup_matrix.result<16x16xf32>, memref<256xf32>
    gpu.return
  }

// CHECK-LABEL: spirv.func @i8_words
// CHECK: %[[W:.*]] = spirv.Load "StorageBuffer" %{{.*}} : i32
// CHECK: spirv.Bitcast %[[W]] : i32 to vector<4xi8>
// CHECK: spirv.Store "StorageBuffer" %{{.*}}, %{{.*}} ["NonPrivatePointer"] : vector<4xi32>
// CHECK: spirv.Return
// CHECK: spirv.GlobalVariable @bf16_words_arg_1 bind(0, 1) : !spirv.ptr<!spirv.struct<(!spirv.array<64 x vector<2xi32>, stride=8> [0])>, StorageBuffer>
// I8: check gemm 16x16x16 (C = argument 2, i32): PASSED: 256 elements, 0 mismatches
  gpu.func @i8_words(%a: memref<256xi8>, %b: memref<528xi8>, %c: memref<256xi32>) kernel attributes {known_block_size = array<i32: 8, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %l = subgroup_matrix.load %a[%c0] stride %c16 : memref<256xi8> -> !subgroup_matrix.left<16x16xsi8>
    %r = subgroup_matrix.load %b[%c16] stride %c32 col_major : memref<528xi8> -> !subgroup_matrix.right<16x16xsi8>
    %acc = subgroup_matrix.load %c[%c0] stride %c16 col_major : memref<256xi32> -> !subgroup_matrix.result<16x16xsi32>
    %m = subgroup_matrix.mma %l, %r, %acc : !subgroup_matrix.left<16x16xsi8>, !subgroup_matrix.right<16x16xsi8> -> !subgroup_matrix.result<16x16xsi32>
    subgroup_matrix.store %m, %c[%c0] stride %c16 col_major : !subgroup_matrix.result<16x16xsi32>, memref<256xi32>
    gpu.return
  }

// CHECK-LABEL: spirv.func @bf16_words
// CHECK: %[[H:.*]] = spirv.Load "StorageBuffer" %{{.*}} : vector<2xi32>
// CHECK: spirv.Bitcast %[[H]] : vector<2xi32> to vector<4xi16>
// CHECK: spirv.Return
// Element by element: a stride not known to be a multiple of 4, and a
// buffer also written row-major.
// CHECK: spirv.GlobalVariable @unprovable_arg_0 bind(0, 0) : !spirv.ptr<!spirv.struct<(!spirv.array<400 x f32, stride=4> [0])>, StorageBuffer>
// BF16: check gemm 16x16x16 (C = argument 2, f32): PASSED: 256 elements, 0 mismatches
  gpu.func @bf16_words(%a: memref<256xbf16>, %b: memref<256xbf16>, %c: memref<256xf32>) kernel attributes {known_block_size = array<i32: 8, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %zero = arith.constant 0.0 : f32
    %l = subgroup_matrix.load %a[%c0] stride %c16 : memref<256xbf16> -> !subgroup_matrix.left<16x16xbf16>
    %r = subgroup_matrix.load %b[%c0] stride %c16 col_major : memref<256xbf16> -> !subgroup_matrix.right<16x16xbf16>
    %acc = subgroup_matrix.splat %zero : f32 -> !subgroup_matrix.result<16x16xf32>
    %m = subgroup_matrix.mma %l, %r, %acc : !subgroup_matrix.left<16x16xbf16>, !subgroup_matrix.right<16x16xbf16> -> !subgroup_matrix.result<16x16xf32>
    subgroup_matrix.store %m, %c[%c0] stride %c16 : !subgroup_matrix.result<16x16xf32>, memref<256xf32>
    gpu.return
  }

// CHECK-LABEL: spirv.func @unprovable
// CHECK-NOT: vector<
// CHECK: spirv.Return
// CHECK: spirv.GlobalVariable @mixed_arg_0 bind(0, 0) : !spirv.ptr<!spirv.struct<(!spirv.array<400 x f32, stride=4> [0])>, StorageBuffer>
  gpu.func @unprovable(%b: memref<400xf32>, %c: memref<256xf32>, %stride: index) kernel attributes {known_block_size = array<i32: 8, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %r = subgroup_matrix.load %b[%c0] stride %stride col_major : memref<400xf32> -> !subgroup_matrix.result<16x16xf32>
    subgroup_matrix.store %r, %c[%c0] stride %c16 : !subgroup_matrix.result<16x16xf32>, memref<256xf32>
    gpu.return
  }

// CHECK-LABEL: spirv.func @mixed
// CHECK-NOT: vector<
// CHECK: spirv.Return
  gpu.func @mixed(%b: memref<400xf32>) kernel attributes {known_block_size = array<i32: 8, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %r = subgroup_matrix.load %b[%c0] stride %c16 col_major : memref<400xf32> -> !subgroup_matrix.result<16x16xf32>
    subgroup_matrix.store %r, %b[%c0] stride %c16 : !subgroup_matrix.result<16x16xf32>, memref<400xf32>
    gpu.return
  }

// A copy in 16-byte vectors whose source is also read element by element:
// the source is read element by element, the destination written in words
// (pairs of f16 bit-cast to i32, SPIR-V having no vector of eight f16).
// CHECK-LABEL: spirv.func @half_packed_copy
// CHECK: %[[PAIR:.*]] = spirv.CompositeConstruct %{{.*}}, %{{.*}} : (f16, f16) -> vector<2xf16>
// CHECK: %[[WORD:.*]] = spirv.Bitcast %[[PAIR]] : vector<2xf16> to i32
// CHECK: %[[WORDS:.*]] = spirv.CompositeConstruct %[[WORD]], %{{.*}}, %{{.*}}, %{{.*}} : (i32, i32, i32, i32) -> vector<4xi32>
// CHECK: spirv.Store "StorageBuffer" %{{.*}}, %[[WORDS]] ["NonPrivatePointer"] : vector<4xi32>
// CHECK: spirv.Return
// COPY: check same: argument 1 after the run PASSED: equals argument 0 before it (0 of 128 bytes differ)
  gpu.func @half_packed_copy(%source: memref<64xf16>, %destination: memref<64xf16>, %first: memref<8xf16>) kernel attributes {known_block_size = array<i32: 8, 1, 1>} {
    %c8 = arith.constant 8 : index
    %lane = gpu.thread_id x
    %at = arith.muli %lane, %c8 : index
    %v = vector.load %source[%at] : memref<64xf16>, vector<8xf16>
    vector.store %v, %destination[%at] : memref<64xf16>, vector<8xf16>
    %x = memref.load %source[%lane] : memref<64xf16>
    memref.store %x, %first[%lane] : memref<8xf16>
    gpu.return
  }
}
