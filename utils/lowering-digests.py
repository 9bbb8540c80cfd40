#!/usr/bin/env python3
"""Digests of everything the compiler produces for the test corpora, to show
that a refactoring changed no output.

Generates the Vulkan conformance suites (the H100's, RDNA3's and lavapipe's
configurations), the convert/map/reduce suite and the linalg suite for every
target, compiles each program the way its tests do (sm-linalg-to-gpu, then
sm-lower-to-vulkan and serialization, sm-lower-to-intel and OpenCL SPIR-V,
or Metal source; conformance kernels also emulated with both operand
exchanges and, where named robust_, with robust-access), and prints one
line per output: `<corpus>/<case> <output> <sha256>` (or `FAILED` and the
tool's first error line). Two runs, before and after a change, compared
with `diff`, show what changed.

  utils/lowering-digests.py [--tools build/bin] [--jobs N] > digests.txt
"""

import argparse
import concurrent.futures
import hashlib
import os
import subprocess
import sys
import tempfile

# The test library of this checkout (test/lib), from wherever this runs.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, "test", "lib"))

from sm_testing.linalg import cases_for

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PYTHON = sys.executable
VULKAN_TARGETS = ("nvidia-h100", "amd-rdna3", "cpu-lavapipe")
CONFORMANCE = [
    # (name, data file, target, subgroup, extra generate.py arguments)
    ("nvidia-h100", "data/device-coopmat/nvidia-h100-vulkan-coopmat.txt",
     "nvidia-h100", 32, []),
    ("amd-rdna3", "data/device-coopmat/amd-navi31-radv-coopmat.txt",
     "amd-rdna3", 32, ["--layouts", "cycle"]),
    ("cpu-lavapipe", "test/Integration/Vulkan/conformance/cpu-lavapipe-configs.txt",
     "cpu-lavapipe", 8, ["--layouts", "cycle"]),
]


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


class Compiler:
    def __init__(self, tools, work):
        self.tools = tools
        self.work = work

    def tool(self, name):
        return os.path.join(self.tools, name)

    def steps(self, steps, output):
        """Runs `steps` (argument lists); the digest of `output`, or FAILED
        and the first line of the failing tool's error."""
        for argv in steps:
            result = subprocess.run(argv, capture_output=True, text=True)
            if result.returncode:
                text = (result.stderr or result.stdout).strip().splitlines()
                # Paths relative to the scratch folder, which differs per run.
                first = text[0].replace(self.work + os.sep, "") if text else ""
                return "FAILED %s: %s" % (os.path.basename(argv[0]), first)
        return digest(output)

    def vulkan(self, source, options=""):
        pipeline = "--sm-lower-to-vulkan" + ("=" + options if options else "")
        suffix = options.replace(" ", "_").replace("=", "-") or "native"
        lowered = "%s.%s.spirv.mlir" % (source, suffix)
        binary = "%s.%s.spv" % (source, suffix)
        return "vulkan:" + suffix, self.steps(
            [[self.tool("sm-opt"), source, pipeline, "-o", lowered],
             [self.tool("sm-translate"), "--serialize-spirv", lowered, "-o",
              binary]], binary)

    def intel(self, source):
        lowered, binary = source + ".intel.mlir", source + ".intel.spv"
        return "intel", self.steps(
            [[self.tool("sm-opt"), source, "--sm-lower-to-intel", "-o", lowered],
             [self.tool("sm-translate"), "--emit-intel-spirv", lowered, "-o",
              binary]], binary)

    def msl(self, source):
        output = source + ".metal"
        return "msl", self.steps(
            [[self.tool("sm-translate"), "--emit-msl", source, "-o", output]],
            output)

    def kernels(self, source, target):
        """The outputs of a dialect-level (or gpu-level) program for `target`."""
        if target in VULKAN_TARGETS:
            return [self.vulkan(source)]
        if target.startswith("intel"):
            return [self.intel(source)]
        return [self.msl(source)]


def conformance_jobs(compiler, work):
    jobs = []
    for name, data, target, subgroup, extra in CONFORMANCE:
        out = os.path.join(work, "conformance", name)
        subprocess.run([PYTHON, os.path.join(
            ROOT, "test/Integration/Vulkan/conformance/generate.py"),
            os.path.join(ROOT, data), out, "--target", target, "--subgroup",
            str(subgroup)] + extra, check=True, capture_output=True)
        for line in open(os.path.join(out, "manifest.txt")):
            case = line.split("|", 1)[0].strip()
            if not case:
                continue
            source = os.path.join(out, case + ".mlir")
            variants = ["robust-access=1" if case.startswith("robust_") else ""]
            variants += ["emulation=all emulated-exchange=subgroup",
                         "emulation=all emulated-exchange=workgroup"]
            for options in variants:
                jobs.append(("conformance/%s/%s" % (name, case),
                             lambda s=source, o=options: [
                                 ("input", digest(s)), compiler.vulkan(s, o)]))
    return jobs


def matrix_function_jobs(compiler, work, targets):
    jobs = []
    suite = os.path.join(ROOT, "test/Integration/MatrixFunctions/suite.py")
    for target in targets:
        out = os.path.join(work, "functions", target)
        subprocess.run([PYTHON, suite, "generate", target, out], check=True,
                       capture_output=True)
        for file in sorted(os.listdir(out)):
            if file.endswith(".mlir"):
                source = os.path.join(out, file)
                jobs.append(("functions/%s/%s" % (target, file[:-5]),
                             lambda s=source, t=target: [
                                 ("input", digest(s))] + compiler.kernels(s, t)))
    return jobs


def linalg_jobs(compiler, work, targets):
    jobs = []
    for target in targets:
        out = os.path.join(work, "linalg", target)
        os.makedirs(out, exist_ok=True)
        for case in cases_for(target):
            source = os.path.join(out, case.name + ".mlir")
            with open(source, "w") as f:
                f.write(case.text)

            def compile_case(source=source, case=case, target=target):
                gpu = source[:-5] + ".gpu.mlir"
                options = ("--sm-linalg-to-gpu=target=%s %s" % (
                    target, case.options)).strip()
                first = compiler.steps([[compiler.tool("sm-opt"), source,
                                         options, "-o", gpu]], gpu)
                if first.startswith("FAILED"):
                    return [("input", digest(source)), ("gpu", first)]
                return [("input", digest(source)), ("gpu", first)] + \
                    compiler.kernels(gpu, target)
            jobs.append(("linalg/%s/%s" % (target, case.name), compile_case))
    return jobs


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tools", default=os.path.join(ROOT, "build", "bin"))
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--work", default="",
                        help="keep the generated programs and outputs here")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        work = os.path.abspath(options.work or scratch)
        compiler = Compiler(os.path.abspath(options.tools), work)
        targets = ["nvidia-h100", "amd-rdna3", "intel-xe-hpc", "apple-m1",
                   "cpu-lavapipe"]
        jobs = (conformance_jobs(compiler, work) +
                matrix_function_jobs(compiler, work, targets) +
                linalg_jobs(compiler, work, targets))
        with concurrent.futures.ThreadPoolExecutor(options.jobs) as pool:
            results = pool.map(lambda job: (job[0], job[1]()), jobs)
            for name, outputs in results:
                for output, value in outputs:
                    print(name, output, value, flush=True)


if __name__ == "__main__":
    main()
