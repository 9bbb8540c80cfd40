// A ResNet-50 stem as an importer writes it: the input padded by 3 with a
// generic that computes each output element from its indices (linalg.index)
// and reads the input only inside its bounds (scf.if), then a 7x7 stride-2
// convolution, a per-channel bias and ReLU. The padding generic was refused
// ("its body uses 'scf.if'").
#identity = affine_map<(n, c, h, w) -> (n, c, h, w)>
#channel = affine_map<(n, c, h, w) -> (c)>
func.func @stem(%image: tensor<1x3x32x32xf32>, %filter: tensor<16x3x7x7xf32>,
                %bias: tensor<16xf32>) -> tensor<1x16x16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %c3 = arith.constant 3 : index
  %c35 = arith.constant 35 : index
  %empty = tensor.empty() : tensor<1x3x38x38xf32>
  %padded = linalg.generic {indexing_maps = [#identity],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%empty : tensor<1x3x38x38xf32>) {
  ^bb0(%unused: f32):
    %n = linalg.index 0 : index
    %c = linalg.index 1 : index
    %h = linalg.index 2 : index
    %w = linalg.index 3 : index
    %top = arith.cmpi sge, %h, %c3 : index
    %bottom = arith.cmpi slt, %h, %c35 : index
    %left = arith.cmpi sge, %w, %c3 : index
    %right = arith.cmpi slt, %w, %c35 : index
    %rows = arith.andi %top, %bottom : i1
    %columns = arith.andi %left, %right : i1
    %inside = arith.andi %rows, %columns : i1
    %value = scf.if %inside -> (f32) {
      %y = arith.subi %h, %c3 : index
      %x = arith.subi %w, %c3 : index
      %read = tensor.extract %image[%n, %c, %y, %x] : tensor<1x3x32x32xf32>
      scf.yield %read : f32
    } else {
      scf.yield %zero : f32
    }
    linalg.yield %value : f32
  } -> tensor<1x3x38x38xf32>
  %init = tensor.empty() : tensor<1x16x16x16xf32>
  %filled = linalg.fill ins(%zero : f32) outs(%init : tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  %conv = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%padded, %filter : tensor<1x3x38x38xf32>, tensor<16x3x7x7xf32>)
      outs(%filled : tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  %out = tensor.empty() : tensor<1x16x16x16xf32>
  %activated = linalg.generic {indexing_maps = [#identity, #channel, #identity],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%conv, %bias : tensor<1x16x16x16xf32>, tensor<16xf32>)
      outs(%out : tensor<1x16x16x16xf32>) {
  ^bb0(%x: f32, %b: f32, %o: f32):
    %sum = arith.addf %x, %b : f32
    %relu = arith.maximumf %sum, %zero : f32
    linalg.yield %relu : f32
  } -> tensor<1x16x16x16xf32>
  return %activated : tensor<1x16x16x16xf32>
}
