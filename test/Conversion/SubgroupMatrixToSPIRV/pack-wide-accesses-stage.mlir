// RUN: sm-opt %s --sm-pack-wide-accesses --split-input-file | FileCheck %s

// The stage alone (pack-wide-accesses.mlir runs the whole pipeline): a buffer
// accessed four f16 at a time becomes a buffer of two-word vectors.

// CHECK-LABEL: gpu.func @copy
// CHECK-SAME: (%[[IN:.*]]: memref<64xvector<2xi32>>, %[[OUT:.*]]: memref<64xvector<2xi32>>)
// CHECK: %[[V:.*]] = memref.load %[[IN]][%{{.*}}] : memref<64xvector<2xi32>>
// CHECK: memref.store %[[V]], %[[OUT]][%{{.*}}] : memref<64xvector<2xi32>>
gpu.module @kernels {
  gpu.func @copy(%in: memref<256xf16>, %out: memref<256xf16>) kernel {
    %c0 = arith.constant 0 : index
    %v = vector.load %in[%c0] : memref<256xf16>, vector<4xf16>
    vector.store %v, %out[%c0] : memref<256xf16>, vector<4xf16>
    gpu.return
  }
}

// -----

// In a function an emulated kernel calls, whose buffers are not retyped,
// vector accesses become scalar ones.

// CHECK-LABEL: func.func @helper
// CHECK-NOT: vector.load
// CHECK-COUNT-4: memref.load %{{.*}} : memref<256xf16>
gpu.module @kernels {
  func.func @helper(%in: memref<256xf16>, %i: index) -> vector<4xf16>
      attributes {subgroup_matrix.emulated} {
    %v = vector.load %in[%i] : memref<256xf16>, vector<4xf16>
    return %v : vector<4xf16>
  }
}
