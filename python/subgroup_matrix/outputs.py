"""The three outputs, and running SPIR-V through the Vulkan runner."""

import os
import re
import subprocess
from dataclasses import dataclass, field

from ._capi import Collector, check, lib, string_ref
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
    here = os.path.dirname(os.path.abspath(__file__))
    build = os.environ.get("SM_BUILD_DIR", os.path.join(
        os.path.dirname(os.path.dirname(here)), "build"))
    return os.path.join(build, "bin", "sm-vulkan-runner")


def run_vulkan(spirv, arguments, grid=(1, 1, 1), checks=(), entry=None,
               environment=None, extra=()):
    """Runs a Vulkan SPIR-V kernel with sm-vulkan-runner. `arguments` are
    the runner's --arg/--scalar specifications ("f16:256:random",
    ("scalar", "i32:16")); `checks` its --check specifications. Returns
    (passed, report text)."""
    import tempfile
    with tempfile.NamedTemporaryFile(suffix=".spv") as binary:
        binary.write(spirv)
        binary.flush()
        argv = [_runner_path(), binary.name,
                "--grid", ",".join(str(g) for g in grid)]
        if entry:
            argv += ["--entry", entry]
        for argument in arguments:
            if isinstance(argument, tuple):
                argv += ["--scalar", argument[1]]
            else:
                argv += ["--arg", argument]
        for spec in checks:
            argv += ["--check", spec]
        argv += list(extra)
        env = dict(os.environ, **(environment or {}))
        completed = subprocess.run(argv, capture_output=True, text=True,
                                   env=env)
        return completed.returncode == 0, completed.stdout + completed.stderr


@dataclass
class Launch:
    """One kernel launch of a compiled program, in program order: the
    kernel's name, its grid and workgroup size, and the runner's argument
    specifications (types and element counts of the flattened buffers).
    A kernel built for sizes known only at run time names them in `sizes`
    ("M", "N", "K"; "d0", ... for other ops); its grid and counts are then
    expressions such as "{ceildiv(N,128)}" until `for_sizes` fills them."""
    kernel: str
    grid: tuple
    workgroup_size: int
    arguments: list = field(default_factory=list)
    sizes: list = field(default_factory=list)

    def for_sizes(self, **sizes):
        """This launch at the given sizes (M=130, N=90, ...): numeric grid
        and counts, and the sizes appended as the kernel's scalar arguments,
        ready for run_vulkan."""
        missing = [name for name in self.sizes if name not in sizes]
        if missing:
            raise ValueError("launch of %s needs the sizes %s" %
                             (self.kernel, ", ".join(missing)))

        def expand(text):
            return re.sub(r"\{([^}]*)\}",
                          lambda m: str(_evaluate_size(m.group(1), sizes)),
                          str(text))
        grid = tuple(int(expand(g)) for g in self.grid)
        arguments = [expand(a) for a in self.arguments]
        arguments += [("scalar", "i32:%d" % sizes[name])
                      for name in self.sizes]
        return Launch(self.kernel, grid, self.workgroup_size, arguments)


def _evaluate_size(expression, sizes):
    """The value of a launch size expression: integers and size names
    multiplied with '*', ceildiv(X,Y) and min(X,Y)."""
    if not re.fullmatch(r"[\w*(),]+", expression):
        raise ValueError("malformed size expression %r" % expression)
    names = dict(sizes, ceildiv=lambda x, y: -(-x // y), min=min)
    return int(eval(expression, {"__builtins__": {}}, names))


@dataclass
class CompiledProgram:
    """What compile_linalg returns: the kernels as one `output` (bytes for
    SPIR-V, text for Metal), the launches in program order, and the module
    after sm-linalg-to-gpu (host functions and the gpu.module)."""
    binary: object
    launches: list
    module: Module
    target: str = ""
    _runtimes: dict = field(default_factory=dict, repr=False, compare=False)

    def _runtime(self, device):
        from .runtime import ProgramRuntime
        if device not in self._runtimes:
            self._runtimes[device] = ProgramRuntime(self.module, self.target,
                                                    device=device)
        return self._runtimes[device]

    def run(self, *arrays, device=-1):
        """Runs the program on numpy arrays (one per argument of its
        function, in order; bf16 as uint16) on the Vulkan device for its
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


_KERNEL = re.compile(
    r"gpu\.func @(\w+)\(.*?known_block_size = array<i32: (\d+), 1, 1>"
    r"(?:.*?subgroup_matrix\.launch = \{([^\n]*?)\}\})?")


def _parse_launch_attribute(text):
    """(grid, arguments, sizes) of a printed subgroup_matrix.launch."""
    arguments = re.search(r"arguments = \[(.*?)\]", text)
    arguments = re.findall(r'"([^"]*)"', arguments.group(1)) if arguments \
        else []
    static = re.search(r"grid = array<i32: (\d+), (\d+), (\d+)>", text)
    if static:
        grid = tuple(int(g) for g in static.groups())
    else:
        dynamic = re.search(r'grid = "([^"]*)"', text)
        grid = tuple(re.findall(r"\{[^}]*\}|[^,{}]+", dynamic.group(1))) \
            if dynamic else (1, 1, 1)
    sizes = re.search(r"sizes = \[(.*?)\]", text)
    sizes = re.findall(r'"([^"]*)"', sizes.group(1)) if sizes else []
    return grid, arguments, sizes


def compile_linalg(program, target, output="spirv"):
    """Compiles a linalg program (MLIR text or a parsed Module, on tensors or
    memrefs) with sm-linalg-to-gpu for `target` and returns a
    CompiledProgram. Raises MLIRError with the located diagnostics of
    whatever cannot go to the GPU."""
    module = parse(program) if isinstance(program, str) else program.copy()
    module.run_pipeline("sm-linalg-to-gpu{target=%s}" % target)
    text = str(module)
    kernels = {}
    for match in _KERNEL.finditer(text):
        name, threads = match.group(1), int(match.group(2))
        grid, arguments, sizes = _parse_launch_attribute(match.group(3) or "")
        grid = tuple(int(g) if str(g).isdigit() else g for g in grid)
        kernels[name] = Launch(name, grid, threads, arguments, sizes)
    launches = [kernels[name] for name in
                re.findall(r"gpu\.launch_func\s+@\w+::@(\w+)", text)]
    binary = compile(module, target, output)
    return CompiledProgram(binary, launches, module, target)
