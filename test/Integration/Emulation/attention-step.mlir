// A one-subgroup attention step on 2-D memrefs: S = Q * K^T, P =
// exp(S - rowmax(S)), O = (f16(P) * V) / rowsum(P). Checked against
// forms.py's double-precision reference.
// RUN: sm-opt %s --sm-lower-to-vulkan=target=nvidia-h100 | sm-translate --serialize-spirv -o %t.native.spv
// RUN: spirv-val --target-env vulkan1.3 %t.native.spv
// RUN: sm-opt %s --sm-lower-to-vulkan="target=nvidia-h100 emulation=all" | sm-translate --serialize-spirv -o %t.emulated.spv
// RUN: spirv-val --target-env vulkan1.3 %t.emulated.spv
// RUN: sm-opt %s --sm-lower-to-vulkan=target=cpu-lavapipe | sm-translate --serialize-spirv -o %t.lavapipe.spv
// RUN: spirv-val --target-env vulkan1.3 %t.lavapipe.spv
// RUN: %if lavapipe %{ %lavapipe_env %python %S/forms.py attention_step %t.lavapipe.spv %sm_build_root/bin | FileCheck %s %}
// RUN: sm-opt %s --sm-lower-to-intel=target=intel-xe-hpc -o %t.intel.mlir
// RUN: sm-translate --emit-intel-spirv %t.intel.mlir -o %t.intel.spv
// RUN: spirv-val --target-env spv1.4 %t.intel.spv
// RUN: sm-translate --emit-intel-host-llvm %t.intel.mlir -o %t.ll
// RUN: %python %S/forms.py attention_step %t.ll %sm_build_root/bin --runner sm-intel-host-runner | FileCheck %s
// CHECK: PASS attention_step

// Q is 16 x 16 (queries by head dimension), Kt 16 x 16 (head dimension by
// keys, K transposed), V 16 x 16 (keys by head dimension), O 16 x 16.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @attention_step(%Q: memref<16x16xf16>, %Kt: memref<16x16xf16>,
                             %V: memref<16x16xf16>, %O: memref<16x16xf32>) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c16 = arith.constant 16 : index
      %q = subgroup_matrix.load %Q[%c0, %c0] stride %c16
          : memref<16x16xf16> -> !subgroup_matrix.left<16x16xf16>
      %k = subgroup_matrix.load %Kt[%c0, %c0] stride %c16
          : memref<16x16xf16> -> !subgroup_matrix.right<16x16xf16>
      %v = subgroup_matrix.load %V[%c0, %c0] stride %c16
          : memref<16x16xf16> -> !subgroup_matrix.right<16x16xf16>
      %s = subgroup_matrix.multiply %q, %k
          : !subgroup_matrix.left<16x16xf16>, !subgroup_matrix.right<16x16xf16>
            -> !subgroup_matrix.result<16x16xf32>
      %max = subgroup_matrix.reduce max rows %s : !subgroup_matrix.result<16x16xf32>
      %p = subgroup_matrix.map %s, %max
          : !subgroup_matrix.result<16x16xf32>, !subgroup_matrix.result<16x16xf32>
            -> !subgroup_matrix.result<16x16xf32> {
      ^bb0(%row: index, %col: index, %x: f32, %m: f32):
        %d = arith.subf %x, %m : f32
        %e = math.exp %d : f32
        subgroup_matrix.yield %e : f32
      }
      %sum = subgroup_matrix.reduce add rows %p : !subgroup_matrix.result<16x16xf32>
      %pLeft = subgroup_matrix.convert %p
          : !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.left<16x16xf16>
      %o = subgroup_matrix.multiply %pLeft, %v
          : !subgroup_matrix.left<16x16xf16>, !subgroup_matrix.right<16x16xf16>
            -> !subgroup_matrix.result<16x16xf32>
      %normalized = subgroup_matrix.map %o, %sum
          : !subgroup_matrix.result<16x16xf32>, !subgroup_matrix.result<16x16xf32>
            -> !subgroup_matrix.result<16x16xf32> {
      ^bb0(%row: index, %col: index, %x: f32, %l: f32):
        %y = arith.divf %x, %l : f32
        subgroup_matrix.yield %y : f32
      }
      subgroup_matrix.store %normalized, %O[%c0, %c0] stride %c16
          : !subgroup_matrix.result<16x16xf32>, memref<16x16xf32>
      gpu.return
    }
  }
}
