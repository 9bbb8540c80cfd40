// RUN: sm-opt %s -split-input-file -verify-diagnostics --sm-lower-to-vulkan
// RUN: not sm-opt %s -split-input-file --sm-lower-to-vulkan 2>&1 | FileCheck %s --check-prefix=NOSPIRV

// Programs the device would reject stop the pipeline before any SPIR-V is
// emitted.
// NOSPIRV-NOT: spirv.module

gpu.module @unsupported_type attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @k(%a: memref<1024xf16>, %s: index) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{'!subgroup_matrix.left<8x8xf16>' is not supported by target 'nvidia-h100'}}
    %l = subgroup_matrix.load %a[%c0] stride %s : memref<1024xf16> -> !subgroup_matrix.left<8x8xf16>
    gpu.return
  }
}

// -----

gpu.module @workgroup_size attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  // expected-error @+1 {{kernel 'k' uses subgroup matrices with a workgroup size x of 16, which is not a multiple of the subgroup size 32 of target 'nvidia-h100'}}
  gpu.func @k(%a: memref<1024xf16>, %s: index) kernel attributes {known_block_size = array<i32: 16, 2, 1>} {
    %c0 = arith.constant 0 : index
    %l = subgroup_matrix.load %a[%c0] stride %s : memref<1024xf16> -> !subgroup_matrix.left<16x16xf16>
    gpu.return
  }
}

// -----

gpu.module @divergent attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @k(%a: memref<1024xf16>, %s: index) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %tid = gpu.thread_id x
    %c = arith.cmpi eq, %tid, %c0 : index
    // expected-note @+1 {{control flow diverges here}}
    scf.if %c {
      // expected-error @+1 {{'subgroup_matrix.load' op may execute in control flow that diverges within a subgroup}}
      %l = subgroup_matrix.load %a[%c0] stride %s : memref<1024xf16> -> !subgroup_matrix.left<16x16xf16>
    }
    gpu.return
  }
}

// -----

gpu.module @no_block_size attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  // expected-error @+1 {{kernel 'k' needs a known workgroup size (known_block_size): a Vulkan compute shader declares its workgroup size}}
  gpu.func @k(%a: memref<1024xf16>, %s: index) kernel {
    gpu.return
  }
}

// -----

gpu.module @dynamic_strides attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @k(%a: memref<?x?xf16>, %s: index) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{'subgroup_matrix.load' op cannot be lowered to SPIR-V: 'memref<?x?xf16>' has dynamic strides or offset, and SPIR-V addresses memrefs through static ones (use a 1-D memref and the stride operand)}}
    %l = subgroup_matrix.load %a[%c0, %c0] stride %s : memref<?x?xf16> -> !subgroup_matrix.left<16x16xf16>
    gpu.return
  }
}

// -----

// expected-error @+1 {{no target to lower for: attach a 'subgroup_matrix.target' attribute or name a preset with target=NAME}}
gpu.module @no_target {
  gpu.func @k(%a: memref<1024xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    gpu.return
  }
}

// -----

// Found by utils/fuzz.py: a kernel argument in workgroup memory (here the
// numeric memory space 3) was declared as a descriptor binding of a
// Workgroup variable, which spirv-val rejects.
gpu.module @workgroup_argument attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  // expected-error @+1 {{kernel 'k' takes argument 1 of type 'memref<1024xf32, 3>', which is not in global memory: Vulkan kernel arguments are storage buffers}}
  gpu.func @k(%a: memref<1024xf32>, %w: memref<1024xf32, 3>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    gpu.return
  }
}

// -----

gpu.module @empty_workgroup attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  // expected-error @+1 {{kernel 'k' has a workgroup size of 32x0x1: every dimension must be at least 1}}
  gpu.func @k(%a: memref<1024xf32>) kernel attributes {known_block_size = array<i32: 32, 0, 1>} {
    gpu.return
  }
}

// -----

// Workgroup memory belongs to kernels: a reduction in a function the
// kernel calls has no scratch tile to go through. (A reduction of a result
// matrix is one instruction of VK_NV_cooperative_matrix2 on the H100; one of
// a left matrix is not.)
gpu.module @reduce_in_a_function attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  func.func @helper(%m: !subgroup_matrix.left<16x16xf16>) -> !subgroup_matrix.left<16x16xf16> {
    // expected-error @+1 {{goes through workgroup memory on this target, which only a kernel can allocate: use it in the kernel rather than in a function it calls}}
    %r = subgroup_matrix.reduce add rows %m : !subgroup_matrix.left<16x16xf16>
    return %r : !subgroup_matrix.left<16x16xf16>
  }
  gpu.func @k(%a: memref<1024xf16>, %s: index) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %m = subgroup_matrix.load %a[%c0] stride %s : memref<1024xf16> -> !subgroup_matrix.left<16x16xf16>
    %r = func.call @helper(%m) : (!subgroup_matrix.left<16x16xf16>) -> !subgroup_matrix.left<16x16xf16>
    subgroup_matrix.store %r, %a[%c0] stride %s : !subgroup_matrix.left<16x16xf16>, memref<1024xf16>
    gpu.return
  }
}


// -----

// A function the kernel calls cannot take a buffer: Vulkan's logical
// addressing gives buffers to kernels only.
gpu.module @buffer_argument attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  // expected-error @+1 {{takes a buffer (argument 0 of type 'memref<1024xf16>'), which a SPIR-V function for Vulkan cannot: only kernels receive buffers (a function would need variable pointers); inline it into the kernel that calls it}}
  func.func @helper(%a: memref<1024xf16>, %i: index) -> f16 {
    %x = memref.load %a[%i] : memref<1024xf16>
    return %x : f16
  }
  gpu.func @k(%a: memref<1024xf16>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %x = func.call @helper(%a, %c0) : (memref<1024xf16>, index) -> f16
    memref.store %x, %a[%c0] : memref<1024xf16>
    gpu.return
  }
}
