// RUN: sm-opt %s --sm-expand-through-workgroup-memory --split-input-file --verify-diagnostics | FileCheck %s
// RUN: sm-opt %s --sm-expand-through-workgroup-memory=register-ops=kind-changes --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=METAL

// A map that reads its element's position goes through a scratch tile: the
// matrix is stored, each invocation rewrites its elements between subgroup
// barriers, and the result is loaded back.

// CHECK-LABEL: gpu.func @triangle
// CHECK: %[[SCRATCH:.*]] = memref.alloc() : memref<{{[0-9]+}}xf32, #gpu.address_space<workgroup>>
// CHECK: subgroup_matrix.store %{{.*}}, %[[SCRATCH]]
// CHECK: subgroup_matrix.subgroup_barrier
// CHECK: scf.for
// CHECK: subgroup_matrix.subgroup_barrier
// CHECK: subgroup_matrix.load %[[SCRATCH]]
// CHECK-NOT: subgroup_matrix.map
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @triangle(%buf: memref<256xf32>) kernel
      attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %m = subgroup_matrix.load %buf[%c0] stride %c16
        : memref<256xf32> -> !subgroup_matrix.result<16x16xf32>
    %r = subgroup_matrix.map %m : !subgroup_matrix.result<16x16xf32>
        -> !subgroup_matrix.result<16x16xf32> {
    ^bb0(%row: index, %col: index, %x: f32):
      %zero = arith.constant 0.0 : f32
      %below = arith.cmpi ule, %col, %row : index
      %y = arith.select %below, %x, %zero : f32
      subgroup_matrix.yield %y : f32
    }
    subgroup_matrix.store %r, %buf[%c0] stride %c16
        : !subgroup_matrix.result<16x16xf32>, memref<256xf32>
    gpu.return
  }
}

// -----

// Component-wise arithmetic stays: cooperative matrices do it directly.
// Metal's simdgroup matrices have no arithmetic of their own.

// CHECK-LABEL: gpu.func @scale
// CHECK-NOT: memref.alloc
// CHECK: subgroup_matrix.map
// METAL-LABEL: gpu.func @scale
// METAL: memref.alloc() : memref<512xf32, #gpu.address_space<workgroup>>
// METAL: arith.mulf
// METAL-NOT: subgroup_matrix.map
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @scale(%buf: memref<256xf32>) kernel
      attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %m = subgroup_matrix.load %buf[%c0] stride %c16
        : memref<256xf32> -> !subgroup_matrix.result<16x16xf32>
    %r = subgroup_matrix.map %m : !subgroup_matrix.result<16x16xf32>
        -> !subgroup_matrix.result<16x16xf32> {
    ^bb0(%row: index, %col: index, %x: f32):
      %two = arith.constant 2.0 : f32
      %y = arith.mulf %x, %two : f32
      subgroup_matrix.yield %y : f32
    }
    subgroup_matrix.store %r, %buf[%c0] stride %c16
        : !subgroup_matrix.result<16x16xf32>, memref<256xf32>
    gpu.return
  }
}

// -----

// A change of kind alone stays for Metal, whose kinds share one type; a
// change of component type is made element by element in memory: the
// source's tile and the result's, one conversion per element.

// METAL-LABEL: gpu.func @narrow
// METAL-DAG: %[[WIDE:.*]] = memref.alloc() : memref<512xf32, #gpu.address_space<workgroup>>
// METAL-DAG: %[[NARROW:.*]] = memref.alloc() : memref<512xf16, #gpu.address_space<workgroup>>
// METAL: %[[SAME:.*]] = subgroup_matrix.convert %{{.*}} : !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.left<16x16xf32>
// METAL: subgroup_matrix.store %[[SAME]], %[[WIDE]]
// METAL: subgroup_matrix.subgroup_barrier
// METAL: scf.for
// METAL:   %[[ELEMENT:.*]] = memref.load %[[WIDE]]
// METAL:   %[[HALF:.*]] = arith.truncf %[[ELEMENT]] : f32 to f16
// METAL:   memref.store %[[HALF]], %[[NARROW]]
// METAL: subgroup_matrix.subgroup_barrier
// METAL: subgroup_matrix.load %[[NARROW]]{{.*}} -> !subgroup_matrix.left<16x16xf16>
// METAL-NOT: subgroup_matrix.convert

// On Vulkan the component type changes in registers and only the kind
// through memory.
// CHECK-LABEL: gpu.func @narrow
// CHECK: subgroup_matrix.subgroup_barrier
// CHECK: %[[LEFT:.*]] = subgroup_matrix.load {{.*}} -> !subgroup_matrix.left<16x16xf32>
// CHECK: subgroup_matrix.convert %[[LEFT]] : !subgroup_matrix.left<16x16xf32> -> !subgroup_matrix.left<16x16xf16>
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"apple-m1">} {
  gpu.func @narrow(%buf: memref<256xf32>, %out: memref<512xf16>) kernel
      attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %m = subgroup_matrix.load %buf[%c0] stride %c16
        : memref<256xf32> -> !subgroup_matrix.result<16x16xf32>
    %same = subgroup_matrix.convert %m
        : !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.left<16x16xf32>
    %h = subgroup_matrix.convert %same
        : !subgroup_matrix.left<16x16xf32> -> !subgroup_matrix.left<16x16xf16>
    subgroup_matrix.store %h, %out[%c0] stride %c16
        : !subgroup_matrix.left<16x16xf16>, memref<512xf16>
    gpu.return
  }
}

// -----

// A bounded load or store whose matrix lies inside its bounds is the plain
// op; otherwise the elements inside the bounds (and only they) move through
// the subgroup's tile, element by element, and zeros fill the rest of a
// loaded matrix. The subgroup barriers stay outside the branches, which
// the subgroups of a workgroup may take differently.
// CHECK-LABEL: gpu.func @ragged_edge
// CHECK-SAME: (%[[IN:.*]]: memref<4096xf16>, %[[OUT:.*]]: memref<4096xf16>, %[[R:.*]]: index, %[[C:.*]]: index, %[[I:.*]]: index)
// CHECK: %[[SCRATCH:.*]] = memref.alloc() : memref<256xf16, #gpu.address_space<workgroup>>
// CHECK: %[[S:.*]] = arith.constant 40 : index
// CHECK: %[[COLUMNS_IN:.*]] = arith.cmpi sge, %[[C]], %{{.*}} : index
// CHECK: %[[ROWS_IN:.*]] = arith.cmpi sge, %[[R]], %{{.*}} : index
// CHECK: %[[WHOLE:.*]] = arith.andi %[[ROWS_IN]], %[[COLUMNS_IN]] : i1
// CHECK: %[[DIRECT:.*]] = scf.if %[[WHOLE]] -> (!subgroup_matrix.left<16x16xf16>) {
// CHECK-NEXT: %[[PLAIN:.*]] = subgroup_matrix.load %[[IN]][%[[I]]] stride %[[S]] : memref<4096xf16> -> !subgroup_matrix.left<16x16xf16>
// CHECK-NEXT: scf.yield %[[PLAIN]]
// CHECK: } else {
// CHECK: scf.for %[[E:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: %[[ROW:.*]] = arith.divui %[[E]]
// CHECK: %[[COLUMN:.*]] = arith.remui %[[E]]
// CHECK: %[[COLUMN_OK:.*]] = arith.cmpi slt, %[[COLUMN]], %[[C]] : index
// CHECK: %[[ROW_OK:.*]] = arith.cmpi slt, %[[ROW]], %[[R]] : index
// CHECK: %[[INSIDE:.*]] = arith.andi %[[ROW_OK]], %[[COLUMN_OK]] : i1
// CHECK: %[[ELEMENT:.*]] = scf.if %[[INSIDE]] -> (f16) {
// CHECK-NEXT: memref.load %[[IN]]
// CHECK: } else {
// CHECK-NEXT: arith.constant 0.000000e+00 : f16
// CHECK: memref.store %[[ELEMENT]], %[[SCRATCH]]
// CHECK: subgroup_matrix.splat
// CHECK: }
// CHECK-NEXT: subgroup_matrix.subgroup_barrier
// CHECK-NEXT: %[[A:.*]] = scf.if %[[WHOLE]] -> (!subgroup_matrix.left<16x16xf16>) {
// CHECK-NEXT: scf.yield %[[DIRECT]]
// CHECK-NEXT: } else {
// CHECK: %[[TILE:.*]] = subgroup_matrix.load %[[SCRATCH]]
// CHECK-NEXT: scf.yield %[[TILE]]
// CHECK-NEXT: }
// CHECK-NEXT: subgroup_matrix.subgroup_barrier
// CHECK: scf.if %[[WHOLE_OUT:.*]] {
// CHECK-NEXT: subgroup_matrix.store %[[A]], %[[OUT]][%[[I]]] stride %[[S]] col_major : !subgroup_matrix.left<16x16xf16>, memref<4096xf16>
// CHECK-NEXT: } else {
// CHECK: subgroup_matrix.store %[[A]], %[[SCRATCH]]
// CHECK-NEXT: }
// CHECK-NEXT: subgroup_matrix.subgroup_barrier
// CHECK: %[[CUT:.*]] = arith.xori %[[WHOLE_OUT]], %{{.*}} : i1
// CHECK-NEXT: scf.if %[[CUT]] {
// CHECK: scf.for
// CHECK: scf.if %{{.*}} {
// CHECK: memref.load %[[SCRATCH]]
// CHECK: memref.store %{{.*}}, %[[OUT]]
// CHECK: subgroup_matrix.subgroup_barrier
// CHECK-NOT: bounds
// METAL-LABEL: gpu.func @ragged_edge
// METAL-NOT: bounds
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @ragged_edge(%in: memref<4096xf16>, %out: memref<4096xf16>, %r: index, %c: index, %i: index) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %s = arith.constant 40 : index
    %a = subgroup_matrix.load %in[%i] stride %s bounds [%r, %c] : memref<4096xf16> -> !subgroup_matrix.left<16x16xf16>
    subgroup_matrix.store %a, %out[%i] stride %s col_major bounds [%r, %c] : !subgroup_matrix.left<16x16xf16>, memref<4096xf16>
    gpu.return
  }
}

// -----

// A decode load: each invocation decodes its elements of the tile inside the
// tensor (the body, with the element's tensor position) and writes zeros
// outside it; the subgroup loads the tile after a barrier.
// CHECK-LABEL: gpu.func @dequantize
// CHECK-SAME: (%[[Q:.*]]: memref<4096xi8>, %[[SCALE:.*]]: memref<64xf16>, %[[OUT:.*]]: memref<4096xf16>, %[[K0:.*]]: index, %[[N0:.*]]: index, %[[K:.*]]: index)
// CHECK: %[[SCRATCH:.*]] = memref.alloc() : memref<256xf16, #gpu.address_space<workgroup>>
// CHECK: scf.for %[[E:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: %[[ROW:.*]] = arith.addi %[[K0]], %{{.*}} : index
// CHECK: %[[COLUMN:.*]] = arith.addi %[[N0]], %{{.*}} : index
// CHECK: %[[ROW_OK:.*]] = arith.cmpi slt, %[[ROW]], %[[K]] : index
// CHECK: %[[COLUMN_OK:.*]] = arith.cmpi slt, %[[COLUMN]], %{{.*}} : index
// CHECK: %[[INSIDE:.*]] = arith.andi %[[ROW_OK]], %[[COLUMN_OK]] : i1
// CHECK: %[[ELEMENT:.*]] = scf.if %[[INSIDE]] -> (f16) {
// CHECK: %[[BYTE:.*]] = memref.load %[[Q]]
// CHECK: %[[VALUE:.*]] = arith.sitofp %[[BYTE]] : i8 to f16
// CHECK: %[[S:.*]] = memref.load %[[SCALE]][%[[COLUMN]]]
// CHECK: %[[SCALED:.*]] = arith.mulf %[[VALUE]], %[[S]] : f16
// CHECK: scf.yield %[[SCALED]] : f16
// CHECK: } else {
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f16
// CHECK-NEXT: scf.yield %[[ZERO]] : f16
// CHECK: memref.store %[[ELEMENT]], %[[SCRATCH]]
// CHECK: subgroup_matrix.subgroup_barrier
// CHECK: %[[B:.*]] = subgroup_matrix.load %[[SCRATCH]]{{.*}} -> !subgroup_matrix.right<16x16xf16>
// CHECK: subgroup_matrix.store %[[B]], %[[OUT]]
// CHECK-NOT: decode_load
// METAL-LABEL: gpu.func @dequantize
// METAL-NOT: decode_load
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @dequantize(%q: memref<4096xi8>, %scale: memref<64xf16>, %out: memref<4096xf16>, %k0: index, %n0: index, %k: index) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %n = arith.constant 64 : index
    %b = subgroup_matrix.decode_load [%k0, %n0] within [%k, %n]
        : !subgroup_matrix.right<16x16xf16> {
    ^bb0(%row: index, %col: index):
      %rowStart = arith.muli %row, %n : index
      %at = arith.addi %rowStart, %col : index
      %byte = memref.load %q[%at] : memref<4096xi8>
      %value = arith.sitofp %byte : i8 to f16
      %s = memref.load %scale[%col] : memref<64xf16>
      %scaled = arith.mulf %value, %s : f16
      subgroup_matrix.yield %scaled : f16
    }
    subgroup_matrix.store %b, %out[%c0] stride %n
        : !subgroup_matrix.right<16x16xf16>, memref<4096xf16>
    gpu.return
  }
}

// -----

// A reduction over 2x2 blocks: the operand goes to the first tile of the
// subgroup's slice (two tiles of 256, two subgroups), each invocation
// combines four of its elements into the second tile, and the half-size
// result is loaded from there, rows 8 apart.

// CHECK-LABEL: gpu.func @pool
// CHECK: %[[SCRATCH:.*]] = memref.alloc() : memref<1024xf32, #gpu.address_space<workgroup>>
// CHECK: %[[SUBGROUP:.*]] = gpu.subgroup_id
// CHECK: %[[LANE:.*]] = gpu.lane_id
// CHECK: %[[M:.*]] = subgroup_matrix.load %arg0
// CHECK: %[[C512:.*]] = arith.constant 512 : index
// CHECK: %[[SLICE:.*]] = arith.muli %[[SUBGROUP]], %[[C512]] : index
// CHECK: %[[START:.*]] = arith.addi %[[SLICE]], %{{.*}} : index
// CHECK: subgroup_matrix.store %[[M]], %[[SCRATCH]][%[[START]]]
// CHECK: subgroup_matrix.subgroup_barrier
// CHECK: %[[C256:.*]] = arith.constant 256 : index
// CHECK: %[[RESULT:.*]] = arith.addi %{{.*}}, %[[C256]] : index
// CHECK: %[[C64:.*]] = arith.constant 64 : index
// CHECK: scf.for %[[I:.*]] = %[[LANE]] to %[[C64]]
// CHECK-COUNT-4: memref.load %[[SCRATCH]]
// CHECK: %[[MAX:.*]] = arith.maximumf
// CHECK: %[[OUT:.*]] = arith.addi %[[RESULT]], %[[I]] : index
// CHECK: memref.store %[[MAX]], %[[SCRATCH]][%[[OUT]]]
// CHECK: }
// CHECK-NEXT: subgroup_matrix.subgroup_barrier
// CHECK: %[[POOLED:.*]] = subgroup_matrix.load %[[SCRATCH]][%[[RESULT]]] stride %{{.*}} : memref<1024xf32, #gpu.address_space<workgroup>> -> !subgroup_matrix.result<8x8xf32>
// CHECK-NOT: subgroup_matrix.reduce
// CHECK: subgroup_matrix.store %[[POOLED]]
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"cpu-lavapipe">} {
  gpu.func @pool(%buf: memref<256xf32>, %out: memref<64xf32>) kernel
      attributes {known_block_size = array<i32: 16, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %m = subgroup_matrix.load %buf[%c0] stride %c16
        : memref<256xf32> -> !subgroup_matrix.result<16x16xf32>
    %r = subgroup_matrix.reduce max blocks2x2 %m
        : !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.result<8x8xf32>
    subgroup_matrix.store %r, %out[%c0] stride %c8
        : !subgroup_matrix.result<8x8xf32>, memref<64xf32>
    gpu.return
  }
}
