// RUN: sm-opt %s --sm-lower-to-intel | FileCheck %s
// RUN: sm-opt %s --sm-lower-to-intel | sm-translate --emit-intel-spirv -o %t.spv
// RUN: spirv-val --target-env spv1.4 %t.spv
// Run on the host, two subgroups of 16 each waiting only for their own
// lanes: every subgroup's output is its input reversed.
// RUN: sm-opt %s --sm-lower-to-intel | sm-translate --emit-intel-host-llvm -o %t.ll
// RUN: sm-intel-host-runner %t.ll --entry reverse --arg f32:32:random --arg f32:32:poison --grid 1 --dump 0 --dump 1 > %t.out
// RUN: %python -c "import sys; a = [l.split(': ', 1)[1].split() for l in open(sys.argv[1]) if l.startswith('argument')]; sys.exit(0 if len(a) == 2 and len(a[0]) == 32 and a[1] == a[0][15::-1] + a[0][:15:-1] else 1)" %t.out

// A subgroup barrier is OpenCL's __spirv_ControlBarrier at subgroup scope
// (3), ordering workgroup memory (AcquireRelease | WorkgroupMemory).

// CHECK-LABEL: gpu.module @kernels
// CHECK: func.func private @_Z22__spirv_ControlBarrierjjj(i32, i32, i32)
// CHECK: gpu.func @reverse
// CHECK-DAG: %[[SUBGROUP:.*]] = arith.constant 3 : i32
// CHECK-DAG: %[[SEMANTICS:.*]] = arith.constant 264 : i32
// CHECK: call @_Z22__spirv_ControlBarrierjjj(%[[SUBGROUP]], %[[SUBGROUP]], %[[SEMANTICS]])
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"intel-xe-hpc">} {
  gpu.func @reverse(%in: memref<32xf32>, %out: memref<32xf32>) kernel
      attributes {known_block_size = array<i32: 32, 1, 1>} {
    %tile = memref.alloc() : memref<32xf32, #gpu.address_space<workgroup>>
    %subgroup = gpu.subgroup_id : index
    %lane = gpu.lane_id
    %c15 = arith.constant 15 : index
    %c16 = arith.constant 16 : index
    %base = arith.muli %subgroup, %c16 : index
    %mine = arith.addi %base, %lane : index
    %x = memref.load %in[%mine] : memref<32xf32>
    memref.store %x, %tile[%mine] : memref<32xf32, #gpu.address_space<workgroup>>
    subgroup_matrix.subgroup_barrier
    %mirrored = arith.subi %c15, %lane : index
    %theirs = arith.addi %base, %mirrored : index
    %y = memref.load %tile[%theirs] : memref<32xf32, #gpu.address_space<workgroup>>
    memref.store %y, %out[%mine] : memref<32xf32>
    gpu.return
  }
}
