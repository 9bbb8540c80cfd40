"""What every subject's cases are made of: the Case record, the targets'
types, program builders for products and contractions, and the
double-precision references they share."""

import math

import numpy as np

# Per target: the input and accumulator element types of its products.
TARGETS = {
    "nvidia-h100": dict(inputs="f16", acc="f32"),
    "amd-rdna3": dict(inputs="f16", acc="f32"),
    "intel-xe-hpc": dict(inputs="f16", acc="f32"),
    # f16 products widened into its f32 matrices (chooseProductForm).
    "apple-m1": dict(inputs="f16", acc="f32"),
    "cpu-lavapipe": dict(inputs="f16", acc="f32"),
    "cpu-lavapipe-coopmat": dict(inputs="f16", acc="f32"),
}


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
        # How many kernel launches the program must become (None: not
        # checked), and options of sm-linalg-to-gpu beyond the target.
        self.launches, self.options = launches, options
        self.variants = variants or [(inputs, reference)]


def memref(shape, storage):
    return "memref<%s>" % "x".join([str(d) for d in shape] + [storage])


def tensor(shape, storage):
    return "tensor<%s>" % "x".join([str(d) for d in shape] + [storage])


def reduce_program(name, x, y, dimension, combine):
    """A linalg.reduce of f32 memref `x` into `y` along `dimension`, its
    body `arith.<combine>` of the element and the accumulator."""
    return """func.func @%(name)s(%%x: %(x)s, %%y: %(y)s) {
  linalg.reduce ins(%%x : %(x)s) outs(%%y : %(y)s) dimensions = [%(d)d]
    (%%in: f32, %%acc: f32) {
      %%s = arith.%(combine)s %%in, %%acc : f32
      linalg.yield %%s : f32
    }
  return
}
""" % dict(name=name, x=x, y=y, d=dimension, combine=combine)


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
