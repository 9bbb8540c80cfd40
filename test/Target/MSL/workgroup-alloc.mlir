// RUN: sm-translate --emit-msl %s | FileCheck %s
// RUN: sm-translate --emit-msl %s -o %t.metal
// Run on the host: the output must be the input reversed (each thread
// reads what another one wrote, after the barrier).
// RUN: sm-msl-host-runner %t.metal --entry reverse --arg f32:64:random --arg f32:64:poison --grid 1 --dump 0 --dump 1 > %t.out
// RUN: %python -c "import sys; a = [l.split(': ', 1)[1].split() for l in open(sys.argv[1]) if l.startswith('argument')]; sys.exit(0 if len(a) == 2 and len(a[0]) == 64 and a[1] == a[0][::-1] else 1)" %t.out

// A kernel that allocates its workgroup tile with memref.alloc (as the
// Vulkan and Intel paths take it) gets a threadgroup array in its
// outermost scope; a subgroup barrier is a simdgroup barrier.

// CHECK-LABEL: kernel void reverse(
// CHECK: threadgroup float [[TILE:workgroup[_0-9]*]][64];
// CHECK: [[TILE]][{{.*}}] = {{.*}};
// CHECK: [[TILE]][{{.*}}] = {{.*}};
// CHECK-NEXT: simdgroup_barrier(mem_flags::mem_threadgroup);
// CHECK: = [[TILE]][{{.*}}];
gpu.module @kernels {
  gpu.func @reverse(%in: memref<64xf32>, %out: memref<64xf32>) kernel
      attributes {known_block_size = array<i32: 32, 1, 1>} {
    %tile = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
    %lane = gpu.lane_id
    %c32 = arith.constant 32 : index
    %c63 = arith.constant 63 : index
    %second = arith.addi %lane, %c32 : index
    %x = memref.load %in[%lane] : memref<64xf32>
    %y = memref.load %in[%second] : memref<64xf32>
    memref.store %x, %tile[%lane] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %y, %tile[%second] : memref<64xf32, #gpu.address_space<workgroup>>
    subgroup_matrix.subgroup_barrier
    %from = arith.subi %c63, %lane : index
    %fromSecond = arith.subi %c63, %second : index
    %a = memref.load %tile[%from] : memref<64xf32, #gpu.address_space<workgroup>>
    %b = memref.load %tile[%fromSecond] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %a, %out[%lane] : memref<64xf32>
    memref.store %b, %out[%second] : memref<64xf32>
    gpu.return
  }
}
