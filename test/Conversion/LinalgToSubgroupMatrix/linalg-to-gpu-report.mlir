// RUN: sm-opt %s -split-input-file --sm-linalg-to-gpu="target=nvidia-h100 report=1" -mlir-print-op-on-diagnostic=false -verify-diagnostics -o /dev/null

// report=1: each op says which kernel it became or was fused into, and why
// that kind of kernel.
func.func @linear_relu(%x: tensor<64x128xf16>, %w: tensor<128x256xf16>, %bias: tensor<256xf32>) -> tensor<64x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x256xf32>
  // expected-remark @+1 {{fused into kernel 'matmul_0': the accumulators' initial value}}
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
  // expected-remark @+1 {{became kernel 'matmul_0': a tiled matrix product on the target's matrix units, plan #subgroup_matrix.contraction_plan<config = <16x16x16, f16 -> f32>}}
  %mm = linalg.matmul ins(%x, %w : tensor<64x128xf16>, tensor<128x256xf16>) outs(%acc : tensor<64x256xf32>) -> tensor<64x256xf32>
  // expected-remark @+1 {{fused into kernel 'matmul_0': applied to the accumulators before the one store}}
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<64x256xf32>, tensor<256xf32>) outs(%e : tensor<64x256xf32>) {
  ^bb0(%v: f32, %b: f32, %o: f32):
    %s = arith.addf %v, %b : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<64x256xf32>
  return %r : tensor<64x256xf32>
}

// -----

// A dot product has no M or N for matrix units.
func.func @dot(%a: tensor<256xf32>, %b: tensor<256xf32>, %acc: tensor<f32>) -> tensor<f32> {
  // expected-remark @+1 {{became kernel 'elementwise_0': one invocation per output element, its reduction loops run inside the invocation (a dot product: no M or N loop, nothing for matrix units)}}
  %r = linalg.dot ins(%a, %b : tensor<256xf32>, tensor<256xf32>) outs(%acc : tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// A padded convolution: the padding and the window are computed as the
// product's kernel stages A.
func.func @padded_conv(%x: tensor<1x8x8x32xf16>, %f: tensor<3x3x32x64xf16>, %acc: tensor<1x8x8x64xf32>) -> tensor<1x8x8x64xf32> {
  %pad = arith.constant 0.0 : f16
  // expected-remark @+1 {{fused into kernel 'matmul_0': computed element by element as the kernel stages the tiles it feeds}}
  %xp = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %pad : f16
  } : tensor<1x8x8x32xf16> to tensor<1x10x10x32xf16>
  // expected-remark @+2 {{became kernel 'matmul_0': a tiled matrix product on the target's matrix units}}
  // expected-remark @+1 {{fused into kernel 'matmul_0': computed element by element as the kernel stages the tiles it feeds}}
  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%xp, %f : tensor<1x10x10x32xf16>, tensor<3x3x32x64xf16>) outs(%acc : tensor<1x8x8x64xf32>) -> tensor<1x8x8x64xf32>
  return %y : tensor<1x8x8x64xf32>
}

// -----

// An epilogue whose bias is written after the product is not fused: the
// product's kernel runs before the bias exists.
func.func @bias_written_between(%a: memref<64x64xf16>, %b: memref<64x64xf16>, %src: memref<64xf32>, %out: memref<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<64x64xf32>
  // expected-remark @+1 {{fused into kernel 'matmul_0': the accumulators' initial value}}
  linalg.fill ins(%zero : f32) outs(%c : memref<64x64xf32>)
  // expected-remark @+1 {{became kernel 'matmul_0'}}
  linalg.matmul ins(%a, %b : memref<64x64xf16>, memref<64x64xf16>) outs(%c : memref<64x64xf32>)
  %bias = memref.alloc() : memref<64xf32>
  // expected-remark @+1 {{became kernel 'elementwise_1': one invocation per output element}}
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%src : memref<64xf32>) outs(%bias : memref<64xf32>) {
  ^bb0(%s: f32, %o: f32):
    %d = arith.addf %s, %s : f32
    linalg.yield %d : f32
  }
  // expected-remark @+1 {{became kernel 'elementwise_2': one invocation per output element}}
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%c, %bias : memref<64x64xf32>, memref<64xf32>) outs(%out : memref<64x64xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %s = arith.addf %v, %w : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A named op that becomes an element-wise kernel is reported on the generic
// it is generalized to (at its location; the named op is gone).
func.func @transpose(%x: tensor<64x32xf32>) -> tensor<32x64xf32> {
  %e = tensor.empty() : tensor<32x64xf32>
  // expected-remark @+1 {{became kernel 'elementwise_0': one invocation per output element}}
  %t = linalg.transpose ins(%x : tensor<64x32xf32>) outs(%e : tensor<32x64xf32>) permutation = [1, 0]
  return %t : tensor<32x64xf32>
}

// -----

// A depthwise convolution has no output channels: an element-wise kernel
// whose window loops run inside each invocation.
func.func @depthwise(%x: tensor<2x10x10x16xf16>, %f: tensor<3x3x16xf16>, %y: tensor<2x8x8x16xf32>) -> tensor<2x8x8x16xf32> {
  // expected-remark @+1 {{became kernel 'elementwise_0': one invocation per output element, its reduction loops run inside the invocation (a convolution without output channels, such as a depthwise one: no N loop, nothing for matrix units)}}
  %r = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %f : tensor<2x10x10x16xf16>, tensor<3x3x16xf16>) outs(%y : tensor<2x8x8x16xf32>) -> tensor<2x8x8x16xf32>
  return %r : tensor<2x8x8x16xf32>
}
