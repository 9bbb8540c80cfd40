// RUN: sm-translate --emit-msl %s | FileCheck %s

// arith.ceildivui (a grid or loop bound of dynamic sizes) is the unsigned
// quotient plus one where a remainder is left, without the overflow of
// (a + b - 1) / b.
// CHECK-LABEL: kernel void steps(
// CHECK: int [[N:[a-z0-9_]+]] = arg0[
// CHECK: int [[Q:[a-z0-9_]+]] = int(uint([[N]]) / uint([[D:[a-z0-9_]+]]) + (uint([[N]]) % uint([[D]]) != 0 ? 1 : 0));
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
