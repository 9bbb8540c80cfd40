// RUN: sm-opt %s -split-input-file -verify-diagnostics --sm-lower-to-vulkan=target=cpu-lavapipe
// RUN: sm-opt %s -split-input-file -verify-diagnostics --sm-lower-to-intel=target=intel-xe-hpc
// RUN: not sm-opt %s -split-input-file --sm-lower-to-vulkan=target=cpu-lavapipe 2>&1 | FileCheck %s

// Input a kernel lowering cannot take is reported by name, never as
// "failed to legalize", and with no printout of the IR after the message.
// CHECK-NOT: failed to legalize
// CHECK-NOT: see current operation

// A linalg program is the input of sm-linalg-to-gpu: a kernel lowering used
// to print it back unchanged.
func.func @matmul(%a: memref<64x64xf16>, %b: memref<64x64xf16>, %c: memref<64x64xf32>) {
  // expected-error @+1 {{'linalg.matmul' is not in a kernel: --sm-lower-to-}}
  linalg.matmul ins(%a, %b : memref<64x64xf16>, memref<64x64xf16>) outs(%c : memref<64x64xf32>)
  return
}
