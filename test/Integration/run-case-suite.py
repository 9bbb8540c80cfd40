#!/usr/bin/env python3
"""Runs a generated GEMM case suite (see Vulkan/conformance/generate.py)
through one of the host-executed paths and prints one line per case and a
summary:

  msl    sm-translate --emit-msl, then sm-msl-host-runner;
  intel  sm-opt --sm-lower-to-intel, sm-translate --emit-intel-spirv checked
         by spirv-val, and --emit-intel-host-llvm run by
         sm-intel-host-runner.

Robust-access cases are Vulkan-only and skipped.

Usage: run-case-suite.py {msl,intel} SUITE_DIR TOOLS_DIR [SPIRV_VAL]
"""

import concurrent.futures
import os
import shlex
import subprocess
import sys


def run(argv):
    return subprocess.run(argv, capture_output=True, text=True)


def run_case(path, suite, tools, spirv_val, line):
    name, entry, args = line.split("|", 2)
    source = os.path.join(suite, name + ".mlir")
    tool = lambda t: os.path.join(tools, t)
    if path == "msl":
        kernel = os.path.join(suite, name + ".metal")
        step = run([tool("sm-translate"), "--emit-msl", source, "-o", kernel])
        if step.returncode:
            return name, False, "emit-msl failed: " + step.stderr.strip()
        runner = tool("sm-msl-host-runner")
    else:
        lowered = os.path.join(suite, name + ".intel.mlir")
        binary = os.path.join(suite, name + ".spv")
        kernel = os.path.join(suite, name + ".ll")
        for argv in ([tool("sm-opt"), source, "--sm-lower-to-intel", "-o", lowered],
                     [tool("sm-translate"), "--emit-intel-spirv", lowered, "-o", binary],
                     [spirv_val, "--target-env", "spv1.4", binary],
                     [tool("sm-translate"), "--emit-intel-host-llvm", lowered, "-o", kernel]):
            step = run(argv)
            if step.returncode:
                return name, False, "%s failed: %s" % (os.path.basename(argv[0]),
                                                      (step.stderr or step.stdout).strip())
        runner = tool("sm-intel-host-runner")
    argv = [runner, kernel, "--entry", entry]
    argv += shlex.split(args.replace("@SEED@", str(abs(hash(name)) % 100000)))
    result = run(argv)
    checks = [l for l in result.stdout.splitlines() if l.startswith("check")]
    detail = checks[0] if checks else (result.stderr.strip() or result.stdout.strip())
    return name, result.returncode == 0 and bool(checks), detail


def main():
    path, suite, tools = sys.argv[1], sys.argv[2], sys.argv[3]
    spirv_val = sys.argv[4] if len(sys.argv) > 4 else "spirv-val"
    lines = [l.strip() for l in open(os.path.join(suite, "manifest.txt")) if l.strip()]
    lines = [l for l in lines if not l.startswith("robust_")]
    passed = failed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for name, ok, detail in pool.map(
                lambda l: run_case(path, suite, tools, spirv_val, l), lines):
            print("%s %s: %s" % ("PASS" if ok else "FAIL", name, detail))
            passed, failed = passed + ok, failed + (not ok)
    print("%s suite: %d passed, %d failed" % (path, passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
