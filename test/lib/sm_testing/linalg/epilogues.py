"""Element-wise ops around a product: fused epilogues and prologues,
scalars and rank-0 scales as arguments, a pad on its own and a consumer
that cannot fuse."""

import math

import numpy as np

from sm_testing.elements import round_to
from sm_testing.scalar_bodies import GELU_ERF
from sm_testing.linalg.common import (Case, GELU_TANH, SILU, epilogue_program,
    gelu_tanh, matmul_reference, memref, silu, tensor)


def cases(target, t, acc, unit):
    """This subject's cases for `target` (products of `t` inputs into
    `acc`, inputs drawn from `unit` unless a case says otherwise)."""
    cases = []
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
            epilogue_program("gelu_erf", em, en, ek, t, acc, [],
                             GELU_ERF, "f32"),
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
        if target in ("nvidia-h100", "intel-xe-hpc", "cpu-lavapipe", "apple-m1"):
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


    # The same consumer as 2^x (math.exp2, which GLSL.std.450 has as Exp2
    # and MLIR 22's math-to-SPIR-V patterns leave out).
    cases.append(Case("generic_exp2_consumer",
                      text.replace("@unfused", "@generic_exp2_consumer")
                      .replace("math.exp ", "math.exp2 "),
                      [("a", (um, uk), t, unit), ("b", (uk, un), t, unit),
                       ("c", (um, un), acc, unit), ("d", (um, un), acc, unit)],
                      None,
                      lambda x: [2.0 ** (p + c) for p, c in zip(
                          matmul_reference(x[0], x[1], um, un, uk), x[2])],
                      2e-3, launches=2))


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
    return cases
