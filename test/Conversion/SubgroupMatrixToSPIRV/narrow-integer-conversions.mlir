// RUN: sm-opt %s --sm-lower-to-vulkan | FileCheck %s
// RUN: sm-opt %s --sm-lower-to-vulkan | sm-translate --serialize-spirv -o %t.spv
// RUN: spirv-val --target-env vulkan1.3 %t.spv

// Narrow integers become floats by an integer addition into the bits of
// 2^10 (f16) or 2^23 (f32), whose last mantissa bit is worth one, and a
// subtraction: no conversion instruction. Signed values are biased by half
// their range first. decode_byte_conversions (sm_testing.linalg.decode)
// runs every 8-bit value through both.

// CHECK-LABEL: spirv.func @conversions
// CHECK-NOT: spirv.ConvertUToF
// A signed byte into f16: 0x6400 + 128 = 25728, then 1024 + 128.
// CHECK: %[[S16:.*]] = spirv.SConvert %{{.*}} : i8 to i16
// CHECK: %[[M16:.*]] = spirv.Constant 25728 : i16
// CHECK: %[[B16:.*]] = spirv.IAdd %[[S16]], %[[M16]] : i16
// CHECK: %[[F16:.*]] = spirv.Bitcast %[[B16]] : i16 to f16
// CHECK: %[[O16:.*]] = spirv.Constant 1.152000e+03 : f16
// CHECK: spirv.FSub %[[F16]], %[[O16]] : f16
// An unsigned byte into f32: 0x4B000000 = 1258291200, then 2^23.
// CHECK: %[[U32:.*]] = spirv.UConvert %{{.*}} : i8 to i32
// CHECK: %[[M32:.*]] = spirv.Constant 1258291200 : i32
// CHECK: %[[B32:.*]] = spirv.IAdd %[[U32]], %[[M32]] : i32
// CHECK: %[[F32:.*]] = spirv.Bitcast %[[B32]] : i32 to f32
// CHECK: %[[O32:.*]] = spirv.Constant 0x4B000000 : f32
// CHECK: spirv.FSub %[[F32]], %[[O32]] : f32
// A 32-bit integer keeps its conversion: the mantissa cannot hold it.
// CHECK: spirv.ConvertSToF %{{.*}} : i32 to f32
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @conversions(%bytes: memref<64xi8>, %words: memref<64xi32>, %halves: memref<64xf16>, %floats: memref<128xf32>) kernel
      attributes {known_block_size = array<i32: 64, 1, 1>} {
    %i = gpu.thread_id x
    %c64 = arith.constant 64 : index
    %byte = memref.load %bytes[%i] : memref<64xi8>
    %h = arith.sitofp %byte : i8 to f16
    memref.store %h, %halves[%i] : memref<64xf16>
    %u = arith.uitofp %byte : i8 to f32
    memref.store %u, %floats[%i] : memref<128xf32>
    %word = memref.load %words[%i] : memref<64xi32>
    %w = arith.sitofp %word : i32 to f32
    %j = arith.addi %i, %c64 : index
    memref.store %w, %floats[%j] : memref<128xf32>
    gpu.return
  }
}
