// RUN: sm-opt %s -split-input-file -verify-diagnostics --sm-lower-to-vulkan=target=cpu-lavapipe | FileCheck %s
// RUN: not sm-opt %s -split-input-file --sm-lower-to-vulkan=target=intel-xe-hpg 2>&1 | FileCheck %s --check-prefix=HPG

// f64 and i64 lower where the target has them (lavapipe, the H100, RDNA3,
// Xe-HPC); a target without them refuses the kernel by name (Xe-HPG has no
// f64 hardware).
// CHECK-LABEL: spirv.module @__spv__wide
// CHECK-SAME: Float64
// CHECK-SAME: Int64
// CHECK: spirv.func @scale
// CHECK: %[[S:.+]] = spirv.Load "StorageBuffer" %{{.+}} : f64
// CHECK: %[[X:.+]] = spirv.Load "StorageBuffer" %{{.+}} : f64
// CHECK: spirv.FMul %[[X]], %[[S]] : f64
// CHECK: %[[I:.+]] = spirv.SConvert %{{.+}} : i32 to i64
// CHECK: %[[N:.+]] = spirv.Load "StorageBuffer" %{{.+}} : i64
// CHECK: spirv.IAdd %[[N]], %[[I]] : i64
// HPG: 'memref.load' uses 'f64', which target 'intel-xe-hpg' does not support (it lacks 'float64': the device has no shaderFloat64); compute in f32 (sm-linalg-to-gpu's f64=f32 does), or lower for a target with 'float64'
module attributes {gpu.container_module} {
  gpu.module @wide {
    gpu.func @scale(%A: memref<?xf64>, %s: f64, %N: memref<?xi64>) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>} {
      %i = gpu.thread_id x
      %x = memref.load %A[%i] : memref<?xf64>
      %y = arith.mulf %x, %s : f64
      memref.store %y, %A[%i] : memref<?xf64>
      %i32 = arith.index_cast %i : index to i32
      %i64 = arith.extsi %i32 : i32 to i64
      %n = memref.load %N[%i] : memref<?xi64>
      %sum = arith.addi %n, %i64 : i64
      memref.store %sum, %N[%i] : memref<?xi64>
      gpu.return
    }
  }
}

// -----

// A per-invocation allocation (private memory, or no memory space) becomes
// a Function-storage variable at the start of the function, also when it
// is made inside a loop; its dealloc goes away.
// CHECK-LABEL: spirv.module @__spv__private
// CHECK: spirv.func @reverse
// CHECK: %{{.+}} = spirv.Variable : !spirv.ptr<!spirv.struct<(!spirv.array<4 x f32>)>, Function>
// CHECK-NEXT: %{{.+}} = spirv.Variable : !spirv.ptr<!spirv.struct<(!spirv.array<4 x f32>)>, Function>
// CHECK-NOT: spirv.Variable
module attributes {gpu.container_module} {
  gpu.module @private {
    gpu.func @reverse(%A: memref<?xf32>) kernel
        attributes {known_block_size = array<i32: 8, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %t = gpu.thread_id x
      %base = arith.muli %t, %c4 : index
      %buffer = memref.alloc() : memref<4xf32, #gpu.address_space<private>>
      scf.for %k = %c0 to %c4 step %c1 {
        %at = arith.addi %base, %k : index
        %x = memref.load %A[%at] : memref<?xf32>
        %back = arith.subi %c3, %k : index
        memref.store %x, %buffer[%back] : memref<4xf32, #gpu.address_space<private>>
      }
      scf.for %k = %c0 to %c4 step %c1 {
        %scratch = memref.alloc() : memref<4xf32>
        %x = memref.load %buffer[%k] : memref<4xf32, #gpu.address_space<private>>
        memref.store %x, %scratch[%k] : memref<4xf32>
        %y = memref.load %scratch[%k] : memref<4xf32>
        %at = arith.addi %base, %k : index
        memref.store %y, %A[%at] : memref<?xf32>
        memref.dealloc %scratch : memref<4xf32>
      }
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @private_dynamic {
    gpu.func @dynamic(%A: memref<?xf32>, %n: index) kernel
        attributes {known_block_size = array<i32: 8, 1, 1>} {
      %c0 = arith.constant 0 : index
      // expected-error @+1 {{a per-invocation allocation of type 'memref<?xf32, #gpu.address_space<private>>' cannot be lowered: memory of one invocation is a stack array of static size and no layout; allocate the largest size instead}}
      %buffer = memref.alloc(%n) : memref<?xf32, #gpu.address_space<private>>
      %x = memref.load %buffer[%c0] : memref<?xf32, #gpu.address_space<private>>
      memref.store %x, %A[%c0] : memref<?xf32>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @private_call {
    func.func @fill(%buffer: memref<4xf32, #gpu.address_space<private>>) {
      return
    }
    gpu.func @call(%A: memref<?xf32>) kernel
        attributes {known_block_size = array<i32: 8, 1, 1>} {
      %c0 = arith.constant 0 : index
      %buffer = memref.alloc() : memref<4xf32, #gpu.address_space<private>>
      // expected-error @+1 {{'func.call' uses a per-invocation allocation, which the kernel holds on its stack (a SPIR-V Function variable): only loads and stores may use it}}
      func.call @fill(%buffer) : (memref<4xf32, #gpu.address_space<private>>) -> ()
      %x = memref.load %buffer[%c0] : memref<4xf32, #gpu.address_space<private>>
      memref.store %x, %A[%c0] : memref<?xf32>
      gpu.return
    }
  }
}
