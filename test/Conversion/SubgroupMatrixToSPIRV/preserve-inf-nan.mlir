// RUN: sm-opt %s -split-input-file --pass-pipeline='builtin.module(spirv.module(sm-preserve-inf-nan))' | FileCheck %s

// Every entry point keeps infinities, NaN and signed zeros in f32, and in
// f16 where the module computes in f16; the capability is declared.
// CHECK: spirv.module Logical Vulkan requires #spirv.vce<v1.6, [Shader, Float16, SignedZeroInfNanPreserve], []>
// CHECK-DAG: spirv.ExecutionMode @first "SignedZeroInfNanPreserve", 16
// CHECK-DAG: spirv.ExecutionMode @first "SignedZeroInfNanPreserve", 32
// CHECK-DAG: spirv.ExecutionMode @second "SignedZeroInfNanPreserve", 16
// CHECK-DAG: spirv.ExecutionMode @second "SignedZeroInfNanPreserve", 32
// CHECK-NOT: "SignedZeroInfNanPreserve", 64
spirv.module Logical Vulkan requires #spirv.vce<v1.6, [Shader, Float16], []> {
  spirv.func @first() "None" {
    spirv.Return
  }
  spirv.func @second() "None" {
    spirv.Return
  }
  spirv.EntryPoint "GLCompute" @first
  spirv.EntryPoint "GLCompute" @second
}

// -----

// Before SPIR-V 1.4, float controls are an extension; f64 is kept where the
// module computes in it.
// CHECK: spirv.module Logical Vulkan requires #spirv.vce<v1.3, [Shader, Float64, SignedZeroInfNanPreserve], [SPV_KHR_float_controls]>
// CHECK-NOT: "SignedZeroInfNanPreserve", 16
// CHECK-DAG: spirv.ExecutionMode @main "SignedZeroInfNanPreserve", 32
// CHECK-DAG: spirv.ExecutionMode @main "SignedZeroInfNanPreserve", 64
spirv.module Logical Vulkan requires #spirv.vce<v1.3, [Shader, Float64], []> {
  spirv.func @main() "None" {
    spirv.Return
  }
  spirv.EntryPoint "GLCompute" @main
}
