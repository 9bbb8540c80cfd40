// RUN: sm-opt %s --sm-convert-kernels-to-spirv --split-input-file --verify-diagnostics | FileCheck %s

// A prepared copy (named for its SPIR-V module, with a target environment)
// becomes a spirv.module of that name with the Vulkan memory model; the
// original gpu.module, which carries no target environment, stays.

// CHECK-LABEL: spirv.module @__spv__kernels Logical Vulkan
// CHECK: spirv.func @copy
// CHECK: spirv.KHR.CooperativeMatrixLoad
// CHECK: spirv.KHR.CooperativeMatrixStore
// CHECK: gpu.module @kernels
// CHECK: subgroup_matrix.load
module attributes {gpu.container_module} {
  gpu.module @__spv__kernels attributes {spirv.target_env = #spirv.target_env<#spirv.vce<v1.6, [Shader, Float16, StorageBuffer16BitAccess, VulkanMemoryModel, CooperativeMatrixKHR], [SPV_KHR_cooperative_matrix, SPV_KHR_16bit_storage, SPV_KHR_vulkan_memory_model]>, #spirv.resource_limits<>>} {
    gpu.func @copy(%in: memref<256xf16>, %out: memref<256xf16>) kernel
        attributes {spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [32, 1, 1]>, subgroup_matrix.emulated} {
      %c0 = arith.constant 0 : index
      %c16 = arith.constant 16 : index
      %m = subgroup_matrix.load %in[%c0] stride %c16
          : memref<256xf16> -> !subgroup_matrix.left<16x16xf16>
      subgroup_matrix.store %m, %out[%c0] stride %c16
          : !subgroup_matrix.left<16x16xf16>, memref<256xf16>
      gpu.return
    }
  }
  gpu.module @kernels {
    gpu.func @copy(%in: memref<256xf16>, %out: memref<256xf16>) kernel {
      %c0 = arith.constant 0 : index
      %c16 = arith.constant 16 : index
      %m = subgroup_matrix.load %in[%c0] stride %c16
          : memref<256xf16> -> !subgroup_matrix.left<16x16xf16>
      subgroup_matrix.store %m, %out[%c0] stride %c16
          : !subgroup_matrix.left<16x16xf16>, memref<256xf16>
      gpu.return
    }
  }
}

// -----

// A gpu.module of its own gets upstream's name; the mark of emulated
// functions does not reach SPIR-V.

// CHECK-LABEL: spirv.module @__spv__alone Logical Vulkan
// CHECK-NOT: subgroup_matrix.emulated
gpu.module @alone attributes {spirv.target_env = #spirv.target_env<#spirv.vce<v1.6, [Shader, VulkanMemoryModel], []>, #spirv.resource_limits<>>} {
  gpu.func @empty() kernel
      attributes {spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [32, 1, 1]>, subgroup_matrix.emulated} {
    gpu.return
  }
}

// -----

// expected-error @below {{has no 'spirv.target_env' to convert for (sm-attach-vulkan-target attaches one)}}
gpu.module @untargeted {
  gpu.func @empty() kernel {
    gpu.return
  }
}

// -----

// Words packed three to an element have no storage-buffer layout (found by
// utils/fuzz.py: the binary failed spirv-val).

gpu.module @three_wide attributes {spirv.target_env = #spirv.target_env<#spirv.vce<v1.6, [Shader, VulkanMemoryModel], []>, #spirv.resource_limits<>>} {
  // expected-error @below {{argument 0 of type 'memref<256xvector<3xi32>>' cannot be a Vulkan storage buffer: its elements of 3 components would each take 16 bytes; use 1, 2 or 4}}
  gpu.func @k(%words: memref<256xvector<3xi32>>) kernel
      attributes {spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [32, 1, 1]>} {
    gpu.return
  }
}

// -----

// A boolean argument would be a storage buffer of a boolean, which has no
// layout (spirv-val rejected the binary).

gpu.module @boolean_argument attributes {spirv.target_env = #spirv.target_env<#spirv.vce<v1.6, [Shader, VulkanMemoryModel], []>, #spirv.resource_limits<>>} {
  // expected-error @below {{argument 1 of type 'i1' cannot be a Vulkan kernel argument: a boolean has no layout in a storage buffer; pass an i32 and compare it with zero}}
  gpu.func @k(%out: memref<16xf32>, %flag: i1) kernel
      attributes {spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [32, 1, 1]>} {
    gpu.return
  }
}

// -----

// A subgroup barrier (the workgroup-memory expansion's) is OpControlBarrier
// at subgroup scope, ordering workgroup memory.

// CHECK-LABEL: spirv.module @__spv__kernels
// CHECK: spirv.func @exchange
// CHECK: spirv.Store "Workgroup"
// CHECK-NEXT: spirv.ControlBarrier <Subgroup>, <Subgroup>, <AcquireRelease|WorkgroupMemory>
// CHECK: spirv.Load "Workgroup"
module attributes {gpu.container_module} {
  gpu.module @__spv__kernels attributes {spirv.target_env = #spirv.target_env<#spirv.vce<v1.6, [Shader, VulkanMemoryModel], []>, #spirv.resource_limits<>>} {
    gpu.func @exchange(%out: memref<32xf32>) kernel
        attributes {spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [32, 1, 1]>} {
      %tile = memref.alloc() : memref<32xf32, #gpu.address_space<workgroup>>
      %c0 = arith.constant 0 : index
      %one = arith.constant 1.0 : f32
      memref.store %one, %tile[%c0] : memref<32xf32, #gpu.address_space<workgroup>>
      subgroup_matrix.subgroup_barrier
      %x = memref.load %tile[%c0] : memref<32xf32, #gpu.address_space<workgroup>>
      memref.store %x, %out[%c0] : memref<32xf32>
      gpu.return
    }
  }
}

// -----

// A loop an invocation may not enter (it strides from its thread id): its
// result is the loop's only where the loop runs, its initial value
// otherwise, since the SPIR-V loop leaves an unentered loop's result
// undefined.

// CHECK-LABEL: spirv.func @strided_sum
// CHECK: %[[ZERO:.*]] = spirv.Constant 0.000000e+00 : f32
// CHECK: %[[C100:.*]] = spirv.Constant 100 : i32
// CHECK: %[[T:.*]] = spirv.CompositeExtract
// CHECK: %[[RUNS:.*]] = spirv.SLessThan %[[T]], %[[C100]] : i32
// CHECK: spirv.mlir.loop
// CHECK: spirv.mlir.merge
// CHECK: %[[LOOP:.*]] = spirv.Load "Function"
// CHECK: %[[SUM:.*]] = spirv.Select %[[RUNS]], %[[LOOP]], %[[ZERO]] : i1, f32
// CHECK: spirv.Store "StorageBuffer" %{{.*}}, %[[SUM]]
module attributes {gpu.container_module} {
  gpu.module @__spv__kernels attributes {spirv.target_env = #spirv.target_env<#spirv.vce<v1.6, [Shader, VulkanMemoryModel], [SPV_KHR_vulkan_memory_model]>, #spirv.resource_limits<>>} {
    gpu.func @strided_sum(%in: memref<100xf32>, %out: memref<256xf32>) kernel
        attributes {spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [256, 1, 1]>} {
      %zero = arith.constant 0.0 : f32
      %c100 = arith.constant 100 : index
      %c256 = arith.constant 256 : index
      %t = gpu.thread_id x
      %sum = scf.for %i = %t to %c100 step %c256 iter_args(%acc = %zero) -> (f32) {
        %v = memref.load %in[%i] : memref<100xf32>
        %s = arith.addf %acc, %v : f32
        scf.yield %s : f32
      }
      memref.store %sum, %out[%t] : memref<256xf32>
      gpu.return
    }
  }
}

// -----

// maximumf and minimumf return NaN where either operand is NaN: the
// operands' sum there, FMax or FMin elsewhere (lavapipe compiled
// upstream's selects of the NaN operand to FMax alone). Where the op may
// assume no NaN, upstream's lowering stays.

// CHECK-LABEL: spirv.func @nan_propagating
// CHECK: %[[A:.*]] = spirv.Load "StorageBuffer"
// CHECK: %[[B:.*]] = spirv.Load "StorageBuffer"
// CHECK: %[[MAX:.*]] = spirv.GL.FMax %[[A]], %[[B]] : f32
// CHECK: %[[ANAN:.*]] = spirv.IsNan %[[A]] : f32
// CHECK: %[[BNAN:.*]] = spirv.IsNan %[[B]] : f32
// CHECK: %[[EITHER:.*]] = spirv.LogicalOr %[[ANAN]], %[[BNAN]] : i1
// CHECK: %[[SUM:.*]] = spirv.FAdd %[[A]], %[[B]] : f32
// CHECK: %[[MAXIMUM:.*]] = spirv.Select %[[EITHER]], %[[SUM]], %[[MAX]] : i1, f32
// CHECK: %[[VA:.*]] = spirv.CompositeConstruct %[[MAXIMUM]], %[[MAXIMUM]]
// CHECK: %[[VB:.*]] = spirv.CompositeConstruct %[[B]], %[[B]]
// CHECK: %[[MIN:.*]] = spirv.GL.FMin %[[VA]], %[[VB]] : vector<2xf32>
// CHECK: %[[VANAN:.*]] = spirv.IsNan %[[VA]] : vector<2xf32>
// CHECK: %[[VBNAN:.*]] = spirv.IsNan %[[VB]] : vector<2xf32>
// CHECK: %[[VEITHER:.*]] = spirv.LogicalOr %[[VANAN]], %[[VBNAN]] : vector<2xi1>
// CHECK: %[[VSUM:.*]] = spirv.FAdd %[[VA]], %[[VB]] : vector<2xf32>
// CHECK: spirv.Select %[[VEITHER]], %[[VSUM]], %[[MIN]] : vector<2xi1>, vector<2xf32>
// CHECK: %[[FAST:.*]] = spirv.GL.FMax %[[A]], %[[B]] : f32
// CHECK-NOT: spirv.IsNan
// CHECK: spirv.Store "StorageBuffer" %{{.*}}, %[[FAST]]
module attributes {gpu.container_module} {
  gpu.module @__spv__kernels attributes {spirv.target_env = #spirv.target_env<#spirv.vce<v1.6, [Shader, VulkanMemoryModel], [SPV_KHR_vulkan_memory_model]>, #spirv.resource_limits<>>} {
    gpu.func @nan_propagating(%in: memref<2xf32>, %out: memref<3xf32>) kernel
        attributes {spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [1, 1, 1]>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %a = memref.load %in[%c0] : memref<2xf32>
      %b = memref.load %in[%c1] : memref<2xf32>
      %maximum = arith.maximumf %a, %b : f32
      %va = vector.broadcast %maximum : f32 to vector<2xf32>
      %vb = vector.broadcast %b : f32 to vector<2xf32>
      %vmin = arith.minimumf %va, %vb : vector<2xf32>
      %minimum = vector.extract %vmin[0] : f32 from vector<2xf32>
      %fast = arith.maximumf %a, %b fastmath<nnan> : f32
      memref.store %maximum, %out[%c0] : memref<3xf32>
      memref.store %minimum, %out[%c1] : memref<3xf32>
      memref.store %fast, %out[%c2] : memref<3xf32>
      gpu.return
    }
  }
}
