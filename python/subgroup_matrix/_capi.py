"""ctypes bindings of libSubgroupMatrixCAPI.so (include/SubgroupMatrix-c).

Only this module knows the C API; the rest of the package calls it through
the helpers here, which turn diagnostics into exceptions.
"""

import ctypes
import os
import re

from . import _paths


class MLIRError(Exception):
    """An error MLIR reported: `diagnostics` holds each diagnostic, and
    `location` and `message` the first one's parts; where the location is
    a file position, `file`, `line` and `column` hold it (else None)."""

    _POSITION = re.compile(r'loc\("(.*)":(\d+):(\d+)\)')

    def __init__(self, diagnostics):
        self.diagnostics = list(diagnostics) or ["unknown error"]
        first = self.diagnostics[0].split("\n")[0]
        location, _, rest = first.partition(": error: ")
        if not rest:
            location, rest = "", first
        self.location = location
        self.message = rest
        position = self._POSITION.fullmatch(location)
        self.file, self.line, self.column = (
            (position.group(1), int(position.group(2)), int(position.group(3)))
            if position else (None, None, None))
        super().__init__("\n".join(self.diagnostics))


class _Handle(ctypes.Structure):
    _fields_ = [("ptr", ctypes.c_void_p)]

    def __bool__(self):
        return bool(self.ptr)


class _StringRef(ctypes.Structure):
    # A pointer, not c_char_p: SPIR-V bytes hold NULs, which c_char_p would
    # cut at.
    _fields_ = [("data", ctypes.c_void_p), ("length", ctypes.c_size_t)]


class _LogicalResult(ctypes.Structure):
    _fields_ = [("value", ctypes.c_int8)]


_TEXT_CALLBACK = ctypes.CFUNCTYPE(None, _StringRef, ctypes.c_void_p)


class SmArray(ctypes.Structure):
    """A host array as the runtime's C API takes and gives it."""
    _fields_ = [("dtype", ctypes.c_char_p), ("rank", ctypes.c_ssize_t),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("data", ctypes.c_void_p), ("size", ctypes.c_ssize_t)]


class SmLaunch(ctypes.Structure):
    """A kernel launch of a plan (SmLaunch in the C API)."""
    _fields_ = [("kernel_module", _StringRef), ("kernel", _StringRef),
                ("grid", ctypes.c_uint32 * 3), ("block", ctypes.c_uint32 * 3),
                ("num_arguments", ctypes.c_ssize_t)]


class SmLaunchArgument(ctypes.Structure):
    """An argument of a planned launch (SmLaunchArgument in the C API)."""
    _fields_ = [("is_buffer", ctypes.c_bool), ("buffer", ctypes.c_ssize_t),
                ("offset", ctypes.c_int64), ("size", ctypes.c_int64),
                ("dtype", _StringRef), ("integer", ctypes.c_int64),
                ("float", ctypes.c_double)]


def _load():
    path = _paths.library_path()
    if not os.path.exists(path):
        raise ImportError(
            "subgroup_matrix needs %s: build the project first "
            "(utils/build.sh SubgroupMatrixCAPI) or set SM_CAPI_LIBRARY" % path)
    lib = ctypes.CDLL(path)
    signatures = {
        "smContextCreate": ([], _Handle),
        "smContextDestroy": ([_Handle], None),
        "smMatrixTypeGet": ([_Handle, ctypes.c_int, ctypes.c_uint, ctypes.c_uint,
                             _Handle, _TEXT_CALLBACK, ctypes.c_void_p], _Handle),
        "smMatrixTypeGetWithScope": ([_Handle, ctypes.c_int, ctypes.c_uint,
                                      ctypes.c_uint, _Handle, ctypes.c_bool,
                                      _TEXT_CALLBACK, ctypes.c_void_p],
                                     _Handle),
        "smTypeIsMatrix": ([_Handle], ctypes.c_bool),
        "smMatrixTypeIsWorkgroupScope": ([_Handle], ctypes.c_bool),
        "smMatrixTypeGetKind": ([_Handle], ctypes.c_int),
        "smMatrixTypeGetRows": ([_Handle], ctypes.c_uint),
        "smMatrixTypeGetColumns": ([_Handle], ctypes.c_uint),
        "smMatrixTypeGetElementType": ([_Handle], _Handle),
        "smTypeParse": ([_Handle, _StringRef], _Handle),
        "smTargetAttrGetPreset": ([_Handle, _StringRef], _Handle),
        "smAttributeIsTarget": ([_Handle], ctypes.c_bool),
        "smTargetAttrGetSubgroupSize": ([_Handle], ctypes.c_uint),
        "smTargetAttrGetNumConfigs": ([_Handle], ctypes.c_ssize_t),
        "smTargetAttrGetConfig": ([_Handle, ctypes.c_ssize_t,
                                   ctypes.POINTER(ctypes.c_uint),
                                   ctypes.POINTER(ctypes.c_uint),
                                   ctypes.POINTER(ctypes.c_uint),
                                   ctypes.POINTER(_Handle),
                                   ctypes.POINTER(_Handle)], None),
        "smTargetAttrSupportsType": ([_Handle, _Handle], ctypes.c_bool),
        "smModuleParse": ([_Handle, _StringRef, _TEXT_CALLBACK, ctypes.c_void_p],
                          _Handle),
        "smTypePrint": ([_Handle, _TEXT_CALLBACK, ctypes.c_void_p], None),
        "smModulePrint": ([_Handle, _TEXT_CALLBACK, ctypes.c_void_p], None),
        "smModuleDestroy": ([_Handle], None),
        "smRunPipeline": ([_Handle, _StringRef, _TEXT_CALLBACK, ctypes.c_void_p],
                          _LogicalResult),
        "smTranslate": ([_Handle, _StringRef, _TEXT_CALLBACK, ctypes.c_void_p,
                         _TEXT_CALLBACK, ctypes.c_void_p], _LogicalResult),
        # The runtime (include/SubgroupMatrix-c/Runtime.h), where it was
        # built.
        "smProgramCompile": ([_Handle, _StringRef, _StringRef, _TEXT_CALLBACK,
                              ctypes.c_void_p], ctypes.c_void_p),
        "smProgramDestroy": ([ctypes.c_void_p], None),
        "smProgramGetNumArguments": ([ctypes.c_void_p], ctypes.c_ssize_t),
        "smDeviceOpen": ([_Handle, ctypes.c_int, _StringRef, _TEXT_CALLBACK,
                          ctypes.c_void_p], ctypes.c_void_p),
        "smDeviceDestroy": ([ctypes.c_void_p], None),
        "smDeviceDescribe": ([ctypes.c_void_p, _TEXT_CALLBACK,
                              ctypes.c_void_p], None),
        "smDeviceRun": ([ctypes.c_void_p, ctypes.c_void_p,
                         ctypes.POINTER(SmArray), ctypes.c_ssize_t,
                         ctypes.c_uint, _TEXT_CALLBACK, ctypes.c_void_p],
                        ctypes.c_void_p),
        "smRunDestroy": ([ctypes.c_void_p], None),
        "smRunGetNumOutputs": ([ctypes.c_void_p], ctypes.c_ssize_t),
        "smRunGetOutput": ([ctypes.c_void_p, ctypes.c_ssize_t,
                            ctypes.POINTER(ctypes.c_ssize_t)], SmArray),
        "smRunGetNumSteps": ([ctypes.c_void_p], ctypes.c_ssize_t),
        "smRunGetStepMicroseconds": ([ctypes.c_void_p, ctypes.c_ssize_t,
                                      ctypes.POINTER(_StringRef)],
                                     ctypes.c_double),
        "smRunGetTotalMicroseconds": ([ctypes.c_void_p], ctypes.c_double),
        "smRunGetHostMicroseconds": ([ctypes.c_void_p], ctypes.c_double),
        "smPlanLaunches": ([_Handle, _StringRef, ctypes.POINTER(SmArray),
                            ctypes.c_ssize_t, _TEXT_CALLBACK, ctypes.c_void_p],
                           ctypes.c_void_p),
        "smPlanDestroy": ([ctypes.c_void_p], None),
        "smPlanGetNumLaunches": ([ctypes.c_void_p], ctypes.c_ssize_t),
        "smPlanGetLaunch": ([ctypes.c_void_p, ctypes.c_ssize_t], SmLaunch),
        "smPlanGetLaunchArgument": ([ctypes.c_void_p, ctypes.c_ssize_t,
                                     ctypes.c_ssize_t], SmLaunchArgument),
    }
    for name, (arguments, result) in signatures.items():
        if not hasattr(lib, name) and name.startswith(("smProgram", "smDevice",
                                                       "smRun", "smPlan")):
            continue
        function = getattr(lib, name)
        function.argtypes = arguments
        function.restype = result
    return lib


class _LazyLibrary:
    """Loads the library at its first use, so that importing the package
    works before the project is built (and run_vulkan never needs it)."""

    _library = None

    def __getattr__(self, name):
        if _LazyLibrary._library is None:
            _LazyLibrary._library = _load()
        return getattr(_LazyLibrary._library, name)


lib = _LazyLibrary()


def string_ref(text):
    """A MlirStringRef of `text`, and the buffer that must outlive it."""
    data = ctypes.create_string_buffer(
        text.encode() if isinstance(text, str) else bytes(text))
    return _StringRef(ctypes.addressof(data), len(data) - 1), data


class Collector:
    """A text callback that keeps what it receives."""

    def __init__(self):
        self.items = []
        self.callback = _TEXT_CALLBACK(self._receive)

    def _receive(self, text, _user_data):
        self.items.append(ctypes.string_at(text.data, text.length))

    def texts(self):
        return [item.decode(errors="replace") for item in self.items]


def check(succeeded, collector):
    if not succeeded:
        raise MLIRError(collector.texts())


Handle = _Handle
StringRef = _StringRef
