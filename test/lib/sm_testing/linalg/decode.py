"""Products with a few rows (a decode step: one token, or a handful, times
a weight stored N x K as a linear layer's is), which sm-linalg-to-gpu
computes as dot products in one launch: plain, quantized weights
dequantized in registers, fused epilogues, ragged and dynamic sizes. Every
case asks for dot products up to eight rows (whatever the target's
crossover), and must stay one launch."""

import numpy as np

from sm_testing.elements import round_to
from sm_testing.linalg.common import Case, matmul_reference, memref, tensor
from sm_testing.linalg.quantized import (
    INT4_CONSTANTS, dequantization_program, int4_body, int4_weights)

TRANSPOSED_B = ("indexing_maps = [affine_map<(m, n, k) -> (m, k)>, "
                "affine_map<(m, n, k) -> (n, k)>, "
                "affine_map<(m, n, k) -> (m, n)>]")

DOT_PRODUCTS = "dot-product-rows=8"

def linear_program(name, m, n, k, t, out, epilogue=None):
    """x W^T into a zero-filled `out`, W stored N x K; `epilogue` (a body
    on %x, the product, and %b, a bias per column, yielding %y) makes the
    function take a bias and return the epilogue's result."""
    a, w, c = tensor((m, k), t), tensor((n, k), t), tensor((m, n), out)
    args = "%%a: %s, %%w: %s" % (a, w)
    if epilogue:
        args += ", %%bias: %s" % tensor((n,), out)
    text = """func.func @%(name)s(%(args)s) -> %(c)s {
  %%zero = arith.constant 0.0 : %(out)s
  %%e = tensor.empty() : %(c)s
  %%f = linalg.fill ins(%%zero : %(out)s) outs(%%e : %(c)s) -> %(c)s
  %%p = linalg.matmul %(maps)s
    ins(%%a, %%w : %(a)s, %(w)s) outs(%%f : %(c)s) -> %(c)s
""" % dict(name=name, args=args, a=a, w=w, c=c, out=out, maps=TRANSPOSED_B)
    if not epilogue:
        return text + "  return %%p : %s\n}\n" % c
    return text + """  %%e2 = tensor.empty() : %(c)s
  %%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%%p, %%bias : %(c)s, %(bias)s) outs(%%e2 : %(c)s) {
  ^bb0(%%x: %(out)s, %%b: %(out)s, %%o: %(out)s):
%(body)s
    linalg.yield %%y : %(out)s
  } -> %(c)s
  return %%r : %(c)s
}
""" % dict(c=c, out=out, bias=tensor((n,), out), body=epilogue)


def cases(target, t, acc, unit):
    """This subject's cases for `target` (products of `t` inputs into
    `acc`, inputs drawn from `unit`)."""
    cases = []
    scales = (0.002, 0.01)

    # Plain f16 weights, M from 1 to 8. N = 70 leaves the last workgroup
    # part of its columns; K = 1000 is no multiple of a step of the K loop.
    for m in (1, 3, 8):
        n, k = 70, 1000
        cases.append(Case(
            "decode_f16_rows_%d" % m, linear_program(
                "decode_f16_rows_%d" % m, m, n, k, t, acc),
            [("a", (m, k), t, unit), ("w", (n, k), t, unit)],
            ((m, n), acc),
            lambda x, m=m, n=n, k=k: matmul_reference(
                x[0], x[1], m, n, k, transposed_b=True),
            1e-3))

    # A bias and a ReLU fused, the result rounded to f16 once.
    m, n, k = 2, 64, 256
    relu = """    %s = arith.addf %x, %b : f16
    %z = arith.constant 0.0 : f16
    %y = arith.maximumf %s, %z : f16"""
    cases.append(Case(
        "decode_bias_relu_f16_out",
        linear_program("decode_bias_relu_f16_out", m, n, k, t, "f16", relu),
        [("a", (m, k), t, unit), ("w", (n, k), t, unit),
         ("bias", (n,), "f16", unit)],
        ((m, n), "f16"),
        lambda x, m=m, n=n, k=k: [
            max(round_to(round_to(v, "f16") + x[2][i % n], "f16"), 0.0)
            for i, v in enumerate(matmul_reference(x[0], x[1], m, n, k,
                                                   transposed_b=True))],
        2.0 ** -9))

    # C read and added to (a random C on memrefs).
    m, n, k = 4, 24, 96
    text = """func.func @decode_accumulate(%%a: %(a)s, %%w: %(w)s, %%c: %(c)s) {
  linalg.matmul %(maps)s
    ins(%%a, %%w : %(a)s, %(w)s) outs(%%c : %(c)s)
  return
}
""" % dict(a=memref((m, k), t), w=memref((n, k), t), c=memref((m, n), acc),
           maps=TRANSPOSED_B)
    cases.append(Case(
        "decode_accumulate", text,
        [("a", (m, k), t, unit), ("w", (n, k), t, unit),
         ("c", (m, n), acc, unit)],
        None,
        lambda x, m=m, n=n, k=k: [p + c for p, c in zip(
            matmul_reference(x[0], x[1], m, n, k, transposed_b=True), x[2])],
        1e-3))

    # int8, one scale per output column.
    m, n, k = 1, 64, 384
    body = """    %%qf = arith.sitofp %%q_v : i8 to %(t)s
    %%w = arith.mulf %%qf, %%s_v : %(t)s""" % dict(t=t)
    cases.append(Case(
        "decode_int8_per_column",
        dequantization_program(
            "decode_int8_per_column", tensor((m, k), t), None,
            [("q", tensor((n, k), "i8")), ("s", tensor((n,), t))],
            ["affine_map<(d0, d1) -> (d0, d1)>",
             "affine_map<(d0, d1) -> (d0)>"], body, (n, k), t, acc, m, n, k,
            True),
        [("a", (m, k), t, unit), ("q", (n, k), "si8", (-128, 127)),
         ("s", (n,), t, scales)],
        ((m, n), acc),
        lambda x, m=m, n=n, k=k: matmul_reference(
            x[0], [round_to(x[1][i] * x[2][i // k], t) for i in range(n * k)],
            m, n, k, transposed_b=True),
        1e-3))

    # int8 in groups of 64 along K with a zero point per group.
    m, n, k, group = 3, 40, 320, 64
    groups = k // group
    body = """    %%qf = arith.sitofp %%q_v : i8 to %(t)s
    %%zf = arith.sitofp %%z_v : i8 to %(t)s
    %%d = arith.subf %%qf, %%zf : %(t)s
    %%w = arith.mulf %%d, %%s_v : %(t)s""" % dict(t=t)
    group_map = "affine_map<(d0, d1) -> (d0, d1 floordiv %d)>" % group
    cases.append(Case(
        "decode_int8_groups_zero_points",
        dequantization_program(
            "decode_int8_groups_zero_points", tensor((m, k), t), None,
            [("q", tensor((n, k), "i8")), ("s", tensor((n, groups), t)),
             ("z", tensor((n, groups), "i8"))],
            ["affine_map<(d0, d1) -> (d0, d1)>", group_map, group_map], body,
            (n, k), t, acc, m, n, k, True),
        [("a", (m, k), t, unit), ("q", (n, k), "si8", (-128, 127)),
         ("s", (n, groups), t, scales), ("z", (n, groups), "si8", (-8, 8))],
        ((m, n), acc),
        lambda x, m=m, n=n, k=k, g=groups, size=group: matmul_reference(
            x[0], [round_to(round_to(x[1][i] - x[3][(i // k) * g +
                                                     (i % k) // size], t) *
                            x[2][(i // k) * g + (i % k) // size], t)
                   for i in range(n * k)],
            m, n, k, transposed_b=True),
        1e-3))

    # int4 group-wise: groups of 32 and 128, and groups of 64 over a K of
    # 200 (the last group short); odd N (reads of 32 nibbles on Vulkan make
    # two columns per subgroup: the last subgroup's second one lies past N).
    for name, m, n, k, group in (
            ("decode_int4_group32", 1, 61, 256, 32),
            ("decode_int4_group128_rows_8", 8, 32, 512, 128),
            ("decode_int4_groups_not_dividing_k", 2, 48, 200, 64)):
        groups = (k + group - 1) // group
        cases.append(Case(
            name,
            dequantization_program(
                name, tensor((m, k), t), None,
                [("q", tensor((n, k // 2), "i8")),
                 ("s", tensor((n, groups), t))],
                ["affine_map<(d0, d1) -> (d0, d1 floordiv 2)>",
                 "affine_map<(d0, d1) -> (d0, d1 floordiv %d)>" % group],
                INT4_CONSTANTS + int4_body(t, t, t), (n, k), t, acc, m, n, k,
                True),
            [("a", (m, k), t, unit), ("q", (n, k // 2), "ui8", (0, 255)),
             ("s", (n, groups), t, scales)],
            ((m, n), acc),
            (lambda m, n, k, group: lambda x: matmul_reference(
                x[0], int4_weights(x[1], x[2], n, k, group, t), m, n, k,
                transposed_b=True))(m, n, k, group),
            1e-3))

    # 8-bit integers widened by producers into an exact i32 product.
    m, n, k = 2, 40, 128
    text = """func.func @decode_int8_to_i32(%%a: %(a)s, %%w: %(w)s) -> %(c)s {
  %%ea = tensor.empty() : %(a32)s
  %%a32 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%%a : %(a)s) outs(%%ea : %(a32)s) {
  ^bb0(%%x: i8, %%o: i32):
    %%y = arith.extsi %%x : i8 to i32
    linalg.yield %%y : i32
  } -> %(a32)s
  %%ew = tensor.empty() : %(w32)s
  %%w32 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%%w : %(w)s) outs(%%ew : %(w32)s) {
  ^bb0(%%x: i8, %%o: i32):
    %%y = arith.extsi %%x : i8 to i32
    linalg.yield %%y : i32
  } -> %(w32)s
  %%zero = arith.constant 0 : i32
  %%e = tensor.empty() : %(c)s
  %%f = linalg.fill ins(%%zero : i32) outs(%%e : %(c)s) -> %(c)s
  %%p = linalg.matmul %(maps)s
    ins(%%a32, %%w32 : %(a32)s, %(w32)s) outs(%%f : %(c)s) -> %(c)s
  return %%p : %(c)s
}
""" % dict(a=tensor((m, k), "i8"), w=tensor((n, k), "i8"),
           a32=tensor((m, k), "i32"), w32=tensor((n, k), "i32"),
           c=tensor((m, n), "i32"), maps=TRANSPOSED_B)
    cases.append(Case(
        "decode_int8_to_i32", text,
        [("a", (m, k), "si8", (-128, 127)), ("w", (n, k), "si8", (-128, 127))],
        ((m, n), "si32"),
        lambda x, m=m, n=n, k=k: matmul_reference(x[0], x[1], m, n, k,
                                                  transposed_b=True),
        0.0))

    # bf16 weights and activations, where the target has bf16.
    if target in ("nvidia-h100", "intel-xe-hpc", "cpu-lavapipe", "apple-m1",
                  "cpu-lavapipe-coopmat"):
        m, n, k = 1, 48, 320
        cases.append(Case(
            "decode_bf16", linear_program("decode_bf16", m, n, k, "bf16",
                                          "f32"),
            [("a", (m, k), "bf16", unit), ("w", (n, k), "bf16", unit)],
            ((m, n), "f32"),
            lambda x, m=m, n=n, k=k: matmul_reference(
                x[0], x[1], m, n, k, transposed_b=True),
            1e-3))

    # N and K known only at run time (one compile): elements of K one at a
    # time.
    text = """func.func @decode_dynamic_n_k(%%a: tensor<1x?x%(t)s>, %%w: tensor<?x?x%(t)s>) -> tensor<1x?x%(acc)s> {
  %%zero = arith.constant 0.0 : %(acc)s
  %%c0 = arith.constant 0 : index
  %%n = tensor.dim %%w, %%c0 : tensor<?x?x%(t)s>
  %%e = tensor.empty(%%n) : tensor<1x?x%(acc)s>
  %%f = linalg.fill ins(%%zero : %(acc)s) outs(%%e : tensor<1x?x%(acc)s>) -> tensor<1x?x%(acc)s>
  %%p = linalg.matmul %(maps)s
    ins(%%a, %%w : tensor<1x?x%(t)s>, tensor<?x?x%(t)s>) outs(%%f : tensor<1x?x%(acc)s>) -> tensor<1x?x%(acc)s>
  return %%p : tensor<1x?x%(acc)s>
}
""" % dict(t=t, acc=acc, maps=TRANSPOSED_B)

    def dynamic_variant(n, k):
        return ([("a", (1, k), t, unit), ("w", (n, k), t, unit)],
                lambda x: matmul_reference(x[0], x[1], 1, n, k,
                                           transposed_b=True))
    cases.append(Case("decode_dynamic_n_k", text, None, None, None, 1e-3,
                      variants=[dynamic_variant(40, 72),
                                dynamic_variant(90, 33)]))
    # ggml's q4_0 and q8_0 blocks, the bytes of a GGUF file kept as they
    # are: per 32 values along K an f16 scale (two bytes, low first), then
    # 16 bytes of nibbles (element j low, j + 16 high, offset by 8) or 32
    # signed bytes. The program reads the scale's bytes and the values
    # through maps into the blocks.
    for name, m, n, k, block_bytes in (("decode_ggml_q4_0", 1, 40, 256, 18),
                                       ("decode_ggml_q8_0", 2, 24, 128, 34)):
        blocks = k // 32
        q4 = block_bytes == 18
        value_map = ("affine_map<(d0, d1) -> (d0, d1 floordiv 32, d1 mod 16 "
                     "+ 2)>" if q4 else
                     "affine_map<(d0, d1) -> (d0, d1 floordiv 32, d1 mod 32 "
                     "+ 2)>")
        value = ("""    %c16 = arith.constant 16 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c15 = arith.constant 15 : i8
    %c8 = arith.constant 8 : i8
    %k = linalg.index 1 : index
    %half = arith.divui %k, %c16 : index
    %high = arith.andi %half, %c1 : index
    %shift_i = arith.muli %high, %c4 : index
    %shift = arith.index_cast %shift_i : index to i8
    %byte = arith.shrui %q_v, %shift : i8
    %nibble = arith.andi %byte, %c15 : i8
    %centred = arith.subi %nibble, %c8 : i8
    %value = arith.sitofp %centred : i8 to f16""" if q4 else
                 """    %value = arith.sitofp %q_v : i8 to f16""")
        body = value + """
    %lo16 = arith.extui %lo_v : i8 to i16
    %hi16 = arith.extui %hi_v : i8 to i16
    %c8_16 = arith.constant 8 : i16
    %hi_shifted = arith.shli %hi16, %c8_16 : i16
    %bits = arith.ori %hi_shifted, %lo16 : i16
    %scale = arith.bitcast %bits : i16 to f16
    %w = arith.mulf %value, %scale : f16"""
        weights = tensor((n, blocks, block_bytes), "i8")
        # Scales from 2^-9 to 2^-6 (their bytes pinned; the rest random).
        scale_bytes = {}
        for block in range(n * blocks):
            bits = 0x1800 + ((block * 389) % 0xC00)
            scale_bytes[block * block_bytes] = bits & 255
            scale_bytes[block * block_bytes + 1] = bits >> 8

        def reference(x, m=m, n=n, k=k, blocks=blocks, size=block_bytes,
                      q4=q4):
            data = [int(v) & 255 for v in x[1]]
            w = []
            for j in range(n):
                for q in range(k):
                    base = (j * blocks + q // 32) * size
                    scale = float(np.frombuffer(bytes(data[base:base + 2]),
                                                np.float16)[0])
                    if q4:
                        byte = data[base + 2 + q % 16]
                        v = ((byte >> 4) if q % 32 >= 16 else (byte & 15)) - 8
                    else:
                        v = data[base + 2 + q % 32]
                        v = v - 256 if v > 127 else v
                    w.append(round_to(v * scale, t))
            return matmul_reference(x[0], w, m, n, k, transposed_b=True)
        # One buffer of blocks, read three times by the dequantization.
        text = dequantization_program(
            name, tensor((m, k), t), None,
            [("q", weights), ("lo", weights), ("hi", weights)],
            [value_map,
             "affine_map<(d0, d1) -> (d0, d1 floordiv 32, 0)>",
             "affine_map<(d0, d1) -> (d0, d1 floordiv 32, 1)>"],
            body, (n, k), t, acc, m, n, k, True)
        text = text.replace(", %%lo: %s, %%hi: %s" % (weights, weights), "")
        text = text.replace("ins(%q, %lo, %hi", "ins(%q, %q, %q")
        assert "%lo:" not in text and "%q, %q, %q" in text
        cases.append(Case(
            name, text,
            [("a", (m, k), t, unit),
             ("q", (n, blocks, block_bytes), "ui8", (0, 255, scale_bytes))],
            ((m, n), acc), reference, 1e-3))

    # Signed and unsigned readings of one byte of B, shifted, widened and
    # offset, which Vulkan targets dequantize two bytes at a time
    # (PairedDequantization.cpp): every reading must agree with the
    # element-wise one.
    m, n, k = 1, 40, 384
    body = """    %s = arith.sitofp %q_v : i8 to f32
    %u = arith.uitofp %q_v : i8 to f16
    %uw = arith.extf %u : f16 to f32
    %c4 = arith.constant 4 : i8
    %hi = arith.shrui %q_v, %c4 : i8
    %e = arith.extui %hi : i8 to i32
    %c3 = arith.constant 3 : i32
    %d = arith.subi %e, %c3 : i32
    %df = arith.sitofp %d : i32 to f16
    %dw = arith.extf %df : f16 to f32
    %x = arith.extsi %q_v : i8 to i32
    %c64 = arith.constant 64 : i32
    %y = arith.addi %x, %c64 : i32
    %yf = arith.sitofp %y : i32 to f32
    %quarter = arith.constant 0.25 : f32
    %milli = arith.constant 0.001 : f32
    %half = arith.constant 0.5 : f32
    %t1 = arith.mulf %s, %quarter : f32
    %t2 = arith.mulf %uw, %milli : f32
    %t3 = arith.mulf %yf, %half : f32
    %t12 = arith.addf %t1, %t2 : f32
    %t123 = arith.addf %t12, %t3 : f32
    %sum = arith.addf %t123, %dw : f32
    %w = arith.truncf %sum : f32 to %(t)s""".replace("%(t)s", t)
    cases.append(Case(
        "decode_byte_readings",
        dequantization_program(
            "decode_byte_readings", tensor((m, k), t), None,
            [("q", tensor((n, k), "i8"))],
            ["affine_map<(d0, d1) -> (d0, d1)>"], body, (n, k), t, acc, m,
            n, k, True),
        [("a", (m, k), t, unit), ("q", (n, k), "si8", (-128, 127))],
        ((m, n), acc),
        lambda x, m=m, n=n, k=k: matmul_reference(
            x[0], [round_to(v * 0.25 + (v % 256) * 0.001 +
                            ((int(v) % 256 >> 4) - 3) + (v + 64) * 0.5, t)
                   for v in x[1]],
            m, n, k, transposed_b=True),
        1e-3))

    # The conversions that dequantize: every signed 8-bit value to f16 and
    # its bits as unsigned to f32, combined exactly into one f32.
    text = """func.func @decode_byte_conversions(%x: tensor<16x64xi8>) -> tensor<16x64xf32> {
  %e = tensor.empty() : tensor<16x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<16x64xi8>) outs(%e : tensor<16x64xf32>) {
  ^bb0(%v: i8, %o: f32):
    %s = arith.sitofp %v : i8 to f16
    %u = arith.uitofp %v : i8 to f32
    %sw = arith.extf %s : f16 to f32
    %c = arith.constant 1000.0 : f32
    %scaled = arith.mulf %sw, %c : f32
    %y = arith.addf %scaled, %u : f32
    linalg.yield %y : f32
  } -> tensor<16x64xf32>
  return %r : tensor<16x64xf32>
}
"""
    cases.append(Case(
        "decode_byte_conversions", text, [("x", (16, 64), "si8", (-128, 127))],
        ((16, 64), "f32"),
        lambda x: [1000.0 * v + (v % 256) for v in x[0]], 0.0))
    for case in cases:
        case.options = (case.options + " " + DOT_PRODUCTS).strip()
    return cases
