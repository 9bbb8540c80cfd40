"""The three outputs, and running SPIR-V through the Vulkan runner."""

import ctypes
import os
import subprocess
from dataclasses import dataclass, field

from . import _paths
from ._capi import Collector, MLIRError, SmArray, check, lib, string_ref
from .ir import Module, parse

_PIPELINES = {
    "spirv": "sm-lower-to-vulkan{target=%s}",
    "intel-spirv": "sm-lower-to-intel{target=%s}",
    "msl": None,
}


def compile(module, target, output):
    """Lowers a copy of `module` for `target` and returns the output:
    "spirv" (Vulkan SPIR-V bytes), "intel-spirv" (OpenCL SPIR-V bytes with
    SPV_INTEL_subgroup_matrix_multiply_accumulate) or "msl" (Metal source
    text). The module is checked against the target first; raises MLIRError
    with MLIR's diagnostics."""
    if output not in _PIPELINES:
        raise ValueError("output must be one of %s, not %r"
                         % (", ".join(_PIPELINES), output))
    if not isinstance(module, Module):
        raise TypeError("compile() takes a subgroup_matrix.Module")
    lowered = module.copy()
    if output == "msl":
        lowered.run_pipeline("sm-check-target{target=%s}" % target)
    else:
        lowered.run_pipeline(_PIPELINES[output] % target)
    result, diagnostics = Collector(), Collector()
    kind, _keep = string_ref(output)
    status = lib.smTranslate(lowered.handle, kind, result.callback, None,
                             diagnostics.callback, None)
    check(status.value, diagnostics)
    data = b"".join(result.items)
    return data.decode() if output == "msl" else data


def _runner_path():
    return _paths.tool_path("sm-vulkan-runner")


def run_vulkan(spirv, arguments, grid=(1, 1, 1), checks=(), entry=None,
               environment=None, extra=()):
    """Runs a Vulkan SPIR-V kernel with sm-vulkan-runner. `arguments` are a
    launch's (Buffer and Scalar, as `CompiledProgram.launches` gives them)
    or the runner's own --arg specifications ("f16:256:iota"); `checks` its
    --check specifications. Returns (passed, report text)."""
    import tempfile
    with tempfile.NamedTemporaryFile(suffix=".spv") as binary:
        binary.write(spirv)
        binary.flush()
        argv = [_runner_path(), binary.name,
                "--grid", ",".join(str(g) for g in grid)]
        if entry:
            argv += ["--entry", entry]
        for argument in arguments:
            if isinstance(argument, Scalar):
                argv += ["--scalar", "%s:%r" % (argument.element,
                                                argument.value)]
            elif isinstance(argument, Buffer):
                argv += ["--arg", "%s:%d:%s" % (argument.element,
                                                argument.count, argument.fill)]
            elif isinstance(argument, str):
                argv += ["--arg", argument]
            else:
                raise TypeError(
                    "run_vulkan takes a launch's arguments (Buffer, Scalar) "
                    "or sm-vulkan-runner's specifications (\"f16:256:random\"), "
                    "not %s; to run a program on arrays, use "
                    "compile_linalg(...).run(*arrays)" % type(argument).__name__)
        for spec in checks:
            argv += ["--check", spec]
        argv += list(extra)
        env = dict(os.environ, **(environment or {}))
        completed = subprocess.run(argv, capture_output=True, text=True,
                                   env=env)
        return completed.returncode == 0, completed.stdout + completed.stderr


# The element names (the dialect's, as sm-vulkan-runner takes them) of the
# runtime's type codes.
_ELEMENT_NAMES = {"f2": "f16", "u2": "bf16", "f4": "f32", "f8": "f64",
                  "i1": "i8", "u1": "u8", "i4": "i32", "u4": "u32"}


@dataclass(frozen=True)
class Buffer:
    """A buffer argument of a launch: its element type ("f16", "bf16",
    "f32", "i8", ...), its length in elements, and how run_vulkan fills it
    ("random", "iota", "zero", "poison": sm-vulkan-runner's fills)."""
    element: str
    count: int
    fill: str = "random"


@dataclass(frozen=True)
class Scalar:
    """A scalar argument of a launch: "f32" or "i32" (index and integer
    scalars reach kernels as 32 bits) and its value, exact."""
    element: str
    value: object


@dataclass
class Launch:
    """One kernel launch of a compiled program, in program order, as the
    runtime plans it from the host function for given argument shapes: the
    kernel's name, its grid, its workgroup size (invocations), and its
    arguments in binding order (Buffer and Scalar)."""
    kernel: str
    grid: tuple
    workgroup_size: int
    arguments: list = field(default_factory=list)


def _shape_of(argument):
    """The shape of a planning argument: an array's, or a tuple itself."""
    shape = getattr(argument, "shape", argument)
    return tuple(int(d) for d in shape)


def _plan_launches(module, shapes, entry=""):
    """The launches of `module`'s host function for arguments of `shapes`
    (None: the static shapes of its argument types), through the runtime's
    planner (smPlanLaunches)."""
    entry_ref, _keep = string_ref(entry)
    diagnostics = Collector()
    if shapes is None:
        plan = lib.smPlanLaunches(module.handle, entry_ref, None, -1,
                                  diagnostics.callback, None)
    else:
        dims = [(ctypes.c_int64 * max(len(s), 1))(*s) for s in shapes]
        views = (SmArray * max(len(shapes), 1))()
        for i, shape in enumerate(shapes):
            views[i] = SmArray(b"", len(shape), dims[i], None, 0)
        plan = lib.smPlanLaunches(module.handle, entry_ref, views,
                                  len(shapes), diagnostics.callback, None)
    if not plan:
        raise MLIRError(diagnostics.texts())

    def text(ref):
        return ctypes.string_at(ref.data, ref.length).decode()
    try:
        launches = []
        for i in range(lib.smPlanGetNumLaunches(plan)):
            launch = lib.smPlanGetLaunch(plan, i)
            arguments = []
            for j in range(launch.num_arguments):
                argument = lib.smPlanGetLaunchArgument(plan, i, j)
                code = text(argument.dtype)
                if argument.is_buffer:
                    arguments.append(Buffer(_ELEMENT_NAMES.get(code, code),
                                            argument.size // int(code[1:])))
                elif code.startswith("f"):
                    arguments.append(Scalar("f32", argument.float))
                else:
                    arguments.append(Scalar("i32", argument.integer))
            block = tuple(launch.block)
            launches.append(Launch(text(launch.kernel), tuple(launch.grid),
                                   block[0] * block[1] * block[2],
                                   arguments))
    finally:
        lib.smPlanDestroy(plan)
    return launches


@dataclass
class CompiledProgram:
    """What compile_linalg returns: the kernels as one `output` (bytes for
    SPIR-V, text for Metal) and the module after sm-linalg-to-gpu (host
    functions and the gpu.module). Its launches come from the host
    function: `launches` for a program on static shapes, `launches_for`
    for given ones."""
    binary: object
    module: Module
    target: str = ""
    _runtimes: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def launches(self):
        """The launches in program order, for a program whose arguments all
        have static shapes (else raises MLIRError: see launches_for)."""
        return _plan_launches(self.module, None)

    def launches_for(self, *arguments):
        """The launches in program order for arguments of the given shapes:
        one array (its shape is used) or shape tuple per argument of the
        function. Raises MLIRError when the shapes do not fit."""
        return _plan_launches(self.module,
                              [_shape_of(a) for a in arguments])

    def _runtime(self, device):
        from .runtime import ProgramRuntime
        if device not in self._runtimes:
            self._runtimes[device] = ProgramRuntime(self.module, self.target,
                                                    device=device)
        return self._runtimes[device]

    def run(self, *arrays, device=-1):
        """Runs the program on numpy arrays (one per argument of its
        function, in order; bf16 as uint16; a scalar argument as a numpy
        scalar) on the Vulkan device for its
        target (lavapipe for cpu-lavapipe) and returns its outputs as numpy
        arrays: the function's results, then each argument the program
        writes; one array alone, several as a tuple. Compiled once, the
        program runs on any shapes its types admit. Raises MLIRError."""
        outputs, _ = self._runtime(device).run(arrays)
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def time(self, *arrays, repeat=10, device=-1):
        """Runs the program once, then `repeat` times timed on the device,
        and returns the Timings (mean microseconds per run and per step)."""
        _, timings = self._runtime(device).run(arrays, repeat)
        return timings


def compile_linalg(program, target, output="spirv"):
    """Compiles a linalg program (MLIR text or a parsed Module, on tensors or
    memrefs) with sm-linalg-to-gpu for `target` and returns a
    CompiledProgram. Raises MLIRError with the located diagnostics of
    whatever cannot go to the GPU."""
    module = parse(program) if isinstance(program, str) else program.copy()
    module.run_pipeline("sm-linalg-to-gpu{target=%s}" % target)
    binary = compile(module, target, output)
    return CompiledProgram(binary, module, target)
