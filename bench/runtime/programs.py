"""The whole programs the runtime benchmark runs: each a linalg program as
a front-end writes it, the shapes to run it at, how to make its inputs, and
the same computation in PyTorch eager (the peer, and the reference the
outputs are checked against)."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "test", "Integration",
                                "LinalgToGPU"))
import suite  # noqa: E402  (its program generators)


def mlp(k, n):
    """relu(x W + bias) on a dynamic number of tokens, f16 in, f32 out."""
    return """
#rows = affine_map<(d0, d1) -> (d0, d1)>
#columns = affine_map<(d0, d1) -> (d1)>
func.func @mlp(%%x: tensor<?x%(k)dxf16>, %%w: tensor<%(k)dx%(n)dxf16>,
               %%bias: tensor<%(n)dxf32>) -> tensor<?x%(n)dxf32> {
  %%c0 = arith.constant 0 : index
  %%m = tensor.dim %%x, %%c0 : tensor<?x%(k)dxf16>
  %%zero = arith.constant 0.0 : f32
  %%e = tensor.empty(%%m) : tensor<?x%(n)dxf32>
  %%acc = linalg.fill ins(%%zero : f32) outs(%%e : tensor<?x%(n)dxf32>)
      -> tensor<?x%(n)dxf32>
  %%mm = linalg.matmul ins(%%x, %%w : tensor<?x%(k)dxf16>, tensor<%(k)dx%(n)dxf16>)
      outs(%%acc : tensor<?x%(n)dxf32>) -> tensor<?x%(n)dxf32>
  %%r = linalg.generic {indexing_maps = [#rows, #columns, #rows],
                       iterator_types = ["parallel", "parallel"]}
      ins(%%mm, %%bias : tensor<?x%(n)dxf32>, tensor<%(n)dxf32>)
      outs(%%e : tensor<?x%(n)dxf32>) {
  ^bb0(%%v: f32, %%b: f32, %%out: f32):
    %%s = arith.addf %%v, %%b : f32
    %%relu = arith.maximumf %%s, %%zero : f32
    linalg.yield %%relu : f32
  } -> tensor<?x%(n)dxf32>
  return %%r : tensor<?x%(n)dxf32>
}
""" % dict(k=k, n=n)


def dequant(m, n, k):
    """x (W_int8 * per-column scale), the weight dequantized as it is
    staged."""
    body = """    %qf = arith.sitofp %q_v : i8 to f16
    %w = arith.mulf %qf, %s_v : f16"""
    return suite.dequantization_program(
        "dequant", suite.tensor((m, k), "f16"), None,
        [("q", suite.tensor((k, n), "i8")), ("s", suite.tensor((n,), "f16"))],
        ["affine_map<(d0, d1) -> (d0, d1)>", "affine_map<(d0, d1) -> (d1)>"],
        body, (k, n), "f16", "f32", m, n, k, False)


def layer_chain(layers, rows, width):
    """`layers` small linear layers in a row, h = relu(h W_i) in f16 (f32
    accumulation), each its own kernel: a program whose cost is mostly
    launches."""
    h = "tensor<%dx%dxf16>" % (rows, width)
    acc = "tensor<%dx%dxf32>" % (rows, width)
    w = "tensor<%dx%dxf16>" % (width, width)
    arguments = ", ".join(["%%x: %s" % h] +
                          ["%%w%d: %s" % (i, w) for i in range(layers)])
    lines = ["#map = affine_map<(d0, d1) -> (d0, d1)>",
             "func.func @chain(%s) -> %s {" % (arguments, h),
             "  %zero = arith.constant 0.0 : f32"]
    previous = "%x"
    for i in range(layers):
        lines += [
            "  %%e%d = tensor.empty() : %s" % (i, acc),
            "  %%acc%d = linalg.fill ins(%%zero : f32) outs(%%e%d : %s) -> %s"
            % (i, i, acc, acc),
            "  %%mm%d = linalg.matmul ins(%s, %%w%d : %s, %s) outs(%%acc%d : %s)"
            " -> %s" % (i, previous, i, h, w, i, acc, acc),
            "  %%eh%d = tensor.empty() : %s" % (i, h),
            "  %%h%d = linalg.generic {indexing_maps = [#map, #map], "
            "iterator_types = [\"parallel\", \"parallel\"]} ins(%%mm%d : %s) "
            "outs(%%eh%d : %s) {" % (i, i, acc, i, h),
            "  ^bb0(%v: f32, %o: f16):",
            "    %r = arith.maximumf %v, %zero : f32",
            "    %t = arith.truncf %r : f32 to f16",
            "    linalg.yield %t : f16",
            "  } -> %s" % h]
        previous = "%%h%d" % i
    lines += ["  return %s : %s" % (previous, h), "}", ""]
    return "\n".join(lines)


# name: (program, input specs [(shape, dtype, low, high)], torch function
# of the inputs, tolerance relative to max(1, |reference|))
PROGRAMS = {}
for tokens in (16, 512):
    PROGRAMS["mlp_%d_tokens_4096x4096" % tokens] = (
        mlp(4096, 4096),
        [((tokens, 4096), "float16", -1, 1), ((4096, 4096), "float16", -0.05,
                                               0.05),
         ((4096,), "float32", -1, 1)],
        "mlp", 2e-3)
PROGRAMS["attention_16x512x512x64_f16"] = (
    suite.attention_program("attention", 16, 512, 512, 64, "f16", False,
                            "f16"),
    [((16, 512, 64), "float16", -1, 1)] * 3, "attention", 5e-3)
PROGRAMS["dequant_int8_16x4096x4096"] = (
    dequant(16, 4096, 4096),
    [((16, 4096), "float16", -1, 1), ((4096, 4096), "int8", -128, 127),
     ((4096,), "float16", 0.0005, 0.002)], "dequant", 2e-3)
# Launch overhead: 20 dependent kernels of about the cost of a launch each.
PROGRAMS["chain_20_layers_16x256x256"] = (
    layer_chain(20, 16, 256),
    [((16, 256), "float16", -1, 1)] +
    [((256, 256), "float16", -0.12, 0.12)] * 20, "chain", 1e-2)
