// f64 e^x, 2^x and tanh, which GLSL.std.450 computes in 16 or 32 bits
// only: the Vulkan lowering made invalid SPIR-V ("'spirv.GL.Exp' op operand
// #0 must be 16/32-bit float"). Each at several scales of the same inputs:
// near 1, past the range of finite results (inf, and 0), and small enough
// for tanh's series.
#map = affine_map<(d0) -> (d0)>
func.func @exponentials(%x: tensor<512xf64>)
    -> (tensor<512xf64>, tensor<512xf64>, tensor<512xf64>, tensor<512xf64>,
        tensor<512xf64>, tensor<512xf64>) {
  %empty = tensor.empty() : tensor<512xf64>
  %r:6 = linalg.generic {indexing_maps = [#map, #map, #map, #map, #map, #map, #map],
      iterator_types = ["parallel"]} ins(%x : tensor<512xf64>)
      outs(%empty, %empty, %empty, %empty, %empty, %empty
           : tensor<512xf64>, tensor<512xf64>, tensor<512xf64>, tensor<512xf64>,
             tensor<512xf64>, tensor<512xf64>) {
  ^bb0(%in: f64, %o0: f64, %o1: f64, %o2: f64, %o3: f64, %o4: f64, %o5: f64):
    %c300 = arith.constant 300.0 : f64
    %c3 = arith.constant 3.0 : f64
    %tiny = arith.constant 1.0e-3 : f64
    %wide = arith.mulf %in, %c300 : f64
    %scaled = arith.mulf %in, %c3 : f64
    %small = arith.mulf %in, %tiny : f64
    %e = math.exp %in : f64
    %ewide = math.exp %wide : f64
    %e2 = math.exp2 %scaled : f64
    %t = math.tanh %in : f64
    %tsmall = math.tanh %small : f64
    %twide = math.tanh %scaled : f64
    linalg.yield %e, %ewide, %e2, %t, %tsmall, %twide : f64, f64, f64, f64, f64, f64
  } -> (tensor<512xf64>, tensor<512xf64>, tensor<512xf64>, tensor<512xf64>,
        tensor<512xf64>, tensor<512xf64>)
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5
      : tensor<512xf64>, tensor<512xf64>, tensor<512xf64>, tensor<512xf64>,
        tensor<512xf64>, tensor<512xf64>
}
