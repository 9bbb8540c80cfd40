// RUN: sm-opt %s --sm-expand-math -verify-diagnostics

// Other f64 transcendental ops have no 64-bit GLSL.std.450 instruction and
// no expansion: reported where they are.
module {
  gpu.module @__spv__kernels attributes {spirv.target_env = #spirv.target_env<#spirv.vce<v1.6, [Shader, Float64], []>, #spirv.resource_limits<>>} {
    gpu.func @wide_log(%x: f64, %out: memref<1xf64>) kernel {
      %c0 = arith.constant 0 : index
      // expected-error @+1 {{'math.log' op on f64 has no Vulkan instruction: GLSL.std.450 computes it in 16 or 32 bits only (compute it in f32, or on f64 with math.exp, math.exp2 or math.tanh, which are expanded)}}
      %l = math.log %x : f64
      memref.store %l, %out[%c0] : memref<1xf64>
      gpu.return
    }
  }
}
