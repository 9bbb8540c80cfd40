// RUN: sm-opt %s -split-input-file --sm-lower-to-vulkan="nv-coopmat2=false" | FileCheck %s
// The SPV_KHR_cooperative_matrix lowering, which every Vulkan device with
// matrices has (the H100's VK_NV_cooperative_matrix2 is turned off here;
// use-nv-cooperative-matrix2.mlir shows what it does to the same ops).
// (The binaries of these ops are validated by spirv-val, compiled by RADV
// and run on the H100 in test/Integration/MatrixFunctions.)

// A change of component type within a kind is one conversion instruction on
// cooperative matrices; component-wise maps are arithmetic on whole
// matrices. Neither touches memory.

// CHECK-LABEL: spirv.module
// CHECK-NOT: spirv.GlobalVariable {{.*}}Workgroup
// CHECK-LABEL: spirv.func @direct
// CHECK: %[[A:.*]] = spirv.KHR.CooperativeMatrixLoad {{.*}} -> !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>
// CHECK: %[[H:.*]] = spirv.FConvert %[[A]] : !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc> to !spirv.coopmatrix<16x16xf16, Subgroup, MatrixAcc>
// CHECK: %[[TWO:.*]] = spirv.Constant dense<2.000000e+00> : !spirv.coopmatrix<16x16xf16, Subgroup, MatrixAcc>
// CHECK: %[[P:.*]] = spirv.FMul %[[H]], %[[TWO]] : !spirv.coopmatrix<16x16xf16, Subgroup, MatrixAcc>
// CHECK: %[[Q:.*]] = spirv.FAdd %[[P]], %[[H]] : !spirv.coopmatrix<16x16xf16, Subgroup, MatrixAcc>
// CHECK: spirv.KHR.CooperativeMatrixStore {{.*}}, %[[Q]]
// CHECK-NOT: spirv.ControlBarrier
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @direct(%a: memref<256xf32>, %c: memref<256xf16>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %m = subgroup_matrix.load %a[%c0] stride %c16 : memref<256xf32> -> !subgroup_matrix.result<16x16xf32>
    %h = subgroup_matrix.convert %m : !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.result<16x16xf16>
    %y = subgroup_matrix.map %h, %h : !subgroup_matrix.result<16x16xf16>, !subgroup_matrix.result<16x16xf16> -> !subgroup_matrix.result<16x16xf16> {
    ^bb0(%row: index, %col: index, %x: f16, %z: f16):
      %two = arith.constant 2.0 : f16
      %p = arith.mulf %x, %two : f16
      %q = arith.addf %p, %z : f16
      subgroup_matrix.yield %q : f16
    }
    subgroup_matrix.store %y, %c[%c0] stride %c16 : !subgroup_matrix.result<16x16xf16>, memref<256xf16>
    gpu.return
  }
}

// -----

// A map over f16 and f32 matrices to f16 is component-wise too: the
// extension and the truncation are conversions of whole matrices, the
// addition is on f32 matrices; nothing goes through workgroup memory.

// CHECK-LABEL: spirv.module
// CHECK-NOT: spirv.GlobalVariable {{.*}}Workgroup
// CHECK-LABEL: spirv.func @mixed_types
// CHECK-DAG: %[[H:.*]] = spirv.KHR.CooperativeMatrixLoad {{.*}} -> !spirv.coopmatrix<16x16xf16, Subgroup, MatrixAcc>
// CHECK-DAG: %[[F:.*]] = spirv.KHR.CooperativeMatrixLoad {{.*}} -> !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>
// CHECK: %[[W:.*]] = spirv.FConvert %[[H]] : !spirv.coopmatrix<16x16xf16, Subgroup, MatrixAcc> to !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>
// CHECK: %[[HALF:.*]] = spirv.Constant dense<5.000000e-01> : !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>
// CHECK: %[[P:.*]] = spirv.FMul %[[F]], %[[HALF]] : !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>
// CHECK: %[[S:.*]] = spirv.FAdd %[[W]], %[[P]] : !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>
// CHECK: %[[N:.*]] = spirv.FConvert %[[S]] : !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc> to !spirv.coopmatrix<16x16xf16, Subgroup, MatrixAcc>
// CHECK: spirv.KHR.CooperativeMatrixStore {{.*}}, %[[N]]
// CHECK-NOT: spirv.ControlBarrier
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @mixed_types(%a: memref<256xf16>, %b: memref<256xf32>, %c: memref<256xf16>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %h = subgroup_matrix.load %a[%c0] stride %c16 : memref<256xf16> -> !subgroup_matrix.result<16x16xf16>
    %f = subgroup_matrix.load %b[%c0] stride %c16 : memref<256xf32> -> !subgroup_matrix.result<16x16xf32>
    %y = subgroup_matrix.map %h, %f : !subgroup_matrix.result<16x16xf16>, !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.result<16x16xf16> {
    ^bb0(%row: index, %col: index, %x: f16, %z: f32):
      %w = arith.extf %x : f16 to f32
      %half = arith.constant 0.5 : f32
      %p = arith.mulf %z, %half : f32
      %s = arith.addf %w, %p : f32
      %n = arith.truncf %s : f32 to f16
      subgroup_matrix.yield %n : f16
    }
    subgroup_matrix.store %y, %c[%c0] stride %c16 : !subgroup_matrix.result<16x16xf16>, memref<256xf16>
    gpu.return
  }
}

// -----

// A map of f16 matrices whose body widens to f32 is not: no matrix of the
// map has f32 components, which the target might lack, so it goes through
// workgroup memory, element by element.

// CHECK-LABEL: spirv.module
// CHECK: spirv.GlobalVariable {{.*}}Workgroup
// CHECK-LABEL: spirv.func @wider_inside
// CHECK: spirv.KHR.CooperativeMatrixStore
// CHECK: spirv.ControlBarrier <Subgroup>, <Subgroup>, <AcquireRelease|WorkgroupMemory>
// CHECK: spirv.mlir.loop
// CHECK-NOT: spirv.FConvert {{.*}}coopmatrix
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @wider_inside(%a: memref<256xf16>, %b: memref<256xf16>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %h = subgroup_matrix.load %a[%c0] stride %c16 : memref<256xf16> -> !subgroup_matrix.result<16x16xf16>
    %y = subgroup_matrix.map %h : !subgroup_matrix.result<16x16xf16> -> !subgroup_matrix.result<16x16xf16> {
    ^bb0(%row: index, %col: index, %x: f16):
      %w = arith.extf %x : f16 to f32
      %s = arith.mulf %w, %w : f32
      %n = arith.truncf %s : f32 to f16
      subgroup_matrix.yield %n : f16
    }
    subgroup_matrix.store %y, %b[%c0] stride %c16 : !subgroup_matrix.result<16x16xf16>, memref<256xf16>
    gpu.return
  }
}

// -----

// A change of kind, a map that needs the element's position and a
// reduction go through one scratch tile per subgroup in workgroup memory,
// sized for the op that needs most (two tiles of f32 for the map: its input
// and its result; 2 subgroups of 32): stores, a subgroup barrier, per
// invocation loops over the elements, a barrier, a load.

// CHECK-LABEL: spirv.module
// CHECK-DAG: spirv.GlobalVariable @{{.*}} : !spirv.ptr<!spirv.struct<(!spirv.array<1024 x f32>)>, Workgroup>
// CHECK-DAG: spirv.GlobalVariable @{{.*}} : !spirv.ptr<!spirv.struct<(!spirv.array<512 x f16>)>, Workgroup>
// CHECK-DAG: spirv.GlobalVariable @{{.*}} built_in("SubgroupId")
// CHECK-DAG: spirv.GlobalVariable @{{.*}} built_in("SubgroupLocalInvocationId")
// CHECK-LABEL: spirv.func @through_memory
// The map: store, barrier, the loop, barrier, load, barrier.
// CHECK: spirv.KHR.CooperativeMatrixStore
// CHECK: spirv.ControlBarrier <Subgroup>, <Subgroup>, <AcquireRelease|WorkgroupMemory>
// CHECK: spirv.mlir.loop
// CHECK: spirv.UGreaterThan
// CHECK: spirv.Select
// CHECK: spirv.ControlBarrier <Subgroup>, <Subgroup>, <AcquireRelease|WorkgroupMemory>
// CHECK: spirv.KHR.CooperativeMatrixLoad {{.*}} -> !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>
// The reduction.
// CHECK: spirv.KHR.CooperativeMatrixStore
// CHECK: spirv.mlir.loop
// CHECK: spirv.GL.FMax
// CHECK: spirv.KHR.CooperativeMatrixLoad {{.*}} -> !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>
// The change of kind, after the component type.
// CHECK: spirv.FConvert {{.*}} to !spirv.coopmatrix<16x16xf16, Subgroup, MatrixAcc>
// CHECK: spirv.KHR.CooperativeMatrixStore
// CHECK: spirv.ControlBarrier
// CHECK: spirv.KHR.CooperativeMatrixLoad {{.*}} -> !spirv.coopmatrix<16x16xf16, Subgroup, MatrixA>
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @through_memory(%a: memref<256xf32>, %c: memref<256xf16>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %m = subgroup_matrix.load %a[%c0] stride %c16 : memref<256xf32> -> !subgroup_matrix.result<16x16xf32>
    %masked = subgroup_matrix.map %m : !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.result<16x16xf32> {
    ^bb0(%row: index, %col: index, %x: f32):
      %above = arith.cmpi ugt, %col, %row : index
      %low = arith.constant -1.0e4 : f32
      %y = arith.select %above, %low, %x : f32
      subgroup_matrix.yield %y : f32
    }
    %max = subgroup_matrix.reduce max rows %masked : !subgroup_matrix.result<16x16xf32>
    %p = subgroup_matrix.convert %max : !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.left<16x16xf16>
    subgroup_matrix.store %p, %c[%c0] stride %c16 : !subgroup_matrix.left<16x16xf16>, memref<256xf16>
    gpu.return
  }
}

// -----

// SPIR-V converts bf16 (SPV_KHR_bfloat16) but has no bf16 arithmetic: the
// map body computes in f32 between conversions, in the scratch tile. The
// way back rounds to nearest even on the bits (a conversion would round as
// the driver likes).

// CHECK-LABEL: spirv.module @__spv__bf16_map
// CHECK: spirv.KHR.CooperativeMatrixStore %{{.*}} : !spirv.ptr<bf16, Workgroup>, !spirv.coopmatrix<16x16xbf16, Subgroup, MatrixA>
// CHECK: %[[X:.*]] = spirv.Load "Workgroup" %{{.*}} : bf16
// CHECK: %[[W:.*]] = spirv.FConvert %[[X]] : bf16 to f32
// CHECK: %[[E:.*]] = spirv.GL.Exp %[[W]] : f32
// CHECK: %[[BITS:.*]] = spirv.Bitcast %[[E]] : f32 to i32
// CHECK: %[[ROUNDED:.*]] = spirv.SConvert %{{.*}} : i32 to i16
// CHECK: %[[KEPT:.*]] = spirv.Select %{{.*}}, %{{.*}}, %[[ROUNDED]] : i1, i16
// CHECK: %[[Y:.*]] = spirv.Bitcast %[[KEPT]] : i16 to bf16
// CHECK: spirv.Store "Workgroup" %{{.*}}, %[[Y]]
// CHECK-NOT: spirv.GL.{{.*}} : bf16
// CHECK-NOT: spirv.F{{Add|Mul|Sub|Div}} {{.*}} : bf16
gpu.module @bf16_map attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @k(%a: memref<1024xbf16>, %s: index) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %l = subgroup_matrix.load %a[%c0] stride %s : memref<1024xbf16> -> !subgroup_matrix.left<16x16xbf16>
    %m = subgroup_matrix.map %l : !subgroup_matrix.left<16x16xbf16> -> !subgroup_matrix.left<16x16xbf16> {
    ^bb0(%row: index, %col: index, %x: bf16):
      %e = math.exp %x : bf16
      subgroup_matrix.yield %e : bf16
    }
    subgroup_matrix.store %m, %a[%c0] stride %s : !subgroup_matrix.left<16x16xbf16>, memref<1024xbf16>
    gpu.return
  }
}

// -----

// erf, which SPIR-V's GLSL set lacks, becomes upstream's polynomial in the
// map body (values: test/Integration/MatrixFunctions, map_gelu_erf_*).

// CHECK-LABEL: spirv.func @gelu_erf
// CHECK-NOT: math.erf
// CHECK: spirv.GL.Fma
// CHECK-NOT: math.erf
// CHECK: spirv.KHR.CooperativeMatrixStore
module attributes {gpu.container_module} {
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @gelu_erf(%a: memref<256xf32>, %c: memref<256xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %m = subgroup_matrix.load %a[%c0] stride %c16 : memref<256xf32> -> !subgroup_matrix.result<16x16xf32>
    %y = subgroup_matrix.map %m : !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.result<16x16xf32> {
    ^bb0(%row: index, %col: index, %x: f32):
      %e = math.erf %x : f32
      subgroup_matrix.yield %e : f32
    }
    subgroup_matrix.store %y, %c[%c0] stride %c16 : !subgroup_matrix.result<16x16xf32>, memref<256xf32>
    gpu.return
  }
}
}

// -----

// A loop carrying a cooperative matrix that may run no iteration (OpSelect
// cannot choose matrices) runs inside a selection whose other branch keeps
// the initial matrix; a loop known to run keeps no such selection.

// CHECK-LABEL: spirv.func @maybe_empty_loop
// CHECK: %[[INIT:.*]] = spirv.KHR.CooperativeMatrixLoad
// CHECK: %[[RUNS:.*]] = spirv.SGreaterThan
// CHECK: %[[RESULT:.*]] = spirv.Variable : !spirv.ptr<!spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>, Function>
// CHECK: spirv.mlir.selection {
// CHECK-NEXT: spirv.BranchConditional %[[RUNS]], ^[[ENTER:.*]], ^[[SKIP:.*]]
// CHECK: spirv.mlir.loop
// CHECK: %[[LOOP:.*]] = spirv.Load "Function"
// CHECK: spirv.Store "Function" %[[RESULT]], %[[LOOP]]
// CHECK: ^[[SKIP]]:
// CHECK-NEXT: spirv.Store "Function" %[[RESULT]], %[[INIT]]
// CHECK: %[[FINAL:.*]] = spirv.Load "Function" %[[RESULT]]
// CHECK: spirv.KHR.CooperativeMatrixStore %{{.*}}, %[[FINAL]]
// CHECK-LABEL: spirv.func @known_loop
// CHECK-NOT: spirv.mlir.selection
// CHECK: spirv.mlir.loop
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @maybe_empty_loop(%a: memref<1024xf32>, %n: index) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %m = subgroup_matrix.load %a[%c0] stride %c16 : memref<1024xf32> -> !subgroup_matrix.result<16x16xf32>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %m) -> (!subgroup_matrix.result<16x16xf32>) {
      %twice = subgroup_matrix.map %acc, %acc : !subgroup_matrix.result<16x16xf32>, !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.result<16x16xf32> {
      ^bb0(%row: index, %col: index, %x: f32, %y: f32):
        %s = arith.addf %x, %y : f32
        subgroup_matrix.yield %s : f32
      }
      scf.yield %twice : !subgroup_matrix.result<16x16xf32>
    }
    subgroup_matrix.store %r, %a[%c0] stride %c16 : !subgroup_matrix.result<16x16xf32>, memref<1024xf32>
    gpu.return
  }
  gpu.func @known_loop(%a: memref<1024xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %m = subgroup_matrix.load %a[%c0] stride %c16 : memref<1024xf32> -> !subgroup_matrix.result<16x16xf32>
    %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %m) -> (!subgroup_matrix.result<16x16xf32>) {
      %twice = subgroup_matrix.map %acc, %acc : !subgroup_matrix.result<16x16xf32>, !subgroup_matrix.result<16x16xf32> -> !subgroup_matrix.result<16x16xf32> {
      ^bb0(%row: index, %col: index, %x: f32, %y: f32):
        %s = arith.addf %x, %y : f32
        subgroup_matrix.yield %s : f32
      }
      scf.yield %twice : !subgroup_matrix.result<16x16xf32>
    }
    subgroup_matrix.store %r, %a[%c0] stride %c16 : !subgroup_matrix.result<16x16xf32>, memref<1024xf32>
    gpu.return
  }
}
