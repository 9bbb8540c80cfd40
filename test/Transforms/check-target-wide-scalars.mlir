// RUN: sm-opt %s -split-input-file -verify-diagnostics --sm-check-target
// RUN: sm-opt %s -split-input-file -verify-diagnostics --sm-lower-to-vulkan

// f64 and i64 in kernel code need the target's float64 and int64 flags;
// each missing type is reported once, where it first appears. Host code is
// not the target's.

gpu.module @hpg attributes {subgroup_matrix.target = #subgroup_matrix.target<"intel-xe-hpg">} {
  gpu.func @scale(%A: memref<?xf64>, %s: f64) kernel attributes {known_block_size = array<i32: 8, 1, 1>} {
    %i = gpu.thread_id x
    // expected-error @+1 {{'memref.load' uses 'f64', which target 'intel-xe-hpg' does not support (it lacks 'float64': the device has no shaderFloat64); compute in f32 (sm-linalg-to-gpu's f64=f32 does), or lower for a target with 'float64'}}
    %x = memref.load %A[%i] : memref<?xf64>
    %y = arith.mulf %x, %s : f64
    memref.store %y, %A[%i] : memref<?xf64>
    gpu.return
  }
}

// -----

gpu.module @custom attributes {subgroup_matrix.target = #subgroup_matrix.target<"my-gpu", subgroup_size = 32, configs = [<16x16x16, f16 -> f32>], float64>} {
  gpu.func @count(%N: memref<?xi64>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %i = gpu.thread_id x
    // expected-error @+1 {{'memref.load' uses 'i64', which target 'my-gpu' does not support (it lacks 'int64': the device has no shaderInt64); compute in i32, or lower for a target with 'int64'}}
    %n = memref.load %N[%i] : memref<?xi64>
    memref.store %n, %N[%i] : memref<?xi64>
    gpu.return
  }
}

// -----

// Host code may compute in i64 whatever the kernels' target.
module attributes {gpu.container_module} {
  gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"apple-m1">} {
    gpu.func @empty() kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
      gpu.return
    }
  }
  func.func @host(%x: f64) -> f64 {
    %y = arith.mulf %x, %x : f64
    return %y : f64
  }
}
