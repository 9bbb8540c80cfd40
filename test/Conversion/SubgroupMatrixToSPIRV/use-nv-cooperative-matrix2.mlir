// RUN: sm-opt %s -split-input-file --sm-use-nv-cooperative-matrix2 | FileCheck %s

// A row reduction of a result matrix calls the reduce stand-in, which calls
// the combining function the reduction's kind makes.
// CHECK-LABEL: gpu.module @reductions
// CHECK: gpu.func @k
// CHECK: %[[M:.*]] = subgroup_matrix.load
// CHECK: %[[ROWS:.*]] = func.call @__sm_nv_coopmat2__reduce_rows__0(%[[M]])
// CHECK: %[[COLUMNS:.*]] = func.call @__sm_nv_coopmat2__reduce_columns__1(%[[ROWS]])
// CHECK: %[[ALL:.*]] = func.call @__sm_nv_coopmat2__reduce_all__2(%[[COLUMNS]])
// CHECK: subgroup_matrix.store %[[ALL]]
// CHECK: func.func private @sm_nv_coopmat2_combine(%[[X:.*]]: f32, %[[Y:.*]]: f32) -> f32
// CHECK-NEXT: %[[MAX:.*]] = arith.maximumf %[[X]], %[[Y]] : f32
// CHECK-NEXT: return %[[MAX]]
// CHECK: func.func private @__sm_nv_coopmat2__reduce_rows__0(%{{.*}}: !subgroup_matrix.result<16x16xf32>) -> !subgroup_matrix.result<16x16xf32>
// CHECK: call @sm_nv_coopmat2_combine(
// CHECK: %[[UNDEFINED:.*]] = ub.poison : !subgroup_matrix.result<16x16xf32>
// CHECK: return %[[UNDEFINED]]
// CHECK: func.func private @sm_nv_coopmat2_combine_0(%[[X:.*]]: f32, %[[Y:.*]]: f32) -> f32
// CHECK-NEXT: arith.addf %[[X]], %[[Y]] : f32
// CHECK: func.func private @sm_nv_coopmat2_combine_{{[0-9]+}}(%[[X:.*]]: i32, %[[Y:.*]]: i32) -> i32
// CHECK-NEXT: arith.minui %[[X]], %[[Y]] : i32
gpu.module @reductions attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @k(%a: memref<1024xf32>, %b: memref<1024xi32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %m = subgroup_matrix.load %a[%c0] stride %c16 : memref<1024xf32> -> !subgroup_matrix.result<16x16xf32>
    %rows = subgroup_matrix.reduce max rows %m : !subgroup_matrix.result<16x16xf32>
    %columns = subgroup_matrix.reduce add columns %rows : !subgroup_matrix.result<16x16xf32>
    %all = subgroup_matrix.reduce add all %columns : !subgroup_matrix.result<16x16xf32>
    subgroup_matrix.store %all, %a[%c0] stride %c16 : !subgroup_matrix.result<16x16xf32>, memref<1024xf32>
    %n = subgroup_matrix.load %b[%c0] stride %c16 : memref<1024xi32> -> !subgroup_matrix.result<16x16xui32>
    %least = subgroup_matrix.reduce min rows %n : !subgroup_matrix.result<16x16xui32>
    subgroup_matrix.store %least, %b[%c0] stride %c16 : !subgroup_matrix.result<16x16xui32>, memref<1024xi32>
    gpu.return
  }
}

// -----

// A reduction over 2x2 blocks calls a stand-in whose result is the operand
// halved in both dimensions (a 32x32 flexible-dimension operand here).
// CHECK-LABEL: gpu.module @blocks
// CHECK: %[[M:.*]] = subgroup_matrix.load
// CHECK: %[[POOLED:.*]] = func.call @__sm_nv_coopmat2__reduce_blocks2x2__0(%[[M]]) : (!subgroup_matrix.result<32x32xf32>) -> !subgroup_matrix.result<16x16xf32>
// CHECK: subgroup_matrix.store %[[POOLED]]
// CHECK: func.func private @sm_nv_coopmat2_combine(%[[X:.*]]: f32, %[[Y:.*]]: f32) -> f32
// CHECK-NEXT: arith.maximumf %[[X]], %[[Y]] : f32
// CHECK: func.func private @__sm_nv_coopmat2__reduce_blocks2x2__0(%{{.*}}: !subgroup_matrix.result<32x32xf32>) -> !subgroup_matrix.result<16x16xf32>
gpu.module @blocks attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @k(%a: memref<1024xf32>, %b: memref<256xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %m = subgroup_matrix.load %a[%c0] stride %c32 : memref<1024xf32> -> !subgroup_matrix.result<32x32xf32>
    %pooled = subgroup_matrix.reduce max blocks2x2 %m : !subgroup_matrix.result<32x32xf32> -> !subgroup_matrix.result<16x16xf32>
    subgroup_matrix.store %pooled, %b[%c0] stride %c16 : !subgroup_matrix.result<16x16xf32>, memref<256xf32>
    gpu.return
  }
}

// -----

// The instruction reduces accumulators only: a reduction of a left matrix
// is left to the workgroup-memory lowering.
// CHECK-LABEL: gpu.module @left_reduction
// CHECK: subgroup_matrix.reduce add rows
// CHECK-NOT: func.func
gpu.module @left_reduction attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @k(%a: memref<1024xf16>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %m = subgroup_matrix.load %a[%c0] stride %c16 : memref<1024xf16> -> !subgroup_matrix.left<16x16xf16>
    %r = subgroup_matrix.reduce add rows %m : !subgroup_matrix.left<16x16xf16>
    subgroup_matrix.store %r, %a[%c0] stride %c16 : !subgroup_matrix.left<16x16xf16>, memref<1024xf16>
    gpu.return
  }
}

// -----

// A map with the element's position, a second matrix and a value from
// outside: one per-element function receives the row, the column, both
// elements and the outside value. A component-wise map stays as it was
// (the matrices' own arithmetic does it).
// CHECK-LABEL: gpu.module @maps
// CHECK: %[[S:.*]] = subgroup_matrix.load
// CHECK: %[[T:.*]] = subgroup_matrix.load
// CHECK: %[[SCALED:.*]] = subgroup_matrix.map %[[S]]
// CHECK: %[[MASKED:.*]] = func.call @__sm_nv_coopmat2__per_element__0(%[[SCALED]], %[[T]], %[[LIMIT:.*]]) : (!subgroup_matrix.result<16x16xf32>, !subgroup_matrix.result<16x16xf32>, index) -> !subgroup_matrix.result<16x16xf32>
// CHECK: func.func private @sm_nv_coopmat2_element(%[[ROW:.*]]: index, %[[COLUMN:.*]]: index, %[[X:.*]]: f32, %[[Y:.*]]: f32, %[[BOUND:.*]]: index) -> f32
// CHECK: %[[KEY:.*]] = arith.addi %[[COLUMN]], %[[BOUND]]
// CHECK: arith.cmpi ugt, %[[KEY]], %[[ROW]]
// CHECK: math.exp
// CHECK: return
gpu.module @maps attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @k(%a: memref<1024xf32>, %limit: index) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %s = subgroup_matrix.load %a[%c0] stride %c16 : memref<1024xf32> -> !subgroup_matrix.result<16x16xf32>
    %t = subgroup_matrix.load %a[%c16] stride %c16 : memref<1024xf32> -> !subgroup_matrix.result<16x16xf32>
    %scaled = subgroup_matrix.map %s : !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.result<16x16xf32> {
    ^bb0(%row: index, %col: index, %x: f32):
      %two = arith.constant 2.0 : f32
      %y = arith.mulf %x, %two : f32
      subgroup_matrix.yield %y : f32
    }
    %masked = subgroup_matrix.map %scaled, %t : !subgroup_matrix.result<16x16xf32>, !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.result<16x16xf32> {
    ^bb0(%row: index, %col: index, %x: f32, %m: f32):
      %key = arith.addi %col, %limit : index
      %above = arith.cmpi ugt, %key, %row : index
      %d = arith.subf %x, %m : f32
      %e = math.exp %d : f32
      %ninf = arith.constant 0xFF800000 : f32
      %y = arith.select %above, %ninf, %e : f32
      subgroup_matrix.yield %y : f32
    }
    subgroup_matrix.store %masked, %a[%c0] stride %c16 : !subgroup_matrix.result<16x16xf32>, memref<1024xf32>
    gpu.return
  }
}

// -----

// The instruction's matrices and result have one type. A map that computes
// in f32 and narrows at the end applies in f32, and the narrowing follows as
// a conversion (rounding as arith.truncf does). A map of inputs of two types
// stays.
// CHECK-LABEL: gpu.module @narrowing_map
// CHECK: %[[S:.*]] = subgroup_matrix.load
// CHECK: %[[F:.*]] = func.call @__sm_nv_coopmat2__per_element__0(%[[S]]) : (!subgroup_matrix.result<16x16xf32>) -> !subgroup_matrix.result<16x16xf32>
// CHECK: %[[H:.*]] = subgroup_matrix.convert %[[F]] : !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.result<16x16xf16>
// CHECK: subgroup_matrix.map %[[S]], %[[H]] : !subgroup_matrix.result<16x16xf32>, !subgroup_matrix.result<16x16xf16>
// CHECK: func.func private @sm_nv_coopmat2_element(%{{.*}}: index, %{{.*}}: index, %[[X:.*]]: f32) -> f32
// CHECK-NEXT: %[[T:.*]] = math.tanh %[[X]]
// CHECK-NEXT: return %[[T]]
gpu.module @narrowing_map attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @k(%a: memref<1024xf32>, %b: memref<1024xf16>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %s = subgroup_matrix.load %a[%c0] stride %c16 : memref<1024xf32> -> !subgroup_matrix.result<16x16xf32>
    %h = subgroup_matrix.map %s : !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.result<16x16xf16> {
    ^bb0(%row: index, %col: index, %x: f32):
      %t = math.tanh %x : f32
      %y = arith.truncf %t : f32 to f16
      subgroup_matrix.yield %y : f16
    }
    %mixed = subgroup_matrix.map %s, %h : !subgroup_matrix.result<16x16xf32>, !subgroup_matrix.result<16x16xf16> -> !subgroup_matrix.result<16x16xf32> {
    ^bb0(%row: index, %col: index, %x: f32, %y: f16):
      %w = arith.extf %y : f16 to f32
      %e = math.exp %w : f32
      %z = arith.addf %x, %e : f32
      subgroup_matrix.yield %z : f32
    }
    subgroup_matrix.store %mixed, %a[%c0] stride %c16 : !subgroup_matrix.result<16x16xf32>, memref<1024xf32>
    gpu.return
  }
}

// -----

// A result becomes a left or right matrix in registers: the same component
// type changes only its use, another is converted on the way. Other changes
// of kind stay.
// CHECK-LABEL: gpu.module @conversions
// CHECK: %[[P:.*]] = subgroup_matrix.load
// CHECK: func.call @__sm_nv_coopmat2__convert_float__0(%[[P]]) : (!subgroup_matrix.result<16x16xf32>) -> !subgroup_matrix.left<16x16xf16>
// CHECK: %[[H:.*]] = subgroup_matrix.load
// CHECK: func.call @__sm_nv_coopmat2__convert_use__1(%[[H]]) : (!subgroup_matrix.result<16x16xf16>) -> !subgroup_matrix.right<16x16xf16>
// CHECK: %[[I:.*]] = subgroup_matrix.load
// CHECK: func.call @__sm_nv_coopmat2__convert_signed_to_float__2(%[[I]]) : (!subgroup_matrix.result<16x16xsi32>) -> !subgroup_matrix.left<16x16xf16>
// CHECK: subgroup_matrix.convert %{{.*}} : !subgroup_matrix.left<16x16xf16> -> !subgroup_matrix.result<16x16xf16>
gpu.module @conversions attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @k(%a: memref<1024xf32>, %b: memref<1024xf16>, %c: memref<1024xi32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %p = subgroup_matrix.load %a[%c0] stride %c16 : memref<1024xf32> -> !subgroup_matrix.result<16x16xf32>
    %left = subgroup_matrix.convert %p : !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.left<16x16xf16>
    subgroup_matrix.store %left, %b[%c0] stride %c16 : !subgroup_matrix.left<16x16xf16>, memref<1024xf16>
    %h = subgroup_matrix.load %b[%c0] stride %c16 : memref<1024xf16> -> !subgroup_matrix.result<16x16xf16>
    %right = subgroup_matrix.convert %h : !subgroup_matrix.result<16x16xf16> -> !subgroup_matrix.right<16x16xf16>
    subgroup_matrix.store %right, %b[%c0] stride %c16 : !subgroup_matrix.right<16x16xf16>, memref<1024xf16>
    %i = subgroup_matrix.load %c[%c0] stride %c16 : memref<1024xi32> -> !subgroup_matrix.result<16x16xsi32>
    %q = subgroup_matrix.convert %i : !subgroup_matrix.result<16x16xsi32> -> !subgroup_matrix.left<16x16xf16>
    %back = subgroup_matrix.convert %q : !subgroup_matrix.left<16x16xf16> -> !subgroup_matrix.result<16x16xf16>
    subgroup_matrix.store %back, %b[%c0] stride %c16 : !subgroup_matrix.result<16x16xf16>, memref<1024xf16>
    gpu.return
  }
}

// -----

// A target without VK_NV_cooperative_matrix2 keeps every op.
// CHECK-LABEL: gpu.module @khr_only
// CHECK: subgroup_matrix.reduce max rows
// CHECK: subgroup_matrix.convert
// CHECK-NOT: func.func
gpu.module @khr_only attributes {subgroup_matrix.target = #subgroup_matrix.target<"amd-rdna3">} {
  gpu.func @k(%a: memref<1024xf32>, %b: memref<1024xf16>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %m = subgroup_matrix.load %a[%c0] stride %c16 : memref<1024xf32> -> !subgroup_matrix.result<16x16xf32>
    %r = subgroup_matrix.reduce max rows %m : !subgroup_matrix.result<16x16xf32>
    %l = subgroup_matrix.convert %r : !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.left<16x16xf16>
    subgroup_matrix.store %l, %b[%c0] stride %c16 : !subgroup_matrix.left<16x16xf16>, memref<1024xf16>
    gpu.return
  }
}

// -----

// Bounded loads and stores call the tensor stand-ins: the buffer, the
// matrix (zeros for a load: what the clip leaves), element [0, 0]'s offset,
// the stride, the view's dimensions (swapped for column-major), the clip
// (each bound kept within 0 and the matrix's extent), the view's
// permutation and the constants.
// CHECK-LABEL: gpu.module @bounded
// CHECK: gpu.func @k(%[[IN:.*]]: memref<4096xf16>, %[[OUT:.*]]: memref<4096xf32>, %[[R:.*]]: index, %[[C:.*]]: index, %[[I:.*]]: index)
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f16
// CHECK-DAG: %[[S:.*]] = arith.constant 40 : index
// CHECK: %[[ZEROS:.*]] = subgroup_matrix.splat %[[ZERO]] : f16 -> !subgroup_matrix.left<16x32xf16>
// CHECK: %[[OFF:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK: %[[RPOS:.*]] = arith.maxsi %[[R]], %{{.*}} : index
// CHECK: %[[ROWS:.*]] = arith.minsi %[[RPOS]], %[[C16:.*]] : index
// CHECK: %[[CPOS:.*]] = arith.maxsi %[[C]], %{{.*}} : index
// CHECK: %[[COLS:.*]] = arith.minsi %[[CPOS]], %[[C32:.*]] : index
// CHECK: %[[A:.*]] = func.call @__sm_nv_coopmat2__load_tensor__0(%[[IN]], %[[ZEROS]], %[[OFF]], %[[S]], %[[ROWS]], %[[COLS]], %[[ROWS]], %[[COLS]], %[[P0:[^,]*]], %[[P1:[^,]*]], {{.*}}) : (memref<4096xf16>, !subgroup_matrix.left<16x32xf16>, index, index, index, index, index, index, index, index, index, index, index, i1, index) -> !subgroup_matrix.left<16x32xf16>
// CHECK: %[[B:.*]] = func.call @__sm_nv_coopmat2__load_tensor__1(%[[IN]], %{{.*}}, %{{.*}}, %[[S]], %[[BCOLS:[^,]*]], %[[BROWS:[^,]*]], %[[BROWS]], %[[BCOLS]],
// CHECK: %[[D:.*]] = subgroup_matrix.multiply %[[A]], %[[B]]
// CHECK: func.call @__sm_nv_coopmat2__store_tensor__2(%[[OUT]], %[[D]], %{{.*}}, %[[S]], {{.*}}) : (memref<4096xf32>, !subgroup_matrix.result<16x16xf32>, {{.*}}) -> ()
// CHECK-NOT: subgroup_matrix.load
// CHECK-NOT: subgroup_matrix.store
// CHECK: func.func private @__sm_nv_coopmat2__load_tensor__0(
// CHECK: func.func private @__sm_nv_coopmat2__store_tensor__2(
// CHECK-NEXT: return
gpu.module @bounded attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @k(%in: memref<4096xf16>, %out: memref<4096xf32>, %r: index, %c: index, %i: index) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %s = arith.constant 40 : index
    %a = subgroup_matrix.load %in[%i] stride %s bounds [%r, %c] : memref<4096xf16> -> !subgroup_matrix.left<16x32xf16>
    %b = subgroup_matrix.load %in[%i] stride %s col_major bounds [%c, %r] : memref<4096xf16> -> !subgroup_matrix.right<32x16xf16>
    %d = subgroup_matrix.multiply %a, %b : !subgroup_matrix.left<16x32xf16>, !subgroup_matrix.right<32x16xf16> -> !subgroup_matrix.result<16x16xf32>
    subgroup_matrix.store %d, %out[%i] stride %s bounds [%r, %c] : !subgroup_matrix.result<16x16xf32>, memref<4096xf32>
    gpu.return
  }
}

// -----

// Without tensor addressing the bounded accesses stay, for the expansion
// through workgroup memory.
// CHECK-LABEL: gpu.module @no_tensor_addressing
// CHECK: subgroup_matrix.load %{{.*}} bounds
// CHECK-NOT: load_tensor
gpu.module @no_tensor_addressing attributes {subgroup_matrix.target = #subgroup_matrix.target<"cpu-lavapipe-coopmat">} {
  gpu.func @k(%in: memref<4096xf16>, %out: memref<4096xf16>, %r: index) kernel attributes {known_block_size = array<i32: 8, 1, 1>} {
    %c0 = arith.constant 0 : index
    %s = arith.constant 8 : index
    %a = subgroup_matrix.load %in[%c0] stride %s bounds [%r, %r] : memref<4096xf16> -> !subgroup_matrix.result<8x8xf16>
    subgroup_matrix.store %a, %out[%c0] stride %s : !subgroup_matrix.result<8x8xf16>, memref<4096xf16>
    gpu.return
  }
}

// -----

// A decode load whose body uses only constants and the kernel's buffers
// calls the decode load stand-in with the first buffer the body reads, a
// matrix of zeros, the position and bounds, the matrix's extent, the
// constants, and the buffers; the decode function is the body, its
// constants cloned in, taking the position and the buffers.
// CHECK-LABEL: gpu.module @decode
// CHECK: gpu.func @k(%[[Q:.*]]: memref<4096xi8>, %[[SCALE:.*]]: memref<64xf16>, %[[OUT:.*]]: memref<4096xf16>, %[[K0:.*]]: index, %[[N0:.*]]: index, %[[K:.*]]: index)
// CHECK: %[[N:.*]] = arith.constant 64 : index
// CHECK: %[[ZEROS:.*]] = subgroup_matrix.splat %{{.*}} : f16 -> !subgroup_matrix.right<16x16xf16>
// CHECK: %[[B:.*]] = func.call @__sm_nv_coopmat2__decode_load_tensor__0(%[[Q]], %[[ZEROS]], %[[K0]], %[[N0]], %[[K]], %[[N]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[Q]], %[[SCALE]]) : (memref<4096xi8>, !subgroup_matrix.right<16x16xf16>, index, index, index, index, index, index, index, index, index, memref<4096xi8>, memref<64xf16>) -> !subgroup_matrix.right<16x16xf16>
// CHECK: subgroup_matrix.store %[[B]], %[[OUT]]
// CHECK-NOT: decode_load [
// CHECK: func.func private @sm_nv_coopmat2_decode(%[[ROW:.*]]: index, %[[COLUMN:.*]]: index, %[[QARG:.*]]: memref<4096xi8>, %[[SARG:.*]]: memref<64xf16>) -> f16
// CHECK-NEXT: %[[STRIDE:.*]] = arith.constant 64 : index
// CHECK-NEXT: %[[START:.*]] = arith.muli %[[ROW]], %[[STRIDE]] : index
// CHECK-NEXT: %[[AT:.*]] = arith.addi %[[START]], %[[COLUMN]] : index
// CHECK-NEXT: memref.load %[[QARG]][%[[AT]]]
// CHECK: memref.load %[[SARG]][%[[COLUMN]]]
// CHECK: func.func private @__sm_nv_coopmat2__decode_load_tensor__0(
// CHECK-SAME: index, %[[SQARG:[a-z0-9]+]]: memref<4096xi8>, %[[SSARG:[a-z0-9]+]]: memref<64xf16>)
// CHECK: call @sm_nv_coopmat2_decode(%{{.*}}, %{{.*}}, %[[SQARG]], %[[SSARG]])
gpu.module @decode attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @k(%q: memref<4096xi8>, %scale: memref<64xf16>, %out: memref<4096xf16>, %k0: index, %n0: index, %k: index) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %n = arith.constant 64 : index
    %b = subgroup_matrix.decode_load [%k0, %n0] within [%k, %n] : !subgroup_matrix.right<16x16xf16> {
    ^bb0(%row: index, %col: index):
      %rowStart = arith.muli %row, %n : index
      %at = arith.addi %rowStart, %col : index
      %byte = memref.load %q[%at] : memref<4096xi8>
      %value = arith.sitofp %byte : i8 to f16
      %s = memref.load %scale[%col] : memref<64xf16>
      %scaled = arith.mulf %value, %s : f16
      subgroup_matrix.yield %scaled : f16
    }
    subgroup_matrix.store %b, %out[%c0] stride %n : !subgroup_matrix.right<16x16xf16>, memref<4096xf16>
    gpu.return
  }
}

// -----

// The kernel's scalar arguments reach the decode function as parameters
// too: everything it takes from the kernel, in the order the body first
// uses it.
// CHECK-LABEL: gpu.module @decode_of_arguments
// CHECK: gpu.func @k(%[[Q:.*]]: memref<4096xi8>, %{{.*}}: memref<4096xf16>, %[[N:.*]]: index, %[[SCALE:.*]]: f16)
// CHECK: func.call @__sm_nv_coopmat2__decode_load_tensor__0(%[[Q]], {{.*}}, %[[N]], %[[Q]], %[[SCALE]]) : (memref<4096xi8>, {{.*}}, index, memref<4096xi8>, f16) -> !subgroup_matrix.right<16x16xf16>
// CHECK: func.func private @sm_nv_coopmat2_decode(%{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: memref<4096xi8>, %{{.*}}: f16) -> f16
gpu.module @decode_of_arguments attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @k(%q: memref<4096xi8>, %out: memref<4096xf16>, %n: index, %scale: f16) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %b = subgroup_matrix.decode_load [%c0, %c0] within [%n, %n] : !subgroup_matrix.right<16x16xf16> {
    ^bb0(%row: index, %col: index):
      %start = arith.muli %row, %n : index
      %at = arith.addi %start, %col : index
      %byte = memref.load %q[%at] : memref<4096xi8>
      %value = arith.sitofp %byte : i8 to f16
      %scaled = arith.mulf %value, %scale : f16
      subgroup_matrix.yield %scaled : f16
    }
    subgroup_matrix.store %b, %out[%c0] stride %n : !subgroup_matrix.right<16x16xf16>, memref<4096xf16>
    gpu.return
  }
}

// -----

// A body that uses a value the decode function cannot have (one the kernel
// computes) keeps the decode load, for workgroup memory.
// CHECK-LABEL: gpu.module @decode_of_computed_value
// CHECK: subgroup_matrix.decode_load
// CHECK-NOT: decode_load_tensor
gpu.module @decode_of_computed_value attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @k(%q: memref<4096xi8>, %out: memref<4096xf16>, %half: index) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %n = arith.muli %half, %c2 : index
    %b = subgroup_matrix.decode_load [%c0, %c0] within [%n, %n] : !subgroup_matrix.right<16x16xf16> {
    ^bb0(%row: index, %col: index):
      %rowStart = arith.muli %row, %n : index
      %at = arith.addi %rowStart, %col : index
      %byte = memref.load %q[%at] : memref<4096xi8>
      %value = arith.sitofp %byte : i8 to f16
      subgroup_matrix.yield %value : f16
    }
    subgroup_matrix.store %b, %out[%c0] stride %n : !subgroup_matrix.right<16x16xf16>, memref<4096xf16>
    gpu.return
  }
}

// -----

// Without block loads (lavapipe has neither them nor tensor addressing)
// the decode load stays.
// CHECK-LABEL: gpu.module @decode_without_block_loads
// CHECK: subgroup_matrix.decode_load
// CHECK-NOT: decode_load_tensor
gpu.module @decode_without_block_loads attributes {subgroup_matrix.target = #subgroup_matrix.target<"cpu-lavapipe-coopmat">} {
  gpu.func @k(%q: memref<4096xi8>, %out: memref<4096xf16>) kernel attributes {known_block_size = array<i32: 8, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %b = subgroup_matrix.decode_load [%c0, %c0] within [%c8, %c8] : !subgroup_matrix.right<8x8xf16> {
    ^bb0(%row: index, %col: index):
      %rowStart = arith.muli %row, %c8 : index
      %at = arith.addi %rowStart, %col : index
      %byte = memref.load %q[%at] : memref<4096xi8>
      %value = arith.sitofp %byte : i8 to f16
      subgroup_matrix.yield %value : f16
    }
    subgroup_matrix.store %b, %out[%c0] stride %c8 : !subgroup_matrix.right<8x8xf16>, memref<4096xf16>
    gpu.return
  }
}
