"""The front-end corpus: linalg programs written the way front-ends write
them (test/Integration/Corpus/Inputs/*.mlir; each file's header says which front-end style it
imitates, which pattern it covers and at which model's sizes), with a
float64 reference for each, computed here with numpy from the same inputs.

  corpus.py run TOOLS [--target T] [--reduced] [--only A,B] [--skip C,D]
                [--seed N] [--upstream]
  corpus.py kernels TOOLS [--target T] [--reduced]

(test/Integration/Corpus/corpus.py is the command line.)

`run` runs every program through sm-run (the runtime poisons what the
program allocates) and compares its output with the reference: error <=
tolerance * max(1, |reference|) everywhere; `--upstream` also compares it
with what upstream MLIR's CPU pipeline computes for the same program on
the same inputs (sm_testing.upstream_reference). `--reduced` applies each file's
`// REDUCED:` line (model size = reduced size, on the numbers of the
program) so that lavapipe runs the corpus in CI. `kernels` prints, per
program, how many kernels sm-linalg-to-gpu made and how many of them use
subgroup matrices. bench/runtime/programs.py stages the model sizes for
the H100, where torch_peer.py checks against the same references.
"""

import argparse
import functools
import math
import os
import pathlib
import re
import subprocess
import tempfile

import numpy as np

from sm_testing.cli import add_selection_arguments, is_selected
from sm_testing.numerics import bf16_bits, bf16_to_float64
from sm_testing.program_check import FLOATS, SmRunError, compare, run_sm
from sm_testing.upstream_reference import (ReferenceError, program_tolerance,
                                           run_reference)

INPUTS = (pathlib.Path(__file__).resolve().parents[2] / "Integration" /
          "Corpus" / "Inputs")


# Storage rounding: the program stores these types between ops, so the
# reference rounds where the program's tensors do, and nowhere else.
def f16(values):
    return np.asarray(values, np.float64).astype(np.float16).astype(
        np.float64)


def bf16(values):
    return bf16_to_float64(bf16_bits(values))


def conv_channels_last(x, w, strides, dilations):
    """y[n, o..., f] = sum over k..., c of x[n, o*s + k*d..., c] w[k..., c, f]
    (x [N, spatial..., C], w [window..., C, F]): one matrix product per
    window offset."""
    spatial = x.ndim - 2
    window = w.shape[:spatial]
    out = [(x.shape[1 + i] - dilations[i] * (window[i] - 1) - 1) //
           strides[i] + 1 for i in range(spatial)]
    y = np.zeros([x.shape[0]] + out + [w.shape[-1]])
    for offset in np.ndindex(*window):
        taken = tuple(slice(offset[i] * dilations[i],
                            offset[i] * dilations[i] +
                            strides[i] * (out[i] - 1) + 1, strides[i])
                      for i in range(spatial))
        part = x[(slice(None),) + taken + (slice(None),)]
        y += (part.reshape(-1, x.shape[-1]) @ w[offset]).reshape(y.shape)
    return y


def pad_spatial(x, amount, channels_last=True):
    """x padded by `amount` zeros on both sides of each spatial dimension."""
    spatial = x.ndim - 2
    widths = [(0, 0)] + [(amount, amount)] * spatial + [(0, 0)]
    if not channels_last:
        widths = [(0, 0), (0, 0)] + [(amount, amount)] * spatial
    return np.pad(x, widths)


def relu(x):
    return np.maximum(x, 0)


# The references: float64 numpy of the inputs as the program receives them
# (bf16 inputs already widened), rounded where the program stores.
def attention_scores(q, k, scale):
    return (q.transpose(0, 2, 1, 3) @ k.transpose(0, 2, 3, 1)) * scale


def sdpa_attn_mask(q, k, v, mask):
    # The program's scale is 1/sqrt(64) at every size; its probabilities
    # are rounded to f16 before the second product.
    scores = (q @ k.transpose(0, 1, 3, 2)) * 0.125 + mask
    shifted = np.exp(scores - scores.max(-1, keepdims=True))
    probs = f16(shifted / shifted.sum(-1, keepdims=True))
    return probs @ v


def attention_context(probs, v):
    b, s, h, d = v.shape
    context = probs @ v.transpose(0, 2, 1, 3)  # [b, h, s, d]
    return f16(context.transpose(0, 2, 1, 3).reshape(b, s, h * d))


def head_projection(x, w, bias):
    heads, dim, embedding = w.shape
    y = x @ w.reshape(heads * dim, embedding).T  # [b, s, h * d]
    y = y.reshape(x.shape[0], x.shape[1], heads, dim).transpose(0, 2, 1, 3)
    return y + bias[None, :, None, :]


def gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(0.7978845608 * (x + 0.044715 * x ** 3)))


def mlp_bf16(x, w1, b1, w2, b2):
    h = bf16(bf16(x @ w1.T) + b1)
    g = bf16(gelu_tanh(h))
    return bf16(bf16(g @ w2.T) + b2)


def swiglu(x, w_gate, w_up, w_down):
    gate, up = f16(x @ w_gate.T), f16(x @ w_up.T)
    h = f16(gate / (1 + np.exp(-gate)) * up)
    return f16(h @ w_down.T)


def linear_f32(x, w, bias):
    return relu(x @ w + bias)


def int8_projection(x, w, x_scale, w_scale, bias):
    # The zero points of the program: -7 (activations) and 1 (weights).
    product = (x + 7) @ (w - 1)
    return product * (x_scale * w_scale) + bias


def bottleneck(x, w1, b1, w2, b2, w3, b3, ws, bs):
    a = f16(relu(f16(conv_channels_last(x, w1, (1, 1), (1, 1))) + b1))
    c = conv_channels_last(pad_spatial(a, 1), w2, (2, 2), (1, 1))
    c = f16(relu(f16(c) + b2))
    main = f16(f16(conv_channels_last(c, w3, (1, 1), (1, 1))) + b3)
    short = f16(f16(conv_channels_last(x, ws, (2, 2), (1, 1))) + bs)
    return f16(relu(main + short))


def aspp(x, w, b):
    y = conv_channels_last(pad_spatial(x.transpose(0, 2, 3, 1), 2),
                           w.transpose(2, 3, 1, 0), (1, 1), (2, 2))
    return f16(y.transpose(0, 3, 1, 2) + b[None, :, None, None])


# The grouped convolution's group count at model size (128 channels in 32
# groups) and reduced (its REDUCED line maps 128 to 16 and 32 to 4).
GROUPS = {128: 32, 16: 4}


def grouped(x, w):
    groups = GROUPS[x.shape[1]]
    per_group = x.shape[1] // groups
    padded = pad_spatial(x.transpose(0, 2, 3, 1), 1)
    parts = [conv_channels_last(
        padded[..., g * per_group:(g + 1) * per_group],
        w[g * per_group:(g + 1) * per_group].transpose(2, 3, 1, 0),
        (1, 1), (1, 1)) for g in range(groups)]
    return f16(np.concatenate(parts, axis=-1).transpose(0, 3, 1, 2))


def video(x, w):
    return f16(conv_channels_last(pad_spatial(x, 1), w, (1, 1, 1),
                                  (1, 1, 1)))


def stem(x, w, scale, shift):
    y = conv_channels_last(pad_spatial(x, 3), w, (2, 2), (1, 1))
    return f16(relu(y * scale + shift))


_erf = np.frompyfunc(math.erf, 1, 1)


def encoder(x, w):
    y = conv_channels_last(x, w, (2,), (1,))
    return f16(0.5 * y * (1 + _erf(y / math.sqrt(2)).astype(np.float64)))


def batch_scores_bf16(q, k):
    return bf16(bf16(q @ k.transpose(0, 2, 1)) * 0.125)


def mlp_generics(x, w1, b1, w2, b2):
    h = x @ w1.T + b1
    g = f16(0.5 * h * (1 + _erf(h / math.sqrt(2)).astype(np.float64)))
    return f16(g @ w2.T + b2)


def softmax(scores):
    shifted = np.exp(scores - scores.max(-1, keepdims=True))
    return shifted / shifted.sum(-1, keepdims=True)


def add_layer_norm(x, residual, gamma, beta):
    s = x + residual
    centered = s - s.mean(-1, keepdims=True)
    variance = (centered ** 2).mean(-1, keepdims=True)
    return centered / np.sqrt(variance + 1e-12) * gamma + beta


def rms_norm(hidden, weight):
    variance = (hidden ** 2).mean(-1, keepdims=True)
    return f16(weight * f16(hidden / np.sqrt(variance + 1e-6)))


def layer_norm(x, gamma, beta, eps):
    centered = x - x.mean(-1, keepdims=True)
    variance = (centered ** 2).mean(-1, keepdims=True)
    return centered / np.sqrt(variance + eps) * gamma + beta


def bert_layer(x, mask, wq, bq, wk, bk, wv, bv, wo, bo, g1, be1, w1, b1, w2,
               b2, g2, be2):
    b, s, h = x.shape
    heads = h // 64

    def split(t):
        return t.reshape(b, s, heads, 64).transpose(0, 2, 1, 3)
    q, k, v = (split(x @ w.T + bias)
               for w, bias in ((wq, bq), (wk, bk), (wv, bv)))
    scores = q @ k.transpose(0, 1, 3, 2) * 0.125 + mask[:, None, None, :]
    context = (softmax(scores) @ v).transpose(0, 2, 1, 3).reshape(b, s, h)
    h1 = layer_norm(context @ wo.T + bo + x, g1, be1, 1e-12)
    f = h1 @ w1.T + b1
    f = 0.5 * f * (1 + _erf(f / math.sqrt(2)).astype(np.float64))
    return layer_norm(f @ w2.T + b2 + h1, g2, be2, 1e-12)


def llama_layer(x, cos, sin, norm1, wq, wk, wv, wo, norm2, wg, wu, wd,
                store=f16):
    """A Llama decoder layer as the program computes it: f32 products,
    norms and softmax, rounded to the storage type (`store`) wherever the
    program stores or computes in it."""
    _, s, h = x.shape
    dim = cos.shape[-1]
    half = dim // 2

    def rms_norm(t, weight):
        variance = (t ** 2).mean(-1, keepdims=True)
        return store(weight * store(t / np.sqrt(variance + 1e-5)))

    def split(t):
        return t.reshape(s, h // dim, dim).transpose(1, 0, 2)

    def rope(t):
        rotated = np.concatenate([-t[..., half:], t[..., :half]], -1)
        return store(store(t * cos) + store(rotated * sin))
    h1 = rms_norm(x[0], norm1)
    q, k, v = (split(store(h1 @ w.T)) for w in (wq, wk, wv))
    q, k = rope(q), rope(k)
    # The program's scale, 1/sqrt(128), at reduced sizes too.
    scores = q @ k.transpose(0, 2, 1) / math.sqrt(128)
    scores = np.where(np.triu(np.ones((s, s), bool), 1), -np.inf, scores)
    context = store(store(softmax(scores)) @ v).transpose(1, 0, 2)
    res1 = store(x[0] + store(context.reshape(s, h) @ wo.T))
    h2 = rms_norm(res1, norm2)
    gate, up = store(h2 @ wg.T), store(h2 @ wu.T)
    silu = store(gate / store(store(np.exp(-gate)) + 1))
    down = store(store(silu * up) @ wd.T)
    return store(res1 + down)[None]


def llama_layer_bf16(*arrays):
    return llama_layer(*arrays, store=bf16)


class ArgmaxOf:
    """The reference of an index result: the position of the maximum of
    `values` along the last axis. An index passes when its value is the
    maximum within the tolerance (close values may swap at the program's
    precision)."""

    def __init__(self, values):
        self.values = values


def linear_int4(x, w, scales):
    group = w.shape[1] // scales.shape[1]
    dequantized = f16(w * np.repeat(scales, group, axis=1))
    return f16(x @ dequantized.T)


def layer_norm_f64(x, gamma, beta):
    return layer_norm(x, gamma, beta, 1e-12)


def classify(features, w, b):
    logits = features.mean(axis=(1, 2)) @ w.T + b
    return logits, ArgmaxOf(logits)


def mobilenet_block(x, dw, dw_bias, pw):
    n, h, wd, c = x.shape
    padded = pad_spatial(x, 1)
    depthwise = f16(dw_bias + sum(
        padded[:, i:i + h, j:j + wd, :] * dw[i, j]
        for i in range(3) for j in range(3)))
    relu6 = np.clip(depthwise, 0.0, 6.0)
    projected = f16(relu6 @ pw[:, 0, 0, :].T)
    out = (h - 3) // 2 + 1
    return np.max([projected[:, i:i + 2 * out - 1:2, j:j + 2 * out - 1:2, :]
                   for i in range(3) for j in range(3)], axis=0)


def basic_block_tflite(x, w1, b1, w2, b2):
    """TFLite's OHWI weights, 3x3 convolutions padded by one."""
    def conv(t, w, b):
        return conv_channels_last(pad_spatial(t, 1), w.transpose(1, 2, 3, 0),
                                  (1, 1), (1, 1)) + b
    hidden = np.clip(conv(x, w1, b1), 0.0, 6.0)
    summed = np.maximum(conv(hidden, w2, b2) + x, 0.0)
    n, h, wd, c = summed.shape
    return summed.reshape(n, h // 2, 2, wd // 2, 2, c).max(axis=(2, 4))


def mlp_silu(x, w1, b1, w2, b2):
    """torch's [out, in] weights; f16 where the program's tensors are."""
    hidden = f16(f16(x @ w1.T) + b1)
    gated = f16(hidden * f16(1.0 / (1.0 + np.exp(-hidden))))
    return f16(f16(gated @ w2.T) + b2)


def self_attention(x, wq, wk, wv, wo, heads=4):
    tokens, width = x.shape
    def split(t):
        return t.reshape(tokens, heads, width // heads).transpose(1, 0, 2)
    q, k, v = (split(x @ w.T) for w in (wq, wk, wv))
    scores = q @ k.transpose(0, 2, 1) / math.sqrt(width // heads)
    context = softmax(scores) @ v
    return context.transpose(1, 0, 2).reshape(tokens, width) @ wo.T


def embed_norm(tokens, table, weight):
    return rms_norm(table[tokens], weight)


def normalize(x, bias, unused):
    scale = np.abs(x).max()
    squashed = np.tanh(x / scale + bias)
    padded = np.zeros((x.shape[0] + 2, x.shape[1]))
    padded[1:-1] = squashed
    padded[0] = 2.0
    return padded, np.array(scale)


def kaiming(fan_in):
    """The range of uniform weights that keeps activations near 1."""
    bound = math.sqrt(3.0 / fan_in)
    return (-bound, bound)


class Program:
    """A corpus file, the reference of its output, the ranges its inputs are
    drawn from (None: the element type's default) as functions of the
    input shapes, the tolerance, and the PyTorch eager function
    (bench/runtime/torch_peer.py) it is timed beside."""

    def __init__(self, reference, tolerance, ranges=None, peer=None):
        self.reference, self.tolerance = reference, tolerance
        self.ranges, self.peer = ranges or (lambda shapes: {}), peer


PROGRAMS = {
    "attention_scores_generic": Program(
        attention_scores, 1e-4, peer="corpus_attention_scores"),
    "sdpa_attn_mask_torch": Program(
        sdpa_attn_mask, 5e-3, lambda s: {3: (-4.0, 0.0)},
        peer="corpus_sdpa_attn_mask"),
    "attention_context_generic": Program(
        attention_context, 5e-3,
        lambda s: {0: (0.0, 2.0 / s[0][-1])}, peer="corpus_attention_context"),
    "head_projection_generic": Program(
        head_projection, 1e-4, lambda s: {1: kaiming(s[1][-1])},
        peer="corpus_head_projection"),
    "mlp_bf16_torch": Program(
        mlp_bf16, 3e-2,
        lambda s: {1: kaiming(s[1][1]), 3: kaiming(s[3][1])},
        peer="corpus_mlp_bf16"),
    "mlp_f16_swiglu_named_maps": Program(
        swiglu, 1e-2,
        lambda s: {1: kaiming(s[1][1]), 2: kaiming(s[2][1]),
                   3: kaiming(s[3][1])}, peer="corpus_swiglu"),
    "linear_f32_tosa": Program(
        linear_f32, 1e-4, lambda s: {1: kaiming(s[1][0])},
        peer="corpus_linear_f32"),
    "int8_projection_onnx": Program(
        int8_projection, 1e-5,
        lambda s: {2: (0.001, 0.002), 3: (0.001, 0.01)},
        peer="corpus_int8_projection"),
    "resnet_bottleneck_nhwc": Program(
        bottleneck, 1e-2,
        lambda s: {i: kaiming(math.prod(s[i][:3])) for i in (1, 3, 5, 7)},
        peer="corpus_bottleneck"),
    "dilated_conv_nchw_torch": Program(
        aspp, 5e-3, lambda s: {1: kaiming(math.prod(s[1][1:]))},
        peer="corpus_aspp"),
    "grouped_conv_resnext_torch": Program(
        grouped, 5e-3, lambda s: {1: kaiming(math.prod(s[1][1:]))},
        peer="corpus_grouped"),
    "conv3d_video_ndhwc": Program(
        video, 5e-3, lambda s: {1: kaiming(math.prod(s[1][:4]))},
        peer="corpus_video"),
    "stem_conv_generic_strided": Program(
        stem, 5e-3,
        lambda s: {1: kaiming(math.prod(s[1][:3])), 2: (0.5, 1.5)},
        peer="corpus_stem"),
    "conv1d_audio_strided": Program(
        encoder, 5e-3, lambda s: {1: kaiming(math.prod(s[1][:2]))},
        peer="corpus_encoder"),
    "batch_matmul_bf16_dynamo": Program(
        batch_scores_bf16, 8e-3, peer="corpus_batch_scores_bf16"),
    "mlp_all_generics_iree": Program(
        mlp_generics, 5e-3,
        lambda s: {1: kaiming(s[1][1]), 3: kaiming(s[3][1])},
        peer="corpus_mlp_generics"),
    "softmax_dynamic_torch": Program(
        softmax, 1e-5, lambda s: {0: (-8.0, 8.0)}, peer="corpus_softmax"),
    "layernorm_residual_bert_torch": Program(
        add_layer_norm, 1e-4, lambda s: {0: (-2.0, 4.0), 2: (0.5, 1.5)},
        peer="corpus_add_layer_norm"),
    "bert_layer_f32_torch": Program(
        bert_layer, 1e-4,
        lambda s: {**{i: kaiming(s[i][1]) for i in (2, 4, 6, 8, 12, 14)},
                   1: (-2.0, 0.0), 10: (0.5, 1.5), 16: (0.5, 1.5)},
        peer="corpus_bert_layer"),
    "llama_layer_f16_torch": Program(
        llama_layer, 2e-2,
        lambda s: {**{i: kaiming(s[i][1]) for i in (4, 5, 6, 7, 9, 10, 11)},
                   3: (0.5, 1.5), 8: (0.5, 1.5)}, peer="corpus_llama_layer"),
    "llama_layer_bf16_torch": Program(
        llama_layer_bf16, 6e-2,
        lambda s: {**{i: kaiming(s[i][1]) for i in (4, 5, 6, 7, 9, 10, 11)},
                   3: (0.5, 1.5), 8: (0.5, 1.5)}, peer="corpus_llama_layer"),
    "rmsnorm_llama_f16_torch": Program(
        rms_norm, 2e-3, lambda s: {0: (-3.0, 3.0), 1: (0.5, 1.5)},
        peer="corpus_rms_norm"),
    "matvec_int4_groupwise_torch": Program(
        linear_int4, 1e-2, lambda s: {2: (0.002, 0.02)},
        peer="corpus_linear_int4"),
    "layernorm_f64_variance_torch": Program(
        layer_norm_f64, 1e-4, lambda s: {0: (-2.0, 4.0), 1: (0.5, 1.5)},
        peer="corpus_layer_norm_f64"),
    "classifier_head_argmax_onnx": Program(
        classify, 1e-4, lambda s: {0: (0.0, 2.0), 1: kaiming(s[1][1])},
        peer="corpus_classify"),
    "mobilenet_depthwise_pool_tosa": Program(
        mobilenet_block, 1e-2,
        lambda s: {1: kaiming(9), 3: kaiming(s[3][3])},
        peer="corpus_mobilenet_block"),
    "embedding_rmsnorm_llama_torch": Program(
        embed_norm, 2e-3,
        lambda s: {0: (0, s[1][0] - 1), 2: (0.5, 1.5)},
        peer="corpus_embed_norm"),
    "cnn_block_tflite_tosa": Program(
        basic_block_tflite, 1e-4,
        lambda s: {1: kaiming(9 * s[1][3]), 3: kaiming(9 * s[3][3])},
        peer="corpus_basic_block_tflite"),
    "mlp_silu_torch_tosa": Program(
        mlp_silu, 1e-2,
        lambda s: {1: kaiming(s[1][1]), 3: kaiming(s[3][1])},
        peer="corpus_mlp_silu"),
    "attention_block_torch_tosa": Program(
        self_attention, 1e-4,
        lambda s: {i: kaiming(s[i][1]) for i in (1, 2, 3, 4)},
        peer="corpus_self_attention"),
    "named_ops_graph_stablehlo": Program(
        normalize, 1e-5, lambda s: {0: (-3.0, 3.0)},
        peer="corpus_normalize"),
}

def source(name, reduced=False, sizes=None):
    """The program's text, at model size, reduced, or with the whole
    numbers `sizes` maps (a benchmark's larger sizes) replaced."""
    text = (INPUTS / (name + ".mlir")).read_text()
    if not reduced and not sizes:
        return text
    if not sizes:
        found = re.search(r"^// REDUCED: (.*)$", text, re.M)
        sizes = dict(pair.split("=") for pair in found.group(1).split())
    lines = []
    for line in text.splitlines(keepends=True):
        if not line.startswith("//") or line.startswith("// SHAPES:"):
            # Whole numbers only (a size as a float, 768.0, too): not the
            # digits of f16, %c0, 0.125, 1.0e-12 or -3.
            line = re.sub(
                r"(?<![0-9.A-Za-wyz_%#-])(\d+)(?:(\.0)(?![0-9])|(?![0-9.]))",
                lambda m: sizes.get(m.group(1), m.group(1)) +
                (m.group(2) or ""), line)
        lines.append(line)
    return "".join(lines)


ELEMENT = {"f16": "float16", "f32": "float32", "bf16": "bfloat16",
           "i4": "int4", "i8": "int8", "i32": "int32", "i64": "int64"}

# The ranges of integer inputs (int4 arrays hold one value per byte).
INTEGER_RANGES = {"int4": (-8, 7), "int8": (-128, 127)}


def entry_header(text):
    """The argument and result lists of the entry (the first public
    function; private ones are helpers it calls)."""
    found = re.search(
        r"func\.func @\w+\((.*?)\)\s*->\s*(\(.*?\)|tensor<[^>]*>)\s*\{",
        text, re.S)
    return found.group(1), found.group(2)


def signature(text):
    """[(shape, dtype)] of the entry function's arguments. A program with
    dynamic sizes (`?`) says the shapes it runs at on a `// SHAPES:` line
    (one per argument)."""
    header = entry_header(text)[0]
    found = re.search(r"^// SHAPES: (.*)$", text, re.M)
    run_shapes = found.group(1).split() if found else []
    arguments = []
    for index, (shape, element) in enumerate(
            re.findall(r"tensor<((?:(?:\d+|\?)x)*)(\w+)>", header)):
        if "?" in shape:
            shape = run_shapes[index] + "x"
        arguments.append((tuple(int(d) for d in shape.split("x") if d),
                          ELEMENT[element]))
    return arguments


def input_specs(name, text):
    """[(shape, dtype, low, high)] of the program's inputs."""
    arguments = signature(text)
    ranges = PROGRAMS[name].ranges([shape for shape, _ in arguments])
    specs = []
    for index, (shape, dtype) in enumerate(arguments):
        low, high = ranges.get(index, INTEGER_RANGES.get(dtype, (-1.0, 1.0)))
        specs.append((shape, dtype, low, high))
    return specs


def make_input(rng, shape, dtype, low, high):
    """A fresh random array as the runtime reads it (bf16 as its bits)."""
    if dtype.startswith("int"):
        stored = "int8" if dtype == "int4" else dtype
        return rng.integers(low, high + 1, shape).astype(stored)
    values = rng.uniform(low, high, shape)
    if dtype == "bfloat16":
        return bf16_bits(values)
    return values.astype(dtype)


def widen(array, dtype):
    """An input as the reference reads it: float64 (int64 for integers)."""
    if dtype == "bfloat16":
        return bf16_to_float64(array)
    if dtype.startswith("int"):
        return array.astype(np.int64)
    return array.astype(np.float64)


def result_elements(text):
    """The element types of the entry function's results."""
    results = entry_header(text)[1]
    return re.findall(r"tensor<(?:(?:\d+|\?)x)*(\w+)>", results)


def output_as_float64(array, element):
    """A result as float64 (a bf16 result comes as bits)."""
    if element == "bf16":
        return bf16_to_float64(array)
    return array.astype(np.float64)


def reference(name, arrays, text):
    """The references of the program's results, a tuple."""
    specs = input_specs(name, text)
    want = PROGRAMS[name].reference(
        *[widen(a, spec[1]) for a, spec in zip(arrays, specs)])
    return want if isinstance(want, tuple) else (want,)


def check_results(name, arrays, text, results):
    """(ok, detail) of the program's results (arrays as sm-run writes them)
    against the references of inputs `arrays`."""
    elements = result_elements(text)
    wanted = reference(name, arrays, text)
    if len(results) != len(wanted):
        return False, "%d results, expected %d" % (len(results), len(wanted))
    details, ok = [], True
    for got, want, element in zip(results, wanted, elements):
        got = output_as_float64(got, element)
        tolerance = PROGRAMS[name].tolerance
        if isinstance(want, ArgmaxOf):
            values = want.values
            if got.shape != values.shape[:-1]:
                passed, detail = False, "indices of shape %s" % (got.shape,)
            else:
                chosen = np.take_along_axis(
                    values, np.clip(got, 0, values.shape[-1] - 1)
                    .astype(np.int64)[..., None], -1)[..., 0]
                best = values.max(-1)
                bad = (got < 0) | (got >= values.shape[-1]) | ~(
                    chosen >= best - tolerance * np.maximum(1, np.abs(best)))
                passed = not bad.any()
                detail = "%d indices, %d not of a maximum" % (
                    got.size, int(bad.sum()))
        else:
            # Each element within the tolerance of the larger of it and 1.
            passed, detail = compare(got, np.asarray(want), "f64", tolerance,
                                     floor=1.0, rms_floor=False)
        ok &= passed
        details.append(detail)
    return ok, "; ".join(details)


def check_upstream(tools, name, text, arrays, results, directory):
    """(ok, detail) of the program's results against upstream MLIR's CPU
    execution of the same program on the same inputs, at the program's
    tolerance (or the upstream checker's, if larger)."""
    elements = result_elements(text)
    try:
        theirs = run_reference(
            tools, text, None, arrays, [r.shape for r in results], directory)
    except ReferenceError as error:
        return False, "not run: %s" % error
    tolerance = max(PROGRAMS[name].tolerance, program_tolerance(text))
    details, ok = [], True
    for index, (got, element) in enumerate(zip(results, elements)):
        want = theirs[("result", index)]
        if element not in FLOATS and isinstance(
                reference(name, arrays, text)[index], ArgmaxOf):
            # Indices of a maximum: the values they pick must tie.
            values = reference(name, arrays, text)[index].values
            picked = [np.take_along_axis(values, np.asarray(
                i, np.int64)[..., None], -1)[..., 0] for i in (got, want)]
            passed = bool(np.all(np.abs(picked[0] - picked[1]) <=
                                 tolerance * np.maximum(1, np.abs(picked[1]))))
            detail = "indices pick the same maxima" if passed else \
                "indices pick other values than upstream's"
        else:
            passed, detail = compare(got, want, element, tolerance)
        ok &= passed
        details.append(detail)
    return ok, "; ".join(details)


def count_kernels(tools, text, target):
    """(kernels, kernels with subgroup matrices) sm-linalg-to-gpu makes."""
    done = subprocess.run(
        [os.path.join(tools, "sm-opt"), "-",
         "--sm-linalg-to-gpu=target=" + target],
        input=text, capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(done.stderr.strip()[-1500:])
    kernels = re.split(r"\bgpu\.func @", done.stdout)[1:]
    # A matrix kernel has subgroup_matrix ops (not only attributes).
    matrix = sum(bool(re.search(r"^\s*(%\S+ = )?subgroup_matrix\.\w+",
                                kernel, re.M)) for kernel in kernels)
    return len(kernels), matrix


def selected(options):
    return [name for name in PROGRAMS
            if is_selected(name, options.only, options.skip)]


def compile_with_options(tools, program, target, pipeline_options):
    """`program` compiled by sm-linalg-to-gpu with `pipeline_options`
    beside the target (sm-run runs the result as it is); raises SmRunError
    with sm-opt's diagnostics."""
    compiled = program.with_suffix(".gpu.mlir")
    done = subprocess.run(
        [os.path.join(tools, "sm-opt"), str(program),
         "--sm-linalg-to-gpu=target=%s %s" % (target, pipeline_options),
         "-o", str(compiled)], capture_output=True, text=True)
    if done.returncode:
        raise SmRunError(done.returncode, done.stderr.strip()[-1500:])
    return compiled


def run(options):
    seed = options.seed if options.seed is not None else \
        int.from_bytes(os.urandom(4), "little")
    print("seed %d" % seed)
    rng = np.random.default_rng(seed)
    passed = failed = 0
    with tempfile.TemporaryDirectory() as scratch:
        for name in selected(options):
            text = source(name, options.reduced)
            directory = pathlib.Path(scratch) / name
            directory.mkdir()
            (directory / "program.mlir").write_text(text)
            arrays = [make_input(rng, *spec)
                      for spec in input_specs(name, text)]
            program = directory / "program.mlir"
            try:
                if options.pipeline_options:
                    program = compile_with_options(
                        options.tools, program, options.target,
                        options.pipeline_options)
                outputs = run_sm(options.tools, program, options.target,
                                 None, arrays, directory)
            except SmRunError as error:
                print("FAILED %s: %s" % (name, error), flush=True)
                failed += 1
                continue
            results = [outputs.get(("result", index))
                       for index in range(len(result_elements(text)))]
            if any(result is None for result in results):
                print("FAILED %s: sm-run wrote %d of %d results" % (
                    name, sum(r is not None for r in results),
                    len(results)), flush=True)
                failed += 1
                continue
            ok, detail = check_results(name, arrays, text, results)
            if options.upstream:
                agrees, versus = check_upstream(options.tools, name, text,
                                                arrays, results, directory)
                ok &= agrees
                detail += "; upstream: " + versus
            print("%s %s: %s" % ("PASSED" if ok else "FAILED", name, detail),
                  flush=True)
            passed += ok
            failed += not ok
    print("corpus: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


def validate_binary(tools, spirv_val, text, target):
    """What spirv-val says of the Vulkan binary of the program: "valid",
    "FAILED ..." or why it cannot read it."""
    tool = functools.partial(subprocess.run, capture_output=True, text=True)
    lowered = tool([os.path.join(tools, "sm-opt"), "-",
                    "--sm-linalg-to-gpu=target=" + target,
                    "--sm-lower-to-vulkan=target=" + target], input=text)
    if lowered.returncode:
        return "FAILED to lower: " + lowered.stderr.strip()[-500:]
    with tempfile.TemporaryDirectory() as scratch:
        binary = os.path.join(scratch, "kernels.spv")
        serialized = tool([os.path.join(tools, "sm-translate"), "-",
                           "--serialize-spirv", "-o", binary],
                          input=lowered.stdout)
        if serialized.returncode:
            return "FAILED to serialize: " + serialized.stderr.strip()[-500:]
        checked = tool([spirv_val, "--target-env", "vulkan1.3", binary])
        if checked.returncode:
            return "FAILED spirv-val: " + checked.stderr.strip()[-500:]
    return "valid"


def kernels(options):
    for name in selected(options):
        text = source(name, options.reduced)
        try:
            total, matrix = count_kernels(options.tools, text, options.target)
        except RuntimeError as error:
            print("%-32s FAILED: %s" % (name, error))
            continue
        line = "%-32s %d kernels, %d on matrix units" % (name, total, matrix)
        if options.spirv_val:
            line += "; spirv-val: " + validate_binary(
                options.tools, options.spirv_val, text, options.target)
        print(line, flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["run", "kernels"])
    parser.add_argument("tools")
    parser.add_argument("--target", default="cpu-lavapipe")
    parser.add_argument("--reduced", action="store_true")
    add_selection_arguments(parser)
    parser.add_argument("--seed", type=int)
    parser.add_argument("--pipeline-options", default="",
                        help="run: options of sm-linalg-to-gpu beside the "
                        "target (f64=f32, a tiling), compiled by sm-opt "
                        "before sm-run runs the program")
    parser.add_argument("--upstream", action="store_true",
                        help="run: also compare with upstream MLIR's CPU "
                        "execution of each program")
    parser.add_argument("--spirv-val", default="",
                        help="kernels: also validate each Vulkan binary")
    options = parser.parse_args()
    return run(options) if options.command == "run" else kernels(options)
