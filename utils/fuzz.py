#!/usr/bin/env python3
"""Mutation fuzzing of sm-opt and sm-translate over the lit corpus.

Every `.mlir` file under test/ and examples/ is split into its
`// -----` cases; each mutant is one case with a few structural mutations
(the literals of types and attributes, element types, memref shapes and
memory spaces, matrix kinds, operands, `col_major`, strides, targets,
workgroup sizes, op names, lines) or byte-wise ones, and it runs through
every pipeline a user runs: parsing, canonicalization, the target and
uniformity checks, the Vulkan lowering with and without robust access (then
serialization and spirv-val), the Intel lowering (then its SPIR-V and
spirv-val), sm-tile-matmul and sm-linalg-to-gpu with random options, and
the Metal emitter. One work item in RUNNER_SHARE is instead a mutated
command line of a runner (sm-vulkan-runner, sm-intel-host-runner,
sm-msl-host-runner) on a kernel prepared at the start: options dropped,
repeated, reordered, or given malformed, negative, huge or missing values;
a runner must answer each with exit status 0, 1 or 2, never a signal.

A crash, an assertion, an LLVM fatal error, a hang (a step over its time
limit), or a binary that spirv-val rejects is a finding: the mutant, the
command and its output are written to the findings directory, and the run
exits with status 1. Errors the tools report as diagnostics are the expected
outcome for most mutants, not findings.

The mutants are a function of the seed alone, so `--mutants N --seed S` is a
reproducible run (CI uses it); `--minutes M` runs for a time instead.

Known upstream defects that the harness steers around, so as not to spend
its budget rediscovering them, are listed in KNOWN_UPSTREAM_DEFECTS and in
docs/Fuzzing.md.
"""

import argparse
import collections
import concurrent.futures
import hashlib
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
from spirv_tools_features import spirv_val_reads_bf16  # (beside this script)

# Mutants matching these are not run: the crash is MLIR 22's own and is
# recorded in docs/Fuzzing.md.
KNOWN_UPSTREAM_DEFECTS = [
    # The parser segfaults on a dense array of `index` elements.
    (re.compile(r"array<\s*index"), "dense array of index elements"),
    # linalg.batch_matmul's parser segfaults building the body for operands
    # whose element type is a vector or index (it cannot cast to the
    # accumulator's type).
    (re.compile(r"linalg\.batch_\w*matmul\b[^\n]*(vector<|xindex>)"),
     "batch_matmul on vector or index elements"),
    # linalg.transpose, linalg.broadcast and linalg.reduce segfault after
    # reporting a malformed `permutation = [...]` or `dimensions = [...]`
    # list (the parser sets the attribute it failed to build). The list may
    # be lines after the op's name (after its `outs`), so any list that is
    # not integers separated by commas is steered around.
    (re.compile(r"(permutation|dimensions)\s*=\s*\["
                r"(?!\s*(?:\d+\s*(?:,\s*\d+\s*)*)?\])"),
     "malformed permutation or dimensions list of a linalg op"),
]

TARGETS = ["nvidia-h100", "amd-rdna3", "intel-xe-hpc", "intel-xe-hpg",
           "apple-m1"]
ELEMENT_TYPES = ["f16", "bf16", "f32", "f64", "si8", "ui8", "i8", "si32",
                 "ui32", "i32", "i64", "i1", "i4", "si16", "index",
                 "f8E4M3FN", "complex<f32>", "vector<4xf16>"]
DIMENSIONS = ["0", "1", "2", "3", "4", "7", "8", "9", "15", "16", "17", "24",
              "31", "32", "33", "48", "64", "100", "128", "256", "1024",
              "4096", "65536", "2147483647", "2147483648",
              "1099511627776"]
INTEGERS = ["0", "1", "-1", "2", "3", "7", "8", "16", "17", "31", "32", "33",
            "63", "64", "65", "127", "128", "255", "256", "1024", "65535",
            "2147483647", "-2147483648", "4294967295", "9223372036854775807",
            "-9223372036854775808"]
MEMORY_SPACES = ["#gpu.address_space<workgroup>", "#gpu.address_space<global>",
                 "#gpu.address_space<private>", "1", "3", "5"]
OP_GROUPS = [
    ["subgroup_matrix.mma", "subgroup_matrix.multiply"],
    ["subgroup_matrix.scalar_add", "subgroup_matrix.scalar_sub",
     "subgroup_matrix.scalar_mul", "subgroup_matrix.scalar_div"],
    ["linalg.matmul", "linalg.batch_matmul", "linalg.matvec",
     "linalg.matmul_transpose_b"],
    ["arith.addi", "arith.muli", "arith.subi", "arith.divui", "arith.remsi"],
    ["gpu.thread_id", "gpu.block_id", "gpu.subgroup_id", "gpu.block_dim"],
    ["memref.alloc", "memref.alloca"],
]
TOKENS = ["{", "}", "<", ">", "(", ")", "[", "]", "x", "?", ":", ",", "%",
          "-1", "0", "=", "subgroup_matrix.", "!subgroup_matrix.left<",
          "col_major", "stride", "\"", "#", "^bb1", "//"]


# One work item in this many is a runner command line rather than a mutant.
RUNNER_SHARE = 20
RUNNER_OPTIONS = ["--arg", "--scalar", "--grid", "--check", "--expect-same",
                  "--dump", "--output", "--entry", "--repeat", "--size",
                  "--subgroup-size", "--device", "--print-timings",
                  "--pipeline-statistics", "--append-lengths",
                  "--compile-only", "--list-devices", "--help", "-h", "-"]
# Values that are malformed, out of range or harmless: no valid value here
# asks for a long run (a huge --repeat or grid would be a hang, not a bug).
RUNNER_VALUES = ["", "-1", "0", "1", "2", "1.5", "abc", "-", ":", "::",
                 "4294967297", "99999999999999999999", "1e9", "nan", "0x10",
                 "f16", "f16:0:random", "f16:-3:random", "f64:1:iota",
                 "i32:3:const:x", "i32:3:const:", "u8:5:file:/nonexistent",
                 "f32:4:random:1:2", "f32:4:random:-1", "bf16:4:poison",
                 "i32:1", "f32:nan", "u32:4294967296", "1,2,3,4", "0,1",
                 "1,,1", "65536,65536", "gemm:M=1", "gemm:M=4,N=4,K=4,A=0,"
                 "B=1,C=9", "gemm:M=-4", "gemm:lda=x", "3:3", "0:", "x:y",
                 "M=", "M=-1", "=4", "24", "128", "gemm", "missing",
                 "f32:4294967296:poison", "f64:4294967296:poison"]
# sm-run's options and values of its own: targets, and .npy files that
# RunnerCommandLines writes (well-formed ones of other shapes and types,
# and malformed ones).
SM_RUN_OPTIONS = ["--target", "--entry", "--input", "--output-dir",
                  "--repeat", "--device", "--emit-plan", "--help", "-"]
SM_RUN_VALUES = RUNNER_VALUES + [
    "cpu-lavapipe", "nvidia-h100", "intel-xe-hpc", "apple-m1", "bogus",
    "accumulate", "linear", "a.npy", "b.npy", "c.npy", "f64.npy",
    "short.npy", "scalar.npy", "fortran.npy", "junk.npy", "truncated.npy",
    "huge-header.npy", "empty.npy", "plan"]


class Corpus:
    """The `// -----` cases of the lit tests and examples, without their
    RUN/CHECK lines (kept: the IR and its diagnostics annotations). Cases
    that sm-opt accepts are drawn more often than the invalid ones (the
    diagnostics tests), so that most mutants get past the verifier into the
    passes."""

    def __init__(self, roots, sm_opt):
        self.cases = []
        for root in roots:
            for directory, _, files in sorted(os.walk(root)):
                for name in sorted(files):
                    if name.endswith(".mlir"):
                        self._add(os.path.join(directory, name))
        self.valid, self.invalid = [], []
        for case in self.cases:
            accepted = subprocess.run([sm_opt, "-"], input=case[1].encode(),
                                      capture_output=True).returncode == 0
            (self.valid if accepted else self.invalid).append(case)

    def choose(self, rng):
        if self.valid and (not self.invalid or rng.random() < 0.85):
            return rng.choice(self.valid)
        return rng.choice(self.invalid)

    def _add(self, path):
        with open(path, errors="replace") as f:
            text = f.read()
        for case in re.split(r"^// -----\s*$", text, flags=re.M):
            lines = [l for l in case.splitlines()
                     if not re.match(r"\s*//\s*(RUN|CHECK|[A-Z0-9-]+:)", l)]
            body = "\n".join(lines).strip()
            if body:
                self.cases.append((os.path.relpath(path, REPO), body + "\n"))


class Mutator:
    """Structural and byte-wise mutations of MLIR text."""

    def __init__(self, rng):
        self.rng = rng
        self.structural = [
            self.dimension, self.element_type, self.matrix_kind,
            self.memory_space, self.col_major, self.operand, self.integer,
            self.target, self.workgroup_size, self.op_name, self.line,
            self.attribute, self.retype, self.retype, self.retype,
        ]

    def mutate(self, text):
        applied = []
        for _ in range(self.rng.choice([1, 1, 1, 2, 2, 3])):
            if self.rng.random() < 0.15:
                mutation = self.byte
            else:
                mutation = self.rng.choice(self.structural)
            mutated = mutation(text)
            if mutated is not None and mutated != text:
                text = mutated
                applied.append(mutation.__name__)
        return text, applied

    def _replace_match(self, text, pattern, replacement, group=0):
        """Replaces one random match of `pattern` (its `group`)."""
        matches = list(re.finditer(pattern, text))
        if not matches:
            return None
        m = self.rng.choice(matches)
        new = replacement(m) if callable(replacement) else replacement
        return text[:m.start(group)] + new + text[m.end(group):]

    TYPE_PATTERN = re.compile(
        r"memref<[^<>]*(?:<[^<>]*>[^<>]*)*>|!subgroup_matrix\.\w+<[^<>]*>")

    def retype(self, text):
        """Changes one type everywhere it is spelled (a dimension, the
        element type, the matrix kind or the memory space), so that the
        program still type-checks and the change reaches the verifiers and
        the passes rather than the parser."""
        types = sorted(set(self.TYPE_PATTERN.findall(text)))
        if not types:
            return None
        old = self.rng.choice(types)
        mutation = self.rng.choice([self.dimension, self.dimension,
                                    self.element_type, self.matrix_kind,
                                    self.memory_space])
        new = mutation(old)
        if new is None or new == old:
            return None
        return text.replace(old, new)

    def dimension(self, text):
        choices = DIMENSIONS + ["?"] * 2
        return self._replace_match(text, r"(?<=[<x])(\d+|\?)(?=x)",
                                   lambda m: self.rng.choice(choices))

    def element_type(self, text):
        pattern = (r"(?<=[x<: ])(f16|bf16|f32|f64|si8|ui8|i8|si32|ui32|i32|"
                   r"i64|i1|index)\b")
        return self._replace_match(text, pattern,
                                   lambda m: self.rng.choice(ELEMENT_TYPES))

    def matrix_kind(self, text):
        return self._replace_match(
            text, r"(?<=subgroup_matrix\.)(left|right|result)(?=<)",
            lambda m: self.rng.choice(["left", "right", "result"]))

    def memory_space(self, text):
        r = self.rng.random()
        if r < 0.4:
            return self._replace_match(text, r"#gpu\.address_space<\w+>",
                                       lambda m: self.rng.choice(MEMORY_SPACES))
        if r < 0.8:
            # Give a memref without a layout or space one.
            return self._replace_match(
                text, r"memref<[^<>]*?x?[a-z0-9]+(?=>)",
                lambda m: m.group(0) + ", " + self.rng.choice(MEMORY_SPACES))
        return self._replace_match(text, r", #gpu\.address_space<\w+>", "")

    def col_major(self, text):
        if "col_major" in text and self.rng.random() < 0.5:
            return self._replace_match(text, r" col_major", "")
        return self._replace_match(text, r"stride %[\w.]+",
                                   lambda m: m.group(0) + " col_major")

    def operand(self, text):
        names = sorted(set(re.findall(r"(%[\w.]+)(?:#\d+)?\s*(?:,\s*%[\w.]+\s*)*=",
                                      text)) |
                       set(re.findall(r"(%[\w.]+):", text)))
        if not names:
            return None
        # A use: a %name not followed by '=' or ':' (not a definition).
        return self._replace_match(text, r"%[\w.]+(?!\w)(?!\s*[=:])",
                                   lambda m: self.rng.choice(names))

    def integer(self, text):
        return self._replace_match(
            text, r"(?<=arith\.constant )-?\d+|(?<== )-?\d+(?= :)|(?<=[=:] )\d+(?=[,>}\]])",
            lambda m: self.rng.choice(INTEGERS))

    def target(self, text):
        choices = TARGETS + ["bogus", ""]
        return self._replace_match(
            text, r"(?<=target<\")[\w-]*(?=\">)|(?<=target=)[\w-]+",
            lambda m: self.rng.choice(choices))

    def workgroup_size(self, text):
        def sizes(m):
            count = self.rng.choice([3] * 8 + [2, 4, 0])
            usual = ["1", "2", "4", "8", "16", "32", "64", "128", "256"]
            unusual = ["0", "-1", "7", "24", "1024", "2048", "4294967295"]
            values = [self.rng.choice(usual if self.rng.random() < 0.8
                                      else unusual)
                      for _ in range(count)]
            return "array<i32: %s>" % ", ".join(values) if values else "array<i32>"
        return self._replace_match(text, r"array<i32[^>]*>", sizes)

    def op_name(self, text):
        group = self.rng.choice(OP_GROUPS)
        pattern = "|".join(re.escape(name) + r"\b" for name in group)
        return self._replace_match(text, pattern,
                                   lambda m: self.rng.choice(group))

    def line(self, text):
        lines = text.splitlines()
        if len(lines) < 2:
            return None
        i = self.rng.randrange(len(lines))
        j = self.rng.randrange(len(lines))
        action = self.rng.choice(["delete", "duplicate", "swap"])
        if action == "delete":
            del lines[i]
        elif action == "duplicate":
            lines.insert(j, lines[i])
        else:
            lines[i], lines[j] = lines[j], lines[i]
        return "\n".join(lines) + "\n"

    def attribute(self, text):
        r = self.rng.random()
        if r < 0.5:
            return self._replace_match(
                text, r",?\s*(subgroup_matrix\.target|known_block_size|"
                      r"gpu\.container_module|subgroup_matrix\.launch)\s*"
                      r"(=\s*(#[\w.]+<[^>]*>|array<[^>]*>|\"[^\"]*\"))?", "")
        # A target attribute where none was, or a second one.
        return self._replace_match(
            text, r"gpu\.module @\w+",
            lambda m: m.group(0) + " attributes {subgroup_matrix.target = "
            "#subgroup_matrix.target<\"%s\">}" % self.rng.choice(TARGETS))

    def byte(self, text):
        data = bytearray(text.encode())
        if not data:
            return None
        i = self.rng.randrange(len(data))
        action = self.rng.choice(["flip", "insert", "delete", "copy", "token"])
        if action == "flip":
            data[i] ^= 1 << self.rng.randrange(7)
        elif action == "insert":
            data.insert(i, self.rng.randrange(32, 127))
        elif action == "delete":
            del data[i:i + self.rng.randrange(1, 16)]
        elif action == "copy":
            j = self.rng.randrange(len(data))
            data[i:i] = data[j:j + self.rng.randrange(1, 32)]
        else:
            data[i:i] = self.rng.choice(TOKENS).encode()
        return data.decode(errors="replace")


CRASH_MARKERS = ["LLVM ERROR", "PLEASE submit a bug report", "Stack dump:",
                 "Assertion", "UNREACHABLE executed", "AddressSanitizer",
                 "UndefinedBehaviorSanitizer", "runtime error:",
                 "terminate called"]

Step = collections.namedtuple("Step", "name argv input_from spirv_env")


class Harness:
    """Runs one mutant through every pipeline and classifies the outcome."""

    def __init__(self, tools, spirv_val, timeout):
        # How often each step ended each way: what the mutants reached.
        self.outcomes = collections.Counter()
        self.tools = tools
        self.spirv_val = spirv_val
        self.timeout = timeout

    def tool(self, name):
        return os.path.join(self.tools, name)

    def pipelines(self, rng, text):
        """The pipelines to run on a mutant, as lists of steps; each step
        reads the previous step's output file."""
        target = rng.choice(TARGETS)
        opt, translate = self.tool("sm-opt"), self.tool("sm-translate")
        vulkan = "--sm-lower-to-vulkan"
        vulkan_options = []
        if rng.random() < 0.5:
            vulkan_options.append("robust-access=1")
        if rng.random() < 0.3:
            vulkan_options.append("target=" + target)
        if vulkan_options:
            vulkan += "=" + " ".join(vulkan_options)
        check = "--sm-check-target" + ("=target=" + target
                                       if rng.random() < 0.3 else "")
        pipelines = [
            [Step("parse", [opt], None, None)],
            [Step("canonicalize", [opt, "--canonicalize"], None, None)],
            [Step("check-target", [opt, check], None, None)],
            [Step("check-uniformity", [opt, "--sm-check-uniformity"], None,
                  None)],
            [Step("lower-to-vulkan", [opt, vulkan], None, None),
             Step("serialize-spirv", [translate, "--serialize-spirv"], 0,
                  "vulkan1.3")],
            [Step("lower-to-intel", [opt, "--sm-lower-to-intel" + (
                "=target=" + target if rng.random() < 0.3 else "")], None,
                None),
             Step("emit-intel-spirv", [translate, "--emit-intel-spirv"], 0,
                  "spv1.4")],
            [Step("emit-msl", [translate, "--emit-msl"], None, None)],
        ]
        if "linalg." in text:
            options = ["target=" + rng.choice(TARGETS + ["bogus"])]
            for name in ["tile-m", "tile-n", "tile-k", "subgroups-m",
                         "subgroups-n", "padding", "stages", "vector-width",
                         "group-m"]:
                if rng.random() < 0.25:
                    options.append("%s=%s" % (name, rng.choice(
                        ["-1", "0", "1", "2", "3", "4", "8", "16", "17", "32",
                         "64", "128", "256", "100000"])))
            pipelines.append([
                Step("tile-matmul", [opt, "--sm-tile-matmul=" +
                                     " ".join(options)], None, None),
                Step("lower-tiled-to-vulkan", [opt, "--sm-lower-to-vulkan"],
                     0, None),
                Step("serialize-tiled", [translate, "--serialize-spirv"], 1,
                     "vulkan1.3")])
            # The whole-program pipeline takes the same tiling options.
            pipelines.append([
                Step("linalg-to-gpu", [opt, "--sm-linalg-to-gpu=" +
                                       " ".join(options)], None, None),
                Step("lower-program-to-vulkan", [opt, "--sm-lower-to-vulkan"],
                     0, None),
                Step("serialize-program", [translate, "--serialize-spirv"], 1,
                     "vulkan1.3")])
        return pipelines

    def run_step(self, argv, source, directory, index):
        output = os.path.join(directory, "out%d" % index)
        try:
            result = subprocess.run(argv + [source, "-o", output],
                                    capture_output=True, timeout=self.timeout)
        except subprocess.TimeoutExpired:
            return "hang", None, "timed out after %ss" % self.timeout
        stderr = result.stderr.decode(errors="replace")
        if result.returncode < 0:
            return "crash", None, "signal %d\n%s" % (-result.returncode, stderr)
        for marker in CRASH_MARKERS:
            if marker in stderr:
                return "crash", None, stderr
        if result.returncode not in (0, 1):
            return "crash", None, "exit status %d\n%s" % (result.returncode,
                                                         stderr)
        if result.returncode == 1:
            return "error", None, stderr
        return "ok", output, stderr

    def validate(self, binary, environment, text):
        result = subprocess.run([self.spirv_val, "--target-env", environment,
                                 binary], capture_output=True,
                                timeout=self.timeout)
        if result.returncode != 0:
            return (result.stdout + result.stderr).decode(errors="replace")
        return None

    def run(self, rng, text):
        """Returns a list of (kind, step, argv, detail) findings and the
        number of steps run."""
        findings, steps = [], 0
        with tempfile.TemporaryDirectory(prefix="sm-fuzz-") as directory:
            source = os.path.join(directory, "mutant.mlir")
            with open(source, "w") as f:
                f.write(text)
            for pipeline in self.pipelines(rng, text):
                outputs = []
                for step in pipeline:
                    input_path = source if step.input_from is None \
                        else outputs[step.input_from]
                    steps += 1
                    kind, output, detail = self.run_step(
                        step.argv, input_path, directory, steps)
                    argv = step.argv + [input_path]
                    self.outcomes[(step.name, kind)] += 1
                    if kind in ("crash", "hang"):
                        findings.append((kind, step.name, argv, detail))
                        break
                    if kind == "error":
                        break
                    outputs.append(output)
                    rejection = step.spirv_env and self.validate(
                        output, step.spirv_env, text)
                    if rejection:
                        findings.append(("invalid-spirv", step.name, argv,
                                         rejection))
                        break
                if step.name == "parse" and kind != "ok":
                    # A mutant that does not parse has nothing more to test.
                    break
        return findings, steps


def write_npy_files(directory):
    """The .npy files sm-run's command lines name: the inputs of
    test/Integration/Runtime/Inputs/accumulate.mlir (a, b, c) and others
    of the wrong type or shape, or malformed."""
    import numpy as np
    arrays = {"a": np.ones((64, 128), np.float16),
              "b": np.ones((128, 48), np.float16),
              "c": np.zeros((64, 48), np.float32),
              "f64": np.zeros((64, 48), np.float64),
              "short": np.zeros((63, 48), np.float32),
              "scalar": np.float32(1),
              "fortran": np.asfortranarray(np.zeros((64, 48), np.float32)),
              "empty": np.zeros((0, 48), np.float32)}
    for name, array in arrays.items():
        np.save(os.path.join(directory, name + ".npy"), array)
    with open(os.path.join(directory, "junk.npy"), "wb") as f:
        f.write(b"not an array")
    whole = open(os.path.join(directory, "c.npy"), "rb").read()
    with open(os.path.join(directory, "truncated.npy"), "wb") as f:
        f.write(whole[:len(whole) // 2])
    with open(os.path.join(directory, "huge-header.npy"), "wb") as f:
        f.write(b"\x93NUMPY\x01\x00\xff\xff{'descr': '<f4'")


class RunnerCommandLines:
    """Mutated runner command lines over kernels prepared once."""

    def __init__(self, tools, directory, timeout):
        # Exit statuses by runner: what the command lines reached.
        self.outcomes = collections.Counter()
        self.tools = tools
        self.timeout = timeout
        self.directory = directory
        self.bases = []
        example = os.path.join(REPO, "examples", "gemm_f16.mlir")
        arguments = ["--arg", "f16:8192:random", "--arg", "f16:4096:random",
                     "--arg", "f32:4096:poison", "--scalar", "i32:128",
                     "--scalar", "i32:128", "--scalar", "i32:32",
                     "--scalar", "i32:32"]
        opt, translate = self.tool("sm-opt"), self.tool("sm-translate")

        def prepare(name, commands, runner, extra):
            path = os.path.join(directory, name)
            try:
                for command in commands:
                    subprocess.run(command + ["-o", path] if command[0] ==
                                   translate else command, check=True,
                                   capture_output=True, timeout=600)
            except (subprocess.SubprocessError, OSError):
                return
            if os.path.exists(self.tool(runner)):
                self.bases.append([self.tool(runner), path] + extra +
                                  arguments)

        lowered = os.path.join(directory, "gemm.lavapipe.mlir")
        prepare("gemm.spv",
                [[opt, example, "--sm-lower-to-vulkan=target=cpu-lavapipe",
                  "-o", lowered], [translate, "--serialize-spirv", lowered]],
                "sm-vulkan-runner", ["--grid", "2,1"])
        prepare("gemm.metal", [[translate, "--emit-msl", example]],
                "sm-msl-host-runner", ["--entry", "gemm", "--grid", "2,1"])
        intel = os.path.join(directory, "gemm.intel.mlir")
        prepare("gemm.ll",
                [[opt, example, "--sm-lower-to-intel=target=intel-xe-hpc",
                  "-o", intel], [translate, "--emit-intel-host-llvm", intel]],
                "sm-intel-host-runner", ["--entry", "gemm", "--grid", "2,1"])
        # The runtime: sm-run on whole programs and .npy files, and
        # sm-plan-runner on a plan whose text is mutated too.
        self.plan, self.run_bases = None, []
        if not os.path.exists(self.tool("sm-run")):
            return
        try:
            write_npy_files(directory)
        except ImportError:  # numpy is what sm-run's inputs are written with
            return
        inputs = os.path.join(REPO, "test", "Integration", "Runtime",
                              "Inputs")
        self.run_bases = [
            [self.tool("sm-run"), os.path.join(inputs, name), "--target",
             "cpu-lavapipe", "--input", "a.npy", "--input", "b.npy",
             "--input", "c.npy", "--output-dir", "out"]
            for name in ("accumulate.mlir", "dynamic-linear.mlir")]
        if not os.path.exists(self.tool("sm-plan-runner")):
            return
        plan = subprocess.run(self.run_bases[0] + ["--emit-plan", "plan"],
                              capture_output=True, cwd=directory,
                              timeout=600)
        if plan.returncode == 0:
            self.plan = os.path.join(directory, "plan")

    def tool(self, name):
        return os.path.join(self.tools, name)

    def mutate_plan(self, rng):
        """A copy of the plan sm-run wrote, its text mutated: a line deleted,
        duplicated or swapped, a number or a word replaced."""
        copy = tempfile.mkdtemp(prefix="plan-", dir=self.directory)
        for name in os.listdir(self.plan):
            shutil.copy(os.path.join(self.plan, name), copy)
        path = os.path.join(copy, "plan.txt")
        lines = open(path).read().split("\n")
        for _ in range(rng.randint(1, 3)):
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            choice = rng.random()
            if choice < 0.2:
                del lines[i]
            elif choice < 0.3:
                lines.insert(i, lines[j])
            elif choice < 0.4:
                lines[i], lines[j] = lines[j], lines[i]
            else:
                words = lines[i].split(" ")
                k = rng.randrange(len(words))
                words[k] = rng.choice(RUNNER_VALUES + [
                    "launch", "copy", "buffer", "input", "output", "poison",
                    "18446744073709551615", "-9223372036854775808"])
                lines[i] = " ".join(words)
            if not lines:
                lines = [""]
        open(path, "w").write("\n".join(lines))
        return [self.tool("sm-plan-runner"), copy, "--output-dir", "out"]

    def mutate(self, rng):
        """A base command line with a few mutations."""
        options, values = RUNNER_OPTIONS, RUNNER_VALUES
        choice = rng.random()
        if self.plan and choice < 0.15:
            base = self.mutate_plan(rng)
            if rng.random() < 0.7:
                return base
        elif self.run_bases and choice < 0.4:
            base = rng.choice(self.run_bases)
            options, values = SM_RUN_OPTIONS, SM_RUN_VALUES
        else:
            base = rng.choice(self.bases)
        argv = list(base[2:])
        for _ in range(rng.randint(1, 4)):
            choice = rng.random()
            if choice < 0.25 and argv:
                del argv[rng.randrange(len(argv))]
            elif choice < 0.5 and argv:
                argv[rng.randrange(len(argv))] = rng.choice(values)
            elif choice < 0.75:
                option = rng.choice(options)
                value = rng.choice(values)
                if option == "--output":
                    value = "%d:%s" % (rng.randrange(-1, 9), os.path.join(
                        self.directory, "output.bin"))
                argv[rng.randrange(len(argv) + 1):0] = (
                    [option] if rng.random() < 0.3 else [option, value])
            elif argv:
                i, j = rng.randrange(len(argv)), rng.randrange(len(argv))
                argv[i], argv[j] = argv[j], argv[i]
        if rng.random() < 0.1:
            argv = argv[:rng.randrange(len(argv) + 1)]
        return base[:2] + argv

    def run(self, rng):
        """Returns ([(kind, step, argv, detail)], 1) for one command line."""
        argv = self.mutate(rng)
        step = os.path.basename(argv[0])
        findings = self.findings(argv, step)
        # A mutated plan is kept where it made a finding, to reproduce it.
        if step == "sm-plan-runner" and not findings and argv[1].startswith(
                self.directory):
            shutil.rmtree(argv[1], ignore_errors=True)
        return findings, 1

    def findings(self, argv, step):
        try:
            result = subprocess.run(argv, capture_output=True,
                                    timeout=self.timeout, cwd=self.directory)
        except subprocess.TimeoutExpired:
            return [("hang", step, argv, "timed out after %ss"
                     % self.timeout)]
        output = (result.stdout + result.stderr).decode(errors="replace")
        self.outcomes[(step, result.returncode)] += 1
        if result.returncode < 0:
            return [("crash", step, argv, "signal %d\n%s"
                     % (-result.returncode, output[-4000:]))]
        if result.returncode not in (0, 1, 2) or any(
                marker in output for marker in CRASH_MARKERS):
            return [("crash", step, argv, "exit status %d\n%s"
                     % (result.returncode, output[-4000:]))]
        return []


def signature(kind, step, detail):
    """What tells findings apart: the kind, the step and the first line of the
    report that names the problem."""
    lines = [l for l in detail.splitlines()
             if any(m in l for m in CRASH_MARKERS + ["error", "signal"])]
    first = re.sub(r"0x[0-9a-f]+|\d+", "N", lines[0] if lines else "")[:160]
    return "%s in %s: %s" % (kind, step, first)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument("--mutants", type=int, default=None,
                        help="run this many mutants (reproducible)")
    budget.add_argument("--minutes", type=float, default=None,
                        help="run for this long")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--timeout", type=float, default=60,
                        help="seconds a step may take before it is a hang")
    parser.add_argument("--tools", default=os.path.join(
        os.environ.get("SM_BUILD_DIR", os.path.join(REPO, "build")), "bin"))
    parser.add_argument("--spirv-val", default=os.path.join(
        REPO, ".deps", "spirv", "bin", "spirv-val"))
    parser.add_argument("--findings", default=os.path.join(
        REPO, "build", "fuzz-findings"))
    parser.add_argument("--corpus", nargs="*", default=[
        os.path.join(REPO, "test"), os.path.join(REPO, "examples")])
    options = parser.parse_args()
    if options.mutants is None and options.minutes is None:
        options.mutants = 200
    if not spirv_val_reads_bf16(options.spirv_val):
        sys.exit("fuzz: %s cannot read SPV_KHR_bfloat16, and every Vulkan "
                 "binary is validated; utils/setup.sh, run as root, provides "
                 "SPIRV-Tools 2026" % options.spirv_val)

    corpus = Corpus(options.corpus, os.path.join(options.tools, "sm-opt"))
    harness = Harness(options.tools, options.spirv_val, options.timeout)
    runner_directory = tempfile.TemporaryDirectory(prefix="sm-fuzz-runners-")
    runners = RunnerCommandLines(options.tools, runner_directory.name,
                                 options.timeout)
    deadline = time.time() + 60 * options.minutes if options.minutes else None
    print("fuzz: %d cases in the corpus (%d valid), %d runners, seed %d, %s, "
          "%d jobs"
          % (len(corpus.cases), len(corpus.valid),
             len(runners.bases) + len(runners.run_bases) + bool(runners.plan),
             options.seed,
             "%d mutants" % options.mutants if options.mutants
             else "%g minutes" % options.minutes, options.jobs), flush=True)

    def make_mutant(index):
        rng = random.Random("%d:%d" % (options.seed, index))
        origin, text = corpus.choose(rng)
        mutated, applied = Mutator(rng).mutate(text)
        return rng, origin, mutated, applied

    def work(index):
        if index % RUNNER_SHARE == RUNNER_SHARE - 1 and runners.bases:
            rng = random.Random("runner:%d:%d" % (options.seed, index))
            findings, count = runners.run(rng)
            return index, "runner command line", "", [], findings, count
        rng, origin, text, applied = make_mutant(index)
        for pattern, _ in KNOWN_UPSTREAM_DEFECTS:
            if pattern.search(text):
                return index, origin, text, applied, None, 0
        findings, steps = harness.run(rng, text)
        return index, origin, text, applied, findings, steps

    started = time.time()
    mutants = skipped = steps = failed = reported = 0
    unique = {}
    os.makedirs(options.findings, exist_ok=True)
    with concurrent.futures.ThreadPoolExecutor(options.jobs) as pool:
        pending, next_index = set(), 0

        def more():
            if options.mutants is not None:
                return next_index < options.mutants
            return time.time() < deadline

        while pending or more():
            while more() and len(pending) < 2 * options.jobs:
                pending.add(pool.submit(work, next_index))
                next_index += 1
            done, pending = concurrent.futures.wait(
                pending, return_when=concurrent.futures.FIRST_COMPLETED)
            for future in done:
                index, origin, text, applied, findings, count = future.result()
                mutants += 1
                steps += count
                if findings is None:
                    skipped += 1
                    continue
                failed += bool(findings)
                for kind, step, argv, detail in findings:
                    key = signature(kind, step, detail)
                    digest = hashlib.sha1(key.encode()).hexdigest()[:12]
                    if key in unique:
                        unique[key][1] += 1
                        continue
                    unique[key] = [digest, 1]
                    base = os.path.join(options.findings, digest)
                    with open(base + ".mlir", "w") as f:
                        f.write(text)
                    with open(base + ".txt", "w") as f:
                        f.write("%s\nmutant %d of seed %d, from %s by %s\n"
                                "command: %s\n\n%s\n" % (
                                    key, index, options.seed, origin,
                                    ", ".join(applied) or "nothing",
                                    " ".join(argv), detail))
                    print("fuzz: FINDING %s: %s (%s.mlir)" % (
                        digest, key, base), flush=True)
            if mutants // 500 > reported:
                reported = mutants // 500
                print("fuzz: %d mutants, %d steps, %.0f s" % (
                    mutants, steps, time.time() - started), flush=True)

    elapsed = time.time() - started
    print("fuzz: %d mutants (%d skipped as known upstream defects), %d tool "
          "runs in %.0f s; %d distinct findings"
          % (mutants, skipped, steps, elapsed, len(unique)))
    reached = collections.defaultdict(dict)
    for (step, kind), count in harness.outcomes.items():
        reached[step][kind] = count
    for step, kinds in reached.items():
        print("  %-22s %s" % (step, ", ".join(
            "%s %d" % item for item in sorted(kinds.items()))))
    for (runner, status), count in sorted(runners.outcomes.items()):
        print("  %-22s exit %d: %d" % (runner, status, count))
    for key, (digest, count) in sorted(unique.items()):
        print("  %s x%d: %s" % (digest, count, key))
    print("fuzz: %d passed, %d failed" % (mutants - skipped - failed, failed))
    return 1 if unique else 0


if __name__ == "__main__":
    sys.exit(main())
