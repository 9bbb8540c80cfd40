// REQUIRES: lavapipe-coopmat
// Mesa 26's lavapipe reports flexible dimensions (VK_NV_cooperative_matrix2):
// --list-coopmat prints its granularities and largest dimension, which
// read back as a target that takes them.
// RUN: %lavapipe_coopmat --list-coopmat > %t.target
// RUN: FileCheck %s --check-prefix=LISTED < %t.target
// RUN: echo "module attributes {subgroup_matrix.target = $(tail -n 1 %t.target)} {}" | sm-opt --sm-check-target | FileCheck %s --check-prefix=READ
//
// A kernel lowered for a device that claims larger flexible dimensions is
// refused before it runs, naming the configuration lavapipe lacks (a right
// matrix 2048 columns wide, over its 1024).
// RUN: sm-opt %s --sm-lower-to-vulkan | sm-translate --serialize-spirv -o %t.spv
// RUN: spirv-val --target-env vulkan1.3 %t.spv
// RUN: sh -c "%lavapipe_coopmat %t.spv --arg f16:64:random --arg f16:16384:random --arg f32:16384:poison --grid 1; echo exit \$?" > %t.refused 2>&1
// RUN: FileCheck %s --check-prefix=REFUSED < %t.refused

// LISTED: // kept    8x8x8 f16 x f16 + f32 -> f32{{$}}
// LISTED: // kept    8x8x8 f16 x f16 + f32 -> f32 (flexible)
// LISTED: #subgroup_matrix.target<"llvmpipe {{.*}}", subgroup_size = 8, configs = [{{.*}}], workgroup_memory = 32768, float64, int64, nv_coopmat2 = [flexible_dimensions, reductions, conversions, per_element_operations], flexible_granularities = [{{.*}}<8x8x8, f16 -> f32>{{.*}}], flexible_max_dimension = 1024, vendor = mesa>
// READ: flexible_granularities = [{{.*}}<8x8x8, f16 -> f32>{{.*}}], flexible_max_dimension = 1024

// REFUSED: needs what device 'llvmpipe {{.*}}' does not offer:
// REFUSED-NEXT: - the cooperative-matrix configuration 8x2048x8 f16 x f16 + f32 -> f32
// REFUSED: exit 2
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"wide", subgroup_size = 8, configs = [<8x8x8, f16 -> f32>], nv_coopmat2 = [flexible_dimensions], flexible_granularities = [<8x8x8, f16 -> f32>], flexible_max_dimension = 4096>} {
  gpu.func @wide(%a: memref<64xf16>, %b: memref<16384xf16>, %c: memref<16384xf32>) kernel
      attributes {known_block_size = array<i32: 8, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c2048 = arith.constant 2048 : index
    %zero = arith.constant 0.0 : f32
    %l = subgroup_matrix.load %a[%c0] stride %c8 : memref<64xf16> -> !subgroup_matrix.left<8x8xf16>
    %r = subgroup_matrix.load %b[%c0] stride %c2048 : memref<16384xf16> -> !subgroup_matrix.right<8x2048xf16>
    %acc = subgroup_matrix.splat %zero : f32 -> !subgroup_matrix.result<8x2048xf32>
    %d = subgroup_matrix.mma %l, %r, %acc : !subgroup_matrix.left<8x8xf16>, !subgroup_matrix.right<8x2048xf16> -> !subgroup_matrix.result<8x2048xf32>
    subgroup_matrix.store %d, %c[%c0] stride %c2048 : !subgroup_matrix.result<8x2048xf32>, memref<16384xf32>
    gpu.return
  }
}
