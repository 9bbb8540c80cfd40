"""Quantized and 8-bit products: weights dequantized as B is staged,
8-bit inputs extended by producers."""

import numpy as np

from sm_testing.elements import round_to
from sm_testing.linalg.common import Case, matmul_reference, tensor


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


# 4-bit values packed two to a byte along K (even k in the low nibble),
# offset by 8, one scale per group along K; B stored N x K.
INT4_CONSTANTS = """    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c15 = arith.constant 15 : i8
    %c8 = arith.constant 8 : i8
"""


def int4_body(t, scale_type, compute):
    """%w (of `t`) from byte %q_v, loop index 1 (k) and scale %s_v (of
    `scale_type`), computed in `compute`; INT4_CONSTANTS before it."""
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


def int4_weights(packed, scales, n, k, group, t):
    """The weight (N x K, flat) that int4_body computes from `packed` bytes
    and `scales` (N x groups), rounded to `t`."""
    groups = (k + group - 1) // group
    out = []
    for j in range(n):
        for q in range(k):
            byte = int(packed[j * (k // 2) + q // 2]) & 255
            nibble = (byte >> 4) if q % 2 else (byte & 15)
            out.append(round_to((nibble - 8) * scales[j * groups + q // group],
                                t))
    return out


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
                         if t == "f16" and target != "apple-m1" else [])
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
                                                "cpu-lavapipe", "apple-m1"):
            continue
        if t != "f16" and (a_type != t or scale_t != t or options):
            continue
        if target == "apple-m1" and "vector-width" in options:
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
                INT4_CONSTANTS + int4_body(t, scale_t, compute), (n, k), t,
                acc, m, n, k, True),
            [("a", (m, k), a_type, unit), ("q", (n, k // 2), "ui8", (0, 255)),
             ("s", (n, groups), scale_t, scales)],
            ((m, n), acc),
            (lambda m, n, k, group, scale_t: lambda x: matmul_reference(
                [round_to(v, t) for v in x[0]],
                int4_weights(x[1], x[2], n, k, group, t), m, n, k,
                transposed_b=True))(m, n, k, group, scale_t),
            1e-3, options=options))
    return cases


def extended_8bit_case(name, m, n, k, signed, options=""):
    """8-bit A and B widened to 32 bits by `extsi` (or `extui`) producers
    and multiplied into a random C (exact: a wrong byte, a byte read with
    the wrong sign or an unwritten element shows)."""
    ident = "affine_map<(d0, d1) -> (d0, d1)>"
    ext = "arith.extsi" if signed else "arith.extui"

    def widen(wide, narrow, rows, columns):
        return """  %(wide)s = memref.alloc() : memref<%(r)dx%(c)dxi32>
  linalg.generic {indexing_maps = [%(id)s, %(id)s], iterator_types = ["parallel", "parallel"]}
      ins(%(narrow)s : memref<%(r)dx%(c)dxi8>) outs(%(wide)s : memref<%(r)dx%(c)dxi32>) {
  ^bb0(%%x: i8, %%o: i32):
    %%y = %(ext)s %%x : i8 to i32
    linalg.yield %%y : i32
  }
""" % dict(wide=wide, narrow=narrow, r=rows, c=columns, id=ident, ext=ext)
    text = """func.func @%(name)s(%%a: memref<%(m)dx%(k)dxi8>, %%b: memref<%(k)dx%(n)dxi8>, %%c: memref<%(m)dx%(n)dxi32>) {
%(widen_a)s%(widen_b)s  linalg.matmul ins(%%wa, %%wb : memref<%(m)dx%(k)dxi32>, memref<%(k)dx%(n)dxi32>) outs(%%c : memref<%(m)dx%(n)dxi32>)
  return
}
""" % dict(name=name, m=m, n=n, k=k, widen_a=widen("%wa", "%a", m, k),
           widen_b=widen("%wb", "%b", k, n))
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


def cases(target, t, acc, unit):
    """This subject's cases for `target` (products of `t` inputs into
    `acc`, inputs drawn from `unit` unless a case says otherwise)."""
    cases = []
    cases.extend(dequantization_cases(target, t, acc, unit))


    # 8-bit inputs extended by element-wise producers, as front-ends write
    # integer matmuls; the kernel reads the bytes. B (K x N) staged as it
    # is, and transposed on its way into workgroup memory
    # (stage-b-transposed=1), both with ragged sizes and in whole tiles
    # (on cpu-lavapipe and amd-rdna3 the blocks of B are fewer than the
    # invocations: some store none). The transposing copy stores vectors,
    # which the Metal emitter does not print: apple-m1 emulates 8-bit
    # products from B as it is.
    for name, (im, in_, ik), options in (
            ("int8_extended", (64, 48, 96), ""),
            ("int8_b_staged_transposed", (64, 48, 96),
             "stage-b-transposed=1"),
            ("int8_b_staged_transposed_whole_tiles", (128, 128, 128),
             "stage-b-transposed=1")):
        if target == "apple-m1" and options:
            continue
        cases.append(extended_8bit_case(name, im, in_, ik, True,
                                        options))

    # Unsigned 8-bit inputs extended by `extui` producers (full range: a
    # signed reading of the bytes would be wrong).
    cases.append(extended_8bit_case("uint8_extended", 32, 48, 64, False))
    return cases
