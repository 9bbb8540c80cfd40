"""Contexts, modules, matrix types and targets."""

from dataclasses import dataclass

from . import _capi
from ._capi import Collector, MLIRError, check, lib, string_ref

#: The component types of subgroup matrices, and their scalar types.
COMPONENT_TYPES = {
    "f16": "f16", "bf16": "bf16", "f32": "f32",
    "si8": "i32", "ui8": "i32", "si32": "i32", "ui32": "i32",
}
_KINDS = ("left", "right", "result")


class Context:
    """An MLIR context with the dialect and everything the pipelines use."""

    _default = None

    def __init__(self):
        self.handle = lib.smContextCreate()

    @classmethod
    def default(cls):
        if cls._default is None:
            cls._default = Context()
        return cls._default


class Module:
    """A parsed, verified MLIR module."""

    def __init__(self, handle, context):
        self.handle = handle
        self.context = context

    def __str__(self):
        collector = Collector()
        lib.smModulePrint(self.handle, collector.callback, None)
        return b"".join(collector.items).decode()

    def copy(self):
        return parse(str(self), self.context)

    def run_pipeline(self, pipeline):
        """Runs an sm-opt pass pipeline in place, e.g.
        "sm-lower-to-vulkan{target=nvidia-h100}"; raises MLIRError."""
        collector = Collector()
        text, _keep = string_ref(pipeline)
        result = lib.smRunPipeline(self.handle, text, collector.callback, None)
        check(result.value, collector)
        return self

    def __del__(self):
        if getattr(self, "handle", None):
            lib.smModuleDestroy(self.handle)
            self.handle = None


def parse(text, context=None):
    """Parses and verifies MLIR; raises MLIRError with the diagnostics."""
    context = context or Context.default()
    collector = Collector()
    source, _keep = string_ref(text)
    handle = lib.smModuleParse(context.handle, source, collector.callback, None)
    check(bool(handle), collector)
    return Module(handle, context)


@dataclass(frozen=True)
class MatrixType:
    """!subgroup_matrix.KIND<ROWSxCOLUMNSxCOMPONENT>, checked in Python;
    with `scope="workgroup"` the matrix of a whole workgroup
    (!subgroup_matrix.KIND<ROWSxCOLUMNSxCOMPONENT, workgroup>)."""

    kind: str
    rows: int
    columns: int
    component: str
    scope: str = "subgroup"

    def __post_init__(self):
        from .builder import KernelError
        if self.kind not in _KINDS:
            raise KernelError("matrix kind must be left, right or result, "
                              "not %r" % (self.kind,))
        for name, size in (("rows", self.rows), ("columns", self.columns)):
            if not isinstance(size, int) or size <= 0:
                raise KernelError("matrix %s must be a positive integer, not %r"
                                  % (name, size))
        if self.component not in COMPONENT_TYPES:
            raise KernelError("matrix component type must be one of %s, not %r"
                              % (", ".join(COMPONENT_TYPES), self.component))
        if self.scope not in ("subgroup", "workgroup"):
            raise KernelError("matrix scope must be subgroup or workgroup, "
                              "not %r" % (self.scope,))

    @property
    def mlir(self):
        return "!subgroup_matrix.%s<%dx%dx%s%s>" % (
            self.kind, self.rows, self.columns, self.component,
            ", workgroup" if self.scope == "workgroup" else "")

    @property
    def scalar_type(self):
        return COMPONENT_TYPES[self.component]

    @property
    def storage_type(self):
        return {"si8": "i8", "ui8": "i8", "si32": "i32",
                "ui32": "i32"}.get(self.component, self.component)

    def to_mlir(self, context=None):
        """The type built by MLIR through the C API (a handle); MLIR verifies
        it again."""
        context = context or Context.default()
        text, _keep = string_ref(self.component)
        element = lib.smTypeParse(context.handle, text)
        collector = Collector()
        handle = lib.smMatrixTypeGetWithScope(
            context.handle, _KINDS.index(self.kind), self.rows, self.columns,
            element, self.scope == "workgroup", collector.callback, None)
        check(bool(handle), collector)
        return handle

    @staticmethod
    def from_mlir(handle):
        """The MatrixType of a C API type handle (queried from MLIR)."""
        if not lib.smTypeIsMatrix(handle):
            raise ValueError("not a subgroup matrix type")
        element = lib.smMatrixTypeGetElementType(handle)
        return MatrixType(_KINDS[lib.smMatrixTypeGetKind(handle)],
                          lib.smMatrixTypeGetRows(handle),
                          lib.smMatrixTypeGetColumns(handle),
                          _type_name(element),
                          "workgroup" if lib.smMatrixTypeIsWorkgroupScope(handle)
                          else "subgroup")


def _type_name(handle):
    """The spelling MLIR prints for a component type handle."""
    collector = Collector()
    lib.smTypePrint(handle, collector.callback, None)
    name = b"".join(collector.items).decode()
    if name not in COMPONENT_TYPES:
        raise ValueError("%s is not a component type" % name)
    return name


def left(rows, columns, component):
    return MatrixType("left", rows, columns, component)


def right(rows, columns, component):
    return MatrixType("right", rows, columns, component)


def result(rows, columns, component):
    return MatrixType("result", rows, columns, component)


class Target:
    """A named preset: its subgroup size and configurations, from MLIR."""

    def __init__(self, name, context=None):
        self.name = name
        self.context = context or Context.default()
        text, _keep = string_ref(name)
        self.handle = lib.smTargetAttrGetPreset(self.context.handle, text)
        if not self.handle:
            raise MLIRError(["unknown target preset '%s'" % name])

    @property
    def subgroup_size(self):
        return lib.smTargetAttrGetSubgroupSize(self.handle)

    @property
    def configs(self):
        """(M, N, K, component, result) for every configuration."""
        import ctypes
        configs = []
        for index in range(lib.smTargetAttrGetNumConfigs(self.handle)):
            m, n, k = ctypes.c_uint(), ctypes.c_uint(), ctypes.c_uint()
            component, result_type = _capi.Handle(), _capi.Handle()
            lib.smTargetAttrGetConfig(self.handle, index, ctypes.byref(m),
                                      ctypes.byref(n), ctypes.byref(k),
                                      ctypes.byref(component),
                                      ctypes.byref(result_type))
            configs.append((m.value, n.value, k.value, _type_name(component),
                            _type_name(result_type)))
        return configs

    def supports(self, matrix):
        return lib.smTargetAttrSupportsType(self.handle,
                                            matrix.to_mlir(self.context))
