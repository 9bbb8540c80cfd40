"""Contractions as front-ends spell them with linalg.generic, brought to
one matrix product by sm-normalize-contractions."""

import numpy as np

from sm_testing.linalg.common import (Case, contraction_case,
    matmul_reference, tensor)
from sm_testing.linalg.quantized import _grouped_int4_reference
from sm_testing.linalg.convolutions import convolution_case


def cases(target, t, acc, unit):
    """This subject's cases for `target` (products of `t` inputs into
    `acc`, inputs drawn from `unit` unless a case says otherwise)."""
    cases = []
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
    return cases
