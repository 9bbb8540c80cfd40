"""What is neither a product nor element-wise: row reductions, long
reductions, softmax and normalizations as row-group kernels."""

import math

from sm_testing.elements import round_to
from sm_testing.linalg.common import Case, memref, reduce_program, tensor


def cases(target, t, acc, unit):
    """This subject's cases for `target` (products of `t` inputs into
    `acc`, inputs drawn from `unit` unless a case says otherwise)."""
    cases = []
    # What is neither a product nor element-wise still gets a kernel: a
    # row reduction (an invocation per output element, looping over the
    # reduced dimension) and a softmax-style max over columns.
    rm, rn = 70, 150
    text = reduce_program("row_sum", memref((rm, rn), "f32"),
                          memref((rm,), "f32"), 1, "addf")
    cases.append(Case("reduce_row_sum", text,
                      [("x", (rm, rn), "f32", unit), ("y", (rm,), "f32", unit)],
                      None,
                      lambda x: [x[1][r] + sum(x[0][r * rn:(r + 1) * rn])
                                 for r in range(rm)],
                      1e-5))
    text = reduce_program("column_max", memref((rm, rn), "f32"),
                          memref((rn,), "f32"), 0, "maximumf")
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
        text = reduce_program(name, memref((lm, ln), "f32"),
                              memref((lm,), "f32"), 1, combine)
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
    return cases
