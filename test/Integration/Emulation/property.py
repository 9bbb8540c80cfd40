#!/usr/bin/env python3
"""Every kernel the native Vulkan lowering takes, the emulation takes too.

  property.py TOOLS_DIR WORK_DIR --source-root ROOT [--spirv-val PATH]
              [--only TEXT] [--jobs N]

Gathers kernels from three places: every `gpu.module` of the lit corpus
(each `// -----` section of each .mlir file under ROOT/test, so new tests
join automatically), the Vulkan conformance generator for the H100's
configurations, and the matrix-functions suite generated for the targets
with matrix units (nvidia-h100, amd-rdna3). For each kernel that
`sm-opt --sm-lower-to-vulkan` lowers natively (for its own target, or the
H100 where it names none, or where it names an emulated one) and
serializes, it checks:

  - emulated: `emulation=all` on the same target lowers it, sm-translate
    serializes it and spirv-val accepts the binary;
  - lavapipe: `target=cpu-lavapipe` does the same, unless the kernel uses a
    matrix shape or workgroup size that target cannot hold (dimensions that
    are not multiples of 8), which is reported as skipped with the reason;
  - intel: `sm-lower-to-intel=target=intel-xe-hpc` lowers it and its SPIR-V
    (--emit-intel-spirv) is accepted by spirv-val, where that target has
    the kernel's shapes (otherwise skipped, as above).

A kernel with workgroup-scope matrices (`!subgroup_matrix.result<64x64xf32,
workgroup>`) has no emulated, lavapipe or Intel form: for it each of the
three must instead be refused with a diagnostic that names workgroup scope.

Execution of the same kernels against their references is the business of
the suites themselves (emulation.test runs the conformance and
matrix-functions cases of the matrix-unit targets on lavapipe). Prints a
line per failure and per kernel checked with -v, then "N passed, N
failed"; exits 1 if any check failed.
"""

import argparse
import concurrent.futures
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MATRIX_TARGETS = ("nvidia-h100", "amd-rdna3", "intel-xe-hpc", "intel-xe-hpg",
                  "apple-m1")
# What a lowering says when the target lacks a shape or size the kernel
# uses: the kernel is not the target's to run, not a failure of the path.
UNSUPPORTED = re.compile(
    r"is not supported by target|not a multiple of the subgroup size|"
    r"is not one configuration of target|has no layout for|cannot be "
    r"spread over|does not support|do not support|a shuffle's width must "
    r"be the subgroup size")
# What those lowerings say of a workgroup-scope matrix.
WORKGROUP_SCOPE_REFUSAL = re.compile(r"workgroup[- ]scope")


def run(argv):
    return subprocess.run(argv, capture_output=True, text=True)


def lit_kernels(root):
    """(name, text) for each section of the lit corpus with a gpu.module."""
    kernels = []
    test_root = os.path.join(root, "test")
    for directory, _, files in sorted(os.walk(test_root)):
        for file in sorted(files):
            if not file.endswith(".mlir"):
                continue
            path = os.path.join(directory, file)
            sections = re.split(r"^// -----\s*$", open(path).read(),
                                flags=re.M)
            for i, text in enumerate(sections):
                # A module without a kernel (helpers alone) has no entry
                # point, which a Vulkan binary needs.
                if "gpu.module" not in text or not re.search(
                        r"gpu\.func @[^(]*\([^)]*\)[^{]*\bkernel\b", text,
                        flags=re.S):
                    continue
                name = os.path.relpath(path, root)
                if len(sections) > 1:
                    name += "#%d" % (i + 1)
                kernels.append((name, text))
    return kernels


def generated_kernels(root, work, tools):
    """(name, text) for the conformance and matrix-functions kernels of the
    targets with matrix units."""
    kernels = []
    conformance = os.path.join(work, "conformance-nvidia-h100")
    data = os.path.join(root, "data", "device-coopmat",
                        "nvidia-h100-vulkan-coopmat.txt")
    result = run([sys.executable, os.path.join(
        root, "test", "Integration", "Vulkan", "conformance", "generate.py"),
        data, conformance])
    if result.returncode:
        sys.exit("generate.py failed: " + result.stderr)
    for target in ("nvidia-h100", "amd-rdna3"):
        out = os.path.join(work, "matrix-functions-" + target)
        result = run([sys.executable, os.path.join(
            root, "test", "Integration", "MatrixFunctions", "suite.py"),
            "generate", target, out])
        if result.returncode:
            sys.exit("suite.py generate failed: " + result.stderr)
    for directory in sorted(os.listdir(work)):
        full = os.path.join(work, directory)
        if not os.path.isdir(full) or directory == "kernels":
            continue
        for file in sorted(os.listdir(full)):
            if file.endswith(".mlir") and not file.endswith(".spv.mlir"):
                kernels.append((directory + "/" + file,
                                open(os.path.join(full, file)).read()))
    return kernels


def native_target(text):
    """The target option for the native lowering: none where the kernel
    names a target with matrix units, the H100 otherwise."""
    named = re.findall(r'#subgroup_matrix\.target<"([a-z0-9-]+)"', text)
    if named and all(name in MATRIX_TARGETS for name in named):
        return None
    return "nvidia-h100"


class Checker:
    def __init__(self, tools, work, spirv_val):
        self.tools, self.work, self.spirv_val = tools, work, spirv_val

    def tool(self, name):
        return os.path.join(self.tools, name)

    def lower(self, source, stem, pass_argument, env="vulkan1.3"):
        """Lowers, serializes and validates; returns None or the error."""
        lowered, binary = stem + ".mlir", stem + ".spv"
        steps = [[self.tool("sm-opt"), source, pass_argument, "-o", lowered]]
        if "intel" in pass_argument:
            steps.append([self.tool("sm-translate"), "--emit-intel-spirv",
                          lowered, "-o", binary])
        else:
            steps.append([self.tool("sm-translate"), "--serialize-spirv",
                          lowered, "-o", binary])
        # Every binary, bf16 included (SPIRV-Tools 2026).
        if self.spirv_val:
            steps.append([self.spirv_val, "--target-env", env, binary])
        for argv in steps:
            result = run(argv)
            if result.returncode:
                message = (result.stderr or result.stdout).strip()
                return os.path.basename(argv[0]), message
        return None

    def check(self, name, text):
        """Returns (passed, skipped, failures) for one kernel."""
        stem = os.path.join(self.work, "kernels",
                            re.sub(r"[^A-Za-z0-9_.-]", "_", name))
        source = stem + ".source.mlir"
        with open(source, "w") as f:
            f.write(text)
        target = native_target(text)
        option = "target=%s " % target if target else ""
        # Native: the kernel lowers and serializes (a module with host code
        # the serializer does not take is not a kernel file).
        lowered = stem + ".native.mlir"
        native = run([self.tool("sm-opt"), source, "--sm-lower-to-vulkan" +
                      ("=" + option.strip() if option else ""), "-o",
                      lowered])
        if native.returncode or run([
                self.tool("sm-translate"), "--serialize-spirv", lowered, "-o",
                stem + ".native.spv"]).returncode:
            return None  # Not a kernel the native path takes.
        passed, skipped, failures = 0, [], []
        checks = [
            ("emulated", '--sm-lower-to-vulkan=%semulation=all' % option,
             "vulkan1.3"),
            ("lavapipe", "--sm-lower-to-vulkan=target=cpu-lavapipe",
             "vulkan1.3"),
            ("intel", "--sm-lower-to-intel=target=intel-xe-hpc", "spv1.4"),
        ]
        holds_workgroup_matrices = re.search(r",\s*workgroup>", text)
        for label, argument, env in checks:
            error = self.lower(source, stem + "." + label, argument, env)
            if holds_workgroup_matrices:
                if error and error[0] == "sm-opt" and \
                        WORKGROUP_SCOPE_REFUSAL.search(error[1]):
                    passed += 1
                else:
                    failures.append(
                        "%s: a kernel with workgroup-scope matrices was not "
                        "refused by name: %s" % (
                            label, "it lowered" if error is None
                            else error[1][-700:]))
            elif error is None:
                passed += 1
            elif label != "emulated" and \
                    error[0] in ("sm-opt", "sm-translate") and \
                    UNSUPPORTED.search(error[1]):
                skipped.append("%s (%s)" % (label, error[1].splitlines()[0]))
            else:
                failures.append("%s: %s failed: %s" % (
                    label, error[0], error[1][-700:]))
        return passed, skipped, failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tools")
    parser.add_argument("work")
    parser.add_argument("--source-root", required=True)
    parser.add_argument("--spirv-val", default="")
    parser.add_argument("--only", default="")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("-v", "--verbose", action="store_true")
    options = parser.parse_args()
    os.makedirs(os.path.join(options.work, "kernels"), exist_ok=True)
    kernels = lit_kernels(options.source_root) + generated_kernels(
        options.source_root, options.work, options.tools)
    kernels = [k for k in kernels if options.only in k[0]]
    checker = Checker(options.tools, options.work, options.spirv_val)
    native = passed = failed = skipped = 0
    with concurrent.futures.ThreadPoolExecutor(options.jobs) as pool:
        for (name, _), outcome in zip(kernels, pool.map(
                lambda kernel: checker.check(*kernel), kernels)):
            if outcome is None:
                continue
            native += 1
            ok, skips, failures = outcome
            passed += ok
            failed += len(failures)
            skipped += len(skips)
            for failure in failures:
                print("FAIL %s: %s" % (name, failure), flush=True)
            if options.verbose:
                print("checked %s: %d passed%s" % (
                    name, ok, "".join("; skipped " + s for s in skips)))
    print("%d kernels lowered natively, of %d gathered; %d checks skipped "
          "for shapes the target lacks" % (native, len(kernels), skipped))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
