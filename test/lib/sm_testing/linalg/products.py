"""Matrix products as front-ends write them: plain, transposed, batched,
accumulating into C, decode-shaped (few rows), split K, the K-loop
schedules, bf16 and f32 products and the precision policy."""

from sm_testing.elements import round_to
from sm_testing.linalg.common import (Case, accumulating_matmul_case,
    epilogue_program, filled_matmul_program, matmul_reference, memref, tensor)


def cases(target, t, acc, unit):
    """This subject's cases for `target` (products of `t` inputs into
    `acc`, inputs drawn from `unit` unless a case says otherwise)."""
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
                      ((rm_, rn_), acc), batch_reduce_reference, 1e-3,
                      # apple-m1 widens A and B by kernels of their own: the
                      # product stages no prologue of a batch summed over.
                      launches=3 if target == "apple-m1" else 1))


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

    # bf16 inputs on tensors, where the target multiplies bf16.
    if target in ("nvidia-h100", "intel-xe-hpc", "cpu-lavapipe", "apple-m1"):
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
    if target in ("nvidia-h100", "intel-xe-hpc", "cpu-lavapipe", "apple-m1"):
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
    return cases
