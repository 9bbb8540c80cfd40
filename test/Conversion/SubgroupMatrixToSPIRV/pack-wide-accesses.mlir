// RUN: sm-opt %s --sm-lower-to-vulkan=target=nvidia-h100 --split-input-file --verify-diagnostics | FileCheck %s
// The packed kernel (the first case) serializes to a valid binary.
// RUN: sed -n '1,/^\/\/ -----/p' %s | sm-opt --sm-lower-to-vulkan=target=nvidia-h100 | sm-translate --serialize-spirv -o %t.spv
// RUN: spirv-val --target-env vulkan1.3 %t.spv
// So does the second (word indices divided term by term).
// RUN: awk '/^\/\/ -----/ { n++; next } n == 1' %s | sm-opt --sm-lower-to-vulkan=target=nvidia-h100 | sm-translate --serialize-spirv -o %t.offsets.spv
// RUN: spirv-val --target-env vulkan1.3 %t.offsets.spv

// A buffer copied 8 f16 at a time becomes an array of 128-bit words: one
// 128-bit load and store per copy, and the matrix load addresses words.
// CHECK-LABEL: spirv.module
// CHECK-DAG: spirv.GlobalVariable @{{.*}} bind(0, 0) : !spirv.ptr<!spirv.struct<(!spirv.array<512 x vector<4xi32>, stride=16> [0])>, StorageBuffer>
// CHECK-DAG: spirv.GlobalVariable @{{.*}} : !spirv.ptr<!spirv.struct<(!spirv.array<64 x vector<4xi32>>)>, Workgroup>
// CHECK: %[[WORDS:.*]] = spirv.Load "StorageBuffer" %{{.*}} : vector<4xi32>
// CHECK: spirv.Store "Workgroup" %{{.*}}, %[[WORDS]] ["NonPrivatePointer"] : vector<4xi32>
// The stride of 16 f16 is 2 words.
// CHECK: spirv.KHR.CooperativeMatrixLoad %{{.*}}, %cst2_i32, <RowMajor>, <NonPrivatePointer> : !spirv.ptr<vector<4xi32>, Workgroup>, i32 -> !spirv.coopmatrix<16x16xf16, Subgroup, MatrixA>
gpu.module @kernels {
  gpu.func @copy(%a: memref<4096xf16>, %c: memref<256xf32>)
      workgroup(%wg: memref<512xf16, #gpu.address_space<workgroup>>)
      kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %tid = gpu.thread_id x
    %offset = arith.muli %tid, %c8 : index
    %v = vector.load %a[%offset] : memref<4096xf16>, vector<8xf16>
    %words = vector.bitcast %v : vector<8xf16> to vector<4xi32>
    %back = vector.bitcast %words : vector<4xi32> to vector<8xf16>
    vector.store %back, %wg[%offset] : memref<512xf16, #gpu.address_space<workgroup>>, vector<8xf16>
    gpu.barrier
    %m = subgroup_matrix.load %wg[%c0] stride %c16 : memref<512xf16, #gpu.address_space<workgroup>> -> !subgroup_matrix.left<16x16xf16>
    %b = subgroup_matrix.load %wg[%c0] stride %c16 : memref<512xf16, #gpu.address_space<workgroup>> -> !subgroup_matrix.right<16x16xf16>
    %r = subgroup_matrix.multiply %m, %b : !subgroup_matrix.left<16x16xf16>, !subgroup_matrix.right<16x16xf16> -> !subgroup_matrix.result<16x16xf32>
    subgroup_matrix.store %r, %c[%c0] stride %c16 : !subgroup_matrix.result<16x16xf32>, memref<256xf32>
    gpu.return
  }
}

// -----

// Word indices are divided term by term where every term is a multiple of
// the width, so that a copy's address stays a base plus a constant
// (thread * 16 + 64 elements is thread * 2 + 8 words), with no division.
// CHECK-LABEL: spirv.module
// CHECK-NOT: spirv.UDiv
// CHECK-DAG: %[[TWO:.*]] = spirv.Constant 2 : i32
// CHECK-DAG: %[[EIGHT:.*]] = spirv.Constant 8 : i32
// CHECK: %[[SCALED:.*]] = spirv.IMul %{{.*}}, %[[TWO]] : i32
// CHECK: %[[WORD:.*]] = spirv.IAdd %[[SCALED]], %[[EIGHT]] : i32
// CHECK: spirv.AccessChain %{{.*}}[%{{.*}}, %[[WORD]]]
// CHECK-NOT: spirv.UDiv
// CHECK: spirv.Return
gpu.module @kernels {
  gpu.func @offsets(%a: memref<4096xf16>, %b: memref<4096xf16>)
      kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %tid = gpu.thread_id x
    %scaled = arith.muli %tid, %c16 : index
    %offset = arith.addi %scaled, %c64 : index
    %v = vector.load %a[%offset] : memref<4096xf16>, vector<8xf16>
    vector.store %v, %b[%offset] : memref<4096xf16>, vector<8xf16>
    gpu.return
  }
}

// -----

// An index that is not provably a multiple of 8 cannot address words.
gpu.module @kernels {
  gpu.func @misaligned(%a: memref<4096xf16>, %b: memref<4096xf16>)
      kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %tid = gpu.thread_id x
    // expected-error @+1 {{cannot be lowered to SPIR-V with 8-element accesses to its buffer: the index is not provably a multiple of 8}}
    %v = vector.load %a[%tid] : memref<4096xf16>, vector<8xf16>
    %c0 = arith.constant 0 : index
    vector.store %v, %b[%c0] : memref<4096xf16>, vector<8xf16>
    gpu.return
  }
}

// -----

gpu.module @kernels {
  gpu.func @odd_width(%a: memref<4096xf16>, %b: memref<4096xf16>)
      kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{cannot be lowered to SPIR-V: only 32-, 64- and 128-bit vector accesses are supported, got 'vector<3xf16>'}}
    %v = vector.load %a[%c0] : memref<4096xf16>, vector<3xf16>
    vector.store %v, %b[%c0] : memref<4096xf16>, vector<3xf16>
    gpu.return
  }
}

// -----

// A buffer whose length is no multiple of the access width cannot become
// words.
gpu.module @kernels {
  // expected-error @+1 {{a buffer of 4100 elements cannot be packed into words of 8 elements}}
  gpu.func @ragged_buffer(%a: memref<4100xf16>, %b: memref<4096xf16>)
      kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %v = vector.load %a[%c0] : memref<4100xf16>, vector<8xf16>
    vector.store %v, %b[%c0] : memref<4096xf16>, vector<8xf16>
    gpu.return
  }
}

// -----

// All vector accesses to one buffer must have one width.
gpu.module @kernels {
  gpu.func @two_widths(%a: memref<4096xf16>, %b: memref<4096xf16>)
      kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{cannot be lowered to SPIR-V: the buffer is also accessed with vectors of 4 elements}}
    %v = vector.load %a[%c0] : memref<4096xf16>, vector<8xf16>
    %w = vector.load %a[%c0] : memref<4096xf16>, vector<4xf16>
    vector.store %v, %b[%c0] : memref<4096xf16>, vector<8xf16>
    gpu.return
  }
}

// -----

// A scalar access to a buffer that vector accesses need as words.
gpu.module @kernels {
  gpu.func @mixed(%a: memref<4096xf16>, %b: memref<4096xf16>)
      kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %v = vector.load %a[%c0] : memref<4096xf16>, vector<8xf16>
    // expected-error @+1 {{cannot be lowered to SPIR-V: it accesses a buffer that vector accesses need as words}}
    %s = memref.load %a[%c0] : memref<4096xf16>
    vector.store %v, %b[%c0] : memref<4096xf16>, vector<8xf16>
    gpu.return
  }
}

// -----

// 32-bit vector accesses would make the buffer one of single i32 words,
// which a subgroup matrix cannot address.
gpu.module @kernels {
  gpu.func @single_words(%a: memref<4096xi8>, %b: memref<4096xi8>)
      kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %v = vector.load %a[%c0] : memref<4096xi8>, vector<4xi8>
    vector.store %v, %b[%c0] : memref<4096xi8>, vector<4xi8>
    // expected-error @+1 {{cannot be lowered to SPIR-V: its buffer is accessed with 4-element vectors, which would make it a buffer of single i32 words; subgroup matrices address packed buffers as vectors of words (64- or 128-bit accesses)}}
    %m = subgroup_matrix.load %a[%c0] stride %c32 : memref<4096xi8> -> !subgroup_matrix.right<32x16xsi8>
    gpu.return
  }
}
