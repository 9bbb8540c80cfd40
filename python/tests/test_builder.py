"""The kernel builder: every op builds IR that MLIR verifies, and every
mistake it can see raises KernelError before any IR exists."""

import pytest

import subgroup_matrix as sm
from subgroup_matrix import KernelError


def gemm_builder(target="nvidia-h100", tile=(16, 16, 16), component="f16",
                 accumulator="f32"):
    k = sm.KernelBuilder("gemm", target=target, workgroup=(32, 1, 1))
    A, B = k.buffer("A", component), k.buffer("B", component)
    C = k.buffer("C", accumulator)
    return k, A, B, C


def test_every_op_builds_and_verifies():
    k, A, B, C = gemm_builder()
    K, lda = k.scalar("K"), k.scalar("lda")
    alpha = k.scalar("alpha", "f32")
    tile = k.workgroup_memory("tile", "f16", 256)
    tx, bx, sg, lane = k.thread_id("x"), k.block_id("y"), k.subgroup_id(), k.lane_id()
    offset = k.div(k.sub(k.add(k.mul(bx, 16), tx), tx), 1)
    fsum = k.add(alpha, k.constant(1.5, "f32"))
    acc = k.splat(k.constant(0, "f32"), sm.result(16, 16, "f32"))
    with k.loop(0, K, 16, carried=[acc]) as loop:
        a = k.load(A, loop.index, lda, sm.left(16, 16, "f16"))
        b = k.load(B, loop.index, lda, sm.right(16, 16, "f16"), col_major=True)
        k.store(a, tile, 0, 16)
        k.barrier()
        a2 = k.load(tile, 0, 16, sm.left(16, 16, "f16"))
        loop.yield_(k.mma(a2, b, loop.carried[0]))
    with k.loop(sg, lane, 1):
        k.barrier()
    d = loop.results[0]
    d = k.scalar_add(d, fsum)
    d = k.scalar_sub(d, alpha)
    d = k.scalar_mul(d, alpha)
    d = k.scalar_div(d, alpha)
    k.store(d, C, offset, lda, col_major=True)
    text = k.text()
    for op in ("subgroup_matrix.load", "subgroup_matrix.store", "subgroup_matrix.splat",
               "subgroup_matrix.mma", "subgroup_matrix.scalar_add",
               "subgroup_matrix.scalar_sub", "subgroup_matrix.scalar_mul",
               "subgroup_matrix.scalar_div", "col_major", "scf.for", "scf.yield",
               "gpu.barrier", "gpu.thread_id x", "gpu.block_id y",
               "gpu.subgroup_id", "gpu.lane_id", "arith.addi", "arith.subi",
               "arith.muli", "arith.divui", "arith.addf",
               "#gpu.address_space<workgroup>", "workgroup(",
               "known_block_size = array<i32: 32, 1, 1>"):
        assert op in text, op
    printed = str(k.build())
    assert printed.count("subgroup_matrix.") >= 10
    assert "nvidia-h100" in printed


def test_bounded_load_and_store():
    # The last tile of an M x N matrix: only its first rows and columns.
    k, A, B, C = gemm_builder()
    rows, columns = k.scalar("rows"), k.scalar("columns")
    a = k.load(A, 0, 40, sm.result(16, 16, "f16"), bounds=(rows, columns))
    k.store(a, B, 0, 40, col_major=True, bounds=(rows, 16))
    text = k.text()
    assert "stride %" in text and "bounds [%rows, %columns]" in text
    assert " col_major bounds [%rows, %" in text
    printed = str(k.build())
    assert printed.count("bounds[") == 2
    with pytest.raises(KernelError, match="bounds are"):
        k.load(A, 0, 40, sm.result(16, 16, "f16"), bounds=(rows,))
    with pytest.raises(KernelError):
        k.load(A, 0, 40, sm.result(16, 16, "f16"),
               bounds=(rows, k.constant(1.5, "f32")))


def test_multiply_and_integer_matrices():
    k = sm.KernelBuilder("igemm", target="nvidia-h100")
    A, C = k.buffer("A", "i8"), k.buffer("C", "i32")
    a = k.load(A, 0, 32, sm.left(16, 32, "si8"))
    b = k.load(A, 0, 16, sm.right(32, 16, "si8"))
    c = k.multiply(a, b, "si32")
    assert c.type == sm.result(16, 16, "si32")
    c = k.scalar_add(c, k.constant(3, "i32"))
    k.store(c, C, 0, 16)
    assert "subgroup_matrix.multiply" in str(k.build())


def test_reductions():
    # A row maximum keeps the matrix's type; a 2x2 max-pool halves it.
    k = sm.KernelBuilder("pool", target="cpu-lavapipe", workgroup=(8, 1, 1))
    S, P = k.buffer("S", "f32"), k.buffer("P", "f32")
    s = k.load(S, 0, 16, sm.result(16, 16, "f32"))
    rows = k.reduce("max", "rows", s)
    assert rows.type == s.type
    pooled = k.reduce("max", "blocks2x2", rows)
    assert pooled.type == sm.result(8, 8, "f32")
    k.store(pooled, P, 0, 8)
    text = k.text()
    assert "subgroup_matrix.reduce max rows" in text
    assert ("subgroup_matrix.reduce max blocks2x2 %s : !subgroup_matrix.result"
            "<16x16xf32> -> !subgroup_matrix.result<8x8xf32>" % ("%" + rows.name)
            in text)
    assert "blocks2x2" in str(k.build())


def test_reduction_fastmath():
    # A maximum that may assume no NaN carries arith's flags.
    k = sm.KernelBuilder("rowmax", target="nvidia-h100", workgroup=(32, 1, 1))
    S = k.buffer("S", "f32")
    s = k.load(S, 0, 16, sm.result(16, 16, "f32"))
    k.store(k.reduce("max", "rows", s, fastmath="nnan"), S, 0, 16)
    assert "subgroup_matrix.reduce max rows %s fastmath<nnan>" % (
        "%" + s.name) in k.text()
    assert "fastmath<nnan>" in str(k.build())


def test_names_do_not_collide():
    k = sm.KernelBuilder("k", target="nvidia-h100")
    first, second = k.buffer("A", "f32"), k.buffer("A", "f32")
    assert first.name != second.name
    assert k.constant(1).name != k.constant(1).name
    k.build()


def _builder():
    return gemm_builder()


def _matrices(k, A, B, C):
    return (k.load(A, 0, 16, sm.left(16, 16, "f16")),
            k.load(B, 0, 16, sm.right(16, 16, "f16")),
            k.load(C, 0, 16, sm.result(16, 16, "f32")))


MISTAKES = {
    "kernel name": (lambda: sm.KernelBuilder("not a name", "nvidia-h100"),
                    "not an identifier"),
    "workgroup": (lambda: sm.KernelBuilder("k", "nvidia-h100", (0, 1, 1)),
                  "three positive sizes"),
    "matrix kind": (lambda: sm.MatrixType("diagonal", 8, 8, "f16"),
                    "left, right or result"),
    "matrix size": (lambda: sm.left(0, 8, "f16"), "positive integer"),
    "matrix component": (lambda: sm.left(8, 8, "f64"), "component type"),
    "buffer type": (lambda: _builder()[0].buffer("X", "f64"), "buffer element type"),
    "scalar type": (lambda: _builder()[0].scalar("x", "i64"), "scalar type"),
    "workgroup memory": (lambda: _builder()[0].workgroup_memory("w", "f16", 0),
                         "positive size"),
    "constant type": (lambda: _builder()[0].constant(1, "i64"), "constant type"),
    "dimension": (lambda: _builder()[0].thread_id("w"), "x, y or z"),
    "arith types": (lambda: (lambda k: k.add(k.constant(1), k.constant(1, "f32")))(
        _builder()[0]), "two values of one scalar type"),
    "arith on matrices": (lambda: (lambda k, A, B, C: k.add(*[_matrices(k, A, B, C)[0]] * 2))(
        *_builder()), "works on scalars"),
    "load type": (lambda: (lambda k, A, B, C: k.load(A, 0, 16, "left"))(*_builder()),
                  "needs a MatrixType"),
    "load buffer": (lambda: (lambda k, A, B, C: k.load(k.constant(0), 0, 16,
                                                      sm.left(16, 16, "f16")))(*_builder()),
                    "loaded from and stored to buffers"),
    "load storage": (lambda: (lambda k, A, B, C: k.load(C, 0, 16,
                                                       sm.left(16, 16, "f16")))(*_builder()),
                     "stored as f16"),
    "offset type": (lambda: (lambda k, A, B, C: k.load(A, k.constant(0, "f32"), 16,
                                                      sm.left(16, 16, "f16")))(*_builder()),
                    "offset must be index"),
    "store matrix": (lambda: (lambda k, A, B, C: k.store(k.constant(0), A, 0, 16))(
        *_builder()), "store needs a matrix"),
    "splat type": (lambda: (lambda k, A, B, C: k.splat(k.constant(0, "f16"),
                                                      sm.result(16, 16, "f32")))(*_builder()),
                   "splat value must be f32"),
    "splat matrix type": (lambda: (lambda k, A, B, C: k.splat(k.constant(0, "f32"), "f32"))(
        *_builder()), "splat needs a MatrixType"),
    "mma accumulator": (lambda: (lambda k, A, B, C: k.mma(*_matrices(k, A, B, C)[:2],
                                                         _matrices(k, A, B, C)[0]))(*_builder()),
                        "accumulator must be a result"),
    "mma operand kinds": (lambda: (lambda k, A, B, C: (lambda a, b, c: k.mma(b, a, c))(
        *_matrices(k, A, B, C)))(*_builder()), "left operand must be a left"),
    "mma K": (lambda: (lambda k, A, B, C: k.mma(k.load(A, 0, 16, sm.left(16, 8, "f16")),
                                                _matrices(k, A, B, C)[1],
                                                _matrices(k, A, B, C)[2]))(*_builder()),
              "K mismatch"),
    "mma components": (lambda: (lambda k, A, B, C: k.mma(
        _matrices(k, A, B, C)[0], k.load(k.buffer("F", "f32"), 0, 16, sm.right(16, 16, "f32")),
        _matrices(k, A, B, C)[2]))(*_builder()), "component types must match"),
    "mma result shape": (lambda: (lambda k, A, B, C: k.mma(
        *_matrices(k, A, B, C)[:2], k.load(C, 0, 16, sm.result(8, 16, "f32"))))(*_builder()),
        "result must be 16x16"),
    "mma accumulator type": (lambda: (lambda k, A, B, C: k.mma(
        *_matrices(k, A, B, C)[:2], k.load(k.buffer("I", "i32"), 0, 16,
                                           sm.result(16, 16, "si32"))))(*_builder()),
        "accumulate into f16 or f32"),
    "multiply operands": (lambda: (lambda k, A, B, C: k.multiply(k.constant(0), k.constant(0),
                                                                "f32"))(*_builder()),
                          "a left and a right matrix"),
    "scalar op matrix": (lambda: (lambda k, A, B, C: k.scalar_mul(k.constant(0), k.constant(0)))(
        *_builder()), "scalar_mul needs a matrix"),
    "scalar op type": (lambda: (lambda k, A, B, C: k.scalar_mul(_matrices(k, A, B, C)[2],
                                                               k.constant(2, "f16")))(*_builder()),
                       "scalar must be f32"),
    "integer division": (lambda: (lambda k, A, B, C: k.scalar_div(
        k.load(k.buffer("I", "i32"), 0, 16, sm.result(16, 16, "si32")), k.constant(2, "i32")))(
        *_builder()), "only float matrices"),
    "reduce integer fastmath": (lambda: (lambda k, A, B, C: k.reduce(
        "max", "rows", k.load(k.buffer("I", "i32"), 0, 16,
                              sm.result(16, 16, "si32")), fastmath="nnan"))(
        *_builder()), "float elements only"),
    "reduce matrix": (lambda: (lambda k, A, B, C: k.reduce("max", "rows", k.constant(0)))(
        *_builder()), "reduce needs a matrix"),
    "reduce kind": (lambda: (lambda k, A, B, C: k.reduce("mean", "rows",
                                                        _matrices(k, A, B, C)[2]))(
        *_builder()), "not 'mean'"),
    "reduce dimensions": (lambda: (lambda k, A, B, C: k.reduce("max", "diagonal",
                                                              _matrices(k, A, B, C)[2]))(
        *_builder()), "not 'diagonal'"),
    "reduce 8-bit product": (lambda: (lambda k, A, B, C: k.reduce(
        "mul", "all", k.load(k.buffer("I", "i8"), 0, 32, sm.left(16, 32, "si8"))))(
        *_builder()), "32-bit integers only"),
    "reduce odd blocks": (lambda: (lambda k, A, B, C: k.reduce(
        "max", "blocks2x2", k.load(C, 0, 16, sm.result(8, 9, "f32"))))(*_builder()),
        "even rows and columns, not 8x9"),
    "yield count": (lambda: _loop_yield(lambda loop, k: loop.yield_()), "carries 1 values"),
    "yield type": (lambda: _loop_yield(lambda loop, k: loop.yield_(k.constant(0))),
                   "where the loop carries"),
    "missing yield": (lambda: _loop_yield(lambda loop, k: None), "must call yield_"),
    "carried values": (lambda: (lambda k: k.loop(0, 1, 1, carried=[3]).__enter__())(
        _builder()[0]), "carried values must be Values"),
    "loop bound": (lambda: (lambda k: k.loop(0, k.constant(1, "f32"), 1).__enter__())(
        _builder()[0]), "upper bound must be index"),
    "foreign value": (lambda: (lambda k: k.splat(0.0, sm.result(16, 16, "f32")))(
        _builder()[0]), "must be a Value of this builder"),
}


def _loop_yield(body):
    k = _builder()[0]
    acc = k.splat(k.constant(0, "f32"), sm.result(16, 16, "f32"))
    with k.loop(0, 64, 16, carried=[acc]) as loop:
        body(loop, k)


@pytest.mark.parametrize("mistake", sorted(MISTAKES))
def test_builder_mistakes(mistake):
    make, message = MISTAKES[mistake]
    with pytest.raises(KernelError, match=message):
        make()


def test_mistakes_cover_every_raise():
    import inspect
    import subgroup_matrix.builder as builder
    import subgroup_matrix.ir as ir
    raises = sum(inspect.getsource(m).count("raise KernelError") for m in (builder, ir))
    # Each `raise KernelError` in the package is exercised by a case above
    # (some cases reach the same raise through different calls).
    assert len(MISTAKES) >= raises, (len(MISTAKES), raises)


def test_mlir_judges_what_python_cannot():
    # A shape the builder accepts but no target runs: MLIR's target check
    # reports it (the builder checks shapes and types, the target check
    # checks the device).
    k = sm.KernelBuilder("k", target="nvidia-h100")
    k.load(k.buffer("A", "f16"), 0, 16, sm.left(24, 16, "f16"))
    module = k.build()
    with pytest.raises(sm.MLIRError, match="not supported by target 'nvidia-h100'"):
        sm.compile(module, target="nvidia-h100", output="spirv")
