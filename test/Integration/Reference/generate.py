#!/usr/bin/env python3
"""Random well-formed linalg programs, checked against upstream MLIR.

  generate.py emit SEED                      # one program, on stdout
  generate.py check TOOLS --seeds A:B [--target T] [--jobs N]
                    [--keep DIR]
  generate.py stage TOOLS --seeds A:B --dir DIR [--target T] [--jobs N]

A program is a chain of ops over a pool of values (the function's
arguments first): contractions in every spelling (named matmul,
batch_matmul, matvec, matmul with transposing indexing_maps, contraction
generics with the reduction loop anywhere), 2-D convolutions, reductions
(linalg.reduce and generics), linear layers ([out, in] weights, bias and
activation generics), broadcasts, transposes, element-wise chains as
named ops and generics, casts between f16, bf16, f32, f64, i8, i32 and i64,
tensor.pad, slices and reshapes, single elements read out (tensor.extract)
as tensors of their own or scalars of a generic's body; one or two
results. Sizes are small but reach the cases that matter for precision: reductions of up to 2048 terms,
inputs scaled so that f16 overflows, and NaN or infinity in inputs where
the program's ops define what they become. Some programs take dynamic
sizes, some memrefs.

`check` runs each seed's program through sm-run and upstream.py's
reference on the same random inputs and prints one line per program and
a closing `N passed, N failed` line (refusals counted apart: a program the
compiler refuses with a diagnostic is not a wrong answer). `--keep DIR`
writes each disagreeing program there with its seed. `stage` writes
each seed's device plan, inputs and upstream's outputs into DIR/seed_N
for a GPU machine (upstream.py compare checks what it ran; device.sh).
"""

import argparse
import concurrent.futures
import os
import pathlib
import random
import sys

import numpy as np

# The test library (test/lib), also when run by hand.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, os.pardir, "lib"))

from sm_testing.numerics import bf16_bits
from sm_testing.upstream_reference import check, stage_program

FLOATS = ["f16", "bf16", "f32", "f64"]
INTEGERS = ["i8", "i32", "i64"]


def tensor(shape, element):
    return "tensor<%s%s>" % ("".join("%dx" % d for d in shape), element)


def affine(rank, results):
    dims = ", ".join("d%d" % i for i in range(rank))
    return "affine_map<(%s) -> (%s)>" % (
        dims, ", ".join("d%d" % r if isinstance(r, int) else r
                        for r in results))


class Value:
    def __init__(self, name, shape, element):
        self.name, self.shape, self.element = name, tuple(shape), element

    @property
    def type(self):
        return tensor(self.shape, self.element)


class Program:
    """One random program, built op by op."""

    def __init__(self, seed, special=True):
        self.rng = random.Random(seed)
        self.seed = seed
        self.lines, self.arguments, self.pool = [], [], []
        self.counter = 0
        # Input value ranges: normal, large (f16 overflow after products),
        # or with NaN and infinities.
        self.flavour = self.rng.choice(["normal"] * 6 + ["large"] * 2 +
                                       ["special"])
        # NaN and infinities (which Vulkan kernels keep: they declare
        # SignedZeroInfNanPreserve) can be left out (--no-special).
        if self.flavour == "special" and not special:
            self.flavour = "normal"
        self.dynamic = self.rng.random() < 0.2

    def fresh(self, stem="v"):
        self.counter += 1
        return "%%%s%d" % (stem, self.counter)

    def emit(self, text):
        self.lines.append("  " + text)

    def size(self, small=False):
        choices = [1, 3, 8, 16, 24, 32] if small else \
            [1, 2, 5, 8, 16, 17, 24, 32, 40, 64]
        return self.rng.choice(choices)

    def argument(self, shape, element):
        value = Value("%%arg%d" % len(self.arguments), shape, element)
        self.arguments.append(value)
        self.pool.append(value)
        return value

    def empty(self, shape, element):
        name = self.fresh("empty")
        self.emit("%s = tensor.empty() : %s" % (name, tensor(shape, element)))
        return name

    def fill(self, shape, element, scalar="0"):
        init = self.empty(shape, element)
        constant = self.constant(scalar, element)
        name = self.fresh("fill")
        self.emit("%s = linalg.fill ins(%s : %s) outs(%s : %s) -> %s" % (
            name, constant, element, init, tensor(shape, element),
            tensor(shape, element)))
        return name

    def constant(self, scalar, element):
        name = self.fresh("c")
        if element in FLOATS:
            text = scalar if scalar in ("0xFF800000", "0x7F800000") else \
                "%s" % float(scalar)
            if scalar == "-inf":
                text = {"f16": "0xFC00", "bf16": "0xFF80", "f32": "0xFF800000",
                        "f64": "0xFFF0000000000000"}[element]
        else:
            text = str(int(float(scalar)))
        self.emit("%s = arith.constant %s : %s" % (name, text, element))
        return name

    # Picking inputs ---------------------------------------------------------

    def pick(self, element=None, rank=None, min_rank=0):
        candidates = [v for v in self.pool
                      if (element is None or v.element == element) and
                      (rank is None or len(v.shape) == rank) and
                      len(v.shape) >= min_rank]
        return self.rng.choice(candidates) if candidates else None

    def value_of(self, shape, element):
        """A pool value of this shape and element, else a new argument."""
        matches = [v for v in self.pool
                   if v.shape == tuple(shape) and v.element == element]
        if matches and self.rng.random() < 0.7:
            return self.rng.choice(matches)
        return self.argument(shape, element)

    # Ops ----------------------------------------------------------------------

    def elementwise_generic(self, inputs, shape, element, body, maps=None):
        """A parallel generic over `shape` whose body is `body(args)`:
        lines, the yielded name."""
        rank = len(shape)
        maps = maps or [affine(rank, range(rank))] * len(inputs)
        out = self.empty(shape, element)
        name = self.fresh()
        args = ["%%in%d" % i for i in range(len(inputs))]
        self.emit(
            "%s = linalg.generic {indexing_maps = [%s], iterator_types = [%s]}"
            " ins(%s : %s) outs(%s : %s) {" % (
                name, ", ".join(maps + [affine(rank, range(rank))]),
                ", ".join(['"parallel"'] * rank),
                ", ".join(v.name for v in inputs),
                ", ".join(v.type for v in inputs), out,
                tensor(shape, element)))
        self.emit("^bb0(%s, %%out: %s):" % (
            ", ".join("%s: %s" % (a, v.element) for a, v in zip(args, inputs)),
            element))
        body_lines, result = body(args)
        for line in body_lines:
            self.emit("  " + line)
        self.emit("  linalg.yield %s : %s" % (result, element))
        self.emit("} -> %s" % tensor(shape, element))
        return Value(name, shape, element)

    def binary(self):
        a = self.pick()
        if a is None:
            return
        element = a.element
        floating = element in FLOATS
        # The second operand: same shape, or broadcast along the last dims.
        if a.shape and self.rng.random() < 0.3:
            keep = self.rng.randint(0, len(a.shape) - 1)
            b = self.value_of(a.shape[keep:], element)
            maps = [affine(len(a.shape), range(len(a.shape))),
                    affine(len(a.shape), range(keep, len(a.shape)))]
        else:
            b = self.value_of(a.shape, element)
            maps = None
        if floating:
            ops = ["arith.addf", "arith.subf", "arith.mulf", "arith.maximumf",
                   "arith.minimumf", "arith.divf"]
        else:
            ops = ["arith.addi", "arith.subi", "arith.muli", "arith.maxsi",
                   "arith.minsi"]
        op = self.rng.choice(ops)
        named = {"arith.addf": "add", "arith.subf": "sub", "arith.mulf": "mul",
                 "arith.divf": "div", "arith.maximumf": "max",
                 "arith.addi": "add", "arith.subi": "sub", "arith.muli": "mul"}
        if maps is None and op in named and self.rng.random() < 0.5:
            out = self.empty(a.shape, element)
            name = self.fresh()
            self.emit("%s = linalg.%s ins(%s, %s : %s, %s) outs(%s : %s) -> %s"
                      % (name, named[op], a.name, b.name, a.type, b.type, out,
                         a.type, a.type))
            self.pool.append(Value(name, a.shape, element))
            return

        def body(args):
            return ["%%r = %s %s, %s : %s" % (op, args[0], args[1], element)], \
                "%r"
        self.pool.append(self.elementwise_generic([a, b], a.shape, element,
                                                  body, maps))

    def unary(self):
        a = self.pick()
        if a is None:
            return
        element = a.element
        if element in FLOATS:
            choice = self.rng.choice(["exp", "tanh", "abs", "negf", "sqrt",
                                      "relu", "silu", "square"])
            if choice in ("exp", "tanh", "abs", "negf", "sqrt", "square") and \
                    self.rng.random() < 0.4 and choice != "sqrt":
                out = self.empty(a.shape, element)
                name = self.fresh()
                self.emit("%s = linalg.%s ins(%s : %s) outs(%s : %s) -> %s" % (
                    name, choice, a.name, a.type, out, a.type, a.type))
                self.pool.append(Value(name, a.shape, element))
                return

            def body(args):
                x = args[0]
                t = element
                if choice in ("exp", "tanh"):
                    return ["%%r = math.%s %s : %s" % (choice, x, t)], "%r"
                if choice == "abs":
                    return ["%%r = math.absf %s : %s" % (x, t)], "%r"
                if choice == "negf":
                    return ["%%r = arith.negf %s : %s" % (x, t)], "%r"
                if choice == "square":
                    return ["%%r = arith.mulf %s, %s : %s" % (x, x, t)], "%r"
                if choice == "sqrt":
                    return ["%%a = math.absf %s : %s" % (x, t),
                            "%%r = math.sqrt %%a : %s" % t], "%r"
                if choice == "relu":
                    return ["%%z = arith.constant 0.0 : %s" % t,
                            "%%g = arith.cmpf ugt, %s, %%z : %s" % (x, t),
                            "%%r = arith.select %%g, %s, %%z : %s" % (x, t)], \
                        "%r"
                return ["%%n = arith.negf %s : %s" % (x, t),
                        "%%e = math.exp %%n : %s" % t,
                        "%%one = arith.constant 1.0 : %s" % t,
                        "%%d = arith.addf %%e, %%one : %s" % t,
                        "%%r = arith.divf %s, %%d : %s" % (x, t)], "%r"
        else:
            def body(args):
                return ["%%n = arith.constant 3 : %s" % element,
                        "%%m = arith.muli %s, %%n : %s" % (args[0], element),
                        "%%r = arith.xori %%m, %s : %s" % (args[0], element)], \
                    "%r"
        self.pool.append(self.elementwise_generic([a], a.shape, element, body))

    def cast(self):
        a = self.pick()
        if a is None:
            return
        source = a.element
        if source in FLOATS:
            target = self.rng.choice([t for t in FLOATS if t != source])
        else:
            target = self.rng.choice([t for t in INTEGERS + ["f32", "f16"]
                                      if t != source])
        width = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64, "i8": 8,
                 "i32": 32, "i64": 64}

        def body(args):
            x = args[0]
            if source in FLOATS:
                if source == "bf16" and target == "f16" or \
                        source == "f16" and target == "bf16":
                    return ["%%w = arith.extf %s : %s to f32" % (x, source),
                            "%%r = arith.truncf %%w : f32 to %s" % target], \
                        "%r"
                op = "arith.extf" if width[target] > width[source] else \
                    "arith.truncf"
                return ["%%r = %s %s : %s to %s" % (op, x, source, target)], \
                    "%r"
            if target in FLOATS:
                return ["%%r = arith.sitofp %s : %s to %s" % (x, source,
                                                              target)], "%r"
            op = "arith.extsi" if width[target] > width[source] else \
                "arith.trunci"
            return ["%%r = %s %s : %s to %s" % (op, x, source, target)], "%r"
        self.pool.append(self.elementwise_generic([a], a.shape, target, body))

    def contraction_types(self):
        """(input element, output element) of a product."""
        return self.rng.choice([("f16", "f16"), ("f16", "f32"),
                                ("bf16", "bf16"), ("bf16", "f32"),
                                ("f32", "f32"), ("f64", "f64"),
                                ("i8", "i32"), ("i32", "i32"),
                                ("f16", "f16"), ("f32", "f32")])

    def contraction(self):
        source, result = self.contraction_types()
        m, n = self.size(), self.size()
        k = self.rng.choice([1, 8, 16, 24, 32, 64, 100, 256, 2048])
        kind = self.rng.choice(["matmul", "matmul_bt", "matmul_at",
                                "batch_matmul", "matvec", "generic",
                                "generic_kfirst"])
        batch = self.rng.choice([1, 2, 3])
        if kind == "matvec":
            a = self.value_of((m, k), source)
            b = self.value_of((k,), source)
            shape = (m,)
        elif kind == "batch_matmul":
            a = self.value_of((batch, m, k), source)
            b = self.value_of((batch, k, n), source)
            shape = (batch, m, n)
        elif kind == "matmul_bt":
            a = self.value_of((m, k), source)
            b = self.value_of((n, k), source)
            shape = (m, n)
        elif kind == "matmul_at":
            a = self.value_of((k, m), source)
            b = self.value_of((k, n), source)
            shape = (m, n)
        else:
            a = self.value_of((m, k), source)
            b = self.value_of((k, n), source)
            shape = (m, n)
        # The accumulator: zero, or a value of the pool.
        if self.rng.random() < 0.75:
            init = self.fill(shape, result)
        else:
            init = self.value_of(shape, result).name
        name = self.fresh()
        out_type = tensor(shape, result)
        if kind in ("matmul", "batch_matmul", "matvec"):
            self.emit("%s = linalg.%s ins(%s, %s : %s, %s) outs(%s : %s) -> %s"
                      % (name, kind, a.name, b.name, a.type, b.type, init,
                         out_type, out_type))
        elif kind in ("matmul_bt", "matmul_at"):
            maps = ([affine(3, [0, 2]), affine(3, [1, 2]), affine(3, [0, 1])]
                    if kind == "matmul_bt" else
                    [affine(3, [2, 0]), affine(3, [2, 1]), affine(3, [0, 1])])
            self.emit("%s = linalg.matmul indexing_maps = [%s] ins(%s, %s : "
                      "%s, %s) outs(%s : %s) -> %s" % (
                          name, ", ".join(maps), a.name, b.name, a.type,
                          b.type, init, out_type, out_type))
        else:
            # (m, n, k) or (k, m, n) loop order.
            if kind == "generic":
                maps = [affine(3, [0, 2]), affine(3, [2, 1]), affine(3, [0, 1])]
                iterators = '"parallel", "parallel", "reduction"'
            else:
                maps = [affine(3, [1, 0]), affine(3, [0, 2]), affine(3, [1, 2])]
                iterators = '"reduction", "parallel", "parallel"'
            self.emit("%s = linalg.generic {indexing_maps = [%s], "
                      "iterator_types = [%s]} ins(%s, %s : %s, %s) outs(%s : "
                      "%s) {" % (name, ", ".join(maps), iterators, a.name,
                                 b.name, a.type, b.type, init, out_type))
            self.emit("^bb0(%%x: %s, %%y: %s, %%acc: %s):" % (source, source,
                                                            result))
            x, y = "%x", "%y"
            if source != result:
                cast = "arith.extf" if source in FLOATS else "arith.extsi"
                self.emit("  %%xw = %s %%x : %s to %s" % (cast, source, result))
                self.emit("  %%yw = %s %%y : %s to %s" % (cast, source, result))
                x, y = "%xw", "%yw"
            mul, add = ("arith.mulf", "arith.addf") if result in FLOATS else \
                ("arith.muli", "arith.addi")
            self.emit("  %%p = %s %s, %s : %s" % (mul, x, y, result))
            self.emit("  %%s = %s %%acc, %%p : %s" % (add, result))
            self.emit("  linalg.yield %%s : %s" % result)
            self.emit("} -> %s" % out_type)
        self.pool.append(Value(name, shape, result))

    def layer(self):
        """A linear layer as front-ends write it: a [out, in] weight read
        transposed (through indexing_maps, or a linalg.transpose first), a
        product into a zero fill, a broadcast bias added and an activation
        (ReLU or SiLU), as generics: the epilogue the kernels fuse."""
        x = self.pick(rank=2)
        if x is None or x.element not in FLOATS:
            source, _ = self.rng.choice([("f16", 0), ("bf16", 0), ("f32", 0)])
            x = self.argument((self.size(), self.rng.choice([16, 64, 256])),
                              source)
        element = x.element
        m, k = x.shape
        n = self.rng.choice([8, 16, 24, 40, 64])
        weight = self.value_of((n, k), element)
        result = element if element != "f64" else "f64"
        init = self.fill((m, n), result)
        name = self.fresh()
        out_type = tensor((m, n), result)
        if self.rng.random() < 0.5:
            self.emit("%s = linalg.matmul indexing_maps = [%s] ins(%s, %s : "
                      "%s, %s) outs(%s : %s) -> %s" % (
                          name, ", ".join([affine(3, [0, 2]), affine(3, [1, 2]),
                                           affine(3, [0, 1])]),
                          x.name, weight.name, x.type, weight.type, init,
                          out_type, out_type))
        else:
            transposed = self.empty((k, n), element)
            wt = self.fresh()
            self.emit("%s = linalg.transpose ins(%s : %s) outs(%s : %s) "
                      "permutation = [1, 0]" % (wt, weight.name, weight.type,
                                                transposed,
                                                tensor((k, n), element)))
            self.emit("%s = linalg.matmul ins(%s, %s : %s, %s) outs(%s : %s)"
                      " -> %s" % (name, x.name, wt, x.type,
                                  tensor((k, n), element), init, out_type,
                                  out_type))
        product = Value(name, (m, n), result)
        bias = self.value_of((n,), result)

        def add_bias(args):
            return ["%%r = arith.addf %s, %s : %s" % (args[0], args[1],
                                                      result)], "%r"
        biased = self.elementwise_generic(
            [product, bias], (m, n), result, add_bias,
            [affine(2, [0, 1]), affine(2, [1])])
        activation = self.rng.choice(["relu", "silu", "none"])
        if activation != "none":
            def activate(args):
                x, t = args[0], result
                if activation == "relu":
                    return ["%%z = arith.constant 0.0 : %s" % t,
                            "%%r = arith.maximumf %s, %%z : %s" % (x, t)], "%r"
                return ["%%n = arith.negf %s : %s" % (x, t),
                        "%%e = math.exp %%n : %s" % t,
                        "%%one = arith.constant 1.0 : %s" % t,
                        "%%d = arith.addf %%e, %%one : %s" % t,
                        "%%r = arith.divf %s, %%d : %s" % (x, t)], "%r"
            biased = self.elementwise_generic([biased], (m, n), result,
                                              activate)
        self.pool.append(biased)

    def reduction(self):
        a = self.pick(min_rank=1)
        if a is None:
            return
        element = a.element
        dim = self.rng.randrange(len(a.shape))
        shape = a.shape[:dim] + a.shape[dim + 1:]
        floating = element in FLOATS
        kind = self.rng.choice(["add", "max", "min"])
        op = {"add": "arith.addf" if floating else "arith.addi",
              "max": "arith.maximumf" if floating else "arith.maxsi",
              "min": "arith.minimumf" if floating else "arith.minsi"}[kind]
        if kind == "add":
            start = "0"
        elif floating:
            start = "-inf" if kind == "max" else "inf"
        else:
            start = str(-(1 << 7) if kind == "max" else (1 << 7) - 1) \
                if element == "i8" else \
                str(-(1 << 31) if kind == "max" else (1 << 31) - 1)
        if floating and start == "inf":
            init = self.fill_raw(shape, element, {
                "f16": "0x7C00", "bf16": "0x7F80", "f32": "0x7F800000",
                "f64": "0x7FF0000000000000"}[element])
        elif floating and start == "-inf":
            init = self.fill_raw(shape, element, {
                "f16": "0xFC00", "bf16": "0xFF80", "f32": "0xFF800000",
                "f64": "0xFFF0000000000000"}[element])
        else:
            init = self.fill(shape, element, start)
        name = self.fresh()
        if self.rng.random() < 0.5:
            self.emit("%s = linalg.reduce ins(%s : %s) outs(%s : %s) "
                      "dimensions = [%d]" % (name, a.name, a.type, init,
                                             tensor(shape, element), dim))
            self.emit("  (%%in: %s, %%acc: %s) {" % (element, element))
            self.emit("    %%r = %s %%in, %%acc : %s" % (op, element))
            self.emit("    linalg.yield %%r : %s" % element)
            self.emit("  }")
        else:
            rank = len(a.shape)
            iterators = ", ".join('"reduction"' if d == dim else '"parallel"'
                                  for d in range(rank))
            self.emit("%s = linalg.generic {indexing_maps = [%s, %s], "
                      "iterator_types = [%s]} ins(%s : %s) outs(%s : %s) {" % (
                          name, affine(rank, range(rank)),
                          affine(rank, [d for d in range(rank) if d != dim]),
                          iterators, a.name, a.type, init,
                          tensor(shape, element)))
            self.emit("^bb0(%%in: %s, %%acc: %s):" % (element, element))
            self.emit("  %%r = %s %%acc, %%in : %s" % (op, element))
            self.emit("  linalg.yield %%r : %s" % element)
            self.emit("} -> %s" % tensor(shape, element))
        self.pool.append(Value(name, shape, element))

    def fill_raw(self, shape, element, bits):
        init = self.empty(shape, element)
        constant = self.fresh("c")
        self.emit("%s = arith.constant %s : %s" % (constant, bits, element))
        name = self.fresh("fill")
        self.emit("%s = linalg.fill ins(%s : %s) outs(%s : %s) -> %s" % (
            name, constant, element, init, tensor(shape, element),
            tensor(shape, element)))
        return name

    def transpose(self):
        a = self.pick(min_rank=2)
        if a is None:
            return
        permutation = list(range(len(a.shape)))
        while permutation == sorted(permutation):
            self.rng.shuffle(permutation)
        shape = tuple(a.shape[p] for p in permutation)
        out = self.empty(shape, a.element)
        name = self.fresh()
        self.emit("%s = linalg.transpose ins(%s : %s) outs(%s : %s) "
                  "permutation = [%s]" % (name, a.name, a.type, out,
                                          tensor(shape, a.element),
                                          ", ".join(map(str, permutation))))
        self.pool.append(Value(name, shape, a.element))

    def broadcast(self):
        a = self.pick()
        if a is None or len(a.shape) > 2:
            return
        position = self.rng.randint(0, len(a.shape))
        extent = self.size(small=True)
        shape = a.shape[:position] + (extent,) + a.shape[position:]
        out = self.empty(shape, a.element)
        name = self.fresh()
        self.emit("%s = linalg.broadcast ins(%s : %s) outs(%s : %s) "
                  "dimensions = [%d]" % (name, a.name, a.type, out,
                                         tensor(shape, a.element), position))
        self.pool.append(Value(name, shape, a.element))

    def reshape(self):
        a = self.pick(min_rank=2)
        if a is not None and self.rng.random() < 0.5:
            shape = (a.shape[0] * a.shape[1],) + a.shape[2:]
            groups = [[0, 1]] + [[i] for i in range(2, len(a.shape))]
            name = self.fresh()
            self.emit("%s = tensor.collapse_shape %s %s : %s into %s" % (
                name, a.name, str(groups), a.type, tensor(shape, a.element)))
            self.pool.append(Value(name, shape, a.element))
            return
        a = self.pick(min_rank=1)
        if a is None or len(a.shape) > 3 or a.shape[0] % 2:
            return
        shape = (2, a.shape[0] // 2) + a.shape[1:]
        groups = [[0, 1]] + [[i + 1] for i in range(1, len(a.shape))]
        name = self.fresh()
        self.emit("%s = tensor.expand_shape %s %s output_shape [%s] : %s "
                  "into %s" % (name, a.name, str(groups),
                               ", ".join(map(str, shape)), a.type,
                               tensor(shape, a.element)))
        self.pool.append(Value(name, shape, a.element))

    def slice(self):
        a = self.pick(min_rank=1)
        if a is None:
            return
        offsets, sizes = [], []
        for d in a.shape:
            size = self.rng.randint(1, d)
            offsets.append(self.rng.randint(0, d - size))
            sizes.append(size)
        name = self.fresh()
        self.emit("%s = tensor.extract_slice %s[%s] [%s] [%s] : %s to %s" % (
            name, a.name, ", ".join(map(str, offsets)),
            ", ".join(map(str, sizes)), ", ".join("1" for _ in sizes), a.type,
            tensor(sizes, a.element)))
        self.pool.append(Value(name, sizes, a.element))

    def pad(self):
        a = self.pick(min_rank=1)
        if a is None or len(a.shape) > 4:
            return
        low = [self.rng.randint(0, 2) for _ in a.shape]
        high = [self.rng.randint(0, 2) for _ in a.shape]
        shape = tuple(d + lo + hi for d, lo, hi in zip(a.shape, low, high))
        value = self.constant("0" if self.rng.random() < 0.7 else "1",
                              a.element)
        name = self.fresh()
        self.emit("%s = tensor.pad %s low[%s] high[%s] {" % (
            name, a.name, ", ".join(map(str, low)), ", ".join(map(str, high))))
        self.emit("^bb0(%s):" % ", ".join("%%i%d: index" % i
                                          for i in range(len(a.shape))))
        self.emit("  tensor.yield %s : %s" % (value, a.element))
        self.emit("} : %s to %s" % (a.type, tensor(shape, a.element)))
        self.pool.append(Value(name, shape, a.element))

    def convolution(self):
        element, result = self.rng.choice([("f16", "f32"), ("f32", "f32"),
                                           ("f16", "f16"), ("bf16", "f32")])
        n, h, w = 1, self.rng.choice([4, 6, 9]), self.rng.choice([4, 7, 8])
        c, f = self.rng.choice([3, 8, 16]), self.rng.choice([8, 16, 24])
        kh, kw = self.rng.choice([(1, 1), (3, 3), (2, 3)])
        stride = self.rng.choice([1, 2])
        if h < kh or w < kw:
            return
        oh, ow = (h - kh) // stride + 1, (w - kw) // stride + 1
        x = self.value_of((n, h, w, c), element)
        k = self.value_of((kh, kw, c, f), element)
        init = self.fill((n, oh, ow, f), result)
        name = self.fresh()
        out_type = tensor((n, oh, ow, f), result)
        self.emit("%s = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : "
                  "tensor<2xi64>, strides = dense<%d> : tensor<2xi64>} ins(%s,"
                  " %s : %s, %s) outs(%s : %s) -> %s" % (
                      name, stride, x.name, k.name, x.type, k.type, init,
                      out_type, out_type))
        self.pool.append(Value(name, (n, oh, ow, f), result))

    # The whole program -------------------------------------------------------

    def build(self):
        operations = [(self.contraction, 5), (self.layer, 3),
                      (self.binary, 4),
                      (self.unary, 3), (self.cast, 2), (self.reduction, 3),
                      (self.transpose, 1), (self.broadcast, 1),
                      (self.reshape, 1), (self.slice, 1), (self.pad, 1),
                      (self.convolution, 1), (self.element, 1)]
        first = self.rng.choice([self.contraction, self.contraction,
                                 self.layer, self.convolution,
                                 self.reduction_start])
        first()
        for _ in range(self.rng.randint(1, 5)):
            step = self.rng.choices([o for o, _ in operations],
                                    [w for _, w in operations])[0]
            step()
        computed = [v for v in self.pool if v not in self.arguments]
        results = [computed[-1]]
        if len(computed) > 1 and self.rng.random() < 0.3:
            other = self.rng.choice(computed[:-1])
            if other.name != results[0].name:
                results.append(other)
        return results

    def element(self):
        """One element read out of a tensor (tensor.extract at constant
        indices): as a tensor of its own (tensor.from_elements), or as a
        scalar that a generic's body uses from outside."""
        a = self.pick(min_rank=1)
        if a is None:
            return
        indices = []
        for extent in a.shape:
            index = self.fresh("i")
            self.emit("%s = arith.constant %d : index" % (
                index, self.rng.randrange(extent)))
            indices.append(index)
        scalar = self.fresh("x")
        self.emit("%s = tensor.extract %s[%s] : %s" % (
            scalar, a.name, ", ".join(indices), a.type))
        b = self.pick(element=a.element, min_rank=1)
        if b is None or self.rng.random() < 0.4:
            name = self.fresh()
            self.emit("%s = tensor.from_elements %s : %s" % (
                name, scalar, tensor((1,), a.element)))
            self.pool.append(Value(name, (1,), a.element))
            return
        operation = "arith.mulf" if a.element in FLOATS else "arith.addi"

        def body(args):
            return ["%%r = %s %s, %s : %s" % (operation, args[0], scalar,
                                              a.element)], "%r"
        self.pool.append(self.elementwise_generic([b], b.shape, a.element,
                                                  body))

    def reduction_start(self):
        element = self.rng.choice(FLOATS + INTEGERS)
        self.argument((self.size(), self.rng.choice([8, 100, 2048])),
                      element)
        self.reduction()

    def text(self):
        results = self.build()
        arguments = []
        for value in self.arguments:
            shape = value.shape
            if self.dynamic and shape:
                shape_text = "?x" + "".join("%dx" % d for d in shape[1:])
                arguments.append("%s: tensor<%s%s>" % (
                    value.name, shape_text, value.element))
            else:
                arguments.append("%s: %s" % (value.name, value.type))
        body = self.lines
        if self.dynamic:
            # The dynamic arguments are cast to their static shapes at
            # once: the sizes are known only at run time to the compiler.
            casts = []
            for value in self.arguments:
                if value.shape:
                    dynamic = "tensor<?x%s%s>" % (
                        "".join("%dx" % d for d in value.shape[1:]),
                        value.element)
                    casts.append("  %s_s = tensor.cast %s : %s to %s" % (
                        value.name, value.name, dynamic, value.type))
            body = casts + [self.static_names(line) for line in body]
            results_text = [self.static_names(v.name) for v in results]
        else:
            results_text = [v.name for v in results]
        header = "// generate.py emit %d (%s inputs)\n" % (self.seed,
                                                           self.flavour)
        if self.dynamic:
            header += "// SHAPES: %s\n" % " ".join(
                "x".join(str(d) for d in v.shape) for v in self.arguments)
        return header + "func.func @main(%s) -> (%s) {\n%s\n  return %s : " \
            "%s\n}\n" % (", ".join(arguments),
                         ", ".join(v.type for v in results),
                         "\n".join(body), ", ".join(results_text),
                         ", ".join(v.type for v in results))

    def static_names(self, line):
        import re
        return re.sub(r"(%arg\d+)\b", r"\1_s", line)

    def inputs(self, rng):
        """Random inputs for the program's arguments, by flavour."""
        arrays = []
        for value in self.arguments:
            shape = value.shape
            if value.element in FLOATS:
                scale = 1.0
                if self.flavour == "large":
                    scale = {"f16": 60.0, "bf16": 1e4, "f32": 1e4,
                             "f64": 1e6}[value.element]
                values = rng.uniform(-scale, scale, shape)
                if self.flavour == "special" and values.size:
                    flat = values.reshape(-1)
                    for special in (np.nan, np.inf, -np.inf):
                        flat[rng.integers(0, flat.size)] = special
                if value.element == "bf16":
                    arrays.append(bf16_bits(values))
                else:
                    arrays.append(np.asarray(values, {
                        "f16": np.float16, "f32": np.float32,
                        "f64": np.float64}[value.element]))
            else:
                low, high = {"i8": (-128, 127), "i32": (-1000, 1000),
                             "i64": (-10 ** 6, 10 ** 6)}[value.element]
                if self.flavour == "large" and value.element != "i8":
                    low, high = -(1 << 30), (1 << 30)
                arrays.append(rng.integers(low, high + 1, shape).astype({
                    "i8": np.int8, "i32": np.int32,
                    "i64": np.int64}[value.element]))
        return arrays


def check_seed(tools, target, seed, keep, special=True):
    program = Program(seed, special)
    text = program.text()
    arrays = program.inputs(np.random.default_rng(seed))
    try:
        status, detail = check(tools, text, target, arrays)
    except Exception as error:  # the checker's own failure, reported
        status, detail = "UNCHECKED", "%s: %s" % (type(error).__name__, error)
    if keep and status == "FAILED":
        path = pathlib.Path(keep) / ("seed_%d.mlir" % seed)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return seed, status, detail.replace("\n", " ")[:600]


def stage_seed(tools, target, seed, root, special=True):
    program = Program(seed, special)
    try:
        return stage_program(
            tools, program.text(), program.inputs(np.random.default_rng(seed)),
            pathlib.Path(root) / ("seed_%d" % seed), target)
    except Exception as error:  # the checker's own failure, reported
        return "UNCHECKED seed_%d: %s: %s" % (seed, type(error).__name__,
                                              error)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["emit", "check", "stage"])
    parser.add_argument("argument",
                        help="SEED (emit) or TOOLS (check, stage)")
    parser.add_argument("--dir", help="stage: where the plans go")
    parser.add_argument("--seeds", default="0:100")
    parser.add_argument("--target", default="cpu-lavapipe")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--keep")
    parser.add_argument("--no-special", dest="special", action="store_false",
                        help="keep NaN and infinities out of the inputs")
    options = parser.parse_args()
    if options.command == "emit":
        sys.stdout.write(Program(int(options.argument),
                                 options.special).text())
        return 0
    first, last = (int(s) for s in options.seeds.split(":"))
    if options.command == "stage":
        with concurrent.futures.ThreadPoolExecutor(options.jobs) as pool:
            for line in pool.map(
                    lambda s: stage_seed(options.argument, options.target, s,
                                         options.dir, options.special),
                    range(first, last)):
                print(line.replace("\n", " ")[:600], flush=True)
        return 0
    counts = {}
    with concurrent.futures.ThreadPoolExecutor(options.jobs) as pool:
        for seed, status, detail in pool.map(
                lambda s: check_seed(options.argument, options.target, s,
                                     options.keep, options.special),
                range(first, last)):
            counts[status] = counts.get(status, 0) + 1
            print("%s seed %d: %s" % (status, seed, detail), flush=True)
    print("refused %d, unchecked %d" % (counts.get("REFUSED", 0),
                                        counts.get("UNCHECKED", 0)))
    print("%d passed, %d failed" % (counts.get("PASSED", 0),
                                    counts.get("FAILED", 0)))
    return 1 if counts.get("FAILED") or counts.get("UNCHECKED") else 0


if __name__ == "__main__":
    sys.exit(main())
