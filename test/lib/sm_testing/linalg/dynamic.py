"""Dynamic sizes: one program, compiled once, run at several sizes."""

from sm_testing.linalg.common import Case, matmul_reference, reduce_program


def cases(target, t, acc, unit):
    """This subject's cases for `target` (products of `t` inputs into
    `acc`, inputs drawn from `unit` unless a case says otherwise)."""
    cases = []
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
                                [(7, 20, 24), (40, 70, 33)]],
                      # apple-m1 widens A and B by kernels of their own: the
                      # product stages no prologue of a dynamic batch.
                      launches=3 if target == "apple-m1" else 1))

    # A reduction over dynamic sizes: its kernel takes the loop sizes.
    text = reduce_program("dynamic_row_sum", dyn(2, "f32"), dyn(1, "f32"), 1,
                          "addf")

    def row_sum_variant(r, c):
        return ([("x", (r, c), "f32", unit), ("y", (r,), "f32", unit)],
                lambda x: [x[1][i] + sum(x[0][i * c:(i + 1) * c])
                           for i in range(r)])
    cases.append(Case("dynamic_row_sum", text, None, None, None, 1e-5,
                      variants=[row_sum_variant(*size) for size in
                                [(1, 1), (70, 150), (300, 3)]]))
    return cases
    return cases
