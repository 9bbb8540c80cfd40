// The host runners read what a kernel takes from the file they compile and
// refuse a command line that does not fit it before the kernel runs (a
// kernel given too few arguments used to read through null pointers), with
// exit status 2 and a message; numeric options are parsed whole and in range.
// The checking is the one sm-vulkan-runner uses (lib/Runtime/Runner).
// RUN: rm -rf %t && mkdir -p %t
// RUN: sm-translate --emit-msl %s -o %t/kernel.metal
// RUN: sm-opt %s --sm-lower-to-intel=target=intel-xe-hpc | sm-translate --emit-intel-host-llvm -o %t/kernel.ll
// RUN: for runner in "sm-msl-host-runner %t/kernel.metal" "sm-intel-host-runner %t/kernel.ll"; do \
// RUN:   for arguments in "" \
// RUN:       "--arg f32:128:poison --scalar i32:0" \
// RUN:       "--arg f32:128:poison --scalar f32:0 --scalar i32:16" \
// RUN:       "--arg f16:128:poison --scalar i32:0 --scalar i32:16" \
// RUN:       "--arg f32:128:poison --arg i32:4:iota --scalar i32:16" \
// RUN:       "--arg f32:-1:poison --scalar i32:0 --scalar i32:16" \
// RUN:       "--arg f32:128:random:x --scalar i32:0 --scalar i32:16" \
// RUN:       "--arg f32:128:poison --scalar i32:0 --scalar i32:16 --grid 1.5" \
// RUN:       "--arg f32:128:poison --scalar i32:0 --scalar i32:16 --dump one" \
// RUN:       "--arg f32:128:poison --scalar i32:0 --scalar i32:16 --check gemm:M=1.5,N=1,K=1,A=0,B=0,C=0"; do \
// RUN:     sh -c "$runner --entry store_rows $arguments; echo exit \$?" 2>&1; \
// RUN:   done; \
// RUN: done | FileCheck %s
// A whole plan (--plan, as sm-run hands one over) takes nothing else, and
// a directory without one is named.
// RUN: not sm-intel-host-runner %t/kernel.ll --plan %t 2>&1 | FileCheck %s --check-prefix=PLAN-AND-KERNEL
// RUN: not sm-msl-host-runner --plan %t/nowhere 2>&1 | FileCheck %s --check-prefix=NO-PLAN
// PLAN-AND-KERNEL: sm-intel-host-runner: error: --plan runs a whole plan: it takes no kernel file, --entry or arguments
// NO-PLAN: sm-msl-host-runner: error: cannot read '{{.*}}nowhere/plan.txt': No such file or directory

// CHECK: error: kernel 'store_rows' takes 3 arguments (f32 buffer, i32 scalar, i32 scalar), but 0 --arg/--scalar were given
// CHECK-NEXT: exit 2
// CHECK: error: kernel 'store_rows' takes 3 arguments (f32 buffer, i32 scalar, i32 scalar), but 2 --arg/--scalar were given
// CHECK-NEXT: exit 2
// CHECK: error: argument 1 of kernel 'store_rows' is an i32 scalar, but the command line gives it f32 data
// CHECK-NEXT: exit 2
// CHECK: error: argument 0 of kernel 'store_rows' is an f32 buffer, but the command line gives it f16 data
// CHECK-NEXT: exit 2
// CHECK: error: argument 1 of kernel 'store_rows' is an i32 scalar, but the command line gives it 4 elements (use --scalar TYPE:VALUE)
// CHECK-NEXT: exit 2
// CHECK: error: --arg: the element count must be an integer from 1 to 4294967296, got '-1'
// CHECK-NEXT: exit 2
// CHECK: error: --arg: the seed must be a non-negative integer, got 'x'
// CHECK-NEXT: exit 2
// CHECK: error: --grid needs X[,Y[,Z]] of integers from 1 to 2147483647, got '1.5'
// CHECK-NEXT: exit 2
// CHECK: error: --dump needs an argument number, got 'one'
// CHECK-NEXT: exit 2
// CHECK: error: --check: 'M' needs an integer from 0 to 4294967296, got '1.5'
// CHECK-NEXT: exit 2
// The same ten for the Intel runner.
// CHECK: error: kernel 'store_rows' takes 3 arguments
// CHECK-NEXT: exit 2
// CHECK-COUNT-9: exit 2
// CHECK-NOT: exit

gpu.module @kernels {
  gpu.func @store_rows(%D: memref<?xf32>, %offset: index, %stride: index) kernel
      attributes {known_block_size = array<i32: 32, 1, 1>} {
    %one = arith.constant 1.0 : f32
    %m = subgroup_matrix.splat %one : f32 -> !subgroup_matrix.result<8x16xf32>
    subgroup_matrix.store %m, %D[%offset] stride %stride : !subgroup_matrix.result<8x16xf32>, memref<?xf32>
    gpu.return
  }
}
