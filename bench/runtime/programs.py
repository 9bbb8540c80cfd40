"""The whole programs the runtime benchmark runs: each a linalg program as
a front-end writes it, the shapes to run it at, how to make its inputs, and
the same computation in PyTorch eager (the peer, and the reference the
outputs are checked against)."""

import os
import pathlib
import sys

# The test library of this checkout (test/lib), from wherever this runs.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, os.pardir, "test", "lib"))

from sm_testing import corpus
from sm_testing.linalg.attention import (attention_program,
                                         layout_attention_program)
from sm_testing.linalg.common import filled_matmul_program, tensor
from sm_testing.linalg.convolutions import convolution_program
from sm_testing.linalg.quantized import dequantization_program


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
    return dequantization_program(
        "dequant", tensor((m, k), "f16"), None,
        [("q", tensor((k, n), "i8")), ("s", tensor((n,), "f16"))],
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


def accumulate(m, n, k):
    """C += A B on memrefs, f16 inputs, f32 C (written in place)."""
    return ("func.func @accumulate(%%a: memref<%dx%dxf16>, "
            "%%b: memref<%dx%dxf16>, %%c: memref<%dx%dxf32>) {\n"
            "  linalg.matmul ins(%%a, %%b : memref<%dx%dxf16>, "
            "memref<%dx%dxf16>) outs(%%c : memref<%dx%dxf32>)\n"
            "  return\n}\n" % (m, k, k, n, m, n, m, k, k, n, m, n))


INT4_GROUP = 128
# The value (%value, f16) of a 4-bit weight packed two to a byte along K
# (low nibble first) and offset by 8, from its byte %q_v and loop index 1.
INT4_VALUE = """    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c15 = arith.constant 15 : i8
    %c8 = arith.constant 8 : i8
    %k = linalg.index 1 : index
    %odd = arith.andi %k, %c1 : index
    %shift_index = arith.muli %odd, %c4 : index
    %shift = arith.index_cast %shift_index : index to i8
    %shifted = arith.shrui %q_v, %shift : i8
    %nibble = arith.andi %shifted, %c15 : i8
    %centred = arith.subi %nibble, %c8 : i8
    %value = arith.sitofp %centred : i8 to f16"""


def linear(form, m, n, k):
    """x W^T with W stored N x K (as PyTorch stores a linear layer's
    weight): `f16` W itself; `int8` signed 8-bit W with one f16 scale per
    output column; `int4` 4-bit W packed two to a byte along K (low nibble
    first), offset by 8, one f16 scale per group of 128 along K. The weight
    is dequantized by a producer that sm-linalg-to-gpu fuses into the
    product's staging."""
    a = "tensor<%dx%dxf16>" % (m, k)
    w = "tensor<%dx%dxf16>" % (n, k)
    c = "tensor<%dx%dxf32>" % (m, n)
    product = """  %%zero = arith.constant 0.0 : f32
  %%e = tensor.empty() : %(c)s
  %%f = linalg.fill ins(%%zero : f32) outs(%%e : %(c)s) -> %(c)s
  %%r = linalg.matmul
    indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
    ins(%%a, %%w : %(a)s, %(w)s) outs(%%f : %(c)s) -> %(c)s
  return %%r : %(c)s
}
""" % dict(a=a, w=w, c=c)
    if form == "f16":
        return ("func.func @linear(%%a: %s, %%w: %s) -> %s {\n" % (a, w, c) +
                product)
    if form == "int8":
        q, s = "tensor<%dx%dxi8>" % (n, k), "tensor<%dxf16>" % n
        maps = "affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>"
        body = """    %value = arith.sitofp %q_v : i8 to f16
    %weight = arith.mulf %value, %s_v : f16"""
    else:
        q = "tensor<%dx%dxi8>" % (n, k // 2)
        s = "tensor<%dx%dxf16>" % (n, k // INT4_GROUP)
        maps = ("affine_map<(d0, d1) -> (d0, d1 floordiv 2)>, "
                "affine_map<(d0, d1) -> (d0, d1 floordiv %d)>" % INT4_GROUP)
        body = INT4_VALUE + """
    %weight = arith.mulf %value, %s_v : f16"""
    return """func.func @linear(%%a: %(a)s, %%q: %(q)s, %%s: %(s)s) -> %(c)s {
  %%ew = tensor.empty() : %(w)s
  %%w = linalg.generic {indexing_maps = [%(maps)s, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%%q, %%s : %(q)s, %(s)s) outs(%%ew : %(w)s) {
  ^bb0(%%q_v: i8, %%s_v: f16, %%o: f16):
%(body)s
    linalg.yield %%weight : f16
  } -> %(w)s
""" % dict(a=a, q=q, s=s, c=c, w=w, maps=maps, body=body) + product


class Program:
    """A benchmarked program: its text, its inputs [(shape, dtype, low,
    high)] (made fresh on the GPU machine), the PyTorch function of the
    inputs it is checked against and timed beside (torch_peer.py), the
    tolerance relative to max(1, |reference|), sm-linalg-to-gpu options
    beyond the target, which output is checked (result_0.npy, or
    arg_<i>.npy for an argument written in place) and its FLOPs."""

    def __init__(self, group, text, inputs, function, tolerance, options="",
                 output="result_0.npy", flops=0, reference="peer"):
        self.group, self.text, self.inputs = group, text, inputs
        self.function, self.tolerance = function, tolerance
        self.options, self.output, self.flops = options, output, flops
        self.reference = reference


PROGRAMS = {}
# Model layers: an MLP layer on a dynamic number of tokens, attention and an
# int8 dequantizing projection.
for tokens in (16, 512):
    PROGRAMS["mlp_%d_tokens_4096x4096" % tokens] = Program(
        "layers", mlp(4096, 4096),
        [((tokens, 4096), "float16", -1, 1),
         ((4096, 4096), "float16", -0.05, 0.05), ((4096,), "float32", -1, 1)],
        "mlp", 2e-3, flops=2 * tokens * 4096 * 4096)
PROGRAMS["attention_16x512x512x64_f16"] = Program(
    "layers", attention_program("attention", 16, 512, 512, 64, "f16",
                                      False, "f16"),
    [((16, 512, 64), "float16", -1, 1)] * 3, "attention", 5e-3,
    flops=4 * 16 * 512 * 512 * 64)
PROGRAMS["dequant_int8_16x4096x4096"] = Program(
    "layers", dequant(16, 4096, 4096),
    [((16, 4096), "float16", -1, 1), ((4096, 4096), "int8", -128, 127),
     ((4096,), "float16", 0.0005, 0.002)], "dequant", 2e-3,
    flops=2 * 16 * 4096 * 4096)
# Launch overhead: 20 dependent kernels of about the cost of a launch each.
PROGRAMS["chain_20_layers_16x256x256"] = Program(
    "layers", layer_chain(20, 16, 256),
    [((16, 256), "float16", -1, 1)] +
    [((256, 256), "float16", -0.12, 0.12)] * 20, "chain", 1e-2,
    flops=20 * 2 * 16 * 256 * 256)

# Split K on an LLM shape (4096 x 512 x 14336, f16 -> f32, C += A B): the
# split product, then the reduction that adds the parts into C.
SPLIT_M, SPLIT_N, SPLIT_K = 4096, 512, 14336
for parts in (1, 2, 4, 8):
    PROGRAMS["split_k_%d_4096x512x14336" % parts] = Program(
        "split-k", accumulate(SPLIT_M, SPLIT_N, SPLIT_K),
        [((SPLIT_M, SPLIT_K), "float16", -1, 1),
         ((SPLIT_K, SPLIT_N), "float16", -1, 1),
         ((SPLIT_M, SPLIT_N), "float32", -1, 1)],
        "accumulate", 5e-3, options="split-k=%d" % parts, output="arg_2.npy",
        flops=2 * SPLIT_M * SPLIT_N * SPLIT_K)

# Quantized weights (N = K = 4096): the f16 weight (the baseline), int8 and
# int4 (groups of 128), each dequantized as the kernel stages it.
DEQUANT_NK = 4096
for rows in (1, 16, 256, 4096):
    n = k = DEQUANT_NK
    weights = {
        "f16": [((n, k), "float16", -0.05, 0.05)],
        "int8": [((n, k), "int8", -128, 127),
                 ((n,), "float16", 0.0005, 0.002)],
        "int4": [((n, k // 2), "int8", -128, 127),
                 ((n, k // INT4_GROUP), "float16", 0.001, 0.005)],
    }
    for form, weight in weights.items():
        PROGRAMS["linear_%s_%dx%dx%d" % (form, rows, n, k)] = Program(
            "dequant", linear(form, rows, n, k),
            [((rows, k), "float16", -1, 1)] + weight, "linear_" + form, 2e-3,
            flops=2 * rows * n * k)

# The precision policy at 4096^3: bf16 -> bf16 (accumulated in f32, rounded
# on store) beside bf16 -> f32; f32 -> f32, exact in emulated matrices
# beside PyTorch's f32 matmul without TF32, and with its inputs rounded to
# bf16 for the matrix units (f32-matmul=bf16).
PRECISION_SIZE = 4096
for name, (inputs, output, function, tolerance, options) in {
        "bf16_to_bf16": ("bf16", "bf16", "matmul_to_bf16", 8e-3, ""),
        "bf16_to_f32": ("bf16", "f32", "matmul_to_f32", 8e-3, ""),
        "f32_emulated": ("f32", "f32", "matmul_f32", 1e-4, ""),
        "f32_rounded_to_bf16": ("f32", "f32", "matmul_f32_rounded_to_bf16",
                                8e-3, "f32-matmul=bf16"),
}.items():
    size = PRECISION_SIZE
    dtype = {"bf16": "bfloat16", "f32": "float32"}[inputs]
    PROGRAMS["matmul_%s_%d" % (name, size)] = Program(
        "precision", filled_matmul_program("matmul", size, size, size,
                                                 inputs, output),
        [((size, size), dtype, -1, 1)] * 2, function, tolerance,
        options=options, flops=2 * size ** 3)

# A ResNet 3x3 convolution (batch 8, 28x28, 256 -> 256 channels, f16 in
# and out, padded by a tensor.pad, NHWC / HWCF) as an implicit GEMM, beside
# our plain GEMM of the same M = 8*28*28, N = 256, K = 3*3*256.
RESNET_CONV = dict(n=8, h=28, w=28, c=256, f=256)
_conv_m = RESNET_CONV["n"] * RESNET_CONV["h"] * RESNET_CONV["w"]
_conv_k = 9 * RESNET_CONV["c"]
_conv_flops = 2 * _conv_m * RESNET_CONV["f"] * _conv_k
PROGRAMS["resnet_conv3x3_8x28x28x256"] = Program(
    "convolution",
    convolution_program(
        "conv", "conv_2d_nhwc_hwcf", ("nhwc", "hwcf", "nhwf"),
        ((8, 28, 28, 256), (3, 3, 256, 256), (8, 28, 28, 256)), (1, 1),
        (1, 1), (1, 1), "f16", "f16"),
    [((8, 28, 28, 256), "float16", -1, 1), ((3, 3, 256, 256), "float16", -1,
                                             1)],
    "conv3x3_nhwc", 5e-3, flops=_conv_flops)
PROGRAMS["gemm_%dx256x%d" % (_conv_m, _conv_k)] = Program(
    "convolution",
    filled_matmul_program("matmul", _conv_m, 256, _conv_k, "f16",
                                "f16"),
    [((_conv_m, _conv_k), "float16", -1, 1), ((_conv_k, 256), "float16", -1,
                                              1)],
    "matmul", 5e-3, flops=_conv_flops)

def long_attention(group, options, dim=128, causal=False, mask=False,
                   element="f16"):
    """Attention at length 4096 over 32 heads (head dimension `dim`,
    `element` in and out), causal or with an additive f16 mask of 4096 x
    4096 shared by the heads, compiled with `options`."""
    dtype = {"f16": "float16", "bf16": "bfloat16"}[element]
    inputs = [((32, 4096, dim), dtype, -1, 1)] * 3
    function = "attention_causal" if causal else "attention"
    if mask:
        inputs.append(((4096, 4096), "float16", -4, 0))
        function = "attention_mask"
    return Program(
        group,
        attention_program("attention", 32, 4096, 4096, dim, element, causal,
                          element, additive_mask=mask,
                          mask_type="f16" if mask else "f32"),
        inputs, function, 2e-2 if element == "bf16" else 5e-3,
        options=options,
        flops=4 * 32 * 4096 * 4096 * dim // (2 if causal else 1))


# Attention at length 4096 (32 heads, head dimension 128, f16 in and out,
# the shape of the comparison with ggml), with and without a causal
# mask: one flash-attention kernel each, as the H100's target lists it
# (VK_NV_cooperative_matrix2: the softmax in registers) and with
# SPV_KHR_cooperative_matrix alone (nv-coopmat2=false: the softmax in
# workgroup memory).
for causal in (False, True):
    for form, options in (("nv", ""), ("khr", "nv-coopmat2=false")):
        PROGRAMS["attention_32x4096x4096x128%s_%s" % (
            "_causal" if causal else "", form)] = long_attention(
                "attention", options, causal=causal)
# The same attention with an additive f16 mask of 4096 x 4096 shared by the
# heads, as ggml's FLASH_ATTN_EXT takes one: read as matrices of the scores'
# shape by the softmax on result matrices (cooperative matrix 2), through
# workgroup memory with SPV_KHR_cooperative_matrix alone, and through
# workgroup memory with cooperative matrix 2 too (the form every mask took
# before it was read as matrices).
for form, options in (("nv", ""), ("khr", "nv-coopmat2=false"),
                      ("nv_workgroup_memory",
                       "attention-softmax=workgroup-memory")):
    PROGRAMS["attention_32x4096x4096x128_mask_%s" % form] = long_attention(
        "attention", options, mask=True)
# The same attention with its mask as torch-mlir writes
# F.scaled_dot_product_attention (the corpus's sdpa_attn_mask_torch at these
# sizes): named batch products on collapsed tensors, a [1, 1, 4096, 4096]
# mask read through zeros, the softmax written out; its scale stays 0.125.
PROGRAMS["attention_32x4096x4096x128_mask_torch_mlir"] = Program(
    "attention",
    corpus.source("sdpa_attn_mask_torch",
                  sizes={"1024": "4096", "8": "32", "64": "128"}),
    [((1, 32, 4096, 128), "float16", -1, 1)] * 3 +
    [((1, 1, 4096, 4096), "float16", -4, 0)],
    "corpus_sdpa_attn_mask", 5e-3, flops=4 * 32 * 4096 * 4096 * 128)
# The other forms at the same length: head dimension 64 (f16), and
# bf16 at 128, each with and without cooperative matrix 2.
for label, dim, element in (("64", 64, "f16"), ("128_bf16", 128, "bf16")):
    for form, options in (("nv", ""), ("khr", "nv-coopmat2=false")):
        PROGRAMS["attention_32x4096x4096x%s_%s" % (label, form)] = (
            long_attention("attention", options, dim=dim, element=element))

# The same attention as a Llama-style model keeps it: [batch, seq, heads,
# dim] tensors and 8 key-value heads for the 32 query heads (grouped-query
# attention, repeated as torch writes it), read and written in place by the
# one kernel.
for form, options in (("nv", ""), ("khr", "nv-coopmat2=false")):
    PROGRAMS["attention_bshd_gqa_4096x4096x32x8x128_%s" % form] = Program(
        "attention",
        layout_attention_program("attention", 1, 4096, 4096, 32, 8, 128,
                                 "f16", False, "f16", "bshd"),
        [((1, 4096, 32, 128), "float16", -1, 1),
         ((1, 4096, 8, 128), "float16", -1, 1),
         ((1, 4096, 8, 128), "float16", -1, 1)], "attention_bshd_gqa", 5e-3,
        options=options, flops=4 * 32 * 4096 * 4096 * 128)

# Multi-query attention as an einsum front-end writes it (the Reference
# suite's attention_multi_query_f16 at model sizes): 32 query heads, one
# key-value head read through maps without the heads loop, no scale; one
# kernel whose workgroups of every head read the same K and V.
_mqa = (pathlib.Path(__file__).resolve().parents[2] / "test" / "Integration" /
        "Reference" / "Inputs" / "attention_multi_query_f16.mlir").read_text()
for _small, _large in (("2x8x64x64", "1x32x4096x4096"),
                       ("2x8x64x16", "1x32x4096x128"),
                       ("2x64x16", "1x4096x128")):
    _mqa = _mqa.replace(_small, _large)
PROGRAMS["attention_mqa_32x4096x4096x128_einsum"] = Program(
    "attention", _mqa,
    [((1, 32, 4096, 128), "float16", -1, 1),
     ((1, 4096, 128), "float16", -1, 1), ((1, 4096, 128), "float16", -1, 1)],
    "attention_multi_query", 5e-3, flops=4 * 32 * 4096 * 4096 * 128)

# Queries per subgroup (attention-subgroup-rows): 32-row flexible-dimension
# matrices (VK_NV_cooperative_matrix2) beside the 16-row default, at the
# subgroup counts and key blocks that fit.
_rows32 = "attention-subgroup-rows=32 "
_rows_variants = (
    ("rows32_sg4", _rows32 + "attention-subgroups=4"),
    ("rows32_sg4_kb32", _rows32 + "attention-subgroups=4 "
     "attention-key-block=32"),
    ("rows32_sg8", _rows32 + "attention-subgroups=8"),
    ("rows16_sg8", ""))
for _label, _options in _rows_variants:
    PROGRAMS["attention_32x4096x4096x128_%s" % _label] = long_attention(
        "attention-rows", _options)
    PROGRAMS["attention_32x4096x4096x128_mask_%s" % _label] = long_attention(
        "attention-rows", _options, mask=True)
for _label, _options in (("rows32_sg8", _rows32 + "attention-subgroups=8"),
                         ("rows32_sg4", _rows32 + "attention-subgroups=4"),
                         ("rows16_sg16", "")):
    PROGRAMS["attention_32x4096x4096x64_%s" % _label] = long_attention(
        "attention-rows", _options, dim=64)

# The front-end corpus (test/Integration/Corpus) at model sizes: checked
# against its float64 references, timed beside the same layers in PyTorch
# eager.
for _name, _program in corpus.PROGRAMS.items():
    _text = corpus.source(_name)
    PROGRAMS["corpus_" + _name] = Program(
        "corpus", _text, corpus.input_specs(_name, _text), _program.peer,
        _program.tolerance, reference="corpus")


def decode_linear(form, m, n, k, group, copies):
    """`copies` products x W_i^T of the same x with weights of their own
    (W stored N x K): `f16`, or `int8` / `int4` (two values per byte along
    K, low nibble first, offset by 8) with one f16 scale per group of
    `group` along K. Several copies make the weights rotate through more
    memory than the H100's 50 MB L2 holds; one is read again from L2 at
    each repeat where it fits."""
    a, c = "tensor<%dx%dxf16>" % (m, k), "tensor<%dx%dxf32>" % (m, n)
    w = "tensor<%dx%dxf16>" % (n, k)
    q = "tensor<%dx%dxi8>" % (n, k // 2 if form == "int4" else k)
    s = "tensor<%dx%dxf16>" % (n, k // group)
    maps = ("affine_map<(d0, d1) -> (d0, d1%s)>, "
            "affine_map<(d0, d1) -> (d0, d1 floordiv %d)>" % (
                " floordiv 2" if form == "int4" else "", group))
    if form == "int8":
        body = """    %value = arith.sitofp %q_v : i8 to f16"""
    else:
        body = INT4_VALUE
    arguments = ["%%a: %s" % a]
    text = ""
    for i in range(copies):
        if form == "f16":
            arguments.append("%%w%d: %s" % (i, w))
        else:
            arguments += ["%%q%d: %s" % (i, q), "%%s%d: %s" % (i, s)]
            text += """  %%ew%(i)d = tensor.empty() : %(w)s
  %%w%(i)d = linalg.generic {indexing_maps = [%(maps)s, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%%q%(i)d, %%s%(i)d : %(q)s, %(s)s) outs(%%ew%(i)d : %(w)s) {
  ^bb0(%%q_v: i8, %%s_v: f16, %%o: f16):
%(body)s
    %%weight = arith.mulf %%value, %%s_v : f16
    linalg.yield %%weight : f16
  } -> %(w)s
""" % dict(i=i, w=w, q=q, s=s, maps=maps, body=body)
        text += """  %%e%(i)d = tensor.empty() : %(c)s
  %%f%(i)d = linalg.fill ins(%%zero : f32) outs(%%e%(i)d : %(c)s) -> %(c)s
  %%r%(i)d = linalg.matmul
    indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
    ins(%%a, %%w%(i)d : %(a)s, %(w)s) outs(%%f%(i)d : %(c)s) -> %(c)s
""" % dict(i=i, a=a, w=w, c=c)
    results = ", ".join("%%r%d" % i for i in range(copies))
    return ("func.func @decode(%s) -> (%s) {\n  %%zero = arith.constant 0.0 "
            ": f32\n" % (", ".join(arguments), ", ".join([c] * copies)) +
            text + "  return %s : %s\n}\n" % (results,
                                              ", ".join([c] * copies)))


# Decode steps (issue 61): one to eight tokens times the weight of ggml's
# stock MUL_MAT case (K = 14336, N = 4096), f16, int8 and int4 in groups of
# 32 along K with f16 scales (the bytes of ggml's q8_0 and q4_0); the
# product as dot products (dot-product-rows=8, beyond the default
# crossover) and as the tiled product (dot-product-rows=0, split K), in the
# same run. `_l2` reads one
# weight at every repeat (int4 and int8 stay in the L2), `_rotating` four
# weights in turn (each evicted by the others before it comes back): time
# per product there is the run's over four.
DECODE_N, DECODE_K, DECODE_GROUP = 4096, 14336, 32
for form in ("f16", "int8", "int4"):
    for rows in (1, 2, 4, 8):
        for copies, where in ((1, "l2"), (4, "rotating")):
            if rows > 1 and copies == 4:
                continue
            weight = {
                "f16": [((DECODE_N, DECODE_K), "float16", -0.05, 0.05)],
                "int8": [((DECODE_N, DECODE_K), "int8", -128, 127),
                         ((DECODE_N, DECODE_K // DECODE_GROUP), "float16",
                          0.0005, 0.002)],
                "int4": [((DECODE_N, DECODE_K // 2), "int8", -128, 127),
                         ((DECODE_N, DECODE_K // DECODE_GROUP), "float16",
                          0.001, 0.005)],
            }[form]
            for kernel, options in (("dot", "dot-product-rows=8"),
                                    ("tiled", "dot-product-rows=0")):
                PROGRAMS["decode_%s_%dx%dx%d_%s_%s" % (
                    form, rows, DECODE_N, DECODE_K, where, kernel)] = Program(
                    "decode",
                    decode_linear(form, rows, DECODE_N, DECODE_K,
                                  DECODE_GROUP, copies),
                    [((rows, DECODE_K), "float16", -1, 1)] + weight * copies,
                    "decode_" + form, 2e-3, options=options,
                    flops=2 * rows * DECODE_N * DECODE_K * copies)

# Decode attention (issue 61): one query row per head against a KV cache of
# 4096 keys (and 32768), 32 query heads sharing 8 key-value heads, head
# dimension 128, [batch, seq, heads, dim] as a Llama-style model keeps it
# (ggml's FLASH_ATTN_EXT case hsk=128, nh=8, nr23=[4,1], kv=4096, nb=1).
# The decode kernels (keys split over workgroups, runs combined after), and
# the flash-attention kernel (decode-attention-queries=0) at 4096 keys, in
# the same run; `_dynamic`: the cache's length known only at run time (the
# same kernels, their runs sharing the keys).
for _keys, _suffix, _options in (
        (4096, "", ""), (4096, "_flash", "decode-attention-queries=0"),
        (4096, "_dynamic", ""), (32768, "", ""), (32768, "_dynamic", "")):
    PROGRAMS["decode_attention_bshd_gqa_1x%dx32x8x128%s" % (
        _keys, _suffix)] = Program(
        "decode",
        layout_attention_program("attention", 1, 1,
                                 "?" if _suffix == "_dynamic" else _keys, 32,
                                 8, 128, "f16", False, "f16", "bshd"),
        [((1, 1, 32, 128), "float16", -1, 1),
         ((1, _keys, 8, 128), "float16", -1, 1),
         ((1, _keys, 8, 128), "float16", -1, 1)], "attention_bshd_gqa", 5e-3,
        options=_options, flops=4 * 32 * _keys * 128)


def with_decode_attention_plan(program, plan):
    """`program` (a decode attention) in group `decode-plans`, its softmax
    carrying the hand-written `#subgroup_matrix.decode_attention_plan<plan>`
    (which bufferization and batch folding keep)."""
    text = program.text.replace(
        "linalg.softmax dimension(",
        "linalg.softmax {subgroup_matrix.plan = "
        "#subgroup_matrix.decode_attention_plan<%s>} dimension(" % plan, 1)
    return Program("decode-plans", text, program.inputs, program.function,
                   program.tolerance, options=program.options,
                   flops=program.flops)


# Decode attention's plans (group `decode-plans`, beside `decode`'s
# defaults): keys per workgroup x subgroups x keys in flight at 4096 and
# 32768 keys, and runs x subgroups x keys in flight at a dynamic count.
_attention = "decode_attention_bshd_gqa_1x%dx32x8x128"
for _keys, _plans in (
        (4096, [(128, 4, 2), (128, 4, 8), (128, 4, 16), (256, 4, 8),
                (256, 4, 16), (256, 8, 4), (256, 8, 8), (64, 4, 8)]),
        (32768, [(1024, 4, 8), (1024, 4, 16), (512, 4, 8), (2048, 4, 16)])):
    for _kpw, _subgroups, _in_flight in _plans:
        PROGRAMS[(_attention + "_p%dx%dx%d") % (
            _keys, _kpw, _subgroups, _in_flight)] = with_decode_attention_plan(
            PROGRAMS[_attention % _keys],
            "keys_per_workgroup = %d, subgroups = %d, keys_in_flight = %d" % (
                _kpw, _subgroups, _in_flight))
    for _runs, _subgroups, _in_flight in ((16, 4, 8), (32, 4, 4), (32, 4, 8),
                                          (64, 4, 8)):
        PROGRAMS[(_attention + "_dynamic_r%dx%dx%d") % (
            _keys, _runs, _subgroups, _in_flight)] = with_decode_attention_plan(
            PROGRAMS[(_attention + "_dynamic") % _keys],
            "runs = %d, subgroups = %d, keys_in_flight = %d" % (
                _runs, _subgroups, _in_flight))
