// What the kernel emitter would refuse of a plan - more workgroup memory than
// the target has, a split of K the product does not allow, a tile whose
// copies the invocations cannot share, a transposing copy that does not fit -
// is reported by the plan stage itself, before any kernel is built.
// RUN: sm-opt %s -split-input-file -verify-diagnostics --sm-plan-kernels="tile-m=256 tile-n=256 subgroups-m=4 subgroups-n=4 stages=2 split-k=1"
// RUN: sm-opt %S/Inputs/plan-kernels-split-k.mlir -split-input-file -verify-diagnostics --sm-plan-kernels="split-k=4"
// RUN: sm-opt %S/Inputs/plan-kernels-copies.mlir -split-input-file -verify-diagnostics --sm-plan-kernels="tile-m=32 tile-n=32 tile-k=16 subgroups-m=2 subgroups-n=2 vector-width=8 split-k=1"

module attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
func.func @too_much_workgroup_memory(%a: memref<512x512xf16>, %b: memref<512x512xf16>, %c: memref<512x512xf32>) {
  // expected-error @+1 {{cannot be tiled: the tiling needs 74752 bytes of workgroup memory, more than the 49152 a kernel may use on target 'nvidia-h100'}}
  linalg.matmul ins(%a, %b : memref<512x512xf16>, memref<512x512xf16>) outs(%c : memref<512x512xf32>)
  return
}
}
