// RUN: sm-opt %s -split-input-file -verify-diagnostics --sm-lower-to-vulkan

// What the emulation cannot take is a located error, before any SPIR-V.

gpu.module @not_multiple_of_8 attributes {subgroup_matrix.target = #subgroup_matrix.target<"cpu-lavapipe">} {
  gpu.func @k(%a: memref<1024xf16>, %s: index) kernel attributes {known_block_size = array<i32: 8, 1, 1>} {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{'!subgroup_matrix.left<12x16xf16>' is not supported by target 'cpu-lavapipe'; it supports emulated left matrices whose dimensions are multiples of 8, with components f16, f32, bf16, si8, si32, ui8, ui32}}
    %l = subgroup_matrix.load %a[%c0] stride %s : memref<1024xf16> -> !subgroup_matrix.left<12x16xf16>
    gpu.return
  }
}

// -----

gpu.module @workgroup_size attributes {subgroup_matrix.target = #subgroup_matrix.target<"cpu-lavapipe">} {
  // expected-error @+1 {{kernel 'k' uses subgroup matrices with a workgroup size x of 12, which is not a multiple of the subgroup size 8 of target 'cpu-lavapipe'}}
  gpu.func @k(%a: memref<1024xf16>, %s: index) kernel attributes {known_block_size = array<i32: 12, 1, 1>} {
    %c0 = arith.constant 0 : index
    %l = subgroup_matrix.load %a[%c0] stride %s : memref<1024xf16> -> !subgroup_matrix.left<16x16xf16>
    subgroup_matrix.store %l, %a[%c0] stride %s : !subgroup_matrix.left<16x16xf16>, memref<1024xf16>
    gpu.return
  }
}

// -----

// A custom emulated target with subgroups of 32: 24 columns are neither
// whole tiles of 32 nor an equal share of the invocations.
gpu.module @columns_do_not_spread attributes {subgroup_matrix.target = #subgroup_matrix.target<subgroup_size = 32, configs = [<8x8x8, f16 -> f32>], emulated>} {
  gpu.func @k(%a: memref<1024xf16>, %s: index) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{'subgroup_matrix.load' op cannot be emulated: '!subgroup_matrix.left<16x24xf16>': 24 columns are neither a multiple nor a divisor of the subgroup size 32, so they cannot be spread over its invocations}}
    %l = subgroup_matrix.load %a[%c0] stride %s : memref<1024xf16> -> !subgroup_matrix.left<16x24xf16>
    // expected-error @+1 {{'subgroup_matrix.store' op cannot be emulated}}
    subgroup_matrix.store %l, %a[%c0] stride %s : !subgroup_matrix.left<16x24xf16>, memref<1024xf16>
    gpu.return
  }
}

// -----

// Packed words that matrices of one storage type read are unpacked
// (test/Integration/Emulation/packed-words.mlir); words that matrices of
// two storage types share have no one element type to unpack into.
gpu.module @packed_words_of_two_types attributes {subgroup_matrix.target = #subgroup_matrix.target<"cpu-lavapipe">} {
  gpu.func @k(%a: memref<256xvector<4xi32>>, %s: index) kernel attributes {known_block_size = array<i32: 8, 1, 1>} {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{'subgroup_matrix.load' op cannot be emulated: 'memref<256xvector<4xi32>>' packs components into words; use a memref of the storage type}}
    %l = subgroup_matrix.load %a[%c0] stride %s : memref<256xvector<4xi32>> -> !subgroup_matrix.left<16x16xf16>
    // expected-error @+1 {{'subgroup_matrix.load' op cannot be emulated: 'memref<256xvector<4xi32>>' packs components into words; use a memref of the storage type}}
    %m = subgroup_matrix.load %a[%c0] stride %s : memref<256xvector<4xi32>> -> !subgroup_matrix.left<16x32xsi8>
    gpu.return
  }
}
