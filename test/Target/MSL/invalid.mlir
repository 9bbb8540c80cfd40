// RUN: sm-translate --emit-msl %s -split-input-file -verify-diagnostics

// --emit-msl lowers with sm-lower-to-metal first: matrices and scalar types
// are checked against the target (here, with none named, what Metal
// Shading Language expresses) before the emitter sees them.

gpu.module @integers {
  gpu.func @k(%a: memref<512xi8>, %s: index) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{'!subgroup_matrix.left<8x32xsi8>' is not supported by target 'metal'; it supports left<8x8xf32>, left<8x8xf16>, left<8x8xbf16>, and matrices built of several of them}}
    %l = subgroup_matrix.load %a[%c0] stride %s : memref<512xi8> -> !subgroup_matrix.left<8x32xsi8>
    gpu.return
  }
}

// -----

gpu.module @shape {
  gpu.func @k(%a: memref<512xf16>, %s: index) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{'!subgroup_matrix.left<16x12xf16>' is not supported by target 'metal'}}
    %l = subgroup_matrix.load %a[%c0] stride %s : memref<512xf16> -> !subgroup_matrix.left<16x12xf16>
    gpu.return
  }
}

// -----

gpu.module @unsupported_op {
  gpu.func @k(%a: memref<512xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %v = memref.load %a[%c0] : memref<512xf32>
    %c1 = arith.constant 1 : i32
    %c32 = arith.constant 32 : i32
    // expected-error @+1 {{'gpu.shuffle' op cannot be emitted as Metal Shading Language: only xor shuffles are supported}}
    %r, %ok = gpu.shuffle down %v, %c1, %c32 : f32
    gpu.return
  }
}

// -----

// expected-error @+1 {{no gpu.func kernels to emit as Metal}}
module {}

// -----

gpu.module @dynamic {
  gpu.func @k(%a: memref<?x?xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{'memref.load' op needs a memref with static strides to be addressed in Metal, got 'memref<?x?xf32>'}}
    %v = memref.load %a[%c0, %c0] : memref<?x?xf32>
    gpu.return
  }
}

// -----

gpu.module @packed {
  gpu.func @k(%a: memref<64xvector<4xi32>>, %s: index) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{'subgroup_matrix.load' op cannot be emitted as Metal: 'memref<64xvector<4xi32>>' packs components into words; simdgroup_load and simdgroup_store address components}}
    %l = subgroup_matrix.load %a[%c0] stride %s : memref<64xvector<4xi32>> -> !subgroup_matrix.left<8x8xf16>
    gpu.return
  }
}

// -----

// Found by utils/fuzz.py: a kernel argument of a type Metal lacks was
// reported, then the emitter used the missing type name and crashed.
gpu.module @f64_argument {
  // expected-error @+1 {{'gpu.func' uses 'f64', which target 'metal' does not support (it lacks 'float64': the device has no shaderFloat64)}}
  gpu.func @k(%a: memref<1024xf64>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    gpu.return
  }
}

// -----

gpu.module @f64_scalar_argument {
  // expected-error @+1 {{'gpu.func' uses 'f64', which target 'metal' does not support (it lacks 'float64': the device has no shaderFloat64)}}
  gpu.func @k(%a: memref<1024xf32>, %s: f64) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    gpu.return
  }
}

// -----

// Threadgroup memory is declared in the kernel's outermost scope.
gpu.module @nested_alloc {
  gpu.func @k(%a: memref<64xf32>, %n: index) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
      // expected-error @+1 {{'memref.alloc' op cannot be emitted as Metal: threadgroup memory is declared in the kernel's outermost block, not inside a loop or branch}}
      %tile = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
      %v = memref.load %a[%i] : memref<64xf32>
      memref.store %v, %tile[%i] : memref<64xf32, #gpu.address_space<workgroup>>
    }
    gpu.return
  }
}

// -----

gpu.module @global_alloc {
  gpu.func @k(%a: memref<64xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    // expected-error @+1 {{'memref.alloc' op cannot be emitted as Metal: only workgroup memory is allocated in a kernel, got 'memref<64xf32>'}}
    %tile = memref.alloc() : memref<64xf32>
    gpu.return
  }
}
