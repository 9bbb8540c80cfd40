// RUN: sm-opt %s --sm-hold-bf16-as-bits --split-input-file --verify-diagnostics | FileCheck %s

// On a target without matrix units, bf16 buffers and the values moved
// through them become 16-bit integers.

// CHECK-LABEL: gpu.func @copy
// CHECK-SAME: (%[[IN:.*]]: memref<16xi16>, %[[OUT:.*]]: memref<16xi16>)
// CHECK: %[[X:.*]] = memref.load %[[IN]][%{{.*}}] : memref<16xi16>
// CHECK: memref.store %[[X]], %[[OUT]]
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"cpu-lavapipe">} {
  gpu.func @copy(%in: memref<16xbf16>, %out: memref<16xbf16>) kernel {
    %c0 = arith.constant 0 : index
    %x = memref.load %in[%c0] : memref<16xbf16>
    memref.store %x, %out[%c0] : memref<16xbf16>
    gpu.return
  }
}

// -----

// A target with matrix units but none of bf16 (Mesa 26's lavapipe, whose
// driver has no bf16 type either) holds bf16 as bits too.

// Its conversions to and from f32, which no emulation expanded, become
// integer arithmetic on the bits (upstream's bf16 expansion).

// CHECK-LABEL: gpu.func @matrix_units_without_bf16
// CHECK-SAME: (%[[IN:.*]]: memref<16xi16>, %[[OUT:.*]]: memref<16xi16>, %{{.*}}: memref<16xf32>)
// CHECK: %[[X:.*]] = memref.load %[[IN]]
// CHECK: memref.store %[[X]], %[[OUT]]
// CHECK: arith.extui %[[X]] : i16 to i32
// CHECK: arith.shli
// CHECK: arith.bitcast %{{.*}} : i32 to f32
// CHECK-NOT: bf16
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"cpu-lavapipe-coopmat">} {
  gpu.func @matrix_units_without_bf16(%in: memref<16xbf16>, %out: memref<16xbf16>, %wide: memref<16xf32>) kernel {
    %c0 = arith.constant 0 : index
    %x = memref.load %in[%c0] : memref<16xbf16>
    memref.store %x, %out[%c0] : memref<16xbf16>
    %y = arith.extf %x : bf16 to f32
    memref.store %y, %wide[%c0] : memref<16xf32>
    gpu.return
  }
}

// -----

// A target with bf16 matrices has bf16: nothing changes.

// CHECK-LABEL: gpu.func @native
// CHECK-SAME: memref<16xbf16>
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @native(%in: memref<16xbf16>, %out: memref<16xbf16>) kernel {
    %c0 = arith.constant 0 : index
    %x = memref.load %in[%c0] : memref<16xbf16>
    memref.store %x, %out[%c0] : memref<16xbf16>
    gpu.return
  }
}

// -----

gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"cpu-lavapipe">} {
  gpu.func @arithmetic(%in: memref<16xbf16>) kernel {
    %c0 = arith.constant 0 : index
    %x = memref.load %in[%c0] : memref<16xbf16>
    // expected-error @below {{'arith.addf' op computes in bf16, which the device lacks}}
    %y = arith.addf %x, %x : bf16
    memref.store %y, %in[%c0] : memref<16xbf16>
    gpu.return
  }
}
