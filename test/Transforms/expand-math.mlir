// RUN: sm-opt %s --sm-expand-math --split-input-file | FileCheck %s

// erf becomes a polynomial, ceil division plain divisions, and bf16 map
// arithmetic f32 arithmetic.

// CHECK-LABEL: gpu.func @expansions
// CHECK-NOT: math.erf
// CHECK-NOT: arith.ceildivui
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: arith.addf %{{.*}}, %{{.*}} : f32
// CHECK: arith.truncf %{{.*}} : f32 to bf16
gpu.module @kernels {
  gpu.func @expansions(%x: f32, %n: index, %out: memref<1xf32>, %tiles: memref<1xindex>,
                       %m: !subgroup_matrix.result<16x16xbf16>) kernel {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %e = math.erf %x : f32
    memref.store %e, %out[%c0] : memref<1xf32>
    %t = arith.ceildivui %n, %c16 : index
    memref.store %t, %tiles[%c0] : memref<1xindex>
    %r = subgroup_matrix.map %m : !subgroup_matrix.result<16x16xbf16>
        -> !subgroup_matrix.result<16x16xbf16> {
    ^bb0(%row: index, %col: index, %v: bf16):
      %s = arith.addf %v, %v : bf16
      subgroup_matrix.yield %s : bf16
    }
    gpu.return
  }
}

// -----

// In a module that sm-attach-vulkan-target has prepared, only the copy being
// lowered is expanded; the original, kept for the host, is not.

// CHECK-LABEL: gpu.module @__spv__kernels
// CHECK-NOT: math.erf
// CHECK-LABEL: gpu.module @kernels
// CHECK: math.erf
module {
  gpu.module @__spv__kernels attributes {spirv.target_env = #spirv.target_env<#spirv.vce<v1.6, [Shader], []>, #spirv.resource_limits<>>} {
    gpu.func @k(%x: f32, %out: memref<1xf32>) kernel {
      %c0 = arith.constant 0 : index
      %e = math.erf %x : f32
      memref.store %e, %out[%c0] : memref<1xf32>
      gpu.return
    }
  }
  gpu.module @kernels {
    gpu.func @k(%x: f32, %out: memref<1xf32>) kernel {
      %c0 = arith.constant 0 : index
      %e = math.erf %x : f32
      memref.store %e, %out[%c0] : memref<1xf32>
      gpu.return
    }
  }
}

// -----

// In a Vulkan kernel (a target environment attached), f32 -> bf16 rounds
// to nearest even in integer arithmetic on the bits: a SPIR-V conversion
// would round as the driver likes. A kernel for another path keeps its
// conversion.
// CHECK-LABEL: gpu.func @vulkan_rounding
// CHECK-NOT: arith.truncf
// CHECK: %[[BITS:.*]] = arith.bitcast %{{.*}} : f32 to i32
// CHECK: arith.shrui %[[BITS]]
// CHECK: arith.addi
// CHECK: arith.trunci %{{.*}} : i32 to i16
// CHECK: arith.bitcast %{{.*}} : i16 to bf16
// CHECK-LABEL: gpu.func @other_path
// CHECK: arith.truncf %{{.*}} : f32 to bf16
module {
  gpu.module @__spv__kernels attributes {spirv.target_env = #spirv.target_env<#spirv.vce<v1.6, [Shader], []>, #spirv.resource_limits<>>} {
    gpu.func @vulkan_rounding(%x: f32, %out: memref<1xbf16>) kernel {
      %c0 = arith.constant 0 : index
      %r = arith.truncf %x : f32 to bf16
      memref.store %r, %out[%c0] : memref<1xbf16>
      gpu.return
    }
  }
  gpu.module @kernels {
    gpu.func @other_path(%x: f32, %out: memref<1xbf16>) kernel {
      %c0 = arith.constant 0 : index
      %r = arith.truncf %x : f32 to bf16
      memref.store %r, %out[%c0] : memref<1xbf16>
      gpu.return
    }
  }
}

// -----

// Conversions between bf16 and f64 go through f32 (the bf16 expansion and
// SPIR-V know only f32).
// CHECK-LABEL: gpu.func @bf16_f64
// CHECK: %[[W:.*]] = arith.extf %{{.*}} : bf16 to f32
// CHECK: %[[D:.*]] = arith.extf %[[W]] : f32 to f64
// CHECK: %[[N:.*]] = arith.truncf %[[D]] : f64 to f32
// CHECK-NOT: arith.truncf %{{.*}} : f64 to bf16
module {
  gpu.module @kernels {
    gpu.func @bf16_f64(%x: memref<1xbf16>, %out: memref<1xbf16>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<1xbf16>
      %w = arith.extf %v : bf16 to f64
      %n = arith.truncf %w : f64 to bf16
      memref.store %n, %out[%c0] : memref<1xbf16>
      gpu.return
    }
  }
}

// -----

// In Vulkan kernels, f64 e^x and tanh (which GLSL.std.450 has in 16 and 32
// bits only) become f64 arithmetic: 2^k built in the exponent field times
// a polynomial, inf above the largest finite result, NaN kept.
// CHECK-LABEL: gpu.func @wide_exp
// CHECK-SAME: (%[[X:.*]]: f64
// CHECK-NOT: math.exp
// CHECK: %[[K:.*]] = math.floor %{{.*}} : f64
// CHECK: %[[KI:.*]] = arith.fptosi %{{.*}} : f64 to i64
// CHECK: %[[BIAS:.*]] = arith.addi %[[KI]], %c1023_i64 : i64
// CHECK: %[[FIELD:.*]] = arith.shli %[[BIAS]], %c52_i64 : i64
// CHECK: %[[SCALE:.*]] = arith.bitcast %[[FIELD]] : i64 to f64
// CHECK: %[[E:.*]] = arith.mulf %{{.*}}, %[[SCALE]] : f64
// CHECK: %[[BIG:.*]] = arith.cmpf ogt, %[[X]], %{{.*}} : f64
// CHECK: arith.select %[[BIG]], %cst{{.*}}, %[[E]] : f64
// CHECK: %[[NAN:.*]] = arith.cmpf uno, %[[X]], %[[X]] : f64
// CHECK: %[[R:.*]] = arith.select %[[NAN]], %[[X]], %{{.*}} : f64
// CHECK: memref.store %[[R]]
// CHECK-LABEL: gpu.func @wide_tanh
// CHECK-NOT: math.tanh
// CHECK: math.absf
// CHECK: arith.bitcast %{{.*}} : i64 to f64
module {
  gpu.module @__spv__kernels attributes {spirv.target_env = #spirv.target_env<#spirv.vce<v1.6, [Shader, Float64, Int64], []>, #spirv.resource_limits<>>} {
    gpu.func @wide_exp(%x: f64, %out: memref<1xf64>) kernel {
      %c0 = arith.constant 0 : index
      %e = math.exp %x : f64
      memref.store %e, %out[%c0] : memref<1xf64>
      gpu.return
    }
    gpu.func @wide_tanh(%x: f64, %out: memref<1xf64>) kernel {
      %c0 = arith.constant 0 : index
      %t = math.tanh %x : f64
      memref.store %t, %out[%c0] : memref<1xf64>
      gpu.return
    }
  }
}

// -----

// f16 transcendentals compute in f32 and round to f16 once, scalars and
// vectors alike; f16 arithmetic that rounds correctly stays f16.
// CHECK-LABEL: gpu.func @half_transcendentals
// CHECK-SAME: (%[[X:.*]]: f16, %[[Y:.*]]: vector<4xf16>
// CHECK: %[[XW:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK: %[[E:.*]] = math.exp %[[XW]] : f32
// CHECK: %[[EN:.*]] = arith.truncf %[[E]] : f32 to f16
// CHECK: %[[YW:.*]] = arith.extf %[[Y]] : vector<4xf16> to vector<4xf32>
// CHECK: %[[T:.*]] = math.tanh %[[YW]] : vector<4xf32>
// CHECK: arith.truncf %[[T]] : vector<4xf32> to vector<4xf16>
// CHECK: %[[BW:.*]] = arith.extf %[[EN]] : f16 to f32
// CHECK: %[[EW:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK: math.powf %[[BW]], %[[EW]] : f32
// CHECK: arith.addf %{{.*}}, %[[X]] : f16
module {
  gpu.module @__spv__kernels attributes {spirv.target_env = #spirv.target_env<#spirv.vce<v1.6, [Shader, Float16], []>, #spirv.resource_limits<>>} {
    gpu.func @half_transcendentals(%x: f16, %y: vector<4xf16>, %out: memref<1xf16>, %vout: memref<1xvector<4xf16>>) kernel {
      %c0 = arith.constant 0 : index
      %e = math.exp %x : f16
      %t = math.tanh %y : vector<4xf16>
      %p = math.powf %e, %x : f16
      %s = arith.addf %p, %x : f16
      memref.store %s, %out[%c0] : memref<1xf16>
      memref.store %t, %vout[%c0] : memref<1xvector<4xf16>>
      gpu.return
    }
  }
}
