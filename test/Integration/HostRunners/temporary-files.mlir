// The host runners compile each kernel into a temporary directory, which
// they remove on every way out: a passing run, a kernel stopped by a guard
// page, a kernel file the compiler rejects, an entry the kernel file lacks.
// TMPDIR points them at a directory of this test's, which must stay empty.
// RUN: rm -rf %t && mkdir -p %t/tmp
// RUN: sm-translate --emit-msl %s -o %t/kernel.metal
// RUN: sm-opt %s --sm-lower-to-intel=target=intel-xe-hpc | sm-translate --emit-intel-host-llvm -o %t/kernel.ll
// RUN: echo "not a kernel" > %t/garbage
// RUN: env TMPDIR=%t/tmp sm-msl-host-runner %t/kernel.metal --entry store_rows --arg f32:128:poison --scalar i32:0 --scalar i32:16 | FileCheck %s --check-prefix=PASSED
// RUN: not env TMPDIR=%t/tmp sm-msl-host-runner %t/kernel.metal --entry store_rows --arg f32:128:poison --scalar i32:1 --scalar i32:16 | FileCheck %s --check-prefix=STOPPED
// RUN: not env TMPDIR=%t/tmp sm-msl-host-runner %t/garbage --entry store_rows --arg f32:128:poison 2>&1 | FileCheck %s --check-prefix=REJECTED-MSL
// RUN: not env TMPDIR=%t/tmp sm-msl-host-runner %t/kernel.metal --entry missing --arg f32:128:poison 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: env TMPDIR=%t/tmp sm-intel-host-runner %t/kernel.ll --entry store_rows --arg f32:128:poison --scalar i32:0 --scalar i32:16 | FileCheck %s --check-prefix=PASSED
// RUN: not env TMPDIR=%t/tmp sm-intel-host-runner %t/kernel.ll --entry store_rows --arg f32:128:poison --scalar i32:1 --scalar i32:16 | FileCheck %s --check-prefix=STOPPED
// RUN: not env TMPDIR=%t/tmp sm-intel-host-runner %t/garbage --entry store_rows --arg f32:128:poison 2>&1 | FileCheck %s --check-prefix=REJECTED-INTEL
// RUN: not env TMPDIR=%t/tmp sm-intel-host-runner %t/kernel.ll --entry missing --arg f32:128:poison 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: ls -A %t/tmp | FileCheck %s --allow-empty --check-prefix=EMPTY

// PASSED: check bounds: PASSED
// STOPPED: FAILED: written past its end
// REJECTED-MSL: error: the host C++ compiler rejected
// REJECTED-INTEL: error: llc rejected
// MISSING: error: the kernel file has no kernel 'missing'
// EMPTY-NOT: {{.}}

gpu.module @kernels {
  gpu.func @store_rows(%D: memref<?xf32>, %offset: index, %stride: index) kernel
      attributes {known_block_size = array<i32: 32, 1, 1>} {
    %one = arith.constant 1.0 : f32
    %m = subgroup_matrix.splat %one : f32 -> !subgroup_matrix.result<8x16xf32>
    subgroup_matrix.store %m, %D[%offset] stride %stride : !subgroup_matrix.result<8x16xf32>, memref<?xf32>
    gpu.return
  }
}
