"""Running compiled programs on arrays: the runtime's C API
(include/SubgroupMatrix-c/Runtime.h) for CompiledProgram.run and .time."""

import ctypes
from dataclasses import dataclass, field

from ._capi import Collector, MLIRError, SmArray, StringRef, lib, string_ref


@dataclass
class Timings:
    """What CompiledProgram.time returns, in microseconds, as means over
    `runs` timed runs: a whole run on the device (first launch to last),
    each step (kernel launch or copy, from the end of the one before), and
    a whole run on the host (submission to completion; 0 where the CPU
    host runners run the program)."""
    total_us: float
    steps: list = field(default_factory=list)
    runs: int = 0
    host_us: float = 0.0


class _Device:
    """A device the runtime opened (Vulkan, or the CPU host runners); one
    per context, target and device index, shared by the programs that run
    on it. Which device a target runs on is the runtime's decision (from
    the target's backend), not this cache's."""
    _open = {}

    @classmethod
    def get(cls, context, target, index):
        key = (id(context), target, index)
        if key not in cls._open:
            cls._open[key] = cls(context, target, index)
        return cls._open[key]

    def __init__(self, context, target, index):
        diagnostics = Collector()
        name, _keep = string_ref(target)
        self.context = context
        self.handle = lib.smDeviceOpen(context.handle, index, name,
                                       diagnostics.callback, None)
        if not self.handle:
            raise MLIRError(diagnostics.texts())

    def describe(self):
        collector = Collector()
        lib.smDeviceDescribe(self.handle, collector.callback, None)
        return b"".join(collector.items).decode()

    def __del__(self):
        if getattr(self, "handle", None):
            lib.smDeviceDestroy(self.handle)


def _type_code(array):
    """The runtime's name of a numpy dtype ("f2", "u2", "i1", ...)."""
    kind = {"f": "f", "i": "i", "u": "u", "b": "b"}.get(array.dtype.kind)
    if kind is None:
        raise TypeError("arrays of %s cannot be passed to a program"
                        % array.dtype)
    return "%s%d" % (kind, array.dtype.itemsize)


class ProgramRuntime:
    """A program compiled by the runtime, bound to a device."""

    def __init__(self, module, target, entry=None, device=-1):
        import numpy  # noqa: F401 (the runtime's arrays are numpy arrays)
        diagnostics = Collector()
        target_ref, _keep1 = string_ref(target)
        entry_ref, _keep2 = string_ref(entry or "")
        self.handle = lib.smProgramCompile(module.handle, target_ref,
                                           entry_ref, diagnostics.callback,
                                           None)
        if not self.handle:
            raise MLIRError(diagnostics.texts())
        self.device = _Device.get(module.context, target, device)

    def __del__(self):
        if getattr(self, "handle", None):
            lib.smProgramDestroy(self.handle)

    def run(self, arrays, repeat=0):
        """(outputs, timings): the function's results and then each argument
        the program writes, as numpy arrays; timings of `repeat` further
        runs."""
        import numpy as np
        # Contiguous, and a scalar stays rank 0 (ascontiguousarray would
        # make it an array of one).
        arrays = [np.asarray(a, order="C") for a in arrays]
        codes = [_type_code(a).encode() for a in arrays]
        shapes = [(ctypes.c_int64 * max(a.ndim, 1))(*a.shape) for a in arrays]
        views = (SmArray * max(len(arrays), 1))()
        for i, a in enumerate(arrays):
            views[i] = SmArray(codes[i], a.ndim, shapes[i],
                               a.ctypes.data_as(ctypes.c_void_p), a.nbytes)
        diagnostics = Collector()
        run = lib.smDeviceRun(self.device.handle, self.handle, views,
                              len(arrays), repeat, diagnostics.callback, None)
        if not run:
            raise MLIRError(diagnostics.texts())
        try:
            outputs = []
            for i in range(lib.smRunGetNumOutputs(run)):
                argument = ctypes.c_ssize_t()
                view = lib.smRunGetOutput(run, i, ctypes.byref(argument))
                shape = tuple(view.shape[d] for d in range(view.rank))
                data = ctypes.string_at(view.data, view.size)
                outputs.append(np.frombuffer(
                    data, dtype=np.dtype("<" + view.dtype.decode()))
                    .reshape(shape).copy())
            steps = []
            for i in range(lib.smRunGetNumSteps(run)):
                name = StringRef()
                micros = lib.smRunGetStepMicroseconds(run, i,
                                                      ctypes.byref(name))
                steps.append((ctypes.string_at(name.data, name.length)
                              .decode(), micros))
            timings = Timings(lib.smRunGetTotalMicroseconds(run), steps,
                              host_us=lib.smRunGetHostMicroseconds(run),
                              runs=repeat if steps else 0)
        finally:
            lib.smRunDestroy(run)
        return outputs, timings
