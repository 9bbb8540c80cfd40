// RUN: sm-opt %s -split-input-file -verify-diagnostics --sm-check-target

// A kernel that only uses configurations of its target passes unchanged.
gpu.module @h100_ok attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @gemm(%a: memref<?xf16>, %b: memref<?xf16>, %c: memref<?xf32>, %s: index) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %l = subgroup_matrix.load %a[%c0] stride %s : memref<?xf16> -> !subgroup_matrix.left<16x16xf16>
    %r = subgroup_matrix.load %b[%c0] stride %s : memref<?xf16> -> !subgroup_matrix.right<16x8xf16>
    %acc = subgroup_matrix.splat %zero : f32 -> !subgroup_matrix.result<16x8xf32>
    %d = subgroup_matrix.mma %l, %r, %acc : !subgroup_matrix.left<16x16xf16>, !subgroup_matrix.right<16x8xf16> -> !subgroup_matrix.result<16x8xf32>
    subgroup_matrix.store %d, %c[%c0] stride %s : !subgroup_matrix.result<16x8xf32>, memref<?xf32>
    gpu.return
  }
}

// -----

gpu.module @h100_types attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @k(%a: memref<?xf16>, %bf: memref<?xbf16>, %s: index) kernel {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{'!subgroup_matrix.left<8x8xf16>' is not supported by target 'nvidia-h100'; it supports left<16x16xf16>, left<16x8xf16>, left<16x32xui8>, left<16x32xsi8>, left<16x16xbf16>}}
    %l = subgroup_matrix.load %a[%c0] stride %s : memref<?xf16> -> !subgroup_matrix.left<8x8xf16>
    // Reported once per type, not at every use.
    %l2 = subgroup_matrix.load %a[%c0] stride %s : memref<?xf16> -> !subgroup_matrix.left<8x8xf16>
    // expected-error @+1 {{'!subgroup_matrix.result<16x16xbf16>' is not supported by target 'nvidia-h100'; it supports result<16x16xf16>, result<16x8xf16>, result<16x16xf32>, result<16x8xf32>, result<16x16xui32>, result<16x16xsi32>, result<16x8xui32>, result<16x8xsi32>}}
    %r = subgroup_matrix.load %bf[%c0] stride %s : memref<?xbf16> -> !subgroup_matrix.result<16x16xbf16>
    gpu.return
  }
  // expected-error @+1 {{'!subgroup_matrix.right<16x16xf32>' is not supported by target 'nvidia-h100'; it supports right<16x16xf16>, right<16x8xf16>, right<8x8xf16>, right<32x16xui8>, right<32x16xsi8>, right<32x8xui8>, right<32x8xsi8>, right<16x16xbf16>}}
  func.func @helper(%m: !subgroup_matrix.right<16x16xf32>) {
    return
  }
}

// -----

// Each type exists in some configuration of this target, but no single
// configuration holds all three.
gpu.module @custom_multiply attributes {subgroup_matrix.target = #subgroup_matrix.target<"custom", subgroup_size = 32, configs = [<16x16x16, f16 -> f32>, <16x8x16, f16 -> f16>, <16x8x32, f16 -> f32>]>} {
  gpu.func @k(%l: !subgroup_matrix.left<16x16xf16>, %r: !subgroup_matrix.right<16x8xf16>, %c: !subgroup_matrix.result<16x8xf32>) kernel {
    // expected-error @+1 {{the multiplication of '!subgroup_matrix.left<16x16xf16>' by '!subgroup_matrix.right<16x8xf16>' into '!subgroup_matrix.result<16x8xf32>' is not a configuration of target 'custom'; its configurations (M x N x K, component -> result) are: 16x16x16 f16 -> f32, 16x8x16 f16 -> f16, 16x8x32 f16 -> f32}}
    %d = subgroup_matrix.mma %l, %r, %c : !subgroup_matrix.left<16x16xf16>, !subgroup_matrix.right<16x8xf16> -> !subgroup_matrix.result<16x8xf32>
    gpu.return
  }
}

// -----

gpu.module @h100_workgroup attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  // expected-error @+1 {{kernel 'k' uses subgroup matrices with a workgroup size x of 48, which is not a multiple of the subgroup size 32 of target 'nvidia-h100'}}
  gpu.func @k(%a: memref<?xf16>, %s: index) kernel attributes {known_block_size = array<i32: 48, 2, 1>} {
    %c0 = arith.constant 0 : index
    %l = subgroup_matrix.load %a[%c0] stride %s : memref<?xf16> -> !subgroup_matrix.left<16x16xf16>
    gpu.return
  }
  // Kernels without subgroup matrices may use any workgroup size.
  gpu.func @no_matrices(%a: memref<?xf16>) kernel attributes {known_block_size = array<i32: 48, 1, 1>} {
    gpu.return
  }
  // A kernel that reaches matrices through a call counts too.
  // expected-error @+1 {{kernel 'through_call' uses subgroup matrices with a workgroup size x of 16}}
  gpu.func @through_call(%a: memref<?xf16>, %s: index) kernel attributes {known_block_size = array<i32: 16, 1, 1>} {
    func.call @helper(%a, %s) : (memref<?xf16>, index) -> ()
    gpu.return
  }
  func.func @helper(%a: memref<?xf16>, %s: index) {
    %c0 = arith.constant 0 : index
    %l = subgroup_matrix.load %a[%c0] stride %s : memref<?xf16> -> !subgroup_matrix.left<16x16xf16>
    return
  }
}

// -----

// The workgroup size can also come from the SPIR-V entry point ABI.
gpu.module @spirv_abi attributes {subgroup_matrix.target = #subgroup_matrix.target<"amd-rdna3">} {
  // expected-error @+1 {{kernel 'k' uses subgroup matrices with a workgroup size x of 8, which is not a multiple of the subgroup size 32 of target 'amd-rdna3'}}
  gpu.func @k(%a: memref<?xf16>, %s: index) kernel attributes {spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [8, 4, 1]>} {
    %c0 = arith.constant 0 : index
    %l = subgroup_matrix.load %a[%c0] stride %s : memref<?xf16> -> !subgroup_matrix.left<16x16xf16>
    gpu.return
  }
}

// -----

// RDNA3 has only 16x16x16 shapes; mixed-signedness results are reported by
// the device and accepted as types.
gpu.module @rdna3 attributes {subgroup_matrix.target = #subgroup_matrix.target<"amd-rdna3">} {
  gpu.func @k(%a: memref<?xi8>, %c: memref<?xi32>, %s: index) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %l = subgroup_matrix.load %a[%c0] stride %s : memref<?xi8> -> !subgroup_matrix.left<16x16xsi8>
    %r = subgroup_matrix.load %a[%c0] stride %s : memref<?xi8> -> !subgroup_matrix.right<16x16xsi8>
    %d = subgroup_matrix.multiply %l, %r : !subgroup_matrix.left<16x16xsi8>, !subgroup_matrix.right<16x16xsi8> -> !subgroup_matrix.result<16x16xsi32>
    %u = subgroup_matrix.load %c[%c0] stride %s : memref<?xi32> -> !subgroup_matrix.result<16x16xui32>
    // expected-error @+1 {{'!subgroup_matrix.left<16x32xsi8>' is not supported by target 'amd-rdna3'; it supports left<16x16xf16>, left<16x16xui8>, left<16x16xsi8>}}
    %wide = subgroup_matrix.load %a[%c0] stride %s : memref<?xi8> -> !subgroup_matrix.left<16x32xsi8>
    gpu.return
  }
}

// -----

gpu.module @apple attributes {subgroup_matrix.target = #subgroup_matrix.target<"apple-m1">} {
  gpu.func @k(%a: memref<?xf32>, %h: memref<?xf16>, %s: index) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %l = subgroup_matrix.load %a[%c0] stride %s : memref<?xf32> -> !subgroup_matrix.left<8x8xf32>
    %r = subgroup_matrix.load %a[%c0] stride %s : memref<?xf32> -> !subgroup_matrix.right<8x8xf32>
    %d = subgroup_matrix.multiply %l, %r : !subgroup_matrix.left<8x8xf32>, !subgroup_matrix.right<8x8xf32> -> !subgroup_matrix.result<8x8xf32>
    %hl = subgroup_matrix.load %h[%c0] stride %s : memref<?xf16> -> !subgroup_matrix.left<8x8xf16>
    %hr = subgroup_matrix.load %h[%c0] stride %s : memref<?xf16> -> !subgroup_matrix.right<8x8xf16>
    // Metal multiplies f16 into f16 only.
    // expected-error @+1 {{is not a configuration of target 'apple-m1'; its configurations (M x N x K, component -> result) are: 8x8x8 f32 -> f32, 8x8x8 f16 -> f16}}
    %bad = subgroup_matrix.multiply %hl, %hr : !subgroup_matrix.left<8x8xf16>, !subgroup_matrix.right<8x8xf16> -> !subgroup_matrix.result<8x8xf32>
    gpu.return
  }
}

// -----

// Found by utils/fuzz.py: a kernel with an empty workgroup dimension was
// lowered into binaries spirv-val rejects. Every kernel, with subgroup
// matrices or without, is checked.
gpu.module @empty_workgroup attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  // expected-error @+1 {{kernel 'k' has a workgroup size of 0x128x1: every dimension must be at least 1}}
  gpu.func @k(%a: memref<?xf32>) kernel attributes {known_block_size = array<i32: 0, 128, 1>} {
    gpu.return
  }
  // expected-error @+1 {{kernel 'negative' has a workgroup size of 32x1x-1: every dimension must be at least 1}}
  gpu.func @negative(%a: memref<?xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 4294967295>} {
    gpu.return
  }
}

// -----

// A conversion's result type is checked like any other matrix type.
gpu.module @convert_to_unsupported attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @k(%a: memref<1024xf32>, %s: index) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %m = subgroup_matrix.load %a[%c0] stride %s : memref<1024xf32> -> !subgroup_matrix.result<16x16xf32>
    // expected-error @+1 {{'!subgroup_matrix.left<16x16xf32>' is not supported by target 'nvidia-h100'}}
    %l = subgroup_matrix.convert %m : !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.left<16x16xf32>
    gpu.return
  }
}

// -----

// A shuffle written for subgroups of 32 cannot run where they hold 8
// (cpu-lavapipe), even in a kernel without matrices; one of the target's
// width passes.
gpu.module @shuffle_width attributes {subgroup_matrix.target = #subgroup_matrix.target<"cpu-lavapipe">} {
  gpu.func @k(%a: memref<64xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %lane = gpu.lane_id
    %v = memref.load %a[%lane] : memref<64xf32>
    %c1 = arith.constant 1 : i32
    %c8 = arith.constant 8 : i32
    %c32 = arith.constant 32 : i32
    %fits, %ok8 = gpu.shuffle xor %v, %c1, %c8 : f32
    // expected-error @+1 {{shuffles within groups of 32 invocations, but target 'cpu-lavapipe' has subgroups of 8: a shuffle's width must be the subgroup size}}
    %r, %ok = gpu.shuffle xor %fits, %c1, %c32 : f32
    memref.store %r, %a[%lane] : memref<64xf32>
    gpu.return
  }
}
