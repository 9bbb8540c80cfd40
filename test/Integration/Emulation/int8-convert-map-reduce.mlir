// 8-bit operands on 2-D memrefs, followed by convert, map and reduce:
// S = A * B in si32, F = float(S) / 16 - column, R = row sums of F; F and
// R are stored. Checked against forms.py's double-precision reference.
// RUN: sm-opt %s --sm-lower-to-vulkan=target=nvidia-h100 | sm-translate --serialize-spirv -o %t.native.spv
// RUN: spirv-val --target-env vulkan1.3 %t.native.spv
// RUN: sm-opt %s --sm-lower-to-vulkan="target=nvidia-h100 emulation=all" | sm-translate --serialize-spirv -o %t.emulated.spv
// RUN: spirv-val --target-env vulkan1.3 %t.emulated.spv
// RUN: sm-opt %s --sm-lower-to-vulkan=target=cpu-lavapipe | sm-translate --serialize-spirv -o %t.lavapipe.spv
// RUN: spirv-val --target-env vulkan1.3 %t.lavapipe.spv
// RUN: %if lavapipe %{ %lavapipe_env %python %S/forms.py int8_convert_map_reduce %t.lavapipe.spv %sm_build_root/bin | FileCheck %s %}
// RUN: sm-opt %s --sm-lower-to-intel=target=intel-xe-hpc -o %t.intel.mlir
// RUN: sm-translate --emit-intel-spirv %t.intel.mlir -o %t.intel.spv
// RUN: spirv-val --target-env spv1.4 %t.intel.spv
// RUN: sm-translate --emit-intel-host-llvm %t.intel.mlir -o %t.ll
// RUN: %python %S/forms.py int8_convert_map_reduce %t.ll %sm_build_root/bin --runner sm-intel-host-runner | FileCheck %s
// CHECK: PASS int8_convert_map_reduce

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @int8_convert_map_reduce(%A: memref<16x32xi8>, %B: memref<32x16xi8>,
                                      %F: memref<16x16xf32>, %R: memref<16x16xf32>) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c16 = arith.constant 16 : index
      %c32 = arith.constant 32 : index
      %a = subgroup_matrix.load %A[%c0, %c0] stride %c32
          : memref<16x32xi8> -> !subgroup_matrix.left<16x32xsi8>
      %b = subgroup_matrix.load %B[%c0, %c0] stride %c16
          : memref<32x16xi8> -> !subgroup_matrix.right<32x16xsi8>
      %s = subgroup_matrix.multiply %a, %b
          : !subgroup_matrix.left<16x32xsi8>, !subgroup_matrix.right<32x16xsi8>
            -> !subgroup_matrix.result<16x16xsi32>
      %f = subgroup_matrix.convert %s
          : !subgroup_matrix.result<16x16xsi32> -> !subgroup_matrix.result<16x16xf32>
      %g = subgroup_matrix.map %f : !subgroup_matrix.result<16x16xf32>
          -> !subgroup_matrix.result<16x16xf32> {
      ^bb0(%row: index, %col: index, %x: f32):
        %sixteenth = arith.constant 0.0625 : f32
        %scaled = arith.mulf %x, %sixteenth : f32
        %colInt = arith.index_cast %col : index to i32
        %colFloat = arith.sitofp %colInt : i32 to f32
        %y = arith.subf %scaled, %colFloat : f32
        subgroup_matrix.yield %y : f32
      }
      %r = subgroup_matrix.reduce add rows %g : !subgroup_matrix.result<16x16xf32>
      subgroup_matrix.store %g, %F[%c0, %c0] stride %c16
          : !subgroup_matrix.result<16x16xf32>, memref<16x16xf32>
      subgroup_matrix.store %r, %R[%c0, %c0] stride %c16
          : !subgroup_matrix.result<16x16xf32>, memref<16x16xf32>
      gpu.return
    }
  }
}
