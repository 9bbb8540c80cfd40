// RUN: sm-opt %s -verify-diagnostics --sm-check-uniformity=severity=warning --mlir-print-op-generic | FileCheck %s --check-prefix=WARN
// The input without its expected-* lines: sm-opt checks those even without
// -verify-diagnostics.
// RUN: sed -e '/expected-/d' %s | sm-opt --sm-check-uniformity=severity=off 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: not sm-opt %s --sm-check-uniformity=severity=fatal 2>&1 | FileCheck %s --check-prefix=BAD

// With severity=warning the module still passes, so it is printed.
// WARN: "gpu.module"() <{sym_name = "warn"}>
// OFF-NOT: warning
// OFF-NOT: error
// OFF: gpu.module @warn
// BAD: sm-check-uniformity: unknown severity 'fatal'; expected error, warning or off

!C = !subgroup_matrix.result<16x16xf32>
gpu.module @warn {
  gpu.func @k(%buf: memref<?xf32>, %m: !C, %s: index) kernel {
    %lane = gpu.lane_id
    // expected-warning @+1 {{'subgroup_matrix.store' op operand #2 may differ between the invocations of a subgroup}}
    subgroup_matrix.store %m, %buf[%lane] stride %s : !C, memref<?xf32>
    gpu.return
  }
}
