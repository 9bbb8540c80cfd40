// RUN: sm-translate --emit-msl %s | FileCheck %s
// The source compiles on the host and divides as ceildivui does, at a
// remainder, an exact multiple and zero.
// RUN: sm-translate --emit-msl %s -o %t.metal
// RUN: sm-msl-host-runner %t.metal --entry steps --arg i32:2:const:130 --dump 0 | FileCheck %s --check-prefix=REMAINDER
// RUN: sm-msl-host-runner %t.metal --entry steps --arg i32:2:const:128 --dump 0 | FileCheck %s --check-prefix=EXACT
// RUN: sm-msl-host-runner %t.metal --entry steps --arg i32:2:const:0 --dump 0 | FileCheck %s --check-prefix=AT-ZERO
// REMAINDER: argument 0 (i32 x 2): 130 3
// EXACT: argument 0 (i32 x 2): 128 2
// AT-ZERO: argument 0 (i32 x 2): 0 0

// arith.ceildivui (a grid or loop bound of dynamic sizes) becomes plain
// arithmetic in sm-lower-to-metal, as for Vulkan and Intel: zero for zero,
// else (n - 1) / d + 1, without the overflow of (n + d - 1) / d.
// CHECK-LABEL: kernel void steps(
// CHECK: int [[N:[a-z0-9_]+]] = arg0[
// CHECK: bool [[ZERO:[a-z0-9_]+]] = [[N]] == [[C0:[a-z0-9_]+]];
// CHECK: int [[PREVIOUS:[a-z0-9_]+]] = [[N]] - [[C1:[a-z0-9_]+]];
// CHECK: int [[QUOTIENT:[a-z0-9_]+]] = int(uint([[PREVIOUS]]) / uint(c64));
// CHECK: int [[NEXT:[a-z0-9_]+]] = [[QUOTIENT]] + [[C1]];
// CHECK: int [[Q:[a-z0-9_]+]] = [[ZERO]] ? [[C0]] : [[NEXT]];
// CHECK: arg0[{{.*}}] = [[Q]];
gpu.module @kernels {
  gpu.func @steps(%a: memref<2xindex>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %n = memref.load %a[%c0] : memref<2xindex>
    %q = arith.ceildivui %n, %c64 : index
    memref.store %q, %a[%c1] : memref<2xindex>
    gpu.return
  }
}
