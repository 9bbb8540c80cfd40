// RUN: sm-opt %s --sm-emulate-matrices --split-input-file | FileCheck %s --check-prefix=NATIVE
// RUN: sm-opt %s --sm-emulate-matrices=emulation=all --split-input-file | FileCheck %s --check-prefix=ALL
// RUN: sm-opt %s --sm-emulate-matrices="emulation=all emulated-exchange=subgroup" --split-input-file | FileCheck %s --check-prefix=SUBGROUP
// RUN: sm-opt %s --sm-emulate-matrices="emulation=all robust-access=1" --split-input-file | FileCheck %s --check-prefix=ROBUST
// RUN: not sm-opt %s --sm-emulate-matrices=emulation=some --split-input-file 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// UNKNOWN: error: unknown emulation 'some'; expected 'none', 'unsupported' or 'all'

// On a target with matrix units, kernels keep their matrices unless the
// emulation option says otherwise.

// NATIVE-LABEL: gpu.func @copy
// NATIVE-NOT: subgroup_matrix.emulated
// NATIVE: subgroup_matrix.load

// ALL-LABEL: gpu.func @copy
// ALL-SAME: subgroup_matrix.emulated
// ALL: %[[LANE:.*]] = gpu.lane_id
// ALL: memref.load %{{.*}}[%{{.*}}] : memref<?xf32>
// ALL-NOT: subgroup_matrix.
// ALL: gpu.return

// ROBUST-LABEL: gpu.func @copy
// ROBUST-SAME: %{{.*}}: memref<?xi32>
// ROBUST: scf.if
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @copy(%in: memref<?xf32>, %out: memref<256xf32>) kernel
      attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %m = subgroup_matrix.load %in[%c0] stride %c16
        : memref<?xf32> -> !subgroup_matrix.result<16x16xf32>
    subgroup_matrix.store %m, %out[%c0] stride %c16
        : !subgroup_matrix.result<16x16xf32>, memref<256xf32>
    gpu.return
  }
}

// -----

// Multiplications exchange operands through a workgroup scratch buffer on a
// target with matrix units (one region per subgroup of the known workgroup
// size), by subgroup broadcasts when asked.

// ALL-LABEL: gpu.func @mma
// ALL-SAME: subgroup_matrix.emulated
// ALL: memref.alloc() : memref<{{[0-9]+}}xi32, #gpu.address_space<workgroup>>
// ALL: subgroup_matrix.subgroup_barrier
// ALL-NOT: subgroup_matrix.mma

// SUBGROUP-LABEL: gpu.func @mma
// SUBGROUP-NOT: memref.alloc
// SUBGROUP: gpu.subgroup_broadcast
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @mma(%a: memref<256xf16>, %b: memref<256xf16>, %c: memref<256xf32>) kernel
      attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %l = subgroup_matrix.load %a[%c0] stride %c16
        : memref<256xf16> -> !subgroup_matrix.left<16x16xf16>
    %r = subgroup_matrix.load %b[%c0] stride %c16
        : memref<256xf16> -> !subgroup_matrix.right<16x16xf16>
    %acc = subgroup_matrix.load %c[%c0] stride %c16
        : memref<256xf32> -> !subgroup_matrix.result<16x16xf32>
    %d = subgroup_matrix.mma %l, %r, %acc
        : !subgroup_matrix.left<16x16xf16>, !subgroup_matrix.right<16x16xf16>
          -> !subgroup_matrix.result<16x16xf32>
    subgroup_matrix.store %d, %c[%c0] stride %c16
        : !subgroup_matrix.result<16x16xf32>, memref<256xf32>
    gpu.return
  }
}

// -----

// A target without matrix units emulates every kernel, sharing operands by
// subgroup broadcasts.

// NATIVE-LABEL: gpu.func @on_lavapipe
// NATIVE-SAME: subgroup_matrix.emulated
// NATIVE-NOT: memref.alloc
// NATIVE-NOT: subgroup_matrix.mma
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"cpu-lavapipe">} {
  gpu.func @on_lavapipe(%a: memref<256xf16>, %b: memref<256xf16>, %c: memref<256xf32>) kernel
      attributes {known_block_size = array<i32: 8, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %l = subgroup_matrix.load %a[%c0] stride %c16
        : memref<256xf16> -> !subgroup_matrix.left<16x16xf16>
    %r = subgroup_matrix.load %b[%c0] stride %c16
        : memref<256xf16> -> !subgroup_matrix.right<16x16xf16>
    %acc = subgroup_matrix.load %c[%c0] stride %c16
        : memref<256xf32> -> !subgroup_matrix.result<16x16xf32>
    %d = subgroup_matrix.mma %l, %r, %acc
        : !subgroup_matrix.left<16x16xf16>, !subgroup_matrix.right<16x16xf16>
          -> !subgroup_matrix.result<16x16xf32>
    subgroup_matrix.store %d, %c[%c0] stride %c16
        : !subgroup_matrix.result<16x16xf32>, memref<256xf32>
    gpu.return
  }
}
