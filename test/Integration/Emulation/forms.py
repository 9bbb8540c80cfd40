#!/usr/bin/env python3
"""Runs one of this directory's kernels on fresh random inputs and compares
its outputs with a reference computed here in double precision.

  forms.py CASE KERNEL TOOLS_DIR [--runner NAME] [--runner-arg ARG]...

KERNEL is what the runner takes: a .spv for sm-vulkan-runner (the default),
the host LLVM module for sm-intel-host-runner. Inputs are drawn anew on
every run and handed to the runner as files,
outputs start poisoned (unwritten elements show) and are read back with
--output. Prints "PASS CASE: ..." or "FAIL CASE: ..." and exits 0 or 1.
The GEMM-shaped kernels of this directory use the runner's own --check
instead; the cases here are those whose epilogues it has no reference for.
"""

import argparse
import math
import os
import random
import subprocess
import sys
import tempfile

# The test library (test/lib), also when run by hand.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, os.pardir, "lib"))

from sm_testing.elements import COMPONENTS, draw, pack, round_f16, unpack


def matmul(a, b, m, n, k):
    return [sum(a[i * k + x] * b[x * n + j] for x in range(k))
            for i in range(m) for j in range(n)]


def int8_convert_map_reduce(inputs):
    a, b = inputs
    s = matmul(a, b, 16, 16, 32)
    f = [s[i] / 16.0 - (i % 16) for i in range(256)]
    r = [sum(f[(i // 16) * 16:(i // 16) * 16 + 16]) for i in range(256)]
    return [f, r]


def attention_step(inputs):
    q, kt, v = inputs
    s = matmul(q, kt, 16, 16, 16)
    p, sums = [], []
    for row in range(16):
        scores = s[row * 16:row * 16 + 16]
        top = max(scores)
        exps = [math.exp(x - top) for x in scores]
        p += exps
        sums.append(sum(exps))
    # The kernel multiplies P in f16 (its convert to a left matrix).
    o = matmul([round_f16(x) for x in p], v, 16, 16, 16)
    return [[o[i] / sums[i // 16] for i in range(256)]]


# name -> (inputs as (component, count, (low, high)), outputs as
# (component, count), grid, reference, relative tolerance)
CASES = {
    "int8_convert_map_reduce": (
        [("si8", 512, (-128, 127)), ("si8", 512, (-128, 127))],
        [("f32", 256), ("f32", 256)], "1", int8_convert_map_reduce, 1e-5),
    "attention_step": (
        [("f16", 256, (-2, 2)), ("f16", 256, (-2, 2)), ("f16", 256, (-1, 1))],
        [("f32", 256)], "1", attention_step, 2e-3),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("case", choices=sorted(CASES))
    parser.add_argument("kernel")
    parser.add_argument("tools")
    parser.add_argument("--runner", default="sm-vulkan-runner")
    parser.add_argument("--runner-arg", action="append", default=[])
    args = parser.parse_args()
    inputs_spec, outputs_spec, grid, reference, tolerance = CASES[args.case]
    rng = random.Random(random.randrange(1 << 30))
    runner = os.path.join(args.tools, args.runner)
    with tempfile.TemporaryDirectory(prefix="sm-forms-") as work:
        argv = [runner, args.kernel, "--entry", args.case, "--grid", grid]
        inputs = []
        for i, (component, count, distribution) in enumerate(inputs_spec):
            values = [draw(distribution, component, rng)
                      for _ in range(count)]
            inputs.append(values)
            path = os.path.join(work, "in%d" % i)
            with open(path, "wb") as f:
                f.write(pack(values, component))
            argv += ["--arg", "%s:%d:file:%s" % (
                COMPONENTS[component][1], count, path)]
        outputs = []
        for i, (component, count) in enumerate(outputs_spec):
            path = os.path.join(work, "out%d" % i)
            outputs.append(path)
            argv += ["--arg", "%s:%d:poison" % (
                COMPONENTS[component][1], count),
                "--output", "%d:%s" % (len(inputs_spec) + i, path)]
        result = subprocess.run(argv + args.runner_arg, capture_output=True,
                                text=True)
        bounds = [line for line in result.stdout.splitlines()
                  if line.startswith("check bounds")]
        if result.returncode or not all(map(os.path.exists, outputs)):
            print("FAIL %s: runner failed (%d): %s" % (
                args.case, result.returncode,
                (result.stderr + result.stdout).strip()[-800:]))
            return 1
        expected = reference(inputs)
        mismatches, worst, first, total = 0, 0.0, None, 0
        for index, ((component, count), path, want) in enumerate(
                zip(outputs_spec, outputs, expected)):
            got = unpack(open(path, "rb").read(), component)
            for i, (have, value) in enumerate(zip(got, want)):
                total += 1
                error = abs(have - value) if not math.isnan(have) else math.inf
                worst = max(worst, error / max(1.0, abs(value)))
                if error > tolerance * max(1.0, abs(value)):
                    mismatches += 1
                    if first is None:
                        first = "output %d [%d][%d]: %r, expected %r" % (
                            index, i // 16, i % 16, have, value)
        ok = mismatches == 0 and bounds and "PASSED" in bounds[0]
        print("%s %s: %d elements, %d mismatches, max relative error %.3g%s; "
              "%s" % ("PASS" if ok else "FAIL", args.case, total, mismatches,
                      worst, "" if first is None else " (first: %s)" % first,
                      bounds[0] if bounds else "no bounds check"))
        return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
