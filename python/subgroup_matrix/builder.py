"""A kernel builder that checks shapes and types before any IR exists.

    k = KernelBuilder("gemm", target="nvidia-h100", workgroup=(128, 1, 1))
    A = k.buffer("A", "f16")
    lda = k.scalar("lda", "index")
    a = k.load(A, k.constant(0), lda, left(16, 16, "f16"))
    ...
    module = k.build()

Every mistake the builder can see raises KernelError at the call that made
it; what only MLIR can judge raises MLIRError from build().
"""

import contextlib
from dataclasses import dataclass

from .ir import COMPONENT_TYPES, MatrixType, parse

_ACCUMULATORS = {
    "f16": ("f16", "f32"), "bf16": ("f32",), "f32": ("f32",),
    "si8": ("si32",), "ui8": ("ui32",), "si32": ("si32",), "ui32": ("ui32",),
}
_ELEMENT_TYPES = ("f16", "bf16", "f32", "i8", "i32")
_REDUCTION_KINDS = ("add", "mul", "max", "min")
_REDUCTION_DIMENSIONS = ("rows", "columns", "all", "blocks2x2")
_SCALAR_TYPES = ("index", "i32", "f16", "bf16", "f32")


class KernelError(Exception):
    """A kernel that cannot be right: wrong shapes, types or use."""


@dataclass(frozen=True)
class Value:
    """An SSA value of the kernel: its name and type (a string, or a
    MatrixType for matrices; buffers are ("buffer", element) or
    ("workgroup", element, size))."""

    name: str
    type: object

    @property
    def is_matrix(self):
        return isinstance(self.type, MatrixType)


class Loop:
    """An scf.for being built: `index`, `carried` (the loop-carried values
    inside the body) and, after the `with` block, `results`."""

    def __init__(self, index, carried, results):
        self.index = index
        self.carried = carried
        self.results = results
        self.yielded = None

    def yield_(self, *values):
        if len(values) != len(self.carried):
            raise KernelError("the loop carries %d values; yield_ got %d"
                              % (len(self.carried), len(values)))
        for value, carried in zip(values, self.carried):
            if value.type != carried.type:
                raise KernelError("yield_ of %s (%s) where the loop carries %s"
                                  % (value.name, _spell(value.type),
                                     _spell(carried.type)))
        self.yielded = values


def _spell(type_):
    return type_.mlir if isinstance(type_, MatrixType) else str(type_)


class KernelBuilder:
    """Builds one `gpu.func` kernel in a `gpu.module` for a target."""

    def __init__(self, name, target, workgroup=(32, 1, 1)):
        if not name.isidentifier():
            raise KernelError("kernel name %r is not an identifier" % (name,))
        if len(workgroup) != 3 or any(int(w) <= 0 for w in workgroup):
            raise KernelError("workgroup must be three positive sizes")
        self.name, self.target, self.workgroup = name, target, tuple(workgroup)
        self._arguments, self._workgroup_memory, self._lines = [], [], []
        self._names, self._indent = set(), 2

    # Names and text.
    def _fresh(self, hint):
        name, suffix = hint, 0
        while name in self._names:
            suffix += 1
            name = "%s%d" % (hint, suffix)
        self._names.add(name)
        return name

    def _emit(self, text):
        self._lines.append("  " * self._indent + text)

    def _new(self, hint, type_, text):
        value = Value(self._fresh(hint), type_)
        self._emit("%%%s = %s" % (value.name, text))
        return value

    def _expect(self, value, type_, role):
        if not isinstance(value, Value):
            raise KernelError("%s must be a Value of this builder, not %r"
                              % (role, value))
        if value.type != type_:
            raise KernelError("%s must be %s, not %s (%s)" % (
                role, _spell(type_), _spell(value.type), value.name))

    def _index(self, value, role):
        if isinstance(value, int):
            return self.constant(value)
        self._expect(value, "index", role)
        return value

    # Arguments and memory.
    def buffer(self, name, element):
        """A kernel argument: a 1-D buffer in global memory."""
        if element not in _ELEMENT_TYPES:
            raise KernelError("buffer element type must be one of %s, not %r"
                              % (", ".join(_ELEMENT_TYPES), element))
        value = Value(self._fresh(name), ("buffer", element))
        self._arguments.append((value, "memref<?x%s>" % element))
        return value

    def scalar(self, name, type_="index"):
        """A kernel argument: a scalar."""
        if type_ not in _SCALAR_TYPES:
            raise KernelError("scalar type must be one of %s, not %r"
                              % (", ".join(_SCALAR_TYPES), type_))
        value = Value(self._fresh(name), type_)
        self._arguments.append((value, type_))
        return value

    def workgroup_memory(self, name, element, size):
        """Workgroup (threadgroup, shared) memory of `size` elements."""
        if element not in _ELEMENT_TYPES or int(size) <= 0:
            raise KernelError("workgroup memory needs an element type of %s "
                              "and a positive size" % ", ".join(_ELEMENT_TYPES))
        value = Value(self._fresh(name), ("workgroup", element, int(size)))
        self._workgroup_memory.append(value)
        return value

    @staticmethod
    def _memref_type(buffer):
        if buffer.type[0] == "buffer":
            return "memref<?x%s>" % buffer.type[1]
        return "memref<%dx%s, #gpu.address_space<workgroup>>" % (
            buffer.type[2], buffer.type[1])

    # Scalars and positions.
    def constant(self, value, type_="index"):
        if type_ not in _SCALAR_TYPES:
            raise KernelError("constant type must be one of %s"
                              % ", ".join(_SCALAR_TYPES))
        literal = repr(float(value)) if type_.startswith(("f", "bf")) else str(int(value))
        return self._new("c", type_, "arith.constant %s : %s" % (literal, type_))

    def _position(self, op, dim):
        if dim is None:
            return self._new(op.split(".")[-1], "index", "%s : index" % op
                             if op == "gpu.subgroup_id" else op)
        if dim not in ("x", "y", "z"):
            raise KernelError("dimension must be x, y or z, not %r" % (dim,))
        return self._new(op.split(".")[-1], "index", "%s %s" % (op, dim))

    def thread_id(self, dim="x"):
        return self._position("gpu.thread_id", dim)

    def block_id(self, dim="x"):
        return self._position("gpu.block_id", dim)

    def subgroup_id(self):
        return self._position("gpu.subgroup_id", None)

    def lane_id(self):
        return self._position("gpu.lane_id", None)

    def _arith(self, operation, a, b):
        a = self._index(a, "operand") if isinstance(a, int) else a
        b = self._index(b, "operand") if isinstance(b, int) else b
        if not isinstance(a, Value) or not isinstance(b, Value) or a.type != b.type:
            raise KernelError("%s needs two values of one scalar type" % operation)
        if a.is_matrix or a.type not in _SCALAR_TYPES:
            raise KernelError("%s works on scalars; use the scalar_* methods "
                              "for matrices" % operation)
        floating = a.type.startswith(("f", "bf"))
        op = {"add": "addf" if floating else "addi",
              "sub": "subf" if floating else "subi",
              "mul": "mulf" if floating else "muli",
              "div": "divf" if floating else "divui"}[operation]
        return self._new("v", a.type, "arith.%s %%%s, %%%s : %s"
                         % (op, a.name, b.name, a.type))

    def add(self, a, b):
        return self._arith("add", a, b)

    def sub(self, a, b):
        return self._arith("sub", a, b)

    def mul(self, a, b):
        return self._arith("mul", a, b)

    def div(self, a, b):
        return self._arith("div", a, b)

    def barrier(self):
        self._emit("gpu.barrier")

    # Matrices.
    def _memory_access(self, buffer, matrix_type, offset, stride):
        if not isinstance(buffer, Value) or buffer.type[0] not in ("buffer", "workgroup"):
            raise KernelError("matrices are loaded from and stored to buffers "
                              "or workgroup memory")
        if buffer.type[1] != matrix_type.storage_type:
            raise KernelError("a %s matrix is stored as %s, but %s holds %s" % (
                matrix_type.component, matrix_type.storage_type, buffer.name,
                buffer.type[1]))
        return self._index(offset, "offset"), self._index(stride, "stride")

    def _bounds(self, bounds):
        """` bounds [%rows, %columns]` for bounds=(rows, columns): only the
        matrix's first rows and columns are in memory (a tile at a ragged
        edge); empty for None."""
        if bounds is None:
            return ""
        if len(bounds) != 2:
            raise KernelError("bounds are (rows, columns), not %r" % (bounds,))
        rows = self._index(bounds[0], "the rows bound")
        columns = self._index(bounds[1], "the columns bound")
        return " bounds [%%%s, %%%s]" % (rows.name, columns.name)

    def load(self, buffer, offset, stride, matrix_type, col_major=False,
             bounds=None):
        if not isinstance(matrix_type, MatrixType):
            raise KernelError("load needs a MatrixType (left, right, result)")
        offset, stride = self._memory_access(buffer, matrix_type, offset, stride)
        bounded = self._bounds(bounds)
        return self._new("m", matrix_type,
                         "subgroup_matrix.load %%%s[%%%s] stride %%%s%s%s : %s -> %s"
                         % (buffer.name, offset.name, stride.name,
                            " col_major" if col_major else "", bounded,
                            self._memref_type(buffer), matrix_type.mlir))

    def store(self, matrix, buffer, offset, stride, col_major=False,
              bounds=None):
        if not isinstance(matrix, Value) or not matrix.is_matrix:
            raise KernelError("store needs a matrix value")
        offset, stride = self._memory_access(buffer, matrix.type, offset, stride)
        bounded = self._bounds(bounds)
        self._emit("subgroup_matrix.store %%%s, %%%s[%%%s] stride %%%s%s%s : %s, %s"
                   % (matrix.name, buffer.name, offset.name, stride.name,
                      " col_major" if col_major else "", bounded,
                      matrix.type.mlir, self._memref_type(buffer)))

    def splat(self, value, matrix_type):
        if not isinstance(matrix_type, MatrixType):
            raise KernelError("splat needs a MatrixType")
        self._expect(value, matrix_type.scalar_type, "the splat value")
        return self._new("m", matrix_type, "subgroup_matrix.splat %%%s : %s -> %s"
                         % (value.name, value.type, matrix_type.mlir))

    def _check_multiply(self, a, b, result_type):
        for value, kind in ((a, "left"), (b, "right")):
            if not isinstance(value, Value) or not value.is_matrix or value.type.kind != kind:
                raise KernelError("the %s operand must be a %s matrix" % (kind, kind))
        if a.type.columns != b.type.rows:
            raise KernelError("K mismatch: the left operand has %d columns but "
                              "the right operand has %d rows"
                              % (a.type.columns, b.type.rows))
        if a.type.component != b.type.component:
            raise KernelError("left and right component types must match, got "
                              "%s and %s" % (a.type.component, b.type.component))
        if (result_type.rows, result_type.columns) != (a.type.rows, b.type.columns):
            raise KernelError("the result must be %dx%d, not %dx%d" % (
                a.type.rows, b.type.columns, result_type.rows, result_type.columns))
        if result_type.component not in _ACCUMULATORS[a.type.component]:
            raise KernelError("%s products accumulate into %s, not %s" % (
                a.type.component, " or ".join(_ACCUMULATORS[a.type.component]),
                result_type.component))

    def mma(self, a, b, c):
        """a * b + c."""
        if not isinstance(c, Value) or not c.is_matrix or c.type.kind != "result":
            raise KernelError("the accumulator must be a result matrix")
        self._check_multiply(a, b, c.type)
        return self._new("m", c.type, "subgroup_matrix.mma %%%s, %%%s, %%%s : %s, %s -> %s"
                         % (a.name, b.name, c.name, a.type.mlir, b.type.mlir,
                            c.type.mlir))

    def multiply(self, a, b, result_component):
        """a * b into a result matrix of `result_component`."""
        if not isinstance(a, Value) or not isinstance(b, Value) or not a.is_matrix or not b.is_matrix:
            raise KernelError("multiply needs a left and a right matrix")
        result_type = MatrixType("result", a.type.rows, b.type.columns,
                                 result_component)
        self._check_multiply(a, b, result_type)
        return self._new("m", result_type, "subgroup_matrix.multiply %%%s, %%%s : %s, %s -> %s"
                         % (a.name, b.name, a.type.mlir, b.type.mlir,
                            result_type.mlir))

    def _scalar_op(self, operation, matrix, scalar):
        if not isinstance(matrix, Value) or not matrix.is_matrix:
            raise KernelError("scalar_%s needs a matrix" % operation)
        if operation == "div" and COMPONENT_TYPES[matrix.type.component] == "i32":
            raise KernelError("only float matrices can be divided")
        self._expect(scalar, matrix.type.scalar_type, "the scalar")
        return self._new("m", matrix.type, "subgroup_matrix.scalar_%s %%%s, %%%s : %s, %s"
                         % (operation, matrix.name, scalar.name,
                            matrix.type.mlir, scalar.type))

    def scalar_add(self, matrix, scalar):
        return self._scalar_op("add", matrix, scalar)

    def scalar_sub(self, matrix, scalar):
        return self._scalar_op("sub", matrix, scalar)

    def scalar_mul(self, matrix, scalar):
        return self._scalar_op("mul", matrix, scalar)

    def scalar_div(self, matrix, scalar):
        return self._scalar_op("div", matrix, scalar)

    def reduce(self, kind, dimensions, matrix, fastmath=None):
        """`kind` (add, mul, max, min) of `matrix`'s elements over
        `dimensions`: rows, columns or all, broadcast back to the matrix's
        type; or blocks2x2, each 2x2 block into one element of a matrix of
        half the rows and columns. `fastmath` (arith's flags, "nnan" or
        "nnan,ninf" ...) lets a float reduction assume what they say: with
        nnan, max and min need not test for NaN."""
        if not isinstance(matrix, Value) or not matrix.is_matrix:
            raise KernelError("reduce needs a matrix")
        if fastmath is not None and matrix.type.component not in (
                "f16", "bf16", "f32"):
            raise KernelError("fastmath flags apply to float elements only, "
                              "not %s" % matrix.type.component)
        if kind not in _REDUCTION_KINDS:
            raise KernelError("a reduction is %s, not %r"
                              % (", ".join(_REDUCTION_KINDS), kind))
        if dimensions not in _REDUCTION_DIMENSIONS:
            raise KernelError("a reduction is over %s, not %r"
                              % (", ".join(_REDUCTION_DIMENSIONS), dimensions))
        source = matrix.type
        if kind == "mul" and source.component in ("si8", "ui8"):
            raise KernelError("8-bit integer products overflow after two "
                              "factors: mul reduces 32-bit integers only")
        result_type = source
        if dimensions == "blocks2x2":
            if source.rows % 2 or source.columns % 2:
                raise KernelError("2x2 blocks need even rows and columns, "
                                  "not %dx%d" % (source.rows, source.columns))
            result_type = MatrixType(source.kind, source.rows // 2,
                                     source.columns // 2, source.component)
        types = source.mlir if result_type == source else "%s -> %s" % (
            source.mlir, result_type.mlir)
        flags = " fastmath<%s>" % fastmath if fastmath is not None else ""
        return self._new("m", result_type,
                         "subgroup_matrix.reduce %s %s %%%s%s : %s"
                         % (kind, dimensions, matrix.name, flags, types))

    # Loops.
    @contextlib.contextmanager
    def loop(self, lower, upper, step, carried=()):
        """An scf.for from `lower` to `upper` by `step`, carrying values:

            with k.loop(0, K, 16, carried=[acc]) as loop:
                ...
                loop.yield_(new_acc)
            acc = loop.results[0]
        """
        lower = self._index(lower, "the lower bound")
        upper = self._index(upper, "the upper bound")
        step = self._index(step, "the step")
        for value in carried:
            if not isinstance(value, Value):
                raise KernelError("carried values must be Values")
        tag = self._fresh("loop")
        index = Value(self._fresh(tag + "_i"), "index")
        inner = [Value(self._fresh(tag + "_c"), v.type) for v in carried]
        results = [Value("%s#%d" % (tag, i), v.type) for i, v in enumerate(carried)]
        header = "scf.for %%%s = %%%s to %%%s step %%%s" % (
            index.name, lower.name, upper.name, step.name)
        if carried:
            header = "%%%s:%d = %s iter_args(%s) -> (%s)" % (
                tag, len(carried), header,
                ", ".join("%%%s = %%%s" % (i.name, c.name) for i, c in zip(inner, carried)),
                ", ".join(_spell(c.type) for c in carried))
        self._emit(header + " {")
        self._indent += 1
        loop = Loop(index, inner, results)
        yield loop
        if carried and loop.yielded is None:
            raise KernelError("a loop carrying values must call yield_")
        if carried:
            self._emit("scf.yield %s : %s" % (
                ", ".join("%" + v.name for v in loop.yielded),
                ", ".join(_spell(v.type) for v in loop.yielded)))
        self._indent -= 1
        self._emit("}")

    # The module.
    def text(self):
        arguments = ", ".join("%%%s: %s" % (v.name, t) for v, t in self._arguments)
        workgroup = ""
        if self._workgroup_memory:
            workgroup = " workgroup(%s)" % ", ".join(
                "%%%s : %s" % (v.name, self._memref_type(v))
                for v in self._workgroup_memory)
        lines = ['gpu.module @kernels attributes {subgroup_matrix.target = '
                 '#subgroup_matrix.target<"%s">} {' % self.target,
                 "  gpu.func @%s(%s)%s kernel attributes {known_block_size = "
                 "array<i32: %d, %d, %d>} {" % ((self.name, arguments, workgroup)
                                                 + self.workgroup)]
        lines += self._lines + ["    gpu.return", "  }", "}"]
        return "\n".join(lines) + "\n"

    def build(self, context=None):
        """Parses and verifies the kernel; raises MLIRError."""
        return parse(self.text(), context)
