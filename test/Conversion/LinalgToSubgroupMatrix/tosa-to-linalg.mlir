// RUN: sm-opt %s -split-input-file --sm-tosa-to-linalg -verify-diagnostics | FileCheck %s

// A linear layer as TFLite writes it in TOSA: the product becomes
// linalg.batch_matmul between tensor reshapes, the bias and ReLU one
// broadcasting generic; the shapes the reshapes took are gone with them.
// CHECK-LABEL: func.func @linear
// CHECK-SAME: (%[[X:.*]]: tensor<1x8x16xf32>, %[[W:.*]]: tensor<1x16x32xf32>, %[[B:.*]]: tensor<32xf32>)
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32)
// CHECK: %[[MM:.*]] = linalg.batch_matmul ins(%[[X]], %[[W]] : tensor<1x8x16xf32>, tensor<1x16x32xf32>) outs(%[[INIT]] : tensor<1x8x32xf32>)
// CHECK: %[[BIAS:.*]] = tensor.expand_shape %[[B]] {{\[}}[0, 1, 2]] output_shape [1, 1, 32]
// CHECK: %[[ADD:.*]] = linalg.generic {{.*}} ins(%[[MM]], %[[BIAS]] :
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}} ins(%[[ADD]] :
// CHECK: arith.minimumf
// CHECK: arith.maximumf
// CHECK-NOT: tosa.
func.func @linear(%x: tensor<1x8x16xf32>, %w: tensor<1x16x32xf32>,
                  %b: tensor<32xf32>) -> tensor<1x8x32xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %mm = tosa.matmul %x, %w, %zp, %zp : (tensor<1x8x16xf32>, tensor<1x16x32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x32xf32>
  %shape = tosa.const_shape {values = dense<[1, 1, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %b3 = tosa.reshape %b, %shape : (tensor<32xf32>, !tosa.shape<3>) -> tensor<1x1x32xf32>
  %sum = tosa.add %mm, %b3 : (tensor<1x8x32xf32>, tensor<1x1x32xf32>) -> tensor<1x8x32xf32>
  %y = tosa.clamp %sum {min_val = 0.0 : f32, max_val = 3.4e38 : f32} : (tensor<1x8x32xf32>) -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}

// -----

// A program without TOSA is left exactly as written: the dead constant and
// the identity reshape that a canonicalization would remove stay.
// CHECK-LABEL: func.func @untouched
// CHECK-NEXT: %[[DEAD:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[SAME:.*]] = tensor.collapse_shape %{{.*}} [] : tensor<1x1xf32> into tensor<f32>
// CHECK-NEXT: return %[[SAME]]
func.func @untouched(%x: tensor<1x1xf32>) -> tensor<f32> {
  %dead = arith.constant 1.0 : f32
  %same = tensor.collapse_shape %x [] : tensor<1x1xf32> into tensor<f32>
  return %same : tensor<f32>
}

// -----

// A vendor operator has no meaning to lower.
func.func @custom(%x: tensor<10xf32>) -> tensor<10xf32> {
  // expected-error @+1 {{'tosa.custom' op 'vendor::gelu_fast' is a vendor operator: TOSA does not define what it computes, so it has no lowering}}
  %y = tosa.custom %x {domain_name = "vendor", implementation_attrs = "", operator_name = "gelu_fast"} : (tensor<10xf32>) -> tensor<10xf32>
  return %y : tensor<10xf32>
}

// -----

// State kept between calls is not a program this project can run.
module {
  // expected-error @+1 {{'tosa.variable' op is stateful TOSA (a variable kept between calls)}}
  tosa.variable @state = dense<0.0> : tensor<4xf32>
  func.func @step(%x: tensor<4xf32>) -> tensor<4xf32> {
    %s = tosa.variable_read @state : tensor<4xf32>
    %y = tosa.add %s, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    tosa.variable_write @state, %y : tensor<4xf32>
    return %y : tensor<4xf32>
  }
}

// -----

// A program that declares no TOSA target is validated against all of
// specification 1.0 at level none: dynamic sizes lower, and the target the
// stage attached is gone with the TOSA.
// CHECK-LABEL: module {
// CHECK-LABEL: func.func @dynamic_tokens
// CHECK: linalg.generic
// CHECK: math.erf
func.func @dynamic_tokens(%x: tensor<1x?x8xf32>) -> tensor<1x?x8xf32> {
  %y = tosa.erf %x : (tensor<1x?x8xf32>) -> tensor<1x?x8xf32>
  return %y : tensor<1x?x8xf32>
}

// -----

// A program that declares its target is held to it, as upstream holds it:
// the 8K level has no dynamic sizes.
module attributes {tosa.target_env = #tosa.target_env<specification_version = "1.0", level = "8k", profiles = [pro_fp], extensions = [bf16]>} {
  func.func @declared(%x: tensor<1x?x8xf32>) -> tensor<1x?x8xf32> {
    // expected-error @+1 {{'tosa.erf' op failed level check: operand shape dimension cannot be dynamic}}
    %y = tosa.erf %x : (tensor<1x?x8xf32>) -> tensor<1x?x8xf32>
    return %y : tensor<1x?x8xf32>
  }
}
