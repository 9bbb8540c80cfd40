"""Upstream MLIR as the reference: a linalg program run by upstream MLIR's
own CPU pipeline (Debian's mlir-opt and mlir-runner) beside sm-run, on the
same inputs, and the two outputs compared.

`check` runs and compares here; `stage_program` writes a program's device
plan with upstream's outputs for a GPU machine that has none of this
toolchain (test/Integration/Reference/upstream.py drives both).

The reference program is the given one, unchanged but for one rewrite that
models the project's precision policy (docs/Testing.md, "Upstream
reference"): `sm-opt --sm-accumulate-in-f32` makes every reduction into
f16 or bf16 accumulate in f32 and round once, as the compiler's products
do. A `main` is appended that builds each argument from a constant holding
the input's bytes (`dense<"0x...">`), calls the entry, and prints every
result (and every memref argument, which the program may write) as the
bits of its elements, so that nothing is lost in printing.

Outputs are compared exactly for integers and, for floats, with NaN and
infinities in the same places and finite values within a tolerance of the
narrowest float type the program computes in, relative to the larger of
the element and the output's root mean square.
"""

import json
import os
import pathlib
import re
import subprocess
import tempfile

import numpy as np

from sm_testing.mlir_text import generic_lines
from sm_testing.numerics import bf16_bits
from sm_testing.program_check import FLOATS, SmRunError, compare, run_sm


LLVM_BIN = os.environ.get("SM_LLVM_BIN", "/usr/lib/llvm-22/bin")


LLVM_LIB = os.environ.get("SM_LLVM_LIB", "/usr/lib/llvm-22/lib")


# Upstream's CPU lowering of a linalg program (../shared TOOLCHAIN.md).
CPU_PIPELINE = [
    "--one-shot-bufferize=bufferize-function-boundaries",
    "--convert-linalg-to-loops", "--expand-strided-metadata",
    "--lower-affine", "--convert-scf-to-cf", "--math-expand-ops",
    "--math-extend-to-supported-types", "--convert-math-to-llvm",
    "--convert-math-to-libm", "--arith-expand", "--convert-to-llvm",
    "--reconcile-unrealized-casts"]


# Upstream's decomposition of ops that linalg-to-loops does not lower
# (linalg.softmax), run by the transform interpreter before the pipeline.
DECOMPOSE_AGGREGATES = """\
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(
      %root: !transform.any_op {transform.readonly}) {
    %ops = transform.structured.match ops{["linalg.softmax"]} in %root
        : (!transform.any_op) -> !transform.any_op
    %parts = transform.structured.decompose_interface %ops
        : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
"""


# Element type -> (numpy dtype as sm-run reads and writes it, bits printed).
ELEMENTS = {
    "f16": ("float16", 16), "bf16": ("uint16", 16), "f32": ("float32", 32),
    "f64": ("float64", 64), "i1": ("bool", 8), "i4": ("int8", 8),
    "i8": ("int8", 8), "i16": ("int16", 16), "i32": ("int32", 32),
    "i64": ("int64", 64), "index": ("int64", 64)}


# The tolerance of a program's float outputs by the narrowest float type it
# computes in: a few units in the last place of that type, since the two
# sides may round at different points (fused epilogues, sums in another
# order, exp and tanh of other libraries).
TOLERANCE = {"bf16": 3e-2, "f16": 5e-3, "f32": 5e-5, "f64": 1e-9}


class ReferenceError(Exception):
    """The reference could not run the program (not a disagreement)."""


def split_top_level(text, separator=","):
    """`text` split at `separator`s outside brackets."""
    parts, depth, start = [], 0, 0
    for index, char in enumerate(text):
        if char in "<([{":
            depth += 1
        elif char in ">)]}":
            depth -= 1
        elif char == separator and depth == 0:
            parts.append(text[start:index].strip())
            start = index + 1
    tail = text[start:].strip()
    if tail:
        parts.append(tail)
    return parts


class ShapedType:
    """A tensor, memref or scalar type of a function signature."""

    def __init__(self, text):
        self.text = text.strip()
        found = re.fullmatch(r"(tensor|memref)<(.*)>", self.text)
        if not found:
            self.kind, self.shape, self.element = "scalar", (), self.text
            return
        self.kind = found.group(1)
        body = split_top_level(found.group(2))[0]
        dims = body.split("x")
        self.element = dims[-1]
        self.shape = tuple(None if d == "?" else int(d) for d in dims[:-1])
        self.has_layout = len(split_top_level(found.group(2))) > 1

    @property
    def dtype(self):
        return ELEMENTS[self.element][0]

    def as_tensor(self):
        """The tensor type of the same sizes and element."""
        dims = "".join("?x" if d is None else "%dx" % d for d in self.shape)
        return "tensor<%s%s>" % (dims, self.element)

    def static(self, shape):
        """The type's identity-layout kind with `shape`."""
        dims = "".join("%dx" % d for d in shape)
        return "%s<%s%s>" % (self.kind, dims, self.element)


def function_types(text, entry=None):
    """(name, [argument ShapedType], [result ShapedType]) of the entry: the
    named function, else the only public function with a body, else the one
    that no other function calls."""
    generic = subprocess.run(
        [os.path.join(LLVM_BIN, "mlir-opt"), "-", "--mlir-print-op-generic"],
        input=text, capture_output=True, text=True)
    if generic.returncode:
        raise ReferenceError("upstream mlir-opt cannot parse the program: " +
                             generic.stderr.strip()[-800:])
    functions = {}
    for line in generic.stdout.splitlines():
        found = re.search(r'"func\.func"\(\) <\{(.*)\}> \(\{', line)
        if not found:
            continue
        attributes = found.group(1)
        name = re.search(r'sym_name = "([^"]+)"', attributes).group(1)
        private = 'sym_visibility = "private"' in attributes
        start = attributes.index("function_type = ") + len("function_type = ")
        depth, end = 0, start
        for end in range(start, len(attributes)):
            char = attributes[end]
            depth += char in "<([{"
            depth -= char in ">)]}"
            if depth == 0 and char == ")":
                break
        arguments = attributes[start + 1:end]
        rest = attributes[end + 1:]
        results = re.match(r"\s*->\s*(\(.*?\)|[^,]*(?:<.*?>)?)(?:, \w+ =|$)",
                           rest)
        results_text = results.group(1).strip() if results else ""
        if results_text.startswith("("):
            results_text = results_text[1:-1]
        functions[name] = (private,
                           [ShapedType(t) for t in split_top_level(arguments)],
                           [ShapedType(t)
                            for t in split_top_level(results_text)])
    if entry:
        if entry not in functions:
            raise ReferenceError("no function @%s with a body" % entry)
        return (entry,) + tuple(functions[entry][1:])
    public = [name for name, value in functions.items() if not value[0]]
    if len(public) != 1:
        called = set(re.findall(r"\bcall @([\w.$-]+)", text))
        public = [name for name in public if name not in called]
    if len(public) != 1:
        raise ReferenceError("cannot tell the entry function among %s" %
                             ", ".join(sorted(functions)))
    return (public[0],) + tuple(functions[public[0]][1:])


def to_bits(array, element):
    """`array` (as sm-run reads it) as the bytes of MLIR's dense hex form:
    little-endian elements, one byte per i4 element (its low four bits), i1
    packed in bits."""
    if element == "i1":
        return np.packbits(np.asarray(array, bool).reshape(-1),
                           bitorder="little").tobytes()
    dtype = np.dtype(ELEMENTS[element][0]).newbyteorder("<")
    if element == "i4":
        # The element's own four bits, the byte's others zero: LLVM loads an
        # i4 from memory as if they were (a sign-extended byte, 0xFC for -4,
        # read back as 252 through a zero extension).
        return (np.ascontiguousarray(array).astype(np.int64) & 0xF).astype(
            np.uint8).tobytes()
    return np.ascontiguousarray(array).astype(dtype).tobytes()


def from_printed(values, element):
    """Printed element values (integers of the printed width, signed) as
    sm-run writes the element type: float bits reinterpreted, integers
    wrapped to their width (i4 and i1 come extended)."""
    dtype, bits = ELEMENTS[element]
    values = values.astype(np.int64)
    if element == "i1":
        return (values & 1).astype(bool)
    if element in FLOATS:
        raw = values.astype({16: np.uint16, 32: np.uint32,
                             64: np.uint64}[bits])
        return raw if element == "bf16" else raw.view(np.dtype(dtype))
    return values.astype(np.dtype(dtype))


def scalar_constant(name, array, element):
    value = np.asarray(array).reshape(())
    if element in FLOATS:
        bits = {"f16": "0x%04X", "bf16": "0x%04X", "f32": "0x%08X",
                "f64": "0x%016X"}[element]
        raw = np.asarray(value).view(
            {"f16": np.uint16, "bf16": np.uint16, "f32": np.uint32,
             "f64": np.uint64}[element]).item()
        return "    %s = arith.constant %s : %s\n" % (name, bits % raw, element)
    return "    %s = arith.constant %d : %s\n" % (name, int(value), element)


class Driver:
    """The text of a `main` that feeds `arrays` to the entry and prints its
    outputs."""

    def __init__(self, entry, arguments, results, arrays):
        self.entry, self.arguments, self.results = entry, arguments, results
        self.arrays = arrays
        self.globals, self.body, self.counter = [], [], 0
        self.outputs = []  # (what, element) in the order printed

    def fresh(self, stem):
        self.counter += 1
        return "%%%s%d" % (stem, self.counter)

    def index(self, value):
        name = self.fresh("c")
        self.body.append("    %s = arith.constant %d : index\n" %
                         (name, value))
        return name

    def argument(self, position, type_, array):
        if type_.kind == "scalar":
            name = self.fresh("s")
            self.body.append(scalar_constant(name, array, type_.element))
            return name
        shape = tuple(np.shape(array))
        static = type_.static(shape)
        hex_text = "0x" + to_bits(array, type_.element).hex().upper()
        literal = 'dense<"%s">' % hex_text if np.size(array) else \
            "dense<>"
        if type_.kind == "tensor":
            value = self.fresh("t")
            self.body.append("    %s = arith.constant %s : %s\n" %
                             (value, literal, static))
        else:
            symbol = "__reference_arg%d" % position
            self.globals.append('  memref.global "private" @%s : %s = %s\n' %
                                (symbol, static, literal))
            value = self.fresh("m")
            self.body.append("    %s = memref.get_global @%s : %s\n" %
                             (value, symbol, static))
        if static != type_.text:
            cast = self.fresh("cast")
            operation = "tensor.cast" if type_.kind == "tensor" else \
                "memref.cast"
            self.body.append("    %s = %s %s : %s to %s\n" %
                             (cast, operation, value, static, type_.text))
            value = cast
        return value

    def printed(self, value, type_, shape):
        """Prints `value` (of `type_`, run-time `shape`) as integer bits."""
        element = type_.element
        bits = {"i1": 32, "i4": 32, "i8": 32}.get(element,
                                                  ELEMENTS[element][1])
        integer = "i%d" % bits
        rank = len(shape)
        dims = "".join("%dx" % d for d in shape)
        identity = "affine_map<(%s) -> (%s)>" % (
            ", ".join("d%d" % i for i in range(rank)),
            ", ".join("d%d" % i for i in range(rank)))
        if element in FLOATS:
            convert = "arith.bitcast %%x : %s to %s" % (element, integer)
        elif element == "i1" or element == "index":
            convert = ("arith.extui %%x : i1 to %s" % integer
                       if element == "i1" else
                       "arith.index_cast %%x : index to %s" % integer)
        elif bits > ELEMENTS[element][1]:
            convert = "arith.extsi %%x : %s to %s" % (element, integer)
        else:
            convert = None
        if type_.kind == "scalar":
            return self.print_scalar(value, element, integer, convert)
        source, source_type = value, type_.text
        if type_.kind == "memref":
            source, source_type = self.fresh("loaded"), type_.as_tensor()
            self.body.append(
                "    %s = bufferization.to_tensor %s restrict : %s to %s\n" %
                (source, value, type_.text, source_type))
        if source_type != "tensor<%s%s>" % (dims, element):
            cast = self.fresh("cast")
            self.body.append("    %s = tensor.cast %s : %s to tensor<%s%s>\n" %
                             (cast, source, source_type, dims, element))
            source = cast
        if convert:
            empty = self.fresh("empty")
            bits_value = self.fresh("bits")
            wide = "tensor<%s%s>" % (dims, integer)
            self.body.append("    %s = tensor.empty() : %s\n" % (empty, wide))
            self.body += [line + "\n" for line in generic_lines(
                bits_value, [identity, identity], ["parallel"] * rank,
                [(source, "tensor<%s%s>" % (dims, element))], (empty, wide),
                ["%%x: %s" % element, "%%o: %s" % integer],
                ["%%y = %s" % convert.replace("%%", "%"),
                 "linalg.yield %%y : %s" % integer], indent="    ")]
            source = bits_value
        self.print_tensor(source, dims, integer)

    def print_tensor(self, source, dims, integer):
        """Prints the integer tensor `source` (tensor<DIMS INTEGER>)."""
        buffer = self.fresh("buffer")
        unranked = self.fresh("unranked")
        self.body.append(
            "    %s = bufferization.to_buffer %s : tensor<%s%s> to "
            "memref<%s%s>\n"
            "    %s = memref.cast %s : memref<%s%s> to memref<*x%s>\n"
            "    call @printMemrefI%d(%s) : (memref<*x%s>) -> ()\n" %
            (buffer, source, dims, integer, dims, integer, unranked, buffer,
             dims, integer, integer, int(integer[1:]), unranked, integer))

    def print_scalar(self, value, element, integer, convert):
        if convert:
            widened = self.fresh("w")
            self.body.append("    %s = %s\n" % (
                widened, convert.replace("%%x", value).replace("%x", value)))
            value = widened
        tensor = self.fresh("scalar")
        self.body.append("    %s = tensor.from_elements %s : tensor<%s>\n" %
                         (tensor, value, integer))
        self.print_tensor(tensor, "", integer)

    def text(self, result_shapes):
        values = [self.argument(i, t, a) for i, (t, a) in
                  enumerate(zip(self.arguments, self.arrays))]
        names = ", ".join(self.fresh("r") for _ in self.results)
        call = "call @%s(%s) : (%s) -> (%s)" % (
            self.entry, ", ".join(values),
            ", ".join(t.text for t in self.arguments),
            ", ".join(t.text for t in self.results))
        results = [n.strip() for n in names.split(",")] if names else []
        self.body.append("    %s%s\n" % (
            (names + " = ") if results else "", call))
        for index, (value, type_) in enumerate(zip(results, self.results)):
            self.printed(value, type_, result_shapes[index])
            self.outputs.append(("result", index, type_.element))
        for index, (value, type_) in enumerate(zip(values, self.arguments)):
            if type_.kind == "memref":
                self.printed(value, type_, tuple(np.shape(self.arrays[index])))
                self.outputs.append(("arg", index, type_.element))
        declarations = "".join(
            "  func.func private @printMemrefI%d(memref<*xi%d>) "
            "attributes {llvm.emit_c_interface}\n" % (b, b)
            for b in (16, 32, 64))
        return ("".join(self.globals) + declarations +
                "  func.func @__reference_main() {\n" + "".join(self.body) +
                "    return\n  }\n")


def parse_printed(stdout):
    """The arrays that printMemrefI* printed, in order."""
    arrays = []
    for found in re.finditer(
            r"rank = (\d+) offset = \d+ sizes = \[([^\]]*)\] "
            r"strides = \[[^\]]*\] data = \n(.*?)(?=\nUnranked Memref|\Z)",
            stdout, re.S):
        shape = tuple(int(s) for s in found.group(2).split(",") if s.strip())
        numbers = re.findall(r"-?\d+", found.group(3))
        values = np.array([int(n) for n in numbers], dtype=object)
        arrays.append(np.array(values.astype(np.int64) if values.size else
                               np.zeros(0, np.int64)).reshape(shape))
    return arrays


# Upstream's lowering of a TOSA program to linalg, done by upstream's own
# mlir-opt: the passes of its tosa-to-linalg-pipeline and the conversions
# that pipeline leaves to the caller (sm-tosa-to-linalg runs the same ones
# inside sm-run).
TOSA_TO_LINALG = ["--tosa-to-linalg-pipeline",
                  "--tosa-to-arith=include-apply-rescale=true",
                  "--tosa-to-tensor", "--tosa-to-scf", "--canonicalize"]
# The target a program that declares none is validated against (as
# sm-tosa-to-linalg does): all of specification 1.0, at level none.
TOSA_PERMISSIVE_TARGET = (
    "--tosa-attach-target=level=none profiles=pro_int,pro_fp "
    "extensions=int16,int4,bf16,fp8e4m3,fp8e5m2,fft,variable,controlflow,"
    "doubleround,inexactround,dynamic")


def is_tosa(text):
    """Whether the program is written in TOSA."""
    return re.search(r"\btosa\.[a-z_]+\b|\"tosa\.", text) is not None


def lower_tosa(text):
    """`text` in linalg: TOSA lowered by upstream MLIR, else unchanged."""
    if not is_tosa(text):
        return text
    target = ([] if re.search(r"tosa\.target_env\s*=", text) else
              [TOSA_PERMISSIVE_TARGET])
    done = subprocess.run(
        [os.path.join(LLVM_BIN, "mlir-opt"), "-"] + target + TOSA_TO_LINALG,
        input=text, capture_output=True, text=True)
    if done.returncode:
        raise ReferenceError("upstream mlir-opt could not lower the TOSA "
                             "program: " + done.stderr.strip()[-800:])
    return drop_tosa_target(done.stdout) if target else done.stdout


def drop_tosa_target(text):
    """`text` without the tosa.target_env module attribute (which only the
    validation read, and which mlir-runner, without the TOSA dialect, cannot
    parse)."""
    start = text.find("tosa.target_env = #tosa.target_env<")
    if start < 0:
        return text
    depth, end = 0, text.index("<", start)
    while True:
        depth += {"<": 1, ">": -1}.get(text[end], 0)
        end += 1
        if depth == 0:
            break
    text = text[:start] + text[end:]
    return re.sub(r" attributes \{\s*,?\s*\}|(?<=\{), |, (?=\})", "",
                  text, count=1)


def reference_module(tools, text, driver):
    """The program (in linalg) with the precision policy's f32 accumulation
    and the driver's ops appended to its module."""
    text = lower_tosa(text)
    done = subprocess.run(
        [os.path.join(tools, "sm-opt"), "-", "--linalg-generalize-named-ops",
         "--sm-accumulate-in-f32"], input=text, capture_output=True,
        text=True)
    if done.returncode:
        raise ReferenceError("sm-accumulate-in-f32 failed: " +
                             done.stderr.strip()[-800:])
    # Resources (weights frozen as dense_resource blobs) print after the
    # module.
    program, resources = done.stdout, ""
    if "\n{-#" in program:
        program, resources = program.split("\n{-#", 1)
        resources = "{-#" + resources
    program = program.rstrip()
    assert program.endswith("}"), "a module prints its closing brace last"
    return program[:-1] + driver + "}\n" + resources


def run_reference(tools, text, entry, arrays, result_shapes, workdir):
    """The outputs upstream MLIR computes: {("result"|"arg", i): array}."""
    name, arguments, results = function_types(text, entry)
    if len(arrays) != len(arguments):
        raise ReferenceError("%d inputs for %d arguments" %
                             (len(arrays), len(arguments)))
    driver = Driver(name, arguments, results, arrays)
    source = pathlib.Path(workdir) / "reference.mlir"
    source.write_text(reference_module(tools, text,
                                       driver.text(result_shapes)))
    lowered = pathlib.Path(workdir) / "reference.llvm.mlir"
    decompose = pathlib.Path(workdir) / "decompose.mlir"
    decompose.write_text(DECOMPOSE_AGGREGATES)
    done = subprocess.run(
        [os.path.join(LLVM_BIN, "mlir-opt"), str(source), "-o", str(lowered),
         "--transform-preload-library=transform-library-paths=%s" % decompose,
         "--transform-interpreter"] + CPU_PIPELINE,
        capture_output=True, text=True)
    if done.returncode:
        raise ReferenceError("upstream mlir-opt failed: " +
                             done.stderr.strip()[-1500:])
    # MLIR 22's arith-to-llvm copies the `contract` flag that
    # math-extend-to-supported-types puts on its extf/truncf as an arith
    # attribute onto llvm.fpext/fptrunc, which mlir-runner cannot parse; a
    # conversion has nothing to contract, so the flag goes.
    text = lowered.read_text()
    lowered.write_text(text.replace(
        " {fastmath = #arith.fastmath<contract>}", ""))
    done = subprocess.run(
        [os.path.join(LLVM_BIN, "mlir-runner"), str(lowered), "-e",
         "__reference_main", "-entry-point-result=void", "-O2",
         "-shared-libs=%s,%s" % (
             os.path.join(LLVM_LIB, "libmlir_runner_utils.so"),
             os.path.join(LLVM_LIB, "libmlir_c_runner_utils.so"))],
        capture_output=True, text=True)
    if done.returncode:
        raise ReferenceError("mlir-runner exited %d: %s" % (
            done.returncode, done.stderr.strip()[-800:]))
    printed = parse_printed(done.stdout)
    if len(printed) != len(driver.outputs):
        raise ReferenceError("mlir-runner printed %d arrays, expected %d" %
                             (len(printed), len(driver.outputs)))
    return {(what, index): from_printed(values, element)
            for (what, index, element), values in zip(driver.outputs,
                                                      printed)}


def program_tolerance(text):
    """The tolerance of the narrowest float type the program uses."""
    used = [t for t in ("bf16", "f16", "f32", "f64")
            if re.search(r"(?:(?<![\w.])|(?<=[0-9?]x))%s\b" % t, text)]
    return max([TOLERANCE[t] for t in used] or [0.0])


def check(tools, text, target, arrays, entry=None, tolerance=None,
          pipeline_options=""):
    """(status, detail): status "PASSED", "FAILED" (a disagreement or a
    crash), or "REFUSED" (sm-run reported an error) for `text` on
    `arrays`. `pipeline_options` (sm-linalg-to-gpu's, such as a tiling)
    compiles the program with sm-opt first, and sm-run runs what it made."""
    _, arguments, results = function_types(text, entry)
    tolerance = program_tolerance(text) if tolerance is None else tolerance
    with tempfile.TemporaryDirectory() as scratch:
        path = pathlib.Path(scratch) / "program.mlir"
        path.write_text(text)
        if pipeline_options:
            done = subprocess.run(
                [os.path.join(tools, "sm-opt"), str(path),
                 "--sm-linalg-to-gpu=target=%s %s" % (target,
                                                      pipeline_options),
                 "--mlir-print-op-on-diagnostic=false", "-o", str(path)], capture_output=True, text=True)
            # sm-opt exits 1 with a diagnostic; a signal is a crash.
            if done.returncode:
                return ("REFUSED" if done.returncode == 1 else "FAILED",
                        "sm-opt exited %d: %s" % (done.returncode,
                                                  done.stderr.strip()[-1500:]))
        try:
            ours = run_sm(tools, path, target, entry, arrays, scratch)
        except SmRunError as error:
            return ("REFUSED" if error.refused else "FAILED"), str(error)
        shapes = [np.shape(ours.get(("result", i), np.zeros(()))) if
                  ("result", i) in ours else None
                  for i in range(len(results))]
        if any(shape is None for shape in shapes):
            return "FAILED", "sm-run wrote %d of %d results" % (
                sum(s is not None for s in shapes), len(shapes))
        theirs = run_reference(tools, text, entry, arrays, shapes, scratch)
    details, ok = [], True
    for key, want in theirs.items():
        element = (results[key[1]] if key[0] == "result" else
                   arguments[key[1]]).element
        got = ours.get(key)
        if got is None:
            # An argument the program does not write stays as given.
            if key[0] == "arg" and np.array_equal(
                    np.asarray(want).view(np.uint8)
                    if np.asarray(want).dtype != bool else want,
                    np.asarray(arrays[key[1]]).astype(want.dtype).view(
                        np.uint8) if want.dtype != bool else
                    arrays[key[1]]):
                continue
            ok = False
            details.append("%s %d: not written by sm-run" % key)
            continue
        passed, detail = compare(got, want, element, tolerance)
        ok &= passed
        details.append("%s %d: %s" % (key[0], key[1], detail))
    return ("PASSED" if ok else "FAILED"), "; ".join(details)


def random_inputs(rng, arguments, shapes):
    """Random inputs for `arguments` (dynamic sizes from `shapes`)."""
    arrays = []
    for index, type_ in enumerate(arguments):
        shape = shapes[index] if shapes and shapes[index] is not None else \
            type_.shape
        if any(d is None for d in shape):
            raise ReferenceError("argument %d has dynamic sizes: give "
                                 "--shapes" % index)
        dtype = type_.dtype
        if type_.element in FLOATS:
            values = rng.uniform(-1.0, 1.0, shape)
            if type_.element == "bf16":
                arrays.append(bf16_bits(values))
            else:
                arrays.append(np.asarray(values, dtype))
        elif type_.element == "i1":
            arrays.append(rng.integers(0, 2, shape).astype(bool))
        else:
            low, high = {"i4": (-8, 7), "i8": (-128, 127)}.get(
                type_.element, (-100, 100))
            arrays.append(np.asarray(rng.integers(low, high + 1, shape),
                                     dtype))
    return arrays


def program_inputs(text, options):
    """Random inputs for a program (its `// SHAPES:` line or --shapes
    giving dynamic sizes)."""
    shapes_text = options.shapes
    found = re.search(r"^// SHAPES: (.*)$", text, re.M)
    if found and not shapes_text:
        shapes_text = ",".join(found.group(1).split())
    shapes = [tuple(int(d) for d in s.split("x") if d) if s else None
              for s in shapes_text.split(",")] if shapes_text else None
    _, arguments, _ = function_types(text, options.entry)
    return random_inputs(np.random.default_rng(options.seed), arguments,
                         shapes)


def stage_program(tools, text, arrays, directory, target, entry=None,
                  spirv_val=None):
    """Writes one program's device plan for `target` (sm-run --emit-plan)
    with `arrays` as its inputs, and upstream's outputs for them, into
    `directory`; returns the line that says what happened. With
    `spirv_val`, every binary of the plan is validated first."""
    name = directory.name
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "program.mlir").write_text(text)
    argv = [os.path.join(tools, "sm-run"), str(directory / "program.mlir"),
            "--target", target, "--emit-plan", str(directory)]
    for index, array in enumerate(arrays):
        path = directory / ("input_%d.npy" % index)
        np.save(path, array)
        argv += ["--input", str(path)]
    done = subprocess.run(argv, capture_output=True, text=True)
    if done.returncode:
        return "REFUSED %s: %s" % (name, done.stderr.strip()[-800:])
    for binary in sorted(directory.glob("binary_*.spv")) if spirv_val else []:
        checked = subprocess.run(
            [spirv_val, "--target-env", "vulkan1.3", str(binary)],
            capture_output=True, text=True)
        if checked.returncode:
            return "INVALID %s: %s: %s" % (name, binary.name, (
                checked.stderr + checked.stdout).strip()[-800:])
    _, arguments, results = function_types(text, entry)
    shapes = [r.shape for r in results]
    if any(d is None for shape in shapes for d in shape):
        return "UNCHECKED %s: dynamic result sizes" % name
    with tempfile.TemporaryDirectory() as scratch:
        theirs = run_reference(tools, text, entry, arrays, shapes, scratch)
    elements = {}
    for (what, index), array in theirs.items():
        np.save(directory / ("reference_%s_%d.npy" % (what, index)), array)
        elements["%s_%d" % (what, index)] = (
            results if what == "result" else arguments)[index].element
    # What the comparison needs of the program; the program itself (its
    # weights) does not travel.
    (directory / "program.mlir").unlink()
    (directory / "reference.json").write_text(json.dumps(
        {"elements": elements, "tolerance": program_tolerance(text)}))
    return "staged %s" % name
