#!/usr/bin/env python3
"""Execution suite of sm-linalg-to-gpu: linalg programs as front-ends write
them (tensors and memrefs, batches, transposed operands, fused extensions
and epilogues, 1x1 convolutions, split K, reductions), compiled for a
target, run whole by sm-run (the runtime executes the host function: its
allocations poisoned, its arguments fresh random values) and compared with
this file's own double-precision evaluation of the program. Each case also says how many launches the
program must become (fusion shows as one).

  suite.py generate TARGET OUT          write OUT/<case>.mlir (the programs)
  suite.py build PATH OUT TOOLS [--spirv-val SPIRV_VAL]
  suite.py run PATH OUT TOOLS [--spirv-val X] [--only TEXT] [--skip TEXT]
                               [--seed N] [--stage DIR]
  suite.py check DIR                    check staged runs that ran elsewhere
PATH is vulkan, intel or msl: how the kernels are checked besides running
(Vulkan SPIR-V and Intel OpenCL SPIR-V through spirv-val); sm-run runs the
program on the target's device (the CPU host runners for Intel and Apple).
"""

import argparse
import concurrent.futures
import importlib.util
import math
import os
import random
import re
import sys

import numpy as np

# The element helpers of the convert/map/reduce suite, loaded by path (both
# files are named suite.py).
_helpers_spec = importlib.util.spec_from_file_location(
    "matrix_functions_suite",
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                 "MatrixFunctions", "suite.py"))
_helpers = importlib.util.module_from_spec(_helpers_spec)
_helpers_spec.loader.exec_module(_helpers)
run_tool = _helpers.run_tool
round_f16, round_f32 = _helpers.round_f16, _helpers.round_f32

# Per target: the input and accumulator element types of its products and
# whether it takes an f16 output of the epilogue.
TARGETS = {
    "nvidia-h100": dict(inputs="f16", acc="f32"),
    "amd-rdna3": dict(inputs="f16", acc="f32"),
    "intel-xe-hpc": dict(inputs="f16", acc="f32"),
    "apple-m1": dict(inputs="f32", acc="f32"),
    "cpu-lavapipe": dict(inputs="f16", acc="f32"),
    "cpu-lavapipe-coopmat": dict(inputs="f16", acc="f32"),
}

RUNNER_TYPE = {"f16": "f16", "bf16": "bf16", "f32": "f32", "si8": "i8",
               "si32": "i32", "ui8": "u8", "ui32": "u32"}


def round_to(value, storage):
    if storage == "f16":
        return round_f16(value)
    if storage == "bf16":
        return _helpers.round_bf16(value)
    if storage == "f32":
        return round_f32(value)
    return value


class Case:
    """A program: its text, its inputs in the order of the function's
    arguments (name, shape, storage, distribution), its output (returned;
    None when the program writes its last argument) and its reference.
    A program on dynamic sizes has `variants` instead: (inputs, reference)
    pairs at different sizes, all run with the one compiled program."""

    def __init__(self, name, text, inputs, output, reference, tolerance,
                 launches=1, options="", variants=None):
        self.name, self.text, self.inputs = name, text, inputs
        self.output, self.reference, self.tolerance = (output, reference,
                                                       tolerance)
        # How many kernel launches the program must become, and options of
        # sm-linalg-to-gpu beyond the target.
        self.launches, self.options = launches, options
        self.variants = variants or [(inputs, reference)]


def memref(shape, storage):
    return "memref<%s>" % "x".join([str(d) for d in shape] + [storage])


def tensor(shape, storage):
    return "tensor<%s>" % "x".join([str(d) for d in shape] + [storage])


def filled_matmul_program(name, m, n, k, t, acc):
    """A product on tensors whose accumulator is a zero fill."""
    return """func.func @%(name)s(%%a: %(a)s, %%b: %(b)s) -> %(c)s {
  %%zero = arith.constant 0.0 : %(acc)s
  %%e = tensor.empty() : %(c)s
  %%f = linalg.fill ins(%%zero : %(acc)s) outs(%%e : %(c)s) -> %(c)s
  %%r = linalg.matmul ins(%%a, %%b : %(a)s, %(b)s) outs(%%f : %(c)s) -> %(c)s
  return %%r : %(c)s
}
""" % dict(name=name, a=tensor((m, k), t), b=tensor((k, n), t),
           c=tensor((m, n), acc), acc=acc)


def accumulating_matmul_case(name, m, n, k, t, acc, unit, options=""):
    """A product on memrefs that accumulates into C (random, so a result
    that misses C or an element left unwritten shows)."""
    text = """func.func @%(name)s(%%a: %(a)s, %%b: %(b)s, %%c: %(c)s) {
  linalg.matmul ins(%%a, %%b : %(a)s, %(b)s) outs(%%c : %(c)s)
  return
}
""" % dict(name=name, a=memref((m, k), t), b=memref((k, n), t),
           c=memref((m, n), acc))
    return Case(name, text,
                [("a", (m, k), t, unit), ("b", (k, n), t, unit),
                 ("c", (m, n), acc, unit)],
                None,
                lambda x: [p + c for p, c in zip(
                    matmul_reference(x[0], x[1], m, n, k), x[2])],
                1e-3, options=options)


def matmul_reference(a, b, m, n, k, transposed_a=False, transposed_b=False,
                     batch=1, a_batched=True):
    """C[b][i][j] = sum A * B in double precision, row-major flat lists."""
    out = []
    for p in range(batch):
        a0 = p * m * k if a_batched else 0
        b0 = p * k * n
        for i in range(m):
            for j in range(n):
                total = 0.0
                for q in range(k):
                    x = a[a0 + (q * m + i if transposed_a else i * k + q)]
                    y = b[b0 + (j * k + q if transposed_b else q * n + j)]
                    total += x * y
                out.append(total)
    return out


GELU_TANH = """
%x3 = arith.mulf %x, %x : f32
%x3b = arith.mulf %x3, %x : f32
%c0 = arith.constant 0.044715 : f32
%t0 = arith.mulf %x3b, %c0 : f32
%t1 = arith.addf %x, %t0 : f32
%c1 = arith.constant 0.7978845608028654 : f32
%t2 = arith.mulf %t1, %c1 : f32
%th = math.tanh %t2 : f32
%one = arith.constant 1.0 : f32
%t3 = arith.addf %th, %one : f32
%half = arith.constant 0.5 : f32
%hx = arith.mulf %x, %half : f32
%y = arith.mulf %hx, %t3 : f32"""


def gelu_tanh(x):
    return 0.5 * x * (1 + math.tanh(0.7978845608028654 * (x + 0.044715 * x ** 3)))


SILU = """
%nx = arith.negf %x : f32
%ex = math.exp %nx : f32
%one = arith.constant 1.0 : f32
%d = arith.addf %ex, %one : f32
%y = arith.divf %x, %d : f32"""


def silu(x):
    return x / (1 + math.exp(-x))


def epilogue_program(name, m, n, k, t, acc, extra_inputs, body, out_storage,
                     use_tensors=True, outs_reused=False):
    """matmul (fill 0) then one linalg.generic over the result and
    `extra_inputs` [(name, shape, map)], with `body` computing %y from %x
    (the product) and the extras' block arguments. With `outs_reused` the
    generic writes into the product's tensor.empty, as some front-ends
    do."""
    ident = "affine_map<(d0, d1) -> (d0, d1)>"
    ty = tensor if use_tensors else memref
    args = ["%%a: %s" % ty((m, k), t), "%%b: %s" % ty((k, n), t)]
    args += ["%%%s: %s" % (nm, ty(shape, acc)) for nm, shape, _ in extra_inputs]
    maps = [ident] + [mp for _, _, mp in extra_inputs] + [ident]
    block_args = ["%x: f32"] + ["%%%s_v: f32" % nm for nm, _, _ in extra_inputs]
    block_args.append("%%o: %s" % out_storage)
    ins = ", ".join(["%mm"] + ["%%%s" % nm for nm, _, _ in extra_inputs])
    in_types = ", ".join([ty((m, n), acc)] + [ty(shape, acc)
                                                for _, shape, _ in extra_inputs])
    out_ty = ty((m, n), out_storage)
    body_lines = "\n".join("    " + l for l in body.strip().splitlines())
    if use_tensors:
        return """func.func @%(name)s(%(args)s) -> %(out_ty)s {
  %%zero = arith.constant 0.0 : %(acc)s
  %%e = tensor.empty() : %(acc_ty)s
  %%acc = linalg.fill ins(%%zero : %(acc)s) outs(%%e : %(acc_ty)s) -> %(acc_ty)s
  %%mm = linalg.matmul ins(%%a, %%b : %(a_ty)s, %(b_ty)s) outs(%%acc : %(acc_ty)s) -> %(acc_ty)s
  %%e2 = tensor.empty() : %(out_ty)s
  %%r = linalg.generic {indexing_maps = [%(maps)s], iterator_types = ["parallel", "parallel"]}
      ins(%(ins)s : %(in_types)s) outs(%(outs)s : %(out_ty)s) {
  ^bb0(%(block_args)s):
%(body)s
    linalg.yield %%y : %(out)s
  } -> %(out_ty)s
  return %%r : %(out_ty)s
}
""" % dict(name=name, args=", ".join(args), out_ty=out_ty, acc=acc,
           acc_ty=ty((m, n), acc), a_ty=ty((m, k), t), b_ty=ty((k, n), t),
           maps=", ".join(maps), ins=ins, in_types=in_types,
           block_args=", ".join(block_args), body=body_lines, out=out_storage,
           outs="%e" if outs_reused else "%e2")
    raise NotImplementedError


def attention_program(name, batch, sq, sk, d, t, causal, out, heads=None,
                      additive_mask=False):
    """softmax(Q K^T / sqrt(d) [causal mask]) V as front-ends write it on
    tensors: two batch_matmuls around linalg.softmax, the scale (and mask)
    an element-wise op on the scores, P cast to the input type (unless
    f32), O cast to `out` (unless f32). With `heads`, Q, K, V and the
    result are batch/heads x heads x ... tensors, reshaped to and from the
    folded form; with `additive_mask`, a sq x sk f32 mask (a fourth
    argument, shared by the batch) is added to the scaled scores."""
    text = attention_folded(name, batch, sq, sk, d, t, causal, out,
                            additive_mask)
    if not heads:
        return text
    folded = lambda rows: tensor((batch, rows, d), t)  # noqa
    split = lambda rows, e=t: tensor((batch // heads, heads, rows, d), e)  # noqa
    r_folded, r_split = tensor((batch, sq, d), out), split(sq, out)
    header = text[:text.index("{\n") + 2]
    new_header = header
    for name_, rows in (("q", sq), ("k", sk), ("v", sk)):
        new_header = new_header.replace(
            "%%%s: %s" % (name_, folded(rows)),
            "%%%s4: %s" % (name_, split(rows)), 1)
    new_header = new_header.replace("-> %s {" % r_folded, "-> %s {" % r_split)
    for name_, rows in (("q", sq), ("k", sk), ("v", sk)):
        new_header += ("  %%%s = tensor.collapse_shape %%%s4 [[0, 1], [2], "
                       "[3]] : %s into %s\n" % (name_, name_, split(rows),
                                                folded(rows)))
    result = text[text.rindex("  return ") + 9:text.rindex(" : ")]
    tail = ("  %%split = tensor.expand_shape %s [[0, 1], [2], [3]] "
            "output_shape [%d, %d, %d, %d] : %s into %s\n"
            "  return %%split : %s\n}\n" % (
                result, batch // heads, heads, sq, d, r_folded, r_split,
                r_split))
    return new_header + text[len(header):text.rindex("  return ")] + tail


def attention_folded(name, batch, sq, sk, d, t, causal, out, additive_mask):
    q, kv = tensor((batch, sq, d), t), tensor((batch, sk, d), t)
    s_ty, p_ty = tensor((batch, sq, sk), "f32"), tensor((batch, sq, sk), t)
    o_ty, r_ty = tensor((batch, sq, d), "f32"), tensor((batch, sq, d), out)
    ident3 = "affine_map<(b, i, j) -> (b, i, j)>"
    mask = """
    %%i = linalg.index 1 : index
    %%j = linalg.index 2 : index
    %%above = arith.cmpi ugt, %%j, %%i : index
    %%ninf = arith.constant 0xFF800000 : f32
    %%y = arith.select %%above, %%ninf, %%scaled : f32""" if causal else """
    %%y = arith.addf %%scaled, %%bias : f32""" if additive_mask else """
    %%y = arith.addf %%scaled, %%zero : f32"""
    mask_ty = tensor((sq, sk), "f32")
    mask_argument = ", %%mask: %s" % mask_ty if additive_mask else ""
    mask_input = (", %%mask : %s, %s" % (s_ty, mask_ty) if additive_mask
                  else " : %s" % s_ty)
    mask_map = ", affine_map<(b, i, j) -> (i, j)>" if additive_mask else ""
    text = """func.func @%(name)s(%%q: %(q)s, %%k: %(kv)s, %%v: %(kv)s%(mask_argument)s) -> %(r)s {
  %%zero = arith.constant 0.0 : f32
  %%e = tensor.empty() : %(s)s
  %%f = linalg.fill ins(%%zero : f32) outs(%%e : %(s)s) -> %(s)s
  %%s = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
    ins(%%q, %%k : %(q)s, %(kv)s) outs(%%f : %(s)s) -> %(s)s
  %%e1 = tensor.empty() : %(s)s
  %%m = linalg.generic {indexing_maps = [%(id)s%(mask_map)s, %(id)s], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%%s%(mask_input)s) outs(%%e1 : %(s)s) {
  ^bb0(%%x: f32%(mask_block)s, %%o: f32):
    %%c = arith.constant %(scale)r : f32
    %%scaled = arith.mulf %%x, %%c : f32%(mask)s
    linalg.yield %%y : f32
  } -> %(s)s
  %%e2 = tensor.empty() : %(s)s
  %%p = linalg.softmax dimension(2) ins(%%m : %(s)s) outs(%%e2 : %(s)s) -> %(s)s
""" % dict(name=name, q=q, kv=kv, s=s_ty, r=r_ty, id=ident3,
           scale=1.0 / math.sqrt(d), mask=mask % {},
           mask_argument=mask_argument, mask_input=mask_input,
           mask_map=mask_map,
           mask_block=", %bias: f32" if additive_mask else "")
    p_name = "%p"
    if t != "f32":
        text += """  %%e3 = tensor.empty() : %(pt)s
  %%pn = linalg.generic {indexing_maps = [%(id)s, %(id)s], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%%p : %(s)s) outs(%%e3 : %(pt)s) {
  ^bb0(%%x: f32, %%o: %(t)s):
    %%y = arith.truncf %%x : f32 to %(t)s
    linalg.yield %%y : %(t)s
  } -> %(pt)s
""" % dict(pt=p_ty, id=ident3, s=s_ty, t=t)
        p_name = "%pn"
    text += """  %%e4 = tensor.empty() : %(o)s
  %%f4 = linalg.fill ins(%%zero : f32) outs(%%e4 : %(o)s) -> %(o)s
  %%out = linalg.batch_matmul ins(%(p)s, %%v : %(pt)s, %(kv)s) outs(%%f4 : %(o)s) -> %(o)s
""" % dict(o=o_ty, p=p_name, pt=p_ty, kv=kv)
    result = "%out"
    if out != "f32":
        text += """  %%e5 = tensor.empty() : %(r)s
  %%outn = linalg.generic {indexing_maps = [%(id)s, %(id)s], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%%out : %(o)s) outs(%%e5 : %(r)s) {
  ^bb0(%%x: f32, %%o: %(t)s):
    %%y = arith.truncf %%x : f32 to %(t)s
    linalg.yield %%y : %(t)s
  } -> %(r)s
""" % dict(r=r_ty, id=ident3, o=o_ty, t=out)
        result = "%outn"
    text += "  return %s : %s\n}\n" % (result, r_ty)
    return text


def scaled_causal_body(scale, query_dim, key_dim):
    """The body of an element-wise op on scores %x: scaled, and -inf where
    the key (loop `key_dim`) is past the query (loop `query_dim`)."""
    return """    %%c = arith.constant %(scale)r : f32
    %%scaled = arith.mulf %%x, %%c : f32
    %%i = linalg.index %(query)d : index
    %%j = linalg.index %(key)d : index
    %%above = arith.cmpi ugt, %%j, %%i : index
    %%ninf = arith.constant 0xFF800000 : f32
    %%y = arith.select %%above, %%ninf, %%scaled : f32
    linalg.yield %%y : f32
""" % dict(scale=scale, query=query_dim, key=key_dim)


def generic_attention_program(b, h, sq, sk, d, t):
    """Causal attention on b x h x s x d tensors as linalg.generics: the
    products with (batch, heads, ...) loops, the scale and mask with
    linalg.index 2 and 3, a 4-D softmax, P cast to `t` (unless f32), the
    result in `t`."""
    q, kv = tensor((b, h, sq, d), t), tensor((b, h, sk, d), t)
    s_ty, p_ty = tensor((b, h, sq, sk), "f32"), tensor((b, h, sq, sk), t)
    o_ty, r_ty = tensor((b, h, sq, d), "f32"), tensor((b, h, sq, d), t)
    ident = "affine_map<(b, h, i, j) -> (b, h, i, j)>"
    parallel4 = '["parallel", "parallel", "parallel", "parallel"]'

    def product(name, a, a_ty, bb, b_ty, b_map, c, c_ty):
        widen = "" if t == "f32" else (
            "    %%a32 = arith.extf %%a : %(t)s to f32\n"
            "    %%b32 = arith.extf %%b : %(t)s to f32\n" % dict(t=t))
        x, y = ("%a", "%b") if t == "f32" else ("%a32", "%b32")
        return """  %(name)s = linalg.generic {indexing_maps = [affine_map<(b, h, m, n, k) -> (b, h, m, k)>, %(b_map)s, affine_map<(b, h, m, n, k) -> (b, h, m, n)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%(a)s, %(bb)s : %(a_ty)s, %(b_ty)s) outs(%(c)s : %(c_ty)s) {
  ^bb0(%%a: %(t)s, %%b: %(t)s, %%c: f32):
%(widen)s    %%prod = arith.mulf %(x)s, %(y)s : f32
    %%r = arith.addf %%c, %%prod : f32
    linalg.yield %%r : f32
  } -> %(c_ty)s
""" % dict(name=name, a=a, a_ty=a_ty, bb=bb, b_ty=b_ty, b_map=b_map, c=c,
           c_ty=c_ty, t=t, widen=widen, x=x, y=y)

    def cast(name, source, source_ty, result_ty):
        return """  %(name)s_e = tensor.empty() : %(r)s
  %(name)s = linalg.generic {indexing_maps = [%(id)s, %(id)s], iterator_types = %(it)s}
      ins(%(src)s : %(s)s) outs(%(name)s_e : %(r)s) {
  ^bb0(%%x: f32, %%o: %(t)s):
    %%y = arith.truncf %%x : f32 to %(t)s
    linalg.yield %%y : %(t)s
  } -> %(r)s
""" % dict(name=name, r=result_ty, id=ident, it=parallel4, src=source,
           s=source_ty, t=t)

    text = """func.func @attention_4d_generic(%%q: %(q)s, %%k: %(kv)s, %%v: %(kv)s) -> %(r)s {
  %%zero = arith.constant 0.0 : f32
  %%e = tensor.empty() : %(s)s
  %%f = linalg.fill ins(%%zero : f32) outs(%%e : %(s)s) -> %(s)s
""" % dict(q=q, kv=kv, r=r_ty, s=s_ty)
    text += product("%s", "%q", q, "%k", kv,
                    "affine_map<(b, h, m, n, k) -> (b, h, n, k)>", "%f", s_ty)
    text += """  %%e1 = tensor.empty() : %(s)s
  %%m = linalg.generic {indexing_maps = [%(id)s, %(id)s], iterator_types = %(it)s}
      ins(%%s : %(s)s) outs(%%e1 : %(s)s) {
  ^bb0(%%x: f32, %%o: f32):
%(body)s  } -> %(s)s
  %%e2 = tensor.empty() : %(s)s
  %%p = linalg.softmax dimension(3) ins(%%m : %(s)s) outs(%%e2 : %(s)s) -> %(s)s
""" % dict(s=s_ty, id=ident, it=parallel4,
           body=scaled_causal_body(1.0 / math.sqrt(d), 2, 3))
    p_name = "%p"
    if t != "f32":
        text += cast("%pn", "%p", s_ty, p_ty)
        p_name = "%pn"
    text += """  %%e4 = tensor.empty() : %(o)s
  %%f4 = linalg.fill ins(%%zero : f32) outs(%%e4 : %(o)s) -> %(o)s
""" % dict(o=o_ty)
    text += product("%out", p_name, p_ty, "%v", kv,
                    "affine_map<(b, h, m, n, k) -> (b, h, k, n)>", "%f4", o_ty)
    result = "%out"
    if t != "f32":
        text += cast("%outn", "%out", o_ty, r_ty)
        result = "%outn"
    return text + "  return %s : %s\n}\n" % (result, r_ty)


def attention_reference(x, batch, sq, sk, d, causal):
    """The naive three steps in double precision (a fourth input is an
    additive sq x sk mask)."""
    q, k, v = x[:3]
    mask = x[3] if len(x) > 3 else None
    out = []
    scale = 1.0 / math.sqrt(d)
    for b in range(batch):
        for i in range(sq):
            qi = q[(b * sq + i) * d:(b * sq + i + 1) * d]
            scores = []
            for j in range(sk):
                if causal and j > i:
                    scores.append(-math.inf)
                    continue
                kj = k[(b * sk + j) * d:(b * sk + j + 1) * d]
                scores.append(scale * sum(a * c for a, c in zip(qi, kj)) +
                              (mask[i * sk + j] if mask else 0.0))
            top = max(scores)
            e = [math.exp(s - top) for s in scores]
            total = sum(e)
            for c in range(d):
                out.append(sum(e[j] * v[(b * sk + j) * d + c]
                               for j in range(sk)) / total)
    return out


def dequantization_program(name, a_ty, a_body, w_inputs, w_maps, w_body,
                           w_shape, t, acc, m, n, k, transposed_b):
    """A matmul whose A is `a_ty` cast to `t` by `a_body` (None: A is
    already `t`) and whose B (`w_shape`, K x N or N x K) a producer
    computes from `w_inputs` [(name, type)] through `w_maps` with `w_body`
    (yielding %w): a dequantization as front-ends write it."""
    ident = "affine_map<(d0, d1) -> (d0, d1)>"
    args = ["%%a: %s" % a_ty] + ["%%%s: %s" % (nm, ty) for nm, ty in w_inputs]
    c_ty, w_ty = tensor((m, n), acc), tensor(w_shape, t)
    text = "func.func @%s(%s) -> %s {\n" % (name, ", ".join(args), c_ty)
    a_name = "%a"
    if a_body:
        a_cast = tensor((m, k), t)
        text += """  %%ea = tensor.empty() : %(ac)s
  %%a16 = linalg.generic {indexing_maps = [%(id)s, %(id)s], iterator_types = ["parallel", "parallel"]}
      ins(%%a : %(at)s) outs(%%ea : %(ac)s) {
  ^bb0(%%x: %(ae)s, %%o: %(t)s):
%(body)s
    linalg.yield %%y : %(t)s
  } -> %(ac)s
""" % dict(ac=a_cast, id=ident, at=a_ty, ae=a_ty.split("x")[-1][:-1], t=t,
           body=a_body)
        a_name = "%a16"
    block = ", ".join("%%%s_v: %s" % (nm, ty.split("x")[-1][:-1])
                      for nm, ty in w_inputs)
    text += """  %%ew = tensor.empty() : %(wt)s
  %%w = linalg.generic {indexing_maps = [%(maps)s, %(id)s], iterator_types = ["parallel", "parallel"]}
      ins(%(ins)s : %(tys)s) outs(%%ew : %(wt)s) {
  ^bb0(%(block)s, %%o: %(t)s):
%(body)s
    linalg.yield %%w : %(t)s
  } -> %(wt)s
  %%zero = arith.constant 0.0 : %(acc)s
  %%e = tensor.empty() : %(ct)s
  %%f = linalg.fill ins(%%zero : %(acc)s) outs(%%e : %(ct)s) -> %(ct)s
  %%r = linalg.matmul
    indexing_maps = [affine_map<(m, n, k) -> (m, k)>, %(bmap)s, affine_map<(m, n, k) -> (m, n)>]
    ins(%(a)s, %%w : %(a16)s, %(wt)s) outs(%%f : %(ct)s) -> %(ct)s
  return %%r : %(ct)s
}
""" % dict(wt=w_ty, maps=", ".join(w_maps), id=ident,
           ins=", ".join("%%%s" % nm for nm, _ in w_inputs),
           tys=", ".join(ty for _, ty in w_inputs), block=block, t=t,
           body=w_body, acc=acc, ct=c_ty, a=a_name, a16=tensor((m, k), t),
           bmap="affine_map<(m, n, k) -> (n, k)>" if transposed_b
           else "affine_map<(m, n, k) -> (k, n)>")
    return text


def dequantization_cases(target, t, acc, unit):
    """Quantized weights dequantized by a producer of B, which
    sm-linalg-to-gpu runs as the kernel stages B: one launch, the weight
    read in its stored form. The reference dequantizes in double precision
    (rounded to the program's element type where the program rounds) and
    multiplies. Ragged sizes; group sizes that divide K and that do not.
    bf16 scales where the target has bf16 (as bf16_tensors: the RADV of
    Debian 12 does not know SPV_KHR_bfloat16)."""
    cases = []
    scales = (0.002, 0.01)
    # 8-bit, one scale per output column, B stored K x N.
    m, n, k = 70, 90, 100
    body = """    %%qf = arith.sitofp %%q_v : i8 to %(t)s
    %%w = arith.mulf %%qf, %%s_v : %(t)s""" % dict(t=t)
    # And with 16-byte copies (not on the Metal path, whose emitter has no
    # vector loads): the bytes of a staged vector are read as words and the
    # staged elements packed into words (N a multiple of the copies' width,
    # so that B's rows are copied in vectors).
    wide = [("", "")] + ([("_wide_copies", "vector-width=8")]
                         if t == "f16" else [])
    for suffix, options in wide:
        n = 96 if options else 90
        cases.append(Case(
            "dequant_int8_per_column" + suffix,
            dequantization_program(
                "dequant_int8_per_column" + suffix, tensor((m, k), t), None,
                [("q", tensor((k, n), "i8")), ("s", tensor((n,), t))],
                ["affine_map<(d0, d1) -> (d0, d1)>",
                 "affine_map<(d0, d1) -> (d1)>"], body, (k, n), t, acc, m, n,
                k, False),
            [("a", (m, k), t, unit), ("q", (k, n), "si8", (-128, 127)),
             ("s", (n,), t, scales)],
            ((m, n), acc),
            lambda x, m=m, n=n, k=k: matmul_reference(
                x[0], [round_to(x[1][i] * x[2][i % n], t)
                       for i in range(k * n)],
                m, n, k),
            1e-3, options=options))
    # Unsigned 8-bit with a zero point per column, B stored N x K (as
    # PyTorch stores a linear layer's weight).
    m, n, k = 33, 80, 120
    body = """    %%qf = arith.uitofp %%q_v : i8 to %(t)s
    %%zf = arith.uitofp %%z_v : i8 to %(t)s
    %%d = arith.subf %%qf, %%zf : %(t)s
    %%w = arith.mulf %%d, %%s_v : %(t)s""" % dict(t=t)
    for suffix, options in wide:
        cases.append(Case(
            "dequant_uint8_zero_point" + suffix,
            dequantization_program(
                "dequant_uint8_zero_point" + suffix, tensor((m, k), t), None,
                [("q", tensor((n, k), "i8")), ("s", tensor((n,), t)),
                 ("z", tensor((n,), "i8"))],
                ["affine_map<(d0, d1) -> (d0, d1)>",
                 "affine_map<(d0, d1) -> (d0)>",
                 "affine_map<(d0, d1) -> (d0)>"], body, (n, k), t, acc, m, n,
                k, True),
            [("a", (m, k), t, unit), ("q", (n, k), "ui8", (0, 255)),
             ("s", (n,), t, scales), ("z", (n,), "ui8", (100, 150))],
            ((m, n), acc),
            lambda x, m=m, n=n, k=k: matmul_reference(
                x[0], [round_to(round_to(x[1][i] - x[3][i // k], t) *
                                x[2][i // k], t) for i in range(n * k)],
                m, n, k, transposed_b=True),
            1e-3, options=options))

    # 4-bit values packed two to a byte along K (even k in the low
    # nibble), offset by 8, one scale per group of `group` along K; B
    # stored N x K.
    def int4_body(scale_type, compute):
        """%w from byte %q_v, loop index 1 (k) and scale %s_v."""
        widen = "" if scale_type == compute else (
            "\n    %%scale = arith.extf %%s_v : %s to %s" % (scale_type, compute))
        narrow = "" if compute == t else (
            "\n    %%w = arith.truncf %%ws : %s to %s" % (compute, t))
        return """    %%k = linalg.index 1 : index
    %%odd = arith.andi %%k, %%c1 : index
    %%shift_i = arith.muli %%odd, %%c4 : index
    %%shift = arith.index_cast %%shift_i : index to i8
    %%byte = arith.shrui %%q_v, %%shift : i8
    %%nibble = arith.andi %%byte, %%c15 : i8
    %%centred = arith.subi %%nibble, %%c8 : i8
    %%value = arith.sitofp %%centred : i8 to %(compute)s%(widen)s
    %%%(ws)s = arith.mulf %%value, %%%(s)s : %(compute)s%(narrow)s""" % dict(
            compute=compute, widen=widen, narrow=narrow,
            ws="ws" if narrow else "w", s="scale" if widen else "s_v")

    constants = """    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c15 = arith.constant 15 : i8
    %c8 = arith.constant 8 : i8
"""

    def int4_weights(packed, scale, n, k, group, scale_t):
        out = []
        for j in range(n):
            for q in range(k):
                byte = packed[j * (k // 2) + q // 2]
                nibble = (byte >> 4) if q % 2 else (byte & 15)
                s_ = scale[j * ((k + group - 1) // group) + q // group]
                out.append(round_to((nibble - 8) * s_, t))
        return out

    # The last three options: the element type of A, of the scales, and
    # sm-linalg-to-gpu options (16-byte copies: the staged elements are
    # stored several at a time, packed into words; not on the Metal path,
    # whose emitter has no vector loads).
    for name, m, n, k, group, a_type, scale_t, options in (
            ("dequant_int4_group32", 20, 64, 96, 32, t, t, ""),
            ("dequant_int4_group32_wide_copies", 20, 64, 96, 32, t, t,
             "vector-width=8"),
            ("dequant_int4_group64_ragged", 17, 48, 200, 64, t, t, ""),
            ("dequant_int4_bf16_scales_f32_activations", 16, 64, 128, 64,
             "f32", "bf16", "")):
        if scale_t == "bf16" and target not in ("nvidia-h100", "intel-xe-hpc",
                                                "cpu-lavapipe"):
            continue
        if t != "f16" and (a_type != t or scale_t != t or options):
            continue
        groups = (k + group - 1) // group
        compute = "f32" if scale_t != t else t
        a_body = None if a_type == t else (
            "    %%y = arith.truncf %%x : %s to %s" % (a_type, t))
        cases.append(Case(
            name,
            dequantization_program(
                name, tensor((m, k), a_type), a_body,
                [("q", tensor((n, k // 2), "i8")),
                 ("s", tensor((n, groups), scale_t))],
                ["affine_map<(d0, d1) -> (d0, d1 floordiv 2)>",
                 "affine_map<(d0, d1) -> (d0, d1 floordiv %d)>" % group],
                constants + int4_body(scale_t, compute), (n, k), t, acc, m,
                n, k, True),
            [("a", (m, k), a_type, unit), ("q", (n, k // 2), "ui8", (0, 255)),
             ("s", (n, groups), scale_t, scales)],
            ((m, n), acc),
            (lambda m, n, k, group, scale_t: lambda x: matmul_reference(
                [round_to(v, t) for v in x[0]],
                int4_weights(x[1], x[2], n, k, group, scale_t), m, n, k,
                transposed_b=True))(m, n, k, group, scale_t),
            1e-3, options=options))
    return cases


def extended_8bit_case(name, m, n, k, signed, options=""):
    """8-bit A and B widened to 32 bits by `extsi` (or `extui`) producers
    and multiplied into a random C (exact: a wrong byte, a byte read with
    the wrong sign or an unwritten element shows)."""
    ident = "affine_map<(d0, d1) -> (d0, d1)>"
    text = """func.func @%(name)s(%%a: memref<%(m)dx%(k)dxi8>, %%b: memref<%(k)dx%(n)dxi8>, %%c: memref<%(m)dx%(n)dxi32>) {
  %%wa = memref.alloc() : memref<%(m)dx%(k)dxi32>
  linalg.generic {indexing_maps = [%(id)s, %(id)s], iterator_types = ["parallel", "parallel"]}
      ins(%%a : memref<%(m)dx%(k)dxi8>) outs(%%wa : memref<%(m)dx%(k)dxi32>) {
  ^bb0(%%x: i8, %%o: i32):
    %%y = %(ext)s %%x : i8 to i32
    linalg.yield %%y : i32
  }
  %%wb = memref.alloc() : memref<%(k)dx%(n)dxi32>
  linalg.generic {indexing_maps = [%(id)s, %(id)s], iterator_types = ["parallel", "parallel"]}
      ins(%%b : memref<%(k)dx%(n)dxi8>) outs(%%wb : memref<%(k)dx%(n)dxi32>) {
  ^bb0(%%x: i8, %%o: i32):
    %%y = %(ext)s %%x : i8 to i32
    linalg.yield %%y : i32
  }
  linalg.matmul ins(%%wa, %%wb : memref<%(m)dx%(k)dxi32>, memref<%(k)dx%(n)dxi32>) outs(%%c : memref<%(m)dx%(n)dxi32>)
  return
}
""" % dict(name=name, m=m, n=n, k=k, id=ident,
           ext="arith.extsi" if signed else "arith.extui")
    if signed:
        byte, acc = ("si8", (-128, 127)), ("si32", (-1000, 1000))
    else:
        byte, acc = ("ui8", (0, 255)), ("ui32", (0, 100000))
    return Case(name, text,
                [("a", (m, k)) + byte, ("b", (k, n)) + byte,
                 ("c", (m, n)) + acc],
                None,
                lambda x: [int(p) + c for p, c in zip(
                    matmul_reference(x[0], x[1], m, n, k), x[2])],
                0.0, options=options)


def contraction_program(name, sizes, operands, t, acc, accumulate=False,
                        a_source=None):
    """A contraction written as a linalg.generic over the loops named by
    the letters of `sizes` (an ordered dict: loop -> size), each of A, B
    and C indexed by the loops its string in `operands` lists; loops
    missing from C are reductions. Integers are extended by `extsi`. The
    accumulator is a zero fill, or C itself with `accumulate`."""
    a_idx, b_idx, c_idx = operands
    loops = list(sizes)
    def shape(idx):
        return tuple(sizes[l] for l in idx)
    def amap(idx):
        return "affine_map<(%s) -> (%s)>" % (", ".join(loops), ", ".join(idx))
    a, b, c = (tensor(shape(i), t if i != c_idx else acc)
               for i in (a_idx, b_idx, c_idx))
    iterators = ", ".join('"parallel"' if l in c_idx else '"reduction"'
                          for l in loops)
    integer = t.startswith("i")
    if integer:
        body = """    %%x1 = arith.extsi %%x : %(t)s to %(acc)s
    %%y1 = arith.extsi %%y : %(t)s to %(acc)s
    %%p = arith.muli %%x1, %%y1 : %(acc)s
    %%s = arith.addi %%z, %%p : %(acc)s
"""
    elif t != acc:
        body = """    %%x1 = arith.extf %%x : %(t)s to %(acc)s
    %%y1 = arith.extf %%y : %(t)s to %(acc)s
    %%p = arith.mulf %%x1, %%y1 : %(acc)s
    %%s = arith.addf %%z, %%p : %(acc)s
"""
    else:
        body = """    %%p = arith.mulf %%x, %%y : %(acc)s
    %%s = arith.addf %%z, %%p : %(acc)s
"""
    body = body % dict(t=t, acc=acc)
    zero = "0" if integer else "0.0"
    init = "%c"
    if not accumulate:
        init = "%f"
    args = "%%a: %s, %%b: %s" % (a, b) + (", %%c: %s" % c if accumulate
                                           else "")
    prologue = "" if accumulate else """  %%zero = arith.constant %(zero)s : %(acc)s
  %%e = tensor.empty() : %(c)s
  %%f = linalg.fill ins(%%zero : %(acc)s) outs(%%e : %(c)s) -> %(c)s
""" % dict(zero=zero, acc=acc, c=c)
    return """func.func @%(name)s(%(args)s) -> %(c)s {
%(prologue)s  %%r = linalg.generic {indexing_maps = [%(ma)s, %(mb)s, %(mc)s], iterator_types = [%(it)s]}
      ins(%%a, %%b : %(a)s, %(b)s) outs(%(init)s : %(c)s) {
  ^bb0(%%x: %(t)s, %%y: %(t)s, %%z: %(acc)s):
%(body)s    linalg.yield %%s : %(acc)s
  } -> %(c)s
  return %%r : %(c)s
}
""" % dict(name=name, args=args, prologue=prologue, ma=amap(a_idx),
           mb=amap(b_idx), mc=amap(c_idx), it=iterators, a=a, b=b, c=c,
           init=init, t=t, acc=acc, body=body)


def contraction_case(name, sizes, operands, t, acc, launches,
                     accumulate=False, tolerance=1e-3):
    """contraction_program's case, its reference NumPy's einsum in double
    precision."""
    a_idx, b_idx, c_idx = operands
    storage = {"i8": "si8", "i32": "si32"}
    ts, accs = storage.get(t, t), storage.get(acc, acc)
    span = (-128, 127) if t == "i8" else (-1.0, 1.0)
    acc_span = (-1000, 1000) if acc == "i32" else (-1.0, 1.0)
    def shape(idx):
        return tuple(sizes[l] for l in idx)
    inputs = [("a", shape(a_idx), ts, span), ("b", shape(b_idx), ts, span)]
    if accumulate:
        inputs.append(("c", shape(c_idx), accs, acc_span))
    def reference(x, sizes=sizes, operands=operands, accumulate=accumulate):
        a_idx, b_idx, c_idx = operands
        arrays = [np.array(v, np.float64).reshape(tuple(sizes[l] for l in i))
                  for v, i in zip(x, (a_idx, b_idx))]
        result = np.einsum("%s,%s->%s" % (a_idx, b_idx, c_idx), *arrays)
        if accumulate:
            result = result + np.array(x[2], np.float64).reshape(result.shape)
        return result.reshape(-1).tolist()
    return Case(name, contraction_program(name, sizes, operands, t, acc,
                                          accumulate),
                inputs, (shape(c_idx), accs), reference,
                0.0 if t == "i8" else tolerance, launches=launches)


def convolution_program(name, op, layouts, shapes, strides, dilations, pads,
                        t, acc):
    """linalg.`op` on tensors of `shapes` (x, filter, y), the input padded
    by `pads` (low = high, per spatial dimension) through tensor.pad."""
    x, f, y = (tensor(shapes[0], t), tensor(shapes[1], t),
               tensor(shapes[2], acc))
    spatial = len(strides)
    source, pad = "%x", ""
    if any(pads):
        x_layout = layouts[0]
        low = ["0"] * len(x_layout)
        for position, letter in enumerate(l for l in x_layout if l in "dhw"):
            low[x_layout.index(letter)] = str(pads[position])
        padded_shape = list(shapes[0])
        for letter, amount in zip([l for l in x_layout if l in "dhw"], pads):
            padded_shape[x_layout.index(letter)] += 2 * amount
        padded = tensor(padded_shape, t)
        pad = """  %%pad = arith.constant 0.0 : %(t)s
  %%xp = tensor.pad %%x low[%(low)s] high[%(low)s] {
  ^bb0(%(indices)s):
    tensor.yield %%pad : %(t)s
  } : %(x)s to %(xp)s
""" % dict(t=t, low=", ".join(low), x=x, xp=padded,
           indices=", ".join("%%i%d: index" % i for i in range(len(low))))
        source, x = "%xp", padded
    return """func.func @%(name)s(%%x: %(xa)s, %%f: %(f)s) -> %(y)s {
%(pad)s  %%zero = arith.constant 0.0 : %(acc)s
  %%e = tensor.empty() : %(y)s
  %%init = linalg.fill ins(%%zero : %(acc)s) outs(%%e : %(y)s) -> %(y)s
  %%r = linalg.%(op)s {dilations = dense<%(dil)s> : tensor<%(n)dxi64>, strides = dense<%(st)s> : tensor<%(n)dxi64>}
    ins(%(src)s, %%f : %(x)s, %(f)s) outs(%%init : %(y)s) -> %(y)s
  return %%r : %(y)s
}
""" % dict(name=name, xa=tensor(shapes[0], t), f=f, y=y, x=x, pad=pad,
           acc=acc, op=op, src=source, n=spatial,
           dil="[%s]" % ", ".join(map(str, dilations)),
           st="[%s]" % ", ".join(map(str, strides)))


def convolution_case(name, op, layouts, sizes, window, strides, dilations,
                     pads, t, acc, launches):
    """A named convolution whose operands are laid out as `layouts` (x,
    filter, y) spell them: n the batch, g groups, c input and f output
    channels, d/h/w the image's spatial dimensions in x and y and the
    window's in the filter. `sizes` gives n, c, f, g and the input's
    spatial sizes, `window` the filter's. The reference slides the window
    over the zero-padded input in double precision."""
    spatial = [l for l in layouts[0] if l in "dhw"]
    out = {l: (sizes[l] + 2 * p - d * (window[l] - 1) - 1) // s + 1
           for l, s, d, p in zip(spatial, strides, dilations, pads)}
    shapes = ([sizes[l] for l in layouts[0]],
              [window[l] if l in "dhw" else sizes[l] for l in layouts[1]],
              [out[l] if l in "dhw" else sizes[l] for l in layouts[2]])
    grouped = "g" in layouts[0]
    canonical_x = ("ng" if grouped else "n") + "".join(spatial) + "c"
    canonical_f = ("g" if grouped else "") + "".join(spatial) + "cf"
    canonical_y = ("ng" if grouped else "n") + "".join(spatial) + "f"

    def reference(x, layouts=layouts, shapes=shapes, spatial=spatial,
                  strides=strides, dilations=dilations, pads=pads, out=out,
                  window=window, canonical=(canonical_x, canonical_f,
                                            canonical_y)):
        def to_canonical(values, layout, shape, target):
            array = np.array(values, np.float64).reshape(shape)
            return np.transpose(array, [layout.index(l) for l in target])
        image = to_canonical(x[0], layouts[0], shapes[0], canonical[0])
        filt = to_canonical(x[1], layouts[1], shapes[1], canonical[1])
        first = image.ndim - len(spatial) - 1
        padding = [(0, 0)] * first + [(p, p) for p in pads] + [(0, 0)]
        image = np.pad(image, padding)
        result = 0.0
        for offsets in np.ndindex(*[window[l] for l in spatial]):
            index = [slice(None)] * first
            for o, l, s, d in zip(offsets, spatial, strides, dilations):
                index.append(slice(o * d, o * d + s * (out[l] - 1) + 1, s))
            patch = image[tuple(index)]
            weights = filt[(slice(None),) * (first - 1) + offsets]
            if first == 2:
                result = result + np.einsum("ng...c,gcf->ng...f", patch,
                                            weights)
            else:
                result = result + np.einsum("n...c,cf->n...f", patch, weights)
        order = [canonical[2].index(l) for l in layouts[2]]
        return np.transpose(result, order).reshape(-1).tolist()

    return Case(name, convolution_program(name, op, layouts, shapes, strides,
                                          dilations, pads, t, acc),
                [("x", tuple(shapes[0]), t, (-1.0, 1.0)),
                 ("f", tuple(shapes[1]), t, (-1.0, 1.0))],
                (tuple(shapes[2]), acc), reference, 1e-3, launches=launches)


def _grouped_int4_reference(x):
    """grouped_int4_two_k_loops: nibbles low first, offset by 8, times the
    group's scale, rounded to f16 (the weight's type), then the product."""
    a = np.array(x[0], np.float64).reshape(16, 8, 32)
    q = np.array(x[1], np.int64).reshape(96, 8, 16) & 255
    s = np.array(x[2], np.float64).reshape(96, 8)
    nibbles = np.stack([(q & 15) - 8, ((q >> 4) & 15) - 8], -1)
    w = (nibbles.reshape(96, 8, 32) * s[:, :, None]).astype(
        np.float16).astype(np.float64)
    return np.einsum("mgj,ngj->mn", a, w).reshape(-1).tolist()


def cases_for(target):
    t, acc = TARGETS[target]["inputs"], TARGETS[target]["acc"]
    unit = (-1.0, 1.0)
    cases = []

    # A plain product on tensors, with the fill folded in; ragged sizes.
    m, n, k = 100, 90, 72
    cases.append(Case("matmul_tensors",
                      filled_matmul_program("matmul_tensors", m, n, k, t, acc),
                      [("a", (m, k), t, unit), ("b", (k, n), t, unit)],
                      ((m, n), acc),
                      lambda x: matmul_reference(x[0], x[1], m, n, k),
                      1e-3))

    # Both operands transposed through the indexing maps, on memrefs,
    # accumulating into C.
    text = """func.func @matmul_transposed(%%a: %(a)s, %%b: %(b)s, %%c: %(c)s) {
  linalg.matmul
    indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
    ins(%%a, %%b : %(a)s, %(b)s) outs(%%c : %(c)s)
  return
}
""" % dict(a=memref((k, m), t), b=memref((n, k), t), c=memref((m, n), acc))
    cases.append(Case("matmul_transposed", text,
                      [("a", (k, m), t, unit), ("b", (n, k), t, unit),
                       ("c", (m, n), acc, unit)],
                      None,
                      lambda x: [p + c for p, c in zip(matmul_reference(
                          x[0], x[1], m, n, k, True, True), x[2])],
                      1e-3))

    # C read by the product: added to the accumulators as they are stored
    # (the default), or loaded into them before the K loop (preload-c=1);
    # through whole result matrices where the tiles divide C, element by
    # element through the scratch where they do not.
    for name, (pm, pn, pk), options in (
            ("accumulate_whole_tiles", (128, 128, 64),
             "tile-m=64 tile-n=64 subgroups-m=2 subgroups-n=2"),
            ("preload_c_whole_tiles", (128, 128, 64),
             "tile-m=64 tile-n=64 subgroups-m=2 subgroups-n=2 preload-c=1"),
            ("preload_c_ragged", (m, n, k), "preload-c=1")):
        cases.append(accumulating_matmul_case(name, pm, pn, pk, t, acc, unit,
                                              options))

    # A batch of 3 with B transposed (as attention's Q K^T is written).
    bm, bn, bk, batch = 48, 40, 64, 3
    text = """func.func @batch_matmul(%%a: %(a)s, %%b: %(b)s) -> %(c)s {
  %%zero = arith.constant 0.0 : %(acc)s
  %%e = tensor.empty() : %(c)s
  %%f = linalg.fill ins(%%zero : %(acc)s) outs(%%e : %(c)s) -> %(c)s
  %%r = linalg.batch_matmul
    indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
    ins(%%a, %%b : %(a)s, %(b)s) outs(%%f : %(c)s) -> %(c)s
  return %%r : %(c)s
}
""" % dict(a=tensor((batch, bm, bk), t), b=tensor((batch, bn, bk), t),
           c=tensor((batch, bm, bn), acc), acc=acc)
    cases.append(Case("batch_matmul_transposed_b", text,
                      [("a", (batch, bm, bk), t, unit),
                       ("b", (batch, bn, bk), t, unit)],
                      ((batch, bm, bn), acc),
                      lambda x: matmul_reference(x[0], x[1], bm, bn, bk,
                                                 transposed_b=True,
                                                 batch=batch),
                      1e-3))

    # A batch summed over (linalg.batch_reduce_matmul): the K loop walks
    # the 5 batches in turn (K ragged in each), with a bias epilogue.
    rb, rm_, rn_, rk_ = 5, 40, 72, 36
    text = """func.func @batch_reduce(%%a: %(a)s, %%b: %(b)s, %%bias: %(bias)s) -> %(c)s {
  %%zero = arith.constant 0.0 : %(acc)s
  %%e = tensor.empty() : %(c)s
  %%f = linalg.fill ins(%%zero : %(acc)s) outs(%%e : %(c)s) -> %(c)s
  %%r = linalg.batch_reduce_matmul ins(%%a, %%b : %(a)s, %(b)s) outs(%%f : %(c)s) -> %(c)s
  %%e2 = tensor.empty() : %(c)s
  %%y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%%r, %%bias : %(c)s, %(bias)s) outs(%%e2 : %(c)s) {
  ^bb0(%%x: %(acc)s, %%v: %(acc)s, %%o: %(acc)s):
    %%s = arith.addf %%x, %%v : %(acc)s
    linalg.yield %%s : %(acc)s
  } -> %(c)s
  return %%y : %(c)s
}
""" % dict(a=tensor((rb, rm_, rk_), t), b=tensor((rb, rk_, rn_), t),
           c=tensor((rm_, rn_), acc), bias=tensor((rn_,), acc), acc=acc)

    def batch_reduce_reference(x):
        parts = matmul_reference(x[0], x[1], rm_, rn_, rk_, batch=rb)
        return [sum(parts[p * rm_ * rn_ + i] for p in range(rb)) +
                x[2][i % rn_] for i in range(rm_ * rn_)]
    cases.append(Case("batch_reduce_matmul", text,
                      [("a", (rb, rm_, rk_), t, unit),
                       ("b", (rb, rk_, rn_), t, unit),
                       ("bias", (rn_,), acc, unit)],
                      ((rm_, rn_), acc), batch_reduce_reference, 1e-3))

    # Epilogues: bias over columns and ReLU; bias over rows and GELU; a
    # residual and SiLU (whole matrices: sizes that are tile multiples);
    # scale and clamp, cast to f16.
    for em, en, ek in [(100, 90, 72), (128, 128, 64)]:
        tag = "%dx%dx%d" % (em, en, ek)
        body = """
%s = arith.addf %x, %bias_v : f32
%z = arith.constant 0.0 : f32
%y = arith.maximumf %s, %z : f32"""
        # The second writes its epilogue into the product's tensor.empty
        # (in place): still one kernel.
        for stem, reused in (("bias_relu", False),
                             ("bias_relu_in_place", True)):
            cases.append(Case(
                "%s_%s" % (stem, tag),
                epilogue_program(stem, em, en, ek, t, acc,
                                 [("bias", (en,),
                                   "affine_map<(d0, d1) -> (d1)>")],
                                 body, "f32", outs_reused=reused),
                [("a", (em, ek), t, unit), ("b", (ek, en), t, unit),
                 ("bias", (en,), acc, unit)],
                ((em, en), "f32"),
                lambda x, em=em, en=en, ek=ek: [
                    max(v + x[2][i % en], 0.0) for i, v in enumerate(
                        matmul_reference(x[0], x[1], em, en, ek))],
                1e-3))
        cases.append(Case(
            "row_bias_gelu_" + tag,
            epilogue_program("row_bias_gelu", em, en, ek, t, acc,
                             [("bias", (em,), "affine_map<(d0, d1) -> (d0)>")],
                             "%xb = arith.addf %x, %bias_v : f32\n" +
                             GELU_TANH.replace("%x", "%xb").replace(
                                 "%xb3", "%x3"), "f32"),
            [("a", (em, ek), t, unit), ("b", (ek, en), t, unit),
             ("bias", (em,), acc, unit)],
            ((em, en), "f32"),
            lambda x, em=em, en=en, ek=ek: [
                gelu_tanh(v + x[2][i // en]) for i, v in enumerate(
                    matmul_reference(x[0], x[1], em, en, ek))],
            2e-3))
        cases.append(Case(
            "gelu_erf_" + tag,
            epilogue_program("gelu_erf", em, en, ek, t, acc, [], """
%s = arith.constant 0.7071067811865476 : f32
%xs = arith.mulf %x, %s : f32
%er = math.erf %xs : f32
%one = arith.constant 1.0 : f32
%t = arith.addf %er, %one : f32
%h = arith.constant 0.5 : f32
%hx = arith.mulf %x, %h : f32
%y = arith.mulf %hx, %t : f32""", "f32"),
            [("a", (em, ek), t, unit), ("b", (ek, en), t, unit)],
            ((em, en), "f32"),
            lambda x, em=em, en=en, ek=ek: [
                0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in
                matmul_reference(x[0], x[1], em, en, ek)],
            2e-3))
        cases.append(Case(
            "residual_silu_" + tag,
            epilogue_program("residual_silu", em, en, ek, t, acc,
                             [("res", (em, en),
                               "affine_map<(d0, d1) -> (d0, d1)>")],
                             "%xr = arith.addf %x, %res_v : f32\n" +
                             SILU.replace("%x,", "%xr,").replace(
                                 "%nx = arith.negf %x", "%nx = arith.negf %xr"),
                             "f32"),
            [("a", (em, ek), t, unit), ("b", (ek, en), t, unit),
             ("res", (em, en), acc, unit)],
            ((em, en), "f32"),
            lambda x, em=em, en=en, ek=ek: [
                silu(v + x[2][i]) for i, v in enumerate(
                    matmul_reference(x[0], x[1], em, en, ek))],
            2e-3))
        cases.append(Case(
            "scale_clamp_f16_" + tag,
            epilogue_program("scale_clamp_f16", em, en, ek, t, acc, [], """
%s = arith.constant 0.25 : f32
%p = arith.mulf %x, %s : f32
%lo = arith.constant -0.5 : f32
%hi = arith.constant 0.5 : f32
%c1 = arith.maximumf %p, %lo : f32
%c2 = arith.minimumf %c1, %hi : f32
%y = arith.truncf %c2 : f32 to f16""", "f16"),
            [("a", (em, ek), t, unit), ("b", (ek, en), t, unit)],
            ((em, en), "f16"),
            lambda x, em=em, en=en, ek=ek: [
                min(max(0.25 * v, -0.5), 0.5) for v in
                matmul_reference(x[0], x[1], em, en, ek)],
            2e-3))
        # A bf16 output (the next layer's input), where the target has bf16
        # matrices. bf16 keeps 8 bits: the tolerance is a rounding step.
        if target in ("nvidia-h100", "intel-xe-hpc", "cpu-lavapipe"):
            cases.append(Case(
                "scale_to_bf16_" + tag,
                epilogue_program("scale_to_bf16", em, en, ek, t, acc, [], """
%s = arith.constant 0.5 : f32
%p = arith.mulf %x, %s : f32
%y = arith.truncf %p : f32 to bf16""", "bf16"),
                [("a", (em, ek), t, unit), ("b", (ek, en), t, unit)],
                ((em, en), "bf16"),
                lambda x, em=em, en=en, ek=ek: [
                    0.5 * v for v in matmul_reference(x[0], x[1], em, en,
                                                      ek)],
                2.0 ** -7))

    # Decode-shaped products: M of 1, 7 and 16 rows (the small-M tiling),
    # and a batch of 12.
    for sm_ in (1, 7, 16):
        sn, sk = 200, 96
        cases.append(accumulating_matmul_case("small_m_%d" % sm_, sm_, sn, sk,
                                              t, acc, unit))
    bm2, bn2, bk2, batch2 = 16, 32, 32, 12
    text = """func.func @batch12(%%a: %(a)s, %%b: %(b)s, %%c: %(c)s) {
  linalg.batch_matmul ins(%%a, %%b : %(a)s, %(b)s) outs(%%c : %(c)s)
  return
}
""" % dict(a=memref((batch2, bm2, bk2), t), b=memref((batch2, bk2, bn2), t),
           c=memref((batch2, bm2, bn2), acc))
    cases.append(Case("batch_matmul_12", text,
                      [("a", (batch2, bm2, bk2), t, unit),
                       ("b", (batch2, bk2, bn2), t, unit),
                       ("c", (batch2, bm2, bn2), acc, unit)],
                      None,
                      lambda x: [p + c for p, c in zip(matmul_reference(
                          x[0], x[1], bm2, bn2, bk2, batch=batch2), x[2])],
                      1e-3))

    # 1x1 convolutions: NHWC (a GEMM over N*H*W) and NCHW (per image).
    nb, h, w, ci, co = 2, 6, 10, 32, 48
    text = """func.func @conv_nhwc(%%x: %(x)s, %%f: %(f)s) -> %(y)s {
  %%zero = arith.constant 0.0 : %(acc)s
  %%e = tensor.empty() : %(y)s
  %%init = linalg.fill ins(%%zero : %(acc)s) outs(%%e : %(y)s) -> %(y)s
  %%r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%%x, %%f : %(x)s, %(f)s) outs(%%init : %(y)s) -> %(y)s
  return %%r : %(y)s
}
""" % dict(x=tensor((nb, h, w, ci), t), f=tensor((1, 1, ci, co), t),
           y=tensor((nb, h, w, co), acc), acc=acc)
    cases.append(Case("conv1x1_nhwc", text,
                      [("x", (nb, h, w, ci), t, unit),
                       ("f", (1, 1, ci, co), t, unit)],
                      ((nb, h, w, co), acc),
                      lambda x: matmul_reference(x[0], x[1], nb * h * w, co,
                                                 ci),
                      1e-3))
    text = """func.func @conv_nchw(%%x: %(x)s, %%f: %(f)s) -> %(y)s {
  %%zero = arith.constant 0.0 : %(acc)s
  %%e = tensor.empty() : %(y)s
  %%init = linalg.fill ins(%%zero : %(acc)s) outs(%%e : %(y)s) -> %(y)s
  %%r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%%x, %%f : %(x)s, %(f)s) outs(%%init : %(y)s) -> %(y)s
  return %%r : %(y)s
}
""" % dict(x=tensor((nb, ci, h, w), t), f=tensor((co, ci, 1, 1), t),
           y=tensor((nb, co, h, w), acc), acc=acc)
    # Per image, F x C (the filter, shared) by C x (H*W).
    cases.append(Case("conv1x1_nchw", text,
                      [("x", (nb, ci, h, w), t, unit),
                       ("f", (co, ci, 1, 1), t, unit)],
                      ((nb, co, h, w), acc),
                      lambda x: matmul_reference(x[1], x[0], co, h * w, ci,
                                                 batch=nb, a_batched=False),
                      1e-3))

    # Convolutions as implicit GEMMs: the window gathered as A is staged
    # (one launch), in every layout linalg names, strided, dilated, padded
    # by a tensor.pad, 1-D, 3-D and grouped.
    if t == "f16":
        hw = dict(h=9, w=11)
        for case in [
            ("conv3x3_nhwc_hwcf", "conv_2d_nhwc_hwcf", ("nhwc", "hwcf", "nhwf"),
             dict(n=2, c=32, f=40, **hw), dict(h=3, w=3), (1, 1), (1, 1),
             (0, 0), 1),
            ("conv3x3_strided_nhwc_fhwc", "conv_2d_nhwc_fhwc",
             ("nhwc", "fhwc", "nhwf"), dict(n=2, c=24, f=32, **hw),
             dict(h=3, w=3), (2, 2), (1, 1), (0, 0), 1),
            ("conv1x1_strided_nhwc", "conv_2d_nhwc_hwcf",
             ("nhwc", "hwcf", "nhwf"), dict(n=2, c=32, f=48, **hw),
             dict(h=1, w=1), (2, 2), (1, 1), (0, 0), 1),
            ("conv3x3_dilated_nchw", "conv_2d_nchw_fchw",
             ("nchw", "fchw", "nfhw"), dict(n=2, c=16, f=24, **hw),
             dict(h=3, w=3), (1, 1), (2, 2), (0, 0), 2),
            ("conv3x3_padded_nhwc", "conv_2d_nhwc_hwcf",
             ("nhwc", "hwcf", "nhwf"), dict(n=2, c=32, f=40, **hw),
             dict(h=3, w=3), (1, 1), (1, 1), (1, 1), 1),
            ("conv3x3_grouped_nhwgc", "conv_2d_nhwgc_gfhwc",
             ("nhwgc", "gfhwc", "nhwgf"), dict(n=2, g=2, c=16, f=24, **hw),
             dict(h=3, w=3), (1, 1), (1, 1), (1, 1), 2),
            ("conv1d_nwc", "conv_1d_nwc_wcf", ("nwc", "wcf", "nwf"),
             dict(n=3, c=32, f=24, w=40), dict(w=5), (1,), (1,), (0,), 1),
            ("conv3d_ndhwc", "conv_3d_ndhwc_dhwcf",
             ("ndhwc", "dhwcf", "ndhwf"), dict(n=1, c=16, f=32, d=5, h=6, w=7),
             dict(d=3, h=3, w=3), (1, 1, 1), (1, 1, 1), (0, 0, 0), 1),
        ]:
            cases.append(convolution_case(case[0], case[1], case[2], case[3],
                                          case[4], case[5], case[6], case[7],
                                          t, acc, case[8]))
        # A convolution an importer wrote as a generic: the window's stride
        # is in the input's map (n, oh, ow, f, kh, kw, c).
        case = convolution_case(
            "conv3x3_strided_generic", "conv_2d_nhwc_hwcf",
            ("nhwc", "hwcf", "nhwf"), dict(n=2, c=32, f=40, **hw),
            dict(h=3, w=3), (2, 2), (1, 1), (0, 0), t, acc, 1)
        x_type, f_type = (tensor(shape, t) for shape, in
                          [(case.inputs[0][1],), (case.inputs[1][1],)])
        y_type = tensor(case.output[0], acc)
        case.text = """func.func @conv3x3_strided_generic(%%x: %(x)s, %%f: %(f)s) -> %(y)s {
  %%zero = arith.constant 0.0 : %(acc)s
  %%e = tensor.empty() : %(y)s
  %%init = linalg.fill ins(%%zero : %(acc)s) outs(%%e : %(y)s) -> %(y)s
  %%r = linalg.generic {indexing_maps = [
      affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh * 2 + kh, ow * 2 + kw, c)>,
      affine_map<(n, oh, ow, f, kh, kw, c) -> (kh, kw, c, f)>,
      affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh, ow, f)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%%x, %%f : %(x)s, %(f)s) outs(%%init : %(y)s) {
  ^bb0(%%a: %(t)s, %%b: %(t)s, %%o: %(acc)s):
    %%a1 = arith.extf %%a : %(t)s to %(acc)s
    %%b1 = arith.extf %%b : %(t)s to %(acc)s
    %%p = arith.mulf %%a1, %%b1 : %(acc)s
    %%s = arith.addf %%o, %%p : %(acc)s
    linalg.yield %%s : %(acc)s
  } -> %(y)s
  return %%r : %(y)s
}
""" % dict(x=x_type, f=f_type, y=y_type, t=t, acc=acc)
        cases.append(case)
        # f16 written as f16, as a traced f16 model does: accumulated in
        # f32 and rounded once (the precision policy).
        cases.append(convolution_case(
            "conv3x3_padded_strided_f16_out", "conv_2d_nhwc_hwcf",
            ("nhwc", "hwcf", "nhwf"), dict(n=2, c=32, f=48, **hw),
            dict(h=3, w=3), (2, 2), (1, 1), (1, 1), t, "f16", 1))

    # A scale that is a function argument (an f32 scalar, not a tensor):
    # the element-wise op that reads it takes it as a kernel argument. And
    # the scale as torch-mlir passes it: a rank-0 tensor whose element the
    # body uses through tensor.extract; the generic reads it as an input,
    # and fuses into the product's kernel.
    sm_, sn_, sk_ = 40, 48, 64
    for name, scale_type, extract, scale, launches in [
            ("scalar_argument_scale", "f32", "", "%scale", 2),
            ("extracted_rank0_scale", "tensor<f32>",
             "  %s = tensor.extract %scale[] : tensor<f32>\n", "%s", 1)]:
        text = """func.func @%(name)s(%%x: %(x)s, %%w: %(w)s, %%scale: %(scale_type)s) -> %(y)s {
  %%zero = arith.constant 0.0 : f32
%(extract)s  %%e = tensor.empty() : %(y)s
  %%acc = linalg.fill ins(%%zero : f32) outs(%%e : %(y)s) -> %(y)s
  %%mm = linalg.matmul ins(%%x, %%w : %(x)s, %(w)s) outs(%%acc : %(y)s) -> %(y)s
  %%r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%%mm : %(y)s) outs(%%e : %(y)s) {
  ^bb0(%%v: f32, %%o: f32):
    %%m = arith.mulf %%v, %(scale)s : f32
    linalg.yield %%m : f32
  } -> %(y)s
  return %%r : %(y)s
}
""" % dict(name=name, x=tensor((sm_, sk_), t), w=tensor((sk_, sn_), t),
           y=tensor((sm_, sn_), "f32"), scale_type=scale_type,
           extract=extract, scale=scale)
        cases.append(Case(
            name, text,
            [("x", (sm_, sk_), t, (-1, 1)), ("w", (sk_, sn_), t, (-1, 1)),
             ("scale", (), "f32", (0.5, 2))],
            ((sm_, sn_), "f32"),
            lambda x, sm_=sm_, sn_=sn_, sk_=sk_: [
                v * x[2][0] for v in matmul_reference(x[0], x[1], sm_, sn_,
                                                      sk_)],
            1e-5, launches=launches))

    # A tensor.pad that no convolution reads: the padding value filled, then
    # the interior copied into the strided view by a kernel (the runtime
    # copies contiguous views only). A padding of 0.5 is told apart from
    # zeros and from the poison.
    pn_, ph_, pw_, pc_ = 2, 5, 7, 6
    text = """func.func @pad_alone(%%x: %(x)s) -> %(y)s {
  %%half = arith.constant 0.5 : f32
  %%p = tensor.pad %%x low[0, 1, 2, 0] high[0, 2, 1, 0] {
  ^bb0(%%i0: index, %%i1: index, %%i2: index, %%i3: index):
    tensor.yield %%half : f32
  } : %(x)s to %(y)s
  return %%p : %(y)s
}
""" % dict(x=tensor((pn_, ph_, pw_, pc_), "f32"),
           y=tensor((pn_, ph_ + 3, pw_ + 3, pc_), "f32"))
    cases.append(Case(
        "pad_alone", text, [("x", (pn_, ph_, pw_, pc_), "f32", (-1, 1))],
        ((pn_, ph_ + 3, pw_ + 3, pc_), "f32"),
        lambda x, shape=(pn_, ph_, pw_, pc_): np.pad(
            np.array(x[0], np.float64).reshape(shape),
            [(0, 0), (1, 2), (2, 1), (0, 0)],
            constant_values=0.5).reshape(-1).tolist(),
        0.0, launches=2))

    # Prologues: element-wise producers of A (a scale and shift) and B (a
    # shift) that keep the element type run as the kernel stages the
    # tiles; the program is one launch. Ragged sizes, so that the padding
    # along K must stay zero (the bodies would make it 0.0625 and 0.25).
    pm, pn, pk = 70, 90, 100
    text = """func.func @prologues(%%a: %(a)s, %%b: %(b)s) -> %(c)s {
  %%zero = arith.constant 0.0 : %(acc)s
  %%ea = tensor.empty() : %(a)s
  %%sa = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%%a : %(a)s) outs(%%ea : %(a)s) {
  ^bb0(%%x: %(t)s, %%o: %(t)s):
    %%s = arith.constant 0.125 : %(t)s
    %%d = arith.constant 0.0625 : %(t)s
    %%p = arith.mulf %%x, %%s : %(t)s
    %%y = arith.addf %%p, %%d : %(t)s
    linalg.yield %%y : %(t)s
  } -> %(a)s
  %%eb = tensor.empty() : %(b)s
  %%cb = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%%b : %(b)s) outs(%%eb : %(b)s) {
  ^bb0(%%x: %(t)s, %%o: %(t)s):
    %%shift = arith.constant 0.25 : %(t)s
    %%y = arith.addf %%x, %%shift : %(t)s
    linalg.yield %%y : %(t)s
  } -> %(b)s
  %%e = tensor.empty() : %(c)s
  %%f = linalg.fill ins(%%zero : %(acc)s) outs(%%e : %(c)s) -> %(c)s
  %%r = linalg.matmul ins(%%sa, %%cb : %(a)s, %(b)s) outs(%%f : %(c)s) -> %(c)s
  return %%r : %(c)s
}
""" % dict(a=tensor((pm, pk), t), b=tensor((pk, pn), t),
           c=tensor((pm, pn), acc), acc=acc, t=t)
    cases.append(Case("prologue_scale_offset", text,
                      [("a", (pm, pk), t, unit), ("b", (pk, pn), t, unit)],
                      ((pm, pn), acc),
                      lambda x: matmul_reference(
                          [round_to(round_to(v * 0.125, t) + 0.0625, t)
                           for v in x[0]],
                          [round_to(v + 0.25, t) for v in x[1]], pm, pn,
                          pk),
                      1e-3))

    cases.extend(dequantization_cases(target, t, acc, unit))

    # Split K with an epilogue (a residual add and ReLU): the epilogue
    # applies to the sum of the parts, so it runs after the reduction as
    # its own kernel (partial products, the reduction that adds them to the
    # fill's value, epilogue).
    sm_, sn, sk = 40, 48, 512
    body = """
%s = arith.addf %x, %res_v : f32
%z = arith.constant 0.0 : f32
%y = arith.maximumf %s, %z : f32"""
    cases.append(Case(
        "split_k_epilogue",
        epilogue_program("split_k_epilogue", sm_, sn, sk, t, acc,
                         [("res", (sm_, sn),
                           "affine_map<(d0, d1) -> (d0, d1)>")],
                         body, "f32"),
        [("a", (sm_, sk), t, unit), ("b", (sk, sn), t, unit),
         ("res", (sm_, sn), acc, unit)],
        ((sm_, sn), "f32"),
        lambda x: [max(v + r, 0.0) for v, r in zip(
            matmul_reference(x[0], x[1], sm_, sn, sk), x[2])],
        1e-3, launches=3, options="split-k=2"))

    # Split K (forced in 4 parts where the target would not split): the
    # product writes partial sums, a reduction kernel writes C as the fill's
    # value plus them (the fill needs no kernel). With a decode step's few
    # rows, each part's slice of the workspace is padded to whole tiles of
    # rows, which the reduction skips.
    kn, kk = 40, 1024
    for name, km in (("split_k_4", 48), ("split_k_small_m", 3)):
        cases.append(Case(name,
                          filled_matmul_program(name, km, kn, kk, t, acc),
                          [("a", (km, kk), t, unit), ("b", (kk, kn), t, unit)],
                          ((km, kn), acc),
                          lambda x, km=km: matmul_reference(x[0], x[1], km, kn,
                                                            kk),
                          1e-3, launches=2, options="split-k=4"))
    # The K-loop schedules: the next step loaded into registers while this
    # one multiplies, into the same workgroup buffer (after a barrier) or
    # into a second one. Ragged sizes, several K steps and a partial last
    # one, so that a step stored into the wrong buffer or too early shows.
    fm, fn, fk = 70, 90, 200
    for name, options in (("prefetch_one_buffer", "stages=1 prefetch=1"),
                          ("prefetch_two_buffers",
                           "stages=2 tile-m=64 tile-n=64 subgroups-m=2 "
                           "subgroups-n=2")):
        cases.append(Case(name,
                          filled_matmul_program(name, fm, fn, fk, t, acc),
                          [("a", (fm, fk), t, unit), ("b", (fk, fn), t, unit)],
                          ((fm, fn), acc),
                          lambda x, fm=fm, fn=fn, fk=fk: matmul_reference(
                              x[0], x[1], fm, fn, fk),
                          1e-3, options=options))
    # An element-wise consumer of a buffer the caller sees, which cannot
    # fuse and gets a kernel of its own.
    um, un, uk = 40, 56, 32
    text = """func.func @unfused(%%a: %(a)s, %%b: %(b)s, %%c: %(c)s, %%d: %(c)s) {
  linalg.matmul ins(%%a, %%b : %(a)s, %(b)s) outs(%%c : %(c)s)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%%c : %(c)s) outs(%%d : %(c)s) {
  ^bb0(%%x: f32, %%o: f32):
    %%y = math.exp %%x : f32
    linalg.yield %%y : f32
  }
  return
}
""" % dict(a=memref((um, uk), t), b=memref((uk, un), t), c=memref((um, un), acc))
    cases.append(Case("unfused_consumer", text,
                      [("a", (um, uk), t, unit), ("b", (uk, un), t, unit),
                       ("c", (um, un), acc, unit), ("d", (um, un), acc, unit)],
                      None,
                      lambda x: [math.exp(p + c) for p, c in zip(
                          matmul_reference(x[0], x[1], um, un, uk), x[2])],
                      2e-3, launches=2))

    # What is neither a product nor element-wise still gets a kernel: a
    # row reduction (an invocation per output element, looping over the
    # reduced dimension) and a softmax-style max over columns.
    rm, rn = 70, 150
    text = """func.func @row_sum(%%x: %(x)s, %%y: %(y)s) {
  linalg.reduce ins(%%x : %(x)s) outs(%%y : %(y)s) dimensions = [1]
    (%%in: f32, %%acc: f32) {
      %%s = arith.addf %%in, %%acc : f32
      linalg.yield %%s : f32
    }
  return
}
""" % dict(x=memref((rm, rn), "f32"), y=memref((rm,), "f32"))
    cases.append(Case("reduce_row_sum", text,
                      [("x", (rm, rn), "f32", unit), ("y", (rm,), "f32", unit)],
                      None,
                      lambda x: [x[1][r] + sum(x[0][r * rn:(r + 1) * rn])
                                 for r in range(rm)],
                      1e-5))
    text = """func.func @column_max(%%x: %(x)s, %%y: %(y)s) {
  linalg.reduce ins(%%x : %(x)s) outs(%%y : %(y)s) dimensions = [0]
    (%%in: f32, %%acc: f32) {
      %%s = arith.maximumf %%in, %%acc : f32
      linalg.yield %%s : f32
    }
  return
}
""" % dict(x=memref((rm, rn), "f32"), y=memref((rn,), "f32"))
    cases.append(Case("reduce_column_max", text,
                      [("x", (rm, rn), "f32", unit), ("y", (rn,), "f32", unit)],
                      None,
                      lambda x: [max([x[1][c]] + [x[0][r * rn + c]
                                                  for r in range(rm)])
                                 for c in range(rn)],
                      0.0))

    # Few outputs of long reductions (40 rows of 1000, 7 of 3000, K not a
    # multiple of 256): one workgroup per output combines its invocations'
    # parts. All-negative rows with a max show that the parts start from
    # the combination's identity (-inf), not from zero; the output's own
    # value is folded in last.
    for name, (lm, ln), combine, dist, reference, tolerance in [
            ("long_row_max", (40, 1000), "maximumf", (-2.0, -1.0),
             lambda row, init: max([init] + row), 0.0),
            ("long_row_sum", (7, 3000), "addf", unit,
             lambda row, init: init + math.fsum(row), 1e-5)]:
        text = """func.func @%(name)s(%%x: %(x)s, %%y: %(y)s) {
  linalg.reduce ins(%%x : %(x)s) outs(%%y : %(y)s) dimensions = [1]
    (%%in: f32, %%acc: f32) {
      %%s = arith.%(combine)s %%in, %%acc : f32
      linalg.yield %%s : f32
    }
  return
}
""" % dict(name=name, x=memref((lm, ln), "f32"), y=memref((lm,), "f32"),
           combine=combine)
        cases.append(Case(
            name, text, [("x", (lm, ln), "f32", dist),
                         ("y", (lm,), "f32", (-3.0, -2.5))], None,
            lambda x, lm=lm, ln=ln, reference=reference: [
                reference(x[0][r * ln:(r + 1) * ln], x[1][r])
                for r in range(lm)],
            tolerance))

    # A softmax on its own (not inside attention): one row-group kernel
    # (the max, the sum of the exponentials and the quotient, one
    # workgroup per row). Large inputs, so that exp overflows unless
    # shifted; rows of 300, more than a workgroup's invocations.
    xm, xn = 37, 300
    text = """func.func @softmax(%%x: %(x)s) -> %(x)s {
  %%e = tensor.empty() : %(x)s
  %%y = linalg.softmax dimension(1) ins(%%x : %(x)s) outs(%%e : %(x)s) -> %(x)s
  return %%y : %(x)s
}
""" % dict(x=tensor((xm, xn), "f32"))

    def softmax_reference(x):
        out = []
        for r in range(xm):
            row = x[0][r * xn:(r + 1) * xn]
            top = max(row)
            e = [math.exp(v - top) for v in row]
            out += [v / sum(e) for v in e]
        return out
    cases.append(Case("softmax_rows", text,
                      [("x", (xm, xn), "f32", (-100.0, 100.0))],
                      ((xm, xn), "f32"), softmax_reference, 1e-5,
                      launches=1))

    # RMSNorm as traced PyTorch writes it: f16 rows widened to f32, the
    # mean of squares (a fill, a reduction, a division), rsqrt(mean + eps)
    # with eps a function argument, times the f16 weight: one row-group
    # kernel. Rows of 40: a workgroup of 64, invocations past the row
    # idle until the combination.
    nm, nn = 50, 40
    text = """func.func @rms_norm(%%x: %(x)s, %%w: %(w)s, %%eps: f32) -> %(x)s {
  %%zero = arith.constant 0.0 : f32
  %%count = arith.constant %(nn)d.0 : f32
  %%re = tensor.empty() : tensor<%(nm)dxf32>
  %%s0 = linalg.fill ins(%%zero : f32) outs(%%re : tensor<%(nm)dxf32>) -> tensor<%(nm)dxf32>
  %%squares = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%%x : %(x)s) outs(%%s0 : tensor<%(nm)dxf32>) {
  ^bb0(%%v: f16, %%acc: f32):
    %%wide = arith.extf %%v : f16 to f32
    %%sq = arith.mulf %%wide, %%wide : f32
    %%sum = arith.addf %%sq, %%acc : f32
    linalg.yield %%sum : f32
  } -> tensor<%(nm)dxf32>
  %%scale = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%%squares : tensor<%(nm)dxf32>) outs(%%re : tensor<%(nm)dxf32>) {
  ^bb0(%%v: f32, %%o: f32):
    %%mean = arith.divf %%v, %%count : f32
    %%shifted = arith.addf %%mean, %%eps : f32
    %%r = math.rsqrt %%shifted : f32
    linalg.yield %%r : f32
  } -> tensor<%(nm)dxf32>
  %%e = tensor.empty() : %(x)s
  %%y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%%x, %%scale, %%w : %(x)s, tensor<%(nm)dxf32>, %(w)s) outs(%%e : %(x)s) {
  ^bb0(%%v: f16, %%r: f32, %%g: f16, %%o: f16):
    %%wide = arith.extf %%v : f16 to f32
    %%n = arith.mulf %%wide, %%r : f32
    %%narrow = arith.truncf %%n : f32 to f16
    %%out = arith.mulf %%narrow, %%g : f16
    linalg.yield %%out : f16
  } -> %(x)s
  return %%y : %(x)s
}
""" % dict(x=tensor((nm, nn), "f16"), w=tensor((nn,), "f16"), nm=nm, nn=nn)

    def rms_norm_reference(x, nm=nm, nn=nn):
        out = []
        for r in range(nm):
            row = x[0][r * nn:(r + 1) * nn]
            scale = 1.0 / math.sqrt(math.fsum(v * v for v in row) / nn +
                                    x[2][0])
            out += [round_to(round_to(v * scale, "f16") * g, "f16")
                    for v, g in zip(row, x[1])]
        return out
    cases.append(Case("rms_norm_rows", text,
                      [("x", (nm, nn), "f16", (-2.0, 2.0)),
                       ("w", (nn,), "f16", (0.5, 1.5)),
                       ("eps", (), "f32", (1e-6, 1e-5))],
                      ((nm, nn), "f16"), rms_norm_reference, 2.0 ** -9,
                      launches=1))

    # A layer norm over the last two dimensions (a group norm's shape: each
    # row is 3 x 70 elements, two reduction loops): the sum, then the sum
    # of squares about the mean, then the normalized row; the mean and
    # variance generics merge into their readers.
    gb, gc, gw = 6, 3, 70
    count = gc * gw
    text = """func.func @norm_2d(%%x: %(x)s) -> %(x)s {
  %%zero = arith.constant 0.0 : f32
  %%count = arith.constant %(count)d.0 : f32
  %%eps = arith.constant 1.0e-5 : f32
  %%re = tensor.empty() : tensor<%(gb)dxf32>
  %%s0 = linalg.fill ins(%%zero : f32) outs(%%re : tensor<%(gb)dxf32>) -> tensor<%(gb)dxf32>
  %%sum = linalg.generic {indexing_maps = [affine_map<(b, c, w) -> (b, c, w)>, affine_map<(b, c, w) -> (b)>], iterator_types = ["parallel", "reduction", "reduction"]}
      ins(%%x : %(x)s) outs(%%s0 : tensor<%(gb)dxf32>) {
  ^bb0(%%v: f32, %%acc: f32):
    %%s = arith.addf %%v, %%acc : f32
    linalg.yield %%s : f32
  } -> tensor<%(gb)dxf32>
  %%mean = linalg.generic {indexing_maps = [affine_map<(b) -> (b)>, affine_map<(b) -> (b)>], iterator_types = ["parallel"]}
      ins(%%sum : tensor<%(gb)dxf32>) outs(%%re : tensor<%(gb)dxf32>) {
  ^bb0(%%v: f32, %%o: f32):
    %%m = arith.divf %%v, %%count : f32
    linalg.yield %%m : f32
  } -> tensor<%(gb)dxf32>
  %%v0 = linalg.fill ins(%%zero : f32) outs(%%re : tensor<%(gb)dxf32>) -> tensor<%(gb)dxf32>
  %%squares = linalg.generic {indexing_maps = [affine_map<(b, c, w) -> (b, c, w)>, affine_map<(b, c, w) -> (b)>, affine_map<(b, c, w) -> (b)>], iterator_types = ["parallel", "reduction", "reduction"]}
      ins(%%x, %%mean : %(x)s, tensor<%(gb)dxf32>) outs(%%v0 : tensor<%(gb)dxf32>) {
  ^bb0(%%v: f32, %%m: f32, %%acc: f32):
    %%d = arith.subf %%v, %%m : f32
    %%sq = arith.mulf %%d, %%d : f32
    %%s = arith.addf %%sq, %%acc : f32
    linalg.yield %%s : f32
  } -> tensor<%(gb)dxf32>
  %%e = tensor.empty() : %(x)s
  %%y = linalg.generic {indexing_maps = [affine_map<(b, c, w) -> (b, c, w)>, affine_map<(b, c, w) -> (b)>, affine_map<(b, c, w) -> (b)>, affine_map<(b, c, w) -> (b, c, w)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%%x, %%mean, %%squares : %(x)s, tensor<%(gb)dxf32>, tensor<%(gb)dxf32>) outs(%%e : %(x)s) {
  ^bb0(%%v: f32, %%m: f32, %%sq: f32, %%o: f32):
    %%var = arith.divf %%sq, %%count : f32
    %%ve = arith.addf %%var, %%eps : f32
    %%r = math.rsqrt %%ve : f32
    %%d = arith.subf %%v, %%m : f32
    %%n = arith.mulf %%d, %%r : f32
    linalg.yield %%n : f32
  } -> %(x)s
  return %%y : %(x)s
}
""" % dict(x=tensor((gb, gc, gw), "f32"), gb=gb, count=count)

    def norm_2d_reference(x, gb=gb, count=count):
        out = []
        for b in range(gb):
            row = x[0][b * count:(b + 1) * count]
            mean = math.fsum(row) / count
            var = math.fsum((v - mean) ** 2 for v in row) / count
            out += [(v - mean) / math.sqrt(var + 1e-5) for v in row]
        return out
    cases.append(Case("norm_two_loop_rows", text,
                      [("x", (gb, gc, gw), "f32", (1.0, 3.0))],
                      ((gb, gc, gw), "f32"), norm_2d_reference, 1e-5,
                      launches=1))

    # 8-bit inputs extended by element-wise producers, as front-ends write
    # integer matmuls; the kernel reads the bytes. B (K x N) staged as it
    # is, and transposed on its way into workgroup memory
    # (stage-b-transposed=1), both with ragged sizes and in whole tiles
    # (on cpu-lavapipe and amd-rdna3 the blocks of B are fewer than the
    # invocations: some store none).
    if target != "apple-m1":
        for name, (im, in_, ik), options in (
                ("int8_extended", (64, 48, 96), ""),
                ("int8_b_staged_transposed", (64, 48, 96),
                 "stage-b-transposed=1"),
                ("int8_b_staged_transposed_whole_tiles", (128, 128, 128),
                 "stage-b-transposed=1")):
            cases.append(extended_8bit_case(name, im, in_, ik, True,
                                            options))
    # bf16 inputs on tensors, where the target multiplies bf16.
    if target in ("nvidia-h100", "intel-xe-hpc", "cpu-lavapipe"):
        fm_, fn_, fk_ = 40, 48, 64
        text = """func.func @bf16(%%a: %(a)s, %%b: %(b)s) -> %(c)s {
  %%zero = arith.constant 0.0 : f32
  %%e = tensor.empty() : %(c)s
  %%f = linalg.fill ins(%%zero : f32) outs(%%e : %(c)s) -> %(c)s
  %%r = linalg.matmul ins(%%a, %%b : %(a)s, %(b)s) outs(%%f : %(c)s) -> %(c)s
  return %%r : %(c)s
}
""" % dict(a=tensor((fm_, fk_), "bf16"), b=tensor((fk_, fn_), "bf16"),
           c=tensor((fm_, fn_), "f32"))
        cases.append(Case("bf16_tensors", text,
                          [("a", (fm_, fk_), "bf16", unit),
                           ("b", (fk_, fn_), "bf16", unit)],
                          ((fm_, fn_), "f32"),
                          lambda x: matmul_reference(x[0], x[1], fm_, fn_,
                                                     fk_),
                          1e-3))
    # The precision policy (docs/Precision.md): half-precision products
    # that write half precision accumulate in f32 and are rounded once, on
    # store (with K in one part, so that the kernels counted are the
    # policy's). K is long enough that summing in the output type would miss
    # the tolerance (a rounding step of the output) several times over.
    # (The reference binds its sizes: closures read names late.)
    long_k = 512
    if target in ("nvidia-h100", "intel-xe-hpc", "cpu-lavapipe"):
        pm2, pn2 = 40, 48
        cases.append(Case(
            "bf16_to_bf16_tensors",
            filled_matmul_program("bf16_to_bf16", pm2, pn2, long_k, "bf16",
                                  "bf16"),
            [("a", (pm2, long_k), "bf16", unit),
             ("b", (long_k, pn2), "bf16", unit)],
            ((pm2, pn2), "bf16"),
            lambda x, m=pm2, n=pn2, k=long_k: matmul_reference(
                x[0], x[1], m, n, k),
            2.0 ** -7, options="split-k=1"))
    if t == "f16":
        # C is read: it is widened by a kernel of its own, the product
        # accumulates onto it in f32, and (for now) a third kernel rounds
        # it: the epilogue is not fused into contractions that read C.
        # With accumulate=f16 on lavapipe this case fails (234 of 1920
        # elements off by up to 0.047).
        case = accumulating_matmul_case("f16_to_f16_accumulating", 40, 48,
                                        long_k, "f16", "f16", unit)
        case.tolerance, case.launches = 2.0 ** -9, 3
        # One part: a split of K would add kernels the policy does not make.
        case.options = "split-k=1"
        cases.append(case)
    # f32 products: on targets whose matrix units lack f32 (the H100,
    # RDNA3) the kernel emulates its matrices in exact f32; lavapipe
    # emulates every kernel; Intel multiplies f32 natively. With
    # f32-matmul=bf16 the H100 rounds A and B to bf16 (fused into the
    # kernel's staging) and multiplies on the matrix units: the reference
    # rounds them too, so the check stays tight. (RDNA3 has no bf16
    # matrices; there the option leaves the product emulated.)
    if t != "f32":
        fm, fn, fk = 100, 90, 72
        cases.append(Case(
            "f32_matmul", filled_matmul_program("f32_matmul", fm, fn, fk,
                                                "f32", "f32"),
            [("a", (fm, fk), "f32", unit), ("b", (fk, fn), "f32", unit)],
            ((fm, fn), "f32"),
            lambda x, m=fm, n=fn, k=fk: matmul_reference(x[0], x[1], m, n, k),
            1e-5))
    if target == "nvidia-h100":
        fm, fn, fk = 64, 80, 96
        def rounded_reference(x, m=fm, n=fn, k=fk):
            a = [round_to(v, "bf16") for v in x[0]]
            b = [round_to(v, "bf16") for v in x[1]]
            return matmul_reference(a, b, m, n, k)
        cases.append(Case(
            "f32_matmul_rounded_to_bf16",
            filled_matmul_program("f32_matmul_rounded_to_bf16", fm, fn, fk,
                                  "f32", "f32"),
            [("a", (fm, fk), "f32", unit), ("b", (fk, fn), "f32", unit)],
            ((fm, fn), "f32"), rounded_reference, 1e-5,
            options="f32-matmul=bf16"))
    # A rank-0 scale (a tensor<f32> argument, as importers pass scales):
    # a one-element buffer the epilogue reads element 0 of, fused into
    # the product's kernel.
    if t != "f32":
        sm0, sn0, sk0 = 48, 40, 64
        text = """func.func @rank0_scale(%%a: %(a)s, %%b: %(b)s, %%s: tensor<f32>) -> %(c)s {
  %%zero = arith.constant 0.0 : f32
  %%e = tensor.empty() : %(c)s
  %%f = linalg.fill ins(%%zero : f32) outs(%%e : %(c)s) -> %(c)s
  %%mm = linalg.matmul ins(%%a, %%b : %(a)s, %(b)s) outs(%%f : %(c)s) -> %(c)s
  %%e2 = tensor.empty() : %(c)s
  %%r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%%mm, %%s : %(c)s, tensor<f32>) outs(%%e2 : %(c)s) {
  ^bb0(%%v: f32, %%sv: f32, %%o: f32):
    %%p = arith.mulf %%v, %%sv : f32
    linalg.yield %%p : f32
  } -> %(c)s
  return %%r : %(c)s
}
""" % dict(a=tensor((sm0, sk0), t), b=tensor((sk0, sn0), t),
           c=tensor((sm0, sn0), "f32"))
        cases.append(Case(
            "rank0_scale", text,
            [("a", (sm0, sk0), t, unit), ("b", (sk0, sn0), t, unit),
             ("s", (), "f32", (0.5, 2.0))],
            ((sm0, sn0), "f32"),
            lambda x, m=sm0, n=sn0, k=sk0: [
                v * x[2][0] for v in matmul_reference(x[0], x[1], m, n, k)],
            1e-3))
    # Contractions as front-ends spell them, brought to one matrix product
    # by sm-normalize-contractions: attention scores on [batch, seq, heads,
    # dim] operands (Q and K transposed to [batch, heads, seq, dim], the
    # batch and heads collapsed), a batch loop between two M loops (A and
    # C transposed), an 8-bit weight shared by the batch (one kernel), a
    # C that holds N before M with K over two loops (the inputs swap roles:
    # C^T = B^T A^T, one input transposed), a matrix-vector product (a unit
    # N).
    if t == "f16":
        cases.append(contraction_case(
            "generic_scores_heads_moved",
            dict(b=2, h=3, s=20, t=24, d=32), ("bshd", "bthd", "bhst"),
            "f16", "f32", launches=3))
        cases.append(contraction_case(
            "generic_batch_between_m_loops",
            dict(m=3, b=2, i=16, n=24, k=48), ("mbik", "bnk", "mbin"),
            "f16", "f32", launches=4, accumulate=True))
        cases.append(contraction_case(
            "generic_matvec", dict(m=40, k=96), ("mk", "k", "m"),
            "f16", "f32", launches=1))
        # A dot product: no matrices, the zero fill then one invocation
        # summing K into the rank-0 result.
        cases.append(contraction_case(
            "generic_dot", dict(k=300), ("k", "k", ""), "f16", "f32",
            launches=2))
        cases.append(contraction_case(
            "generic_vecmat_batched", dict(b=3, k=64, n=40),
            ("bk", "bkn", "bn"), "f16", "f32", launches=1))
    if target != "apple-m1":
        # 8-bit operands extended by arith.extsi on whole tensors, as an
        # importer writes them: the casts become generics and fuse.
        em8, en8, ek8 = 40, 48, 96
        cases.append(Case(
            "tensor_extsi_i8_matmul", """func.func @tensor_extsi_i8_matmul(%%a: tensor<%(m)dx%(k)dxi8>, %%b: tensor<%(k)dx%(n)dxi8>) -> tensor<%(m)dx%(n)dxi32> {
  %%a32 = arith.extsi %%a : tensor<%(m)dx%(k)dxi8> to tensor<%(m)dx%(k)dxi32>
  %%b32 = arith.extsi %%b : tensor<%(k)dx%(n)dxi8> to tensor<%(k)dx%(n)dxi32>
  %%zero = arith.constant 0 : i32
  %%e = tensor.empty() : tensor<%(m)dx%(n)dxi32>
  %%acc = linalg.fill ins(%%zero : i32) outs(%%e : tensor<%(m)dx%(n)dxi32>) -> tensor<%(m)dx%(n)dxi32>
  %%r = linalg.matmul ins(%%a32, %%b32 : tensor<%(m)dx%(k)dxi32>, tensor<%(k)dx%(n)dxi32>) outs(%%acc : tensor<%(m)dx%(n)dxi32>) -> tensor<%(m)dx%(n)dxi32>
  return %%r : tensor<%(m)dx%(n)dxi32>
}
""" % dict(m=em8, n=en8, k=ek8),
            [("a", (em8, ek8), "si8", (-128, 127)),
             ("b", (ek8, en8), "si8", (-128, 127))],
            ((em8, en8), "si32"),
            lambda x, em8=em8, en8=en8, ek8=ek8: [
                int(p) for p in matmul_reference(x[0], x[1], em8, en8, ek8)],
            0.0))
        # linalg.quantized_matmul: the product of the stored bytes on the
        # matrix units, the zero points' corrections (row sums of A, column
        # sums of B) after it: in its epilogue when the zero points are
        # constants, an element-wise kernel that takes them as arguments
        # when they are function arguments (i32 scalars). The sums start
        # from their fills' zeros: no kernel fills them.
        qm, qn, qk = 40, 56, 96
        for name, zero_arguments, zero_constants, zero_inputs, launches in [
                ("quantized_matmul", "",
                 "  %za = arith.constant 3 : i32\n"
                 "  %zb = arith.constant -5 : i32\n", [], 3),
                ("quantized_matmul_zero_point_arguments",
                 ", %za: i32, %zb: i32", "",
                 [("za", (), "si32", (-20, 20)),
                  ("zb", (), "si32", (-20, 20))], 4)]:
            zeros = (lambda x: (3, -5)) if not zero_inputs else \
                (lambda x: (x[2][0], x[3][0]))
            cases.append(Case(
                name, """func.func @%(name)s(%%a: tensor<%(m)dx%(k)dxi8>, %%b: tensor<%(k)dx%(n)dxi8>%(arguments)s) -> tensor<%(m)dx%(n)dxi32> {
%(constants)s  %%zero = arith.constant 0 : i32
  %%e = tensor.empty() : tensor<%(m)dx%(n)dxi32>
  %%acc = linalg.fill ins(%%zero : i32) outs(%%e : tensor<%(m)dx%(n)dxi32>) -> tensor<%(m)dx%(n)dxi32>
  %%r = linalg.quantized_matmul ins(%%a, %%b, %%za, %%zb : tensor<%(m)dx%(k)dxi8>, tensor<%(k)dx%(n)dxi8>, i32, i32) outs(%%acc : tensor<%(m)dx%(n)dxi32>) -> tensor<%(m)dx%(n)dxi32>
  return %%r : tensor<%(m)dx%(n)dxi32>
}
""" % dict(name=name, m=qm, n=qn, k=qk,
                      arguments=zero_arguments,
                      constants=zero_constants),
                [("a", (qm, qk), "si8", (-128, 127)),
                 ("b", (qk, qn), "si8", (-128, 127))] + zero_inputs,
                ((qm, qn), "si32"),
                lambda x, zeros=zeros: (
                    (np.array(x[0], np.int64).reshape(qm, qk) - zeros(x)[0])
                    @ (np.array(x[1], np.int64).reshape(qk, qn) -
                       zeros(x)[1])).reshape(-1).tolist(),
                0.0, launches=launches))
        # A quantized convolution (linalg.conv_2d_nhwc_hwcf_q, zero points
        # 5 and -3): the implicit GEMM of the stored bytes, the zero
        # points' corrections as for quantized_matmul.
        shaped = convolution_case(
            "conv3x3_quantized_nhwc", "conv_2d_nhwc_hwcf",
            ("nhwc", "hwcf", "nhwf"), dict(n=2, c=32, f=40, h=9, w=11),
            dict(h=3, w=3), (1, 1), (1, 1), (0, 0), "si8", "si32", 1)
        (_, x_shape, _, _), (_, f_shape, _, _) = shaped.inputs
        y_shape = shaped.output[0]
        types = dict(x=tensor(x_shape, "i8"), f=tensor(f_shape, "i8"),
                     y=tensor(y_shape, "i32"))
        cases.append(Case(
            "conv3x3_quantized_nhwc", """func.func @conv3x3_quantized_nhwc(%%x: %(x)s, %%f: %(f)s) -> %(y)s {
  %%zx = arith.constant 5 : i32
  %%zf = arith.constant -3 : i32
  %%zero = arith.constant 0 : i32
  %%e = tensor.empty() : %(y)s
  %%init = linalg.fill ins(%%zero : i32) outs(%%e : %(y)s) -> %(y)s
  %%r = linalg.conv_2d_nhwc_hwcf_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%%x, %%f, %%zx, %%zf : %(x)s, %(f)s, i32, i32) outs(%%init : %(y)s) -> %(y)s
  return %%r : %(y)s
}
""" % types,
            [("x", x_shape, "si8", (-128, 127)),
             ("f", f_shape, "si8", (-128, 127))],
            (y_shape, "si32"),
            lambda x, reference=shaped.reference: [
                int(round(v)) for v in reference(
                    [[v - 5 for v in x[0]], [v + 3 for v in x[1]]])],
            0.0, launches=3))
        # An int4 weight dequantized per group of 32 along K, K written as
        # two loops (group, index in group) as IREE imports it, the nibbles
        # packed two to a byte: a matrix product over both K loops.
        cases.append(Case(
            "grouped_int4_two_k_loops", """#q = affine_map<(n, g, j) -> (n, g, j floordiv 2)>
#s = affine_map<(n, g, j) -> (n, g)>
#o = affine_map<(n, g, j) -> (n, g, j)>
#x = affine_map<(m, n, g, j) -> (m, g, j)>
#w = affine_map<(m, n, g, j) -> (n, g, j)>
#y = affine_map<(m, n, g, j) -> (m, n)>
func.func @grouped_int4_two_k_loops(%x: tensor<16x8x32xf16>, %q: tensor<96x8x16xi8>, %s: tensor<96x8xf16>) -> tensor<16x96xf32> {
  %e = tensor.empty() : tensor<96x8x32xf16>
  %w = linalg.generic {indexing_maps = [#q, #s, #o], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%q, %s : tensor<96x8x16xi8>, tensor<96x8xf16>) outs(%e : tensor<96x8x32xf16>) {
  ^bb0(%qv: i8, %sv: f16, %o: f16):
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c15 = arith.constant 15 : i8
    %c8 = arith.constant 8 : i8
    %j = linalg.index 2 : index
    %odd = arith.andi %j, %c1 : index
    %sh = arith.muli %odd, %c4 : index
    %shift = arith.index_cast %sh : index to i8
    %v = arith.shrui %qv, %shift : i8
    %nib = arith.andi %v, %c15 : i8
    %c = arith.subi %nib, %c8 : i8
    %f = arith.sitofp %c : i8 to f16
    %r = arith.mulf %f, %sv : f16
    linalg.yield %r : f16
  } -> tensor<96x8x32xf16>
  %zero = arith.constant 0.0 : f32
  %ye = tensor.empty() : tensor<16x96xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%ye : tensor<16x96xf32>) -> tensor<16x96xf32>
  %y = linalg.generic {indexing_maps = [#x, #w, #y], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %w : tensor<16x8x32xf16>, tensor<96x8x32xf16>) outs(%acc : tensor<16x96xf32>) {
  ^bb0(%a: f16, %b: f16, %c: f32):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %p = arith.mulf %a32, %b32 : f32
    %sum = arith.addf %c, %p : f32
    linalg.yield %sum : f32
  } -> tensor<16x96xf32>
  return %y : tensor<16x96xf32>
}""",
            [("x", (16, 8, 32), t, (-1, 1)), ("q", (96, 8, 16), "si8",
                                               (-128, 127)),
             ("s", (96, 8), t, (0.01, 0.02))],
            ((16, 96), "f32"),
            lambda x: _grouped_int4_reference(x),
            1e-3, launches=2))
        cases.append(contraction_case(
            "generic_i8_shared_weight", dict(b=3, m=20, n=24, k=64),
            ("bmk", "kn", "bmn"), "i8", "i32", launches=1, accumulate=True))
        cases.append(contraction_case(
            "generic_i8_output_transposed_two_k",
            dict(m=20, n=24, p=4, q=16), ("mpq", "qpn", "nm"), "i8", "i32",
            launches=2))
    # Unsigned 8-bit inputs extended by `extui` producers (full range: a
    # signed reading of the bytes would be wrong).
    if target != "apple-m1":
        cases.append(extended_8bit_case("uint8_extended", 32, 48, 64, False))
    # Attention: one flash-attention kernel for the whole program (scores
    # and probabilities never reach memory). Ragged lengths (queries !=
    # keys, neither a multiple of the blocks), a causal mask written with
    # linalg.index, head dimensions 64 and 128, an f16 output.
    # Both forms of the online softmax (result matrices; scalars through
    # workgroup memory, the Vulkan default) run on every path, with other
    # subgroup counts and key blocks.
    for an, (ab, asq, ask, ad, causal, out), aoptions in [
            ("attention_ragged", (2, 37, 45, 64, False, "f32"), ""),
            ("attention_causal", (2, 70, 70, 64, True, "f32"), ""),
            ("attention_d128_f16_out", (1, 40, 100, 128, False,
                                         t if t != "f32" else "f32"), ""),
            ("attention_registers_causal", (2, 70, 45, 64, True, "f32"),
             "attention-softmax=registers attention-key-block=32"),
            ("attention_workgroup_memory_2_subgroups",
             (3, 50, 77, 64, True, "f32"),
             "attention-softmax=workgroup-memory attention-subgroups=2"),
            ("attention_workgroup_memory_causal",
             (2, 70, 45, 64, True, "f32"),
             "attention-softmax=workgroup-memory"),
            ("attention_workgroup_memory_block_16",
             (1, 33, 40, 64, False, "f32"),
             "attention-softmax=workgroup-memory attention-key-block=16 "
             "attention-subgroups=1")]:
        cases.append(Case(
            an, attention_program(an, ab, asq, ask, ad, t, causal, out),
            [("q", (ab, asq, ad), t, unit), ("k", (ab, ask, ad), t, unit),
             ("v", (ab, ask, ad), t, unit)],
            ((ab, asq, ad), out),
            lambda x, ab=ab, asq=asq, ask=ask, ad=ad, causal=causal:
                attention_reference(x, ab, asq, ask, ad, causal),
            2e-3, options=aoptions))
    # Heads as their own dimension (reshaped to and from the folded form,
    # as front-ends write it) with an additive mask shared by the batch,
    # which the kernel reads at (query, key); and bf16 inputs where the
    # target multiplies them.
    mb, mh, msq, msk, md = 4, 2, 37, 75, 64
    cases.append(Case(
        "attention_heads_additive_mask",
        attention_program("attention_heads_additive_mask", mb, msq, msk, md,
                          t, False, "f32", heads=mh, additive_mask=True),
        [("q", (mb // mh, mh, msq, md), t, unit),
         ("k", (mb // mh, mh, msk, md), t, unit),
         ("v", (mb // mh, mh, msk, md), t, unit),
         ("mask", (msq, msk), "f32", (-4.0, 0.0))],
        ((mb // mh, mh, msq, md), "f32"),
        lambda x: attention_reference(x, mb, msq, msk, md, False), 2e-3))
    if target in ("nvidia-h100", "intel-xe-hpc", "cpu-lavapipe"):
        cases.append(Case(
            "attention_bf16_causal_heads",
            attention_program("attention_bf16_causal_heads", 2, 50, 50, 128,
                              "bf16", True, "bf16", heads=2),
            [("q", (1, 2, 50, 128), "bf16", unit),
             ("k", (1, 2, 50, 128), "bf16", unit),
             ("v", (1, 2, 50, 128), "bf16", unit)],
            ((1, 2, 50, 128), "bf16"),
            lambda x: attention_reference(x, 2, 50, 50, 128, True), 1e-2))

    # Attention on 4-D tensors written with linalg.generic contractions
    # over (batch, heads, ...) and a 4-D softmax: the two leading loops are
    # folded into one before the kernel is formed.
    gb, gh, gsq, gsk, gd = 2, 3, 40, 50, 64
    text = generic_attention_program(gb, gh, gsq, gsk, gd, t)
    cases.append(Case(
        "attention_4d_generic", text,
        [("q", (gb, gh, gsq, gd), t, unit), ("k", (gb, gh, gsk, gd), t, unit),
         ("v", (gb, gh, gsk, gd), t, unit)],
        ((gb, gh, gsq, gd), t),
        lambda x: attention_reference(x, gb * gh, gsq, gsk, gd, True),
        1e-2 if t != "f32" else 2e-3))

    # Attention with dynamic sequence lengths (a decode step's one query
    # against a growing cache included), compiled once, on memrefs.
    ab_, ad_ = 2, 64
    q_, kv_ = memref((ab_, "?", ad_), t), memref((ab_, "?", ad_), t)
    s_, p_ = memref((ab_, "?", "?"), "f32"), memref((ab_, "?", "?"), t)
    o_ = memref((ab_, "?", ad_), "f32")
    cast_p = """  %%pn = memref.alloc(%%sq, %%sk) : %(p)s
  linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%%p : %(s)s) outs(%%pn : %(p)s) {
  ^bb0(%%x: f32, %%y: %(t)s):
    %%n = arith.truncf %%x : f32 to %(t)s
    linalg.yield %%n : %(t)s
  }
""" % dict(p=p_, s=s_, t=t) if t != "f32" else ""
    text = """func.func @attention_dynamic_lengths(%%q: %(q)s, %%k: %(kv)s, %%v: %(kv)s, %%o: %(o)s) {
  %%zero = arith.constant 0.0 : f32
  %%c1 = arith.constant 1 : index
  %%sq = memref.dim %%q, %%c1 : %(q)s
  %%sk = memref.dim %%k, %%c1 : %(kv)s
  %%s = memref.alloc(%%sq, %%sk) : %(s)s
  linalg.fill ins(%%zero : f32) outs(%%s : %(s)s)
  linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
    ins(%%q, %%k : %(q)s, %(kv)s) outs(%%s : %(s)s)
  %%m = memref.alloc(%%sq, %%sk) : %(s)s
  linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%%s : %(s)s) outs(%%m : %(s)s) {
  ^bb0(%%x: f32, %%unused: f32):
%(body)s  }
  %%p = memref.alloc(%%sq, %%sk) : %(s)s
  linalg.softmax dimension(2) ins(%%m : %(s)s) outs(%%p : %(s)s)
%(cast_p)s  linalg.fill ins(%%zero : f32) outs(%%o : %(o)s)
  linalg.batch_matmul ins(%(pv)s, %%v : %(p)s, %(kv)s) outs(%%o : %(o)s)
  return
}
""" % dict(q=q_, kv=kv_, s=s_, p=p_ if t != "f32" else s_, o=o_,
           body=scaled_causal_body(1.0 / math.sqrt(ad_), 1, 2), cast_p=cast_p,
           pv="%pn" if t != "f32" else "%p")

    def attention_variant(sq, sk):
        return ([("q", (ab_, sq, ad_), t, unit), ("k", (ab_, sk, ad_), t, unit),
                 ("v", (ab_, sk, ad_), t, unit),
                 ("o", (ab_, sq, ad_), "f32", unit)],
                lambda x: attention_reference(x[:3], ab_, sq, sk, ad_, True))
    cases.append(Case("attention_dynamic_lengths", text, None, None, None,
                      2e-3, variants=[attention_variant(*size) for size in
                                      [(1, 77), (37, 45), (70, 70),
                                       (130, 200)]]))

    # Dynamic sizes: one program, compiled once, run at sizes that are and
    # are not tile multiples (M = 1 and 7 for decode steps).
    dyn = lambda rank, storage: "memref<%s%s>" % ("?x" * rank, storage)  # noqa
    text = """func.func @dynamic_transposed_a(%%a: %(a)s, %%b: %(b)s, %%c: %(c)s) {
  linalg.matmul
    indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
    ins(%%a, %%b : %(a)s, %(b)s) outs(%%c : %(c)s)
  return
}
""" % dict(a=dyn(2, t), b=dyn(2, t), c=dyn(2, acc))

    def transposed_a_variant(m, n, k):
        return ([("a", (k, m), t, unit), ("b", (k, n), t, unit),
                 ("c", (m, n), acc, unit)],
                lambda x: [p + c for p, c in zip(matmul_reference(
                    x[0], x[1], m, n, k, transposed_a=True), x[2])])
    cases.append(Case("dynamic_transposed_a", text, None, None, None, 1e-3,
                      variants=[transposed_a_variant(*size) for size in
                                [(1, 90, 72), (7, 33, 40), (64, 64, 64),
                                 (130, 100, 150)]]))

    # On tensors (bufferized with dynamic allocations), B stored N x K, a
    # bias over columns and ReLU fused.
    text = """func.func @dynamic_linear_relu(%%a: tensor<?x?x%(t)s>, %%w: tensor<?x?x%(t)s>, %%bias: tensor<?x%(acc)s>) -> tensor<?x?x%(acc)s> {
  %%zero = arith.constant 0.0 : %(acc)s
  %%c0 = arith.constant 0 : index
  %%m = tensor.dim %%a, %%c0 : tensor<?x?x%(t)s>
  %%n = tensor.dim %%w, %%c0 : tensor<?x?x%(t)s>
  %%e = tensor.empty(%%m, %%n) : tensor<?x?x%(acc)s>
  %%f = linalg.fill ins(%%zero : %(acc)s) outs(%%e : tensor<?x?x%(acc)s>) -> tensor<?x?x%(acc)s>
  %%p = linalg.matmul
    indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
    ins(%%a, %%w : tensor<?x?x%(t)s>, tensor<?x?x%(t)s>) outs(%%f : tensor<?x?x%(acc)s>) -> tensor<?x?x%(acc)s>
  %%e2 = tensor.empty(%%m, %%n) : tensor<?x?x%(acc)s>
  %%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%%p, %%bias : tensor<?x?x%(acc)s>, tensor<?x%(acc)s>) outs(%%e2 : tensor<?x?x%(acc)s>) {
  ^bb0(%%x: %(acc)s, %%b: %(acc)s, %%o: %(acc)s):
    %%s = arith.addf %%x, %%b : %(acc)s
    %%y = arith.maximumf %%s, %%zero : %(acc)s
    linalg.yield %%y : %(acc)s
  } -> tensor<?x?x%(acc)s>
  return %%r : tensor<?x?x%(acc)s>
}
""" % dict(t=t, acc=acc)

    def linear_variant(m, n, k):
        return ([("a", (m, k), t, unit), ("w", (n, k), t, unit),
                 ("bias", (n,), acc, unit)],
                lambda x: [max(v + x[2][i % n], 0.0) for i, v in enumerate(
                    matmul_reference(x[0], x[1], m, n, k,
                                     transposed_b=True))])
    cases.append(Case("dynamic_linear_relu", text, None, None, None, 1e-3,
                      variants=[linear_variant(*size) for size in
                                [(1, 64, 96), (16, 90, 72), (100, 33, 40)]]))

    # A batch of 3 (static: the grid's depth) over dynamic M, N and K.
    text = """func.func @dynamic_batch(%%a: %(a)s, %%b: %(b)s, %%c: %(c)s) {
  linalg.batch_matmul ins(%%a, %%b : %(a)s, %(b)s) outs(%%c : %(c)s)
  return
}
""" % dict(a="memref<3x?x?x%s>" % t, b="memref<3x?x?x%s>" % t,
           c="memref<3x?x?x%s>" % acc)

    def batch_variant(m, n, k):
        return ([("a", (3, m, k), t, unit), ("b", (3, k, n), t, unit),
                 ("c", (3, m, n), acc, unit)],
                lambda x: [p + c for p, c in zip(matmul_reference(
                    x[0], x[1], m, n, k, batch=3), x[2])])
    cases.append(Case("dynamic_batch", text, None, None, None, 1e-3,
                      variants=[batch_variant(*size) for size in
                                [(7, 20, 24), (40, 70, 33)]]))

    # A reduction over dynamic sizes: its kernel takes the loop sizes.
    text = """func.func @dynamic_row_sum(%%x: %(x)s, %%y: %(y)s) {
  linalg.reduce ins(%%x : %(x)s) outs(%%y : %(y)s) dimensions = [1]
    (%%in: f32, %%acc: f32) {
      %%s = arith.addf %%in, %%acc : f32
      linalg.yield %%s : f32
    }
  return
}
""" % dict(x=dyn(2, "f32"), y=dyn(1, "f32"))

    def row_sum_variant(r, c):
        return ([("x", (r, c), "f32", unit), ("y", (r,), "f32", unit)],
                lambda x: [x[1][i] + sum(x[0][i * c:(i + 1) * c])
                           for i in range(r)])
    cases.append(Case("dynamic_row_sum", text, None, None, None, 1e-5,
                      variants=[row_sum_variant(*size) for size in
                                [(1, 1), (70, 150), (300, 3)]]))
    return cases


def generate(target, out):
    os.makedirs(out, exist_ok=True)
    cases = cases_for(target)
    for case in cases:
        with open(os.path.join(out, case.name + ".mlir"), "w") as f:
            f.write(case.text)
    with open(os.path.join(out, "target.txt"), "w") as f:
        f.write(target)
    print("%d cases for %s in %s" % (len(cases), target, out))


# NumPy's type for each storage the cases use; bf16 travels as its bits.
NUMPY_TYPE = {"f16": "float16", "f32": "float32", "bf16": "uint16",
              "si8": "int8", "ui8": "uint8", "si32": "int32",
              "ui32": "uint32"}
STORAGE_OF_NUMPY = {"float16": "f16", "float32": "f32", "uint16": "bf16",
                    "int8": "si8", "uint8": "ui8", "int32": "si32",
                    "uint32": "ui32"}


def to_array(values, shape, storage):
    """The flat `values` (already representable in `storage`) as an array
    of `shape` for sm-run."""
    if storage == "bf16":
        bits = np.array(values, np.float32).view(np.uint32) >> 16
        return bits.astype(np.uint16).reshape(shape)
    return np.array(values, NUMPY_TYPE[storage]).reshape(shape)


def from_array(array):
    """(flat list of Python numbers, storage) of an array sm-run read or
    wrote."""
    storage = STORAGE_OF_NUMPY[array.dtype.name]
    if storage == "bf16":
        array = (array.astype(np.uint32) << 16).view(np.float32)
    return array.reshape(-1).tolist(), storage


def build(path, case, out, tools, spirv_val, target):
    """Compiles the case with sm-linalg-to-gpu (the form sm-run takes) and
    checks its kernels the way `path` needs them: Vulkan SPIR-V serialized
    and validated, the Intel form's OpenCL SPIR-V validated. Returns
    (compiled program, error)."""
    tool = lambda t: os.path.join(tools, t)  # noqa: E731
    source = os.path.join(out, case.name + ".mlir")
    gpu = os.path.join(out, case.name + ".gpu.mlir")
    steps = [[tool("sm-opt"), source, ("--sm-linalg-to-gpu=target=%s %s" % (
        target, case.options)).strip(), "-o", gpu]]
    if path == "vulkan":
        lowered = os.path.join(out, case.name + ".spirv.mlir")
        kernel = os.path.join(out, case.name + ".spv")
        steps += [[tool("sm-opt"), gpu, "--sm-lower-to-vulkan", "-o", lowered],
                  [tool("sm-translate"), "--serialize-spirv", lowered, "-o",
                   kernel]]
        # Every binary, bf16 included (SPIRV-Tools 2026).
        if spirv_val:
            steps.append([spirv_val, "--target-env", "vulkan1.3", kernel])
    elif path == "intel" and spirv_val:
        lowered = os.path.join(out, case.name + ".intel.mlir")
        binary = os.path.join(out, case.name + ".intel.spv")
        steps += [[tool("sm-opt"), gpu, "--sm-lower-to-intel", "-o", lowered],
                  [tool("sm-translate"), "--emit-intel-spirv", lowered, "-o",
                   binary],
                  [spirv_val, "--target-env", "spv1.4", binary]]
    for argv in steps:
        result = run_tool(argv)
        if result.returncode:
            return None, "%s failed: %s" % (os.path.basename(argv[0]),
                                            (result.stderr or result.stdout)
                                            .strip()[-800:])
    # The launch ops the program became, as written (one in a loop counts
    # once).
    launches = open(gpu).read().count("gpu.launch_func ")
    if launches != case.launches:
        return None, "expected %d launch(es), got %d" % (case.launches,
                                                         launches)
    return gpu, None


def fresh_inputs(case_inputs, rng):
    """Random arrays for the function's arguments: (flat values, array)
    per argument."""
    inputs = []
    for _, shape, storage, (low, high) in case_inputs:
        count = math.prod(shape)
        if storage in ("f16", "bf16", "f32"):
            values = [round_to(rng.uniform(low, high), storage)
                      for _ in range(count)]
        else:
            values = [rng.randint(low, high) for _ in range(count)]
        inputs.append((values, to_array(values, shape, storage)))
    return inputs


def output_file(directory, argument_count):
    """Where sm-run wrote the case's output: its result, or else the last
    argument, which a memref program writes."""
    result = os.path.join(directory, "result_0.npy")
    if os.path.exists(result):
        return result
    return os.path.join(directory, "arg_%d.npy" % (argument_count - 1))


def compare(case, got_array, inputs, reference):
    """(ok, detail) of the output against the double-precision reference,
    each expected value rounded to the output's storage."""
    got, out_storage = from_array(got_array)
    expected = reference(inputs)
    mismatches, worst, first = 0, 0.0, None
    for i, (have, want) in enumerate(zip(got, expected)):
        want = round_to(want, out_storage)
        error = abs(have - want) if not math.isnan(have) else math.inf
        ok = error <= case.tolerance * max(1.0, abs(want))
        worst = max(worst, error)
        if not ok:
            mismatches += 1
            if first is None:
                first = "element %d: %r, expected %r" % (i, have, want)
    ok = mismatches == 0 and len(got) == len(expected)
    detail = "%d elements, %d mismatches, max error %.3g" % (
        len(got), mismatches, worst)
    if len(got) != len(expected):
        detail += " (expected %d elements)" % len(expected)
    if first:
        detail += " (first: %s)" % first
    return ok, detail


def variant_label(case, case_inputs, detail):
    if len(case.variants) == 1:
        return detail
    return "%s %s: %s" % (case_inputs[0][0], "x".join(
        str(d) for d in case_inputs[0][1]), detail)


def check_case(path, case, out, tools, spirv_val, target, rng, stage):
    """Builds the case and runs each of its variants through sm-run on
    fresh inputs, comparing the output with the reference; with `stage`,
    writes each variant's device plan and inputs into STAGE/<case>.v<N>
    instead of running it."""
    program, error = build(path, case, out, tools, spirv_val, target)
    if error:
        return False, error
    details = []
    for number, (case_inputs, reference) in enumerate(case.variants):
        directory = os.path.join(stage or out, "%s.v%d" % (case.name, number))
        os.makedirs(directory, exist_ok=True)
        argv = [os.path.join(tools, "sm-run"), program, "--target", target,
                "--output-dir", directory]
        inputs = fresh_inputs(case_inputs, rng)
        for index, (_, array) in enumerate(inputs):
            name = os.path.join(directory, "input_%d.npy" % index)
            np.save(name, array)
            argv += ["--input", name]
        if stage:
            argv += ["--emit-plan", directory]
        result = run_tool(argv)
        if result.returncode:
            return False, "; ".join(details + [variant_label(
                case, case_inputs, "sm-run failed (%d): %s" % (
                    result.returncode,
                    (result.stderr + result.stdout).strip()[-600:]))])
        if stage:
            details.append(variant_label(case, case_inputs, "staged"))
            continue
        got = np.load(output_file(directory, len(inputs)))
        ok, detail = compare(case, got, [values for values, _ in inputs],
                             reference)
        details.append(variant_label(case, case_inputs, detail))
        if not ok:
            return False, "; ".join(details)
    return True, "; ".join(details)


def check_staged(root):
    """Compares the outputs of staged variants that ran elsewhere
    (sm-plan-runner wrote them beside the inputs in ROOT/<case>.v<N>) with
    the reference."""
    target = open(os.path.join(root, "target.txt")).read().strip()
    passed = failed = 0
    for case in cases_for(target):
        details, ok = [], True
        for number, (case_inputs, reference) in enumerate(case.variants):
            directory = os.path.join(root, "%s.v%d" % (case.name, number))
            if not os.path.isdir(directory):
                continue
            inputs = [from_array(np.load(os.path.join(
                directory, "input_%d.npy" % i)))[0]
                for i in range(len(case_inputs))]
            output = output_file(directory, len(inputs))
            if not os.path.exists(output):
                log = os.path.join(directory, "runner.log")
                detail = "no output (%s)" % (open(log).read().strip()[-600:]
                                             if os.path.exists(log) else
                                             "no log")
                good = False
            else:
                good, detail = compare(case, np.load(output), inputs,
                                       reference)
            details.append(variant_label(case, case_inputs, detail))
            ok = ok and good
        if not details:
            continue
        print("%s %s: %s" % ("PASS" if ok else "FAIL", case.name,
                             "; ".join(details)), flush=True)
        passed += ok
        failed += not ok
    print("%s linalg suite: %d passed, %d failed" % (target, passed, failed))
    return 0 if failed == 0 else 1


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    g = sub.add_parser("generate")
    g.add_argument("target", choices=sorted(TARGETS))
    g.add_argument("out")
    for name in ("build", "run"):
        p = sub.add_parser(name)
        p.add_argument("path", choices=["vulkan", "intel", "msl"])
        p.add_argument("out")
        p.add_argument("tools")
        p.add_argument("--spirv-val", default="")
        if name == "run":
            p.add_argument("--only", default="")
            p.add_argument("--skip", default="",
                           help="leave out the programs whose name has this")
            p.add_argument("--seed", type=int,
                           default=random.SystemRandom().randrange(1 << 30))
            p.add_argument("--stage", metavar="DIR", default="",
                           help="write each variant's device plan and inputs "
                           "into DIR/<case>.v<N> (sm-run --emit-plan, for "
                           "sm-plan-runner elsewhere) instead of running it")
    c = sub.add_parser("compile")
    c.add_argument("out")
    c.add_argument("driver", help="a driver compile command taking a "
                   "binary and --entry NAME (e.g. lit's %%radv)")
    k = sub.add_parser("check", help="check staged variants that ran "
                       "elsewhere")
    k.add_argument("staged")
    args = parser.parse_args()
    if args.command == "check":
        return check_staged(args.staged)
    if args.command == "compile":
        # Every kernel of every built program, through a real driver.
        import shlex
        failed = 0
        for name in sorted(os.listdir(args.out)):
            if not name.endswith(".spv"):
                continue
            stem = name[:-len(".spv")]
            kernels = re.findall(r"gpu\.func @(\w+)", open(
                os.path.join(args.out, stem + ".gpu.mlir")).read())
            for entry in sorted(set(kernels)):
                result = run_tool(shlex.split(args.driver) + [
                    os.path.join(args.out, name), "--entry", entry])
                ok = result.returncode == 0
                failed += not ok
                print("%s %s:%s" % ("compiled" if ok else "FAILED", stem,
                                    entry))
        return 1 if failed else 0
    if args.command == "generate":
        generate(args.target, args.out)
        return 0
    target = open(os.path.join(args.out, "target.txt")).read().strip()
    cases = cases_for(target)
    if args.command == "build":
        failed = 0
        for case in cases:
            _, error = build(args.path, case, args.out, args.tools,
                             args.spirv_val, target)
            if error:
                failed += 1
                print("FAILED %s: %s" % (case.name, error))
        print("built %d programs for %s, %d failed" % (len(cases), args.path,
                                                      failed))
        return 1 if failed else 0
    # --only and --skip take comma-separated parts of names.
    only = [part for part in args.only.split(",") if part]
    skip = [part for part in args.skip.split(",") if part]
    selected = [c for c in cases
                if (not only or any(part in c.name for part in only)) and
                not any(part in c.name for part in skip)]
    print("seed %d" % args.seed)
    if args.stage:
        os.makedirs(args.stage, exist_ok=True)
        with open(os.path.join(args.stage, "target.txt"), "w") as f:
            f.write(target)

    def check(case):
        rng = random.Random("%d:%s" % (args.seed, case.name))
        try:
            return check_case(args.path, case, args.out, args.tools,
                              args.spirv_val, target, rng, args.stage)
        except Exception as error:  # a harness error fails the case
            return False, "harness error: %r" % error

    # Vulkan devices (lavapipe's JIT included) use every core themselves;
    # the CPU host runners run one program per core.
    jobs = 1 if args.path == "vulkan" else (os.cpu_count() or 1)
    passed = failed = 0
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        for case, (ok, detail) in zip(selected, pool.map(check, selected)):
            print("%s %s: %s" % ("PASS" if ok else "FAIL", case.name, detail),
                  flush=True)
            passed += ok
            failed += not ok
    print("%s linalg suite: %d %s, %d failed" % (
        args.path, passed, "staged" if args.stage else "passed", failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
