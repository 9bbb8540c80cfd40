// sm-lower-to-metal is its stages, in this order, each shown by name.
// RUN: sm-opt %s --sm-lower-to-metal=target=apple-m1 -mlir-print-ir-after-all -o /dev/null 2>&1 | FileCheck %s --check-prefix=STAGES
// Running the stages by hand gives the same output as the pipeline.
// RUN: sm-opt %s --sm-lower-to-metal=target=apple-m1 -o %t.pipeline.mlir
// RUN: sm-opt %s --pass-pipeline="builtin.module(sm-attach-metal-target{target=apple-m1}, sm-check-target{composed-shapes=1}, sm-check-uniformity, sm-expand-math, sm-expand-through-workgroup-memory{register-ops=kind-changes})" -o %t.stages.mlir
// RUN: diff %t.pipeline.mlir %t.stages.mlir
// RUN: FileCheck %s --input-file %t.pipeline.mlir
// Lowering twice changes nothing: sm-translate --emit-msl lowers what it is
// given, already lowered or not.
// RUN: sm-opt %t.pipeline.mlir --sm-lower-to-metal -o %t.twice.mlir
// RUN: diff %t.pipeline.mlir %t.twice.mlir

// STAGES: IR Dump After AttachMetalTargetPass (sm-attach-metal-target)
// STAGES: IR Dump After CheckTargetPass (sm-check-target)
// STAGES: IR Dump After CheckUniformityPass (sm-check-uniformity)
// STAGES: IR Dump After ExpandMathPass (sm-expand-math)
// STAGES: IR Dump After ExpandThroughWorkgroupMemoryPass (sm-expand-through-workgroup-memory)

// The kernel's 16x16 matrices are built of apple-m1's 8x8 ones; erf is
// upstream's polynomial, as on Vulkan and Intel; the map goes through
// threadgroup memory.
// CHECK-LABEL: gpu.module @kernels
// CHECK-SAME: subgroup_matrix.target = #subgroup_matrix.target<"apple-m1">
// CHECK: gpu.func @gelu
// CHECK: %[[TILES:.*]] = memref.alloc() : memref<512xf32, #gpu.address_space<workgroup>>
// CHECK: subgroup_matrix.store %{{.*}}, %[[TILES]]
// CHECK: subgroup_matrix.subgroup_barrier
// CHECK: scf.for
// CHECK-NOT: math.erf
// CHECK: subgroup_matrix.subgroup_barrier
// CHECK: subgroup_matrix.load %[[TILES]]
// CHECK-NOT: subgroup_matrix.map
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @gelu(%buf: memref<256xf32>) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c16 = arith.constant 16 : index
      %m = subgroup_matrix.load %buf[%c0] stride %c16
          : memref<256xf32> -> !subgroup_matrix.result<16x16xf32>
      %r = subgroup_matrix.map %m : !subgroup_matrix.result<16x16xf32>
          -> !subgroup_matrix.result<16x16xf32> {
      ^bb0(%row: index, %col: index, %x: f32):
        %e = math.erf %x : f32
        subgroup_matrix.yield %e : f32
      }
      subgroup_matrix.store %r, %buf[%c0] stride %c16
          : !subgroup_matrix.result<16x16xf32>, memref<256xf32>
      gpu.return
    }
  }
}
