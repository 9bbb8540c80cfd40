// RUN: sm-opt %s -split-input-file --sm-lower-to-intel -canonicalize -cse | FileCheck %s
// (These ops run in the CPU host runner in test/Integration/MatrixFunctions.)

// A left matrix on Xe-HPC: invocation i holds column i of every row. A row
// spans the subgroup, so its maximum is a butterfly of four shuffles (two
// rows, eight); a column lies in one invocation, so its sum needs no
// shuffle at all.

// CHECK-LABEL: gpu.module @reduce_left
// CHECK: %[[LANE:.*]] = gpu.lane_id
// CHECK: %[[R0:.*]] = memref.load %{{.*}}[%[[LANE]]] : memref<1024xf16>
// CHECK-COUNT-8: gpu.shuffle xor
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[LANE]]] : memref<1024xf16>
// CHECK: memref.store
// CHECK-NOT: gpu.shuffle
// CHECK: %[[SUM:.*]] = arith.addf %[[R0]], %{{.*}} : f16
// CHECK-NOT: gpu.shuffle
// CHECK: memref.store %[[SUM]], %{{.*}}[%[[LANE]]] : memref<1024xf16>
// CHECK: memref.store %[[SUM]]
gpu.module @reduce_left attributes {subgroup_matrix.target = #subgroup_matrix.target<"intel-xe-hpc">} {
  gpu.func @k(%a: memref<1024xf16>, %s: index) kernel attributes {known_block_size = array<i32: 16, 1, 1>} {
    %c0 = arith.constant 0 : index
    %l = subgroup_matrix.load %a[%c0] stride %s : memref<1024xf16> -> !subgroup_matrix.left<2x16xf16>
    %max = subgroup_matrix.reduce max rows %l : !subgroup_matrix.left<2x16xf16>
    subgroup_matrix.store %max, %a[%c0] stride %s : !subgroup_matrix.left<2x16xf16>, memref<1024xf16>
    %sum = subgroup_matrix.reduce add columns %l : !subgroup_matrix.left<2x16xf16>
    subgroup_matrix.store %sum, %a[%c0] stride %s : !subgroup_matrix.left<2x16xf16>, memref<1024xf16>
    gpu.return
  }
}

// -----

// bf16 moves as bits on this path: the map body's arithmetic runs in f32,
// and the conversions around it are integer shifts (f32 -> bf16 rounds to
// nearest even).

// CHECK-LABEL: gpu.module @bf16_map
// CHECK: %[[BITS:.*]] = arith.bitcast %{{.*}} : bf16 to i16
// CHECK: %[[WIDE:.*]] = arith.extui %[[BITS]] : i16 to i32
// CHECK: %[[SHIFTED:.*]] = arith.shli %[[WIDE]], %{{.*}} : i32
// CHECK: %[[X:.*]] = arith.bitcast %[[SHIFTED]] : i32 to f32
// CHECK: %[[SUM:.*]] = arith.addf %[[X]], %[[X]] : f32
// CHECK: arith.bitcast %[[SUM]] : f32 to i32
// CHECK-NOT: arith.extf
// CHECK-NOT: arith.truncf
// CHECK: gpu.return
gpu.module @bf16_map attributes {subgroup_matrix.target = #subgroup_matrix.target<"intel-xe-hpc">} {
  gpu.func @k(%a: memref<1024xbf16>, %s: index) kernel attributes {known_block_size = array<i32: 16, 1, 1>} {
    %c0 = arith.constant 0 : index
    %l = subgroup_matrix.load %a[%c0] stride %s : memref<1024xbf16> -> !subgroup_matrix.left<1x16xbf16>
    %m = subgroup_matrix.map %l : !subgroup_matrix.left<1x16xbf16> -> !subgroup_matrix.left<1x16xbf16> {
    ^bb0(%row: index, %col: index, %x: bf16):
      %y = arith.addf %x, %x : bf16
      subgroup_matrix.yield %y : bf16
    }
    subgroup_matrix.store %m, %a[%c0] stride %s : !subgroup_matrix.left<1x16xbf16>, memref<1024xbf16>
    gpu.return
  }
}

// -----

// A reduction over 2x2 blocks on Xe-HPC: invocation l holds columns l and
// 16 + l of the 4x32 operand and column l of the 2x16 result. Rows 2i and
// 2i + 1 combine in each invocation, columns 2c and 2c + 1 across a pair of
// invocations (one XOR shuffle for each of the 4 rows of pairs); result
// column l then reads its block from invocation 2l mod 16 of the first or
// the second tile (two shuffles and a select per result row).

// CHECK-LABEL: gpu.module @reduce_blocks
// CHECK: %[[LANE:.*]] = gpu.lane_id
// CHECK-COUNT-8: memref.load %{{.*}} : memref<1024xf32>
// CHECK-COUNT-4: gpu.shuffle xor %{{.*}}, %{{.*}}, %{{.*}} : i32
// CHECK: %[[LANE32:.*]] = arith.index_cast %[[LANE]] : index to i32
// CHECK: %[[DOUBLE:.*]] = arith.shli %[[LANE32]]
// CHECK: %[[SOURCE:.*]] = arith.remui %[[DOUBLE]]
// CHECK-COUNT-2: gpu.shuffle idx %{{.*}}, %[[SOURCE]], %{{.*}} : i32
// CHECK: arith.select
// CHECK-COUNT-2: gpu.shuffle idx %{{.*}}, %[[SOURCE]], %{{.*}} : i32
// CHECK: arith.select
// CHECK-NOT: gpu.shuffle
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[LANE]]] : memref<1024xf32>
// CHECK: memref.store
// CHECK-NOT: memref.store
gpu.module @reduce_blocks attributes {subgroup_matrix.target = #subgroup_matrix.target<"intel-xe-hpc">} {
  gpu.func @k(%a: memref<1024xf32>, %b: memref<1024xf32>) kernel attributes {known_block_size = array<i32: 16, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %m = subgroup_matrix.load %a[%c0] stride %c32 : memref<1024xf32> -> !subgroup_matrix.result<4x32xf32>
    %p = subgroup_matrix.reduce max blocks2x2 %m : !subgroup_matrix.result<4x32xf32> -> !subgroup_matrix.result<2x16xf32>
    subgroup_matrix.store %p, %b[%c0] stride %c16 : !subgroup_matrix.result<2x16xf32>, memref<1024xf32>
    gpu.return
  }
}
