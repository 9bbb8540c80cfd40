#!/usr/bin/env python3
"""Writes docs/conformance.md from the files run-on-device.sh returned.

Usage: report.py RESULTS_DIR COMMIT > docs/conformance.md
"""

import collections
import os
import re
import sys
import textwrap


def main():
    results, commit = sys.argv[1], sys.argv[2]
    device = open(os.path.join(results, "device.txt")).read().strip()
    coopmat = open(os.path.join(results, "coopmat.txt")).read().strip()
    rows = [line.rstrip("\n").split("\t") for line in open(os.path.join(results, "results.tsv"))][1:]
    groups = collections.OrderedDict()
    for name, result, details in rows:
        match = re.match(r"(mma|multiply|scalar_ops|workgroup)_(\w+?)_(\w+?)_(\d+x\d+x\d+)", name)
        key = "%s -> %s, %s" % (match.group(2), match.group(3), match.group(4)) if match else "other"
        groups.setdefault(key, []).append((name, result, details))
    passed = sum(1 for row in rows if row[1] == "PASS")

    out = []
    gpu = re.search(r"^gpu: ([^,]+)", device, re.M)
    gpu = gpu.group(1) if gpu else "the GPU"
    out.append("# Vulkan conformance on the %s\n" % gpu)
    out.append("Every configuration the %s reports, run through the whole path: the" % gpu)
    out.append("dialect-level kernel is lowered by `sm-opt --sm-lower-to-vulkan`, serialized")
    out.append("by `sm-translate --serialize-spirv`, validated by `spirv-val --target-env")
    out.append("vulkan1.3` (SPIRV-Tools 2026, bf16 included), and run by")
    out.append("`sm-vulkan-runner` with fresh random inputs and poisoned outputs against a")
    out.append("CPU reference in double precision (exact for integers), which also checks")
    out.append("that nothing outside C was written.\n")
    out.append("Reproduce: `utils/gpu-conformance.sh` here, then")
    out.append("`build/conformance/run-on-device.sh build/conformance` on the GPU machine")
    out.append("(carrying `build/conformance`); `report.py` writes this page.\n")
    out.append("```")
    out.append(device)
    out.append("commit: %s" % commit)
    out.append("```\n")
    out.append("**%d of %d cases passed.**\n" % (passed, len(rows)))
    out.append("Per configuration (`A/B -> C`, `MxNxK`), the cases are: `mma` with each of")
    out.append("the 8 row/column-major combinations of A, B and C/D, strides wider than the")
    out.append("matrix and non-zero offsets (all run-time values); `multiply`; a splat")
    out.append("accumulator followed by `scalar_add`, `scalar_sub`, `scalar_mul` and")
    out.append("(floats) `scalar_div` with run-time scalars; and A, B and D staged through")
    out.append("workgroup memory with mixed layouts. 8-bit inputs cover their full range.\n")
    out.append("| configuration | cases | passed | largest abs error |")
    out.append("| --- | --- | --- | --- |")
    for key, cases in groups.items():
        errors = []
        for _, _, details in cases:
            match = re.search(r"max abs error ([0-9.e+-]+)", details)
            if match:
                errors.append(float(match.group(1)))
        out.append("| %s | %d | %d | %s |" % (key, len(cases), sum(1 for c in cases if c[1] == "PASS"),
                                            "%.3g" % max(errors) if errors else "-"))
    for exchange in ("subgroup", "workgroup"):
        emulated = os.path.join(results, "emulated-results.tsv"
                                if exchange == "subgroup"
                                else "emulated-workgroup-results.tsv")
        if os.path.exists(emulated):
            out.extend(emulated_section(emulated, exchange))
    functions = os.path.join(results, "functions.txt")
    if os.path.exists(functions):
        out.extend(functions_section(open(functions).read().splitlines()))
    linalg = os.path.join(results, "linalg.txt")
    if os.path.exists(linalg):
        out.extend(linalg_section(open(linalg).read().splitlines()))
    mma = os.path.join(results, "gpu-mma.txt")
    if os.path.exists(mma):
        checks = [l for l in open(mma).read().splitlines()
                  if l.startswith("check gemm")]
        out.append("\n## Upstream gpu.subgroup_mma code\n")
        out.append("`test/Conversion/GPUToSubgroupMatrix/execution.mlir` through "
                   "`--sm-convert-gpu-mma`, D = 2 (A B + C) against the runner's "
                   "reference:\n")
        out.extend("    " + l for l in checks)
    dynamic = os.path.join(results, "dynamic-m.txt")
    if os.path.exists(dynamic):
        out.append("\n## A dynamic M\n")
        out.append("`test/Integration/LinalgToGPU/dynamic-m.mlir` through "
                   "`--sm-linalg-to-gpu`: one binary, M given at launch, "
                   "against the runner's reference:\n")
        out.extend("    " + l for l in open(dynamic).read().splitlines())
    dynamic_mnk = os.path.join(results, "dynamic-mnk.txt")
    if os.path.exists(dynamic_mnk):
        out.append("\n## Dynamic M, N and K\n")
        out.append("`test/Integration/LinalgToGPU/dynamic-mnk.mlir` through "
                   "`--sm-linalg-to-gpu` (B stored N x K): one binary, run "
                   "as it records its launch with `sm-vulkan-runner --size "
                   "M=.. --size N=.. --size K=..`, against the runner's "
                   "reference:\n")
        out.extend("    " + l for l in open(dynamic_mnk).read().splitlines())
    out.append("\n## Every case\n")
    out.append("| case | result | details |")
    out.append("| --- | --- | --- |")
    for name, result, details in rows:
        out.append("| `%s` | %s | %s |" % (name, result, details))
    out.append("\n## Cooperative-matrix configurations reported by the device\n")
    out.append("`sm-vulkan-runner --list-coopmat` on the same machine, as a target:\n")
    out.append("```")
    out.append(coopmat)
    out.append("```")
    print("\n".join(out))


def emulated_section(path, exchange):
    """The same cases lowered with sm-lower-to-vulkan=emulation=all and the
    given emulated-exchange."""
    rows = [line.rstrip("\n").split("\t") for line in open(path)][1:]
    passed = sum(1 for row in rows if row[1] == "PASS")
    errors = [float(m.group(1)) for _, _, d in rows
              for m in [re.search(r"max abs error ([0-9.e+-]+)", d)] if m]
    how = {"subgroup": "multiply-adds fed by subgroup shuffles",
           "workgroup": "multiply-adds whose operands pass through workgroup "
                        "memory between subgroup barriers (the default when a "
                        "GPU with matrix units emulates)"}[exchange]
    text = ("Every kernel above lowered again with "
            "`sm-lower-to-vulkan=emulation=all emulated-exchange=%s`: no "
            "cooperative matrices, each matrix held as per-invocation scalars "
            "(the layouts narrower than the GPU's subgroups of 32 spread their "
            "rows over invocations) and `mma` as %s; a second, independent "
            "implementation of the same semantics on the same GPU, against the "
            "same reference.\n" % (exchange, how))
    out = ["\n## The same cases with emulated matrices, %s exchange\n" % exchange]
    out.extend(textwrap.wrap(text, 72, break_on_hyphens=False))
    out.append("\n**%d of %d cases passed** (largest abs error %s).\n" % (
        passed, len(rows), "%.3g" % max(errors) if errors else "-"))
    failures = [row for row in rows if row[1] != "PASS"]
    if failures:
        out.append("| case | result | details |")
        out.append("| --- | --- | --- |")
        for name, result, details in failures:
            out.append("| `%s` | %s | %s |" % (name, result, details))
    return out


def functions_section(lines):
    """The convert, map and reduce suite (test/Integration/MatrixFunctions)."""
    cases = [l for l in lines if l.startswith(("PASS ", "FAIL "))]
    families = collections.OrderedDict()
    for line in cases:
        result, rest = line.split(" ", 1)
        name, details = rest.split(": ", 1)
        family = name.split("_")[0]
        families.setdefault(family, []).append((name, result, details))
    out = ["\n## convert, map and reduce\n",
           "`test/Integration/MatrixFunctions/suite.py`: each case loads its inputs,",
           "applies the ops and stores the result; two workgroups of two subgroups,",
           "each on its own tile, fresh random inputs, poisoned output, compared",
           "with the suite's own double-precision reference (conversions: exact,",
           "rounded to nearest even or toward zero, as Vulkan allows). The",
           "`attention` case is the proposal's softmax(Q K^T) V on one tile;",
           "`epilogue` is D = A B + C, bias and ReLU, cast to f16.\n",
           "**%d of %d cases passed.**\n" % (
               sum(1 for l in cases if l.startswith("PASS")), len(cases)),
           "| ops | cases | passed | largest error |", "| --- | --- | --- | --- |"]
    for family, rows in families.items():
        errors = [float(m.group(1)) for _, _, d in rows
                  for m in [re.search(r"max error ([0-9.e+-]+|inf)", d)] if m]
        out.append("| %s | %d | %d | %s |" % (
            family, len(rows), sum(1 for r in rows if r[1] == "PASS"),
            "%.3g" % max(errors) if errors else "-"))
    out.append("\n<details><summary>every case</summary>\n")
    out.append("| case | result | details |")
    out.append("| --- | --- | --- |")
    for rows in families.values():
        for name, result, details in rows:
            out.append("| `%s` | %s | %s |" % (name, result,
                                               details.split("; check")[0]))
    out.append("\n</details>")
    return out


def linalg_section(lines):
    """Whole programs through sm-linalg-to-gpu (test/Integration/LinalgToGPU)."""
    cases = [l for l in lines if l.startswith(("PASS ", "FAIL "))]
    out = ["\n## linalg programs (sm-linalg-to-gpu)\n",
           "`test/Integration/LinalgToGPU/suite.py`: linalg programs as front-ends",
           "write them, run whole through the runtime (the host function executed",
           "by its planner: every launch, copy and allocation) on fresh random",
           "inputs, allocations poisoned, each output compared with the suite's",
           "double-precision evaluation of the program; dynamic programs run at",
           "several shapes from one compile. Staged with `suite.py run vulkan",
           "--stage` (`sm-run --emit-plan` per case and shape) and run by",
           "`sm-plan-runner` on the GPU machine (`test/Integration/Runtime/",
           "device.sh stage|run`); `suite.py check` on what came back wrote",
           "the `linalg.txt` this section reads.\n",
           "**%d of %d programs passed.**\n" % (
               sum(1 for l in cases if l.startswith("PASS")), len(cases)),
           "| program | result | details |", "| --- | --- | --- |"]
    for line in cases:
        result, rest = line.split(" ", 1)
        name, details = rest.split(": ", 1)
        out.append("| `%s` | %s | %s |" % (name, result, details))
    return out


if __name__ == "__main__":
    main()
