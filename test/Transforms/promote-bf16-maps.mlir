// RUN: sm-opt %s -split-input-file --sm-promote-bf16-maps | FileCheck %s

// Every op on bf16 computes in f32; each bf16 value is extended once, each
// bf16 result rounded back once, and bf16 constants become f32 constants.

// CHECK-LABEL: gpu.func @arithmetic
gpu.module @arithmetic_module {
  gpu.func @arithmetic(%a: memref<1024xbf16>, %s: index) kernel {
    %c0 = arith.constant 0 : index
    %l = subgroup_matrix.load %a[%c0] stride %s : memref<1024xbf16> -> !subgroup_matrix.left<16x16xbf16>
    // CHECK: subgroup_matrix.map
    // CHECK-NEXT: ^bb0(%{{.*}}: index, %{{.*}}: index, %[[X:.*]]: bf16):
    // CHECK-NEXT: %[[XW:.*]] = arith.extf %[[X]] : bf16 to f32
    // CHECK-NEXT: %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
    // CHECK-NEXT: %[[PW:.*]] = arith.mulf %[[XW]], %[[HALF]] : f32
    // CHECK-NEXT: %[[P:.*]] = arith.truncf %[[PW]] : f32 to bf16
    // CHECK-NEXT: %[[PR:.*]] = arith.extf %[[P]] : bf16 to f32
    // CHECK-NEXT: %[[BIG:.*]] = arith.cmpf ogt, %[[PR]], %[[XW]] : f32
    // CHECK-NEXT: %[[I:.*]] = arith.fptosi %[[XW]] : f32 to i32
    // CHECK-NEXT: %[[FW:.*]] = arith.sitofp %[[I]] : i32 to f32
    // CHECK-NEXT: %[[F:.*]] = arith.truncf %[[FW]] : f32 to bf16
    // CHECK-NEXT: %[[FR:.*]] = arith.extf %[[F]] : bf16 to f32
    // CHECK-NEXT: %[[ZW:.*]] = arith.select %[[BIG]], %[[PR]], %[[FR]] : f32
    // CHECK-NEXT: %[[Z:.*]] = arith.truncf %[[ZW]] : f32 to bf16
    // CHECK-NEXT: subgroup_matrix.yield %[[Z]] : bf16
    %m = subgroup_matrix.map %l : !subgroup_matrix.left<16x16xbf16> -> !subgroup_matrix.left<16x16xbf16> {
    ^bb0(%row: index, %col: index, %x: bf16):
      %half = arith.constant 0.5 : bf16
      %y = arith.mulf %x, %half : bf16
      %big = arith.cmpf ogt, %y, %x : bf16
      %i = arith.fptosi %x : bf16 to i32
      %f = arith.sitofp %i : i32 to bf16
      %z = arith.select %big, %y, %f : bf16
      subgroup_matrix.yield %z : bf16
    }
    subgroup_matrix.store %m, %a[%c0] stride %s : !subgroup_matrix.left<16x16xbf16>, memref<1024xbf16>
    gpu.return
  }
}

// -----

// Conversions stay as they are, a select on bf16 picks in f32, and maps on
// other types are untouched.

// CHECK-LABEL: gpu.func @conversions
gpu.module @conversions_module {
  gpu.func @conversions(%a: memref<1024xbf16>, %b: memref<1024xf16>, %s: index) kernel {
    %c0 = arith.constant 0 : index
    %l = subgroup_matrix.load %a[%c0] stride %s : memref<1024xbf16> -> !subgroup_matrix.left<16x16xbf16>
    // CHECK: subgroup_matrix.map
    // CHECK-NEXT: ^bb0(%[[ROW:.*]]: index, %[[COL:.*]]: index, %[[X:.*]]: bf16):
    // CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
    // CHECK-NEXT: %[[ABOVE:.*]] = arith.cmpi ugt, %[[COL]], %[[ROW]] : index
    // CHECK-NEXT: %[[W:.*]] = arith.extf %[[X]] : bf16 to f32
    // CHECK-NEXT: %[[N:.*]] = arith.truncf %[[W]] : f32 to bf16
    // CHECK-NEXT: %[[NW:.*]] = arith.extf %[[N]] : bf16 to f32
    // CHECK-NEXT: %[[YW:.*]] = arith.select %[[ABOVE]], %[[ONE]], %[[NW]] : f32
    // CHECK-NEXT: %[[Y:.*]] = arith.truncf %[[YW]] : f32 to bf16
    // CHECK-NEXT: subgroup_matrix.yield %[[Y]] : bf16
    %m = subgroup_matrix.map %l : !subgroup_matrix.left<16x16xbf16> -> !subgroup_matrix.left<16x16xbf16> {
    ^bb0(%row: index, %col: index, %x: bf16):
      %one = arith.constant 1.0 : bf16
      %above = arith.cmpi ugt, %col, %row : index
      %w = arith.extf %x : bf16 to f32
      %n = arith.truncf %w : f32 to bf16
      %y = arith.select %above, %one, %n : bf16
      subgroup_matrix.yield %y : bf16
    }
    subgroup_matrix.store %m, %a[%c0] stride %s : !subgroup_matrix.left<16x16xbf16>, memref<1024xbf16>
    %h = subgroup_matrix.load %b[%c0] stride %s : memref<1024xf16> -> !subgroup_matrix.left<16x16xf16>
    // CHECK: subgroup_matrix.map
    // CHECK-NEXT: ^bb0(%{{.*}}: index, %{{.*}}: index, %[[H:.*]]: f16):
    // CHECK-NEXT: %[[D:.*]] = arith.addf %[[H]], %[[H]] : f16
    // CHECK-NEXT: subgroup_matrix.yield %[[D]] : f16
    %d = subgroup_matrix.map %h : !subgroup_matrix.left<16x16xf16> -> !subgroup_matrix.left<16x16xf16> {
    ^bb0(%row: index, %col: index, %x: f16):
      %y = arith.addf %x, %x : f16
      subgroup_matrix.yield %y : f16
    }
    subgroup_matrix.store %d, %b[%c0] stride %s : !subgroup_matrix.left<16x16xf16>, memref<1024xf16>
    gpu.return
  }
}

// -----

// Scalar arithmetic outside maps (an element-wise kernel written in bf16,
// with a math op) computes in f32 as well; loads, stores, constants and
// selects only hold bf16 values and stay.

// CHECK-LABEL: gpu.func @elementwise
gpu.module @elementwise_module {
  gpu.func @elementwise(%a: memref<1024xbf16>, %i: index, %pick: i1) kernel {
    // CHECK: %[[HALF:.*]] = arith.constant 5.000000e-01 : bf16
    // CHECK-NEXT: %[[HW:.*]] = arith.extf %[[HALF]] : bf16 to f32
    // CHECK-NEXT: %[[X:.*]] = memref.load
    // CHECK-NEXT: %[[XW:.*]] = arith.extf %[[X]] : bf16 to f32
    // CHECK-NEXT: %[[PW:.*]] = arith.mulf %[[XW]], %[[HW]] : f32
    // CHECK-NEXT: %[[P:.*]] = arith.truncf %[[PW]] : f32 to bf16
    // CHECK-NEXT: %[[PR:.*]] = arith.extf %[[P]] : bf16 to f32
    // CHECK-NEXT: %[[TW:.*]] = math.tanh %[[PR]] : f32
    // CHECK-NEXT: %[[T:.*]] = arith.truncf %[[TW]] : f32 to bf16
    // CHECK-NEXT: %[[Y:.*]] = arith.select %{{.*}}, %[[T]], %[[X]] : bf16
    // CHECK-NEXT: memref.store %[[Y]]
    %half = arith.constant 0.5 : bf16
    %x = memref.load %a[%i] : memref<1024xbf16>
    %p = arith.mulf %x, %half : bf16
    %t = math.tanh %p : bf16
    %y = arith.select %pick, %t, %x : bf16
    memref.store %y, %a[%i] : memref<1024xbf16>
    gpu.return
  }
}
