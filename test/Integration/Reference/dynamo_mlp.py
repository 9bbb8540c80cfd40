#!/usr/bin/env python3
"""Writes an MLP as torch.compile's dynamo front-end (through torch-mlir)
imports it: parameters frozen into `arith.constant dense_resource<...>`
weights of shape [out, in] (their bytes in the file's dialect_resources), each transposed by a linalg.generic, a linalg.matmul
into a zero fill, the bias added and ReLU applied by generics (ReLU as a
compare and select).

  dynamo_mlp.py ROWS WIDTH LAYERS ELEMENT SEED > program.mlir

The weights are drawn from [-1, 1] (not scaled by the fan-in), so that the
activations grow by about sqrt(WIDTH / 3) a layer: a few 1024-wide layers
reach values that f16 cannot hold, which an exact f32 product keeps.
"""

import sys

import numpy as np
import os

# The test library (test/lib), also when run by hand.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, os.pardir, "lib"))

from sm_testing.mlir_text import generic_lines as generic
from sm_testing.numerics import bf16_bits

PARALLEL = ["parallel", "parallel"]


def blob(array, element):
    """The hex blob of `array` in `element` (f32 or bf16), as MLIR keeps a
    resource: a 4-byte alignment, then the elements."""
    if element == "bf16":
        raw = bf16_bits(array).astype("<u2")
    else:
        raw = np.asarray(array, "<f4")
    alignment = np.uint32(raw.dtype.itemsize).astype("<u4").tobytes()
    return "0x" + (alignment + raw.tobytes()).hex().upper()


def program(rows, width, layers, element, seed):
    rng = np.random.default_rng(seed)
    t = element
    lines = [
        "#map_t = affine_map<(d0, d1) -> (d1, d0)>",
        "#map_id = affine_map<(d0, d1) -> (d0, d1)>",
        "#map_bias = affine_map<(d0, d1) -> (d1)>",
        "func.func @forward(%%arg0: tensor<%dx%dx%s>) -> tensor<%dx%dx%s> {"
        % (rows, width, t, rows, width, t),
        "  %%zero = arith.constant 0.0 : %s" % t,
    ]
    value = "%arg0"
    resources = []
    for layer in range(layers):
        weight = rng.uniform(-1.0, 1.0, (width, width))
        bias = rng.uniform(-1.0, 1.0, (width,))
        names = ["torch_tensor_layer%d_%s" % (layer, part)
                 for part in ("weight", "bias")]
        resources += ["      %s: \"%s\"" % (names[0], blob(weight, t)),
                      "      %s: \"%s\"" % (names[1], blob(bias, t))]
        square = "tensor<%dx%dx%s>" % (width, width, t)
        lines += [
            "  %%w%d = arith.constant dense_resource<%s> : tensor<%dx%dx%s>"
            % (layer, names[0], width, width, t),
            "  %%b%d = arith.constant dense_resource<%s> : tensor<%dx%s>"
            % (layer, names[1], width, t),
            "  %%wt_empty%d = tensor.empty() : tensor<%dx%dx%s>" % (
                layer, width, width, t),
        ] + generic("%%wt%d" % layer, ["#map_t", "#map_id"], PARALLEL,
                    [("%%w%d" % layer, square)], ("%%wt_empty%d" % layer,
                                                  square),
                    ["%%in: %s" % t, "%%out: %s" % t],
                    ["linalg.yield %%in : %s" % t]) + [
            "  %%empty%d = tensor.empty() : tensor<%dx%dx%s>" % (
                layer, rows, width, t),
            "  %%fill%d = linalg.fill ins(%%zero : %s) outs(%%empty%d : "
            "tensor<%dx%dx%s>) -> tensor<%dx%dx%s>" % (
                layer, t, layer, rows, width, t, rows, width, t),
            "  %%mm%d = linalg.matmul ins(%s, %%wt%d : tensor<%dx%dx%s>, "
            "tensor<%dx%dx%s>) outs(%%fill%d : tensor<%dx%dx%s>) -> "
            "tensor<%dx%dx%s>" % (layer, value, layer, rows, width, t, width,
                                  width, t, layer, rows, width, t, rows,
                                  width, t),
        ]
        tile = "tensor<%dx%dx%s>" % (rows, width, t)
        lines += generic(
            "%%biased%d" % layer, ["#map_id", "#map_bias", "#map_id"],
            PARALLEL,
            [("%%mm%d" % layer, tile),
             ("%%b%d" % layer, "tensor<%dx%s>" % (width, t))],
            ("%%empty%d" % layer, tile),
            ["%%in: %s" % t, "%%in_1: %s" % t, "%%out: %s" % t],
            ["%%s = arith.addf %%in, %%in_1 : %s" % t,
             "linalg.yield %%s : %s" % t])
        lines += generic(
            "%%relu%d" % layer, ["#map_id", "#map_id"], PARALLEL,
            [("%%biased%d" % layer, tile)], ("%%empty%d" % layer, tile),
            ["%%in: %s" % t, "%%out: %s" % t],
            ["%%gt = arith.cmpf ugt, %%in, %%zero : %s" % t,
             "%%r = arith.select %%gt, %%in, %%zero : %s" % t,
             "linalg.yield %%r : %s" % t])
        value = "%%relu%d" % layer
    lines += ["  return %s : tensor<%dx%dx%s>" % (value, rows, width, t), "}"]
    lines += ["{-#", "  dialect_resources: {", "    builtin: {",
              ",\n".join(resources), "    }", "  }", "#-}"]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    rows, width, layers = (int(a) for a in sys.argv[1:4])
    sys.stdout.write(program(rows, width, layers, sys.argv[4],
                             int(sys.argv[5])))
