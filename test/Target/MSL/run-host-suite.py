#!/usr/bin/env python3
"""Runs a generated GEMM case suite through the Metal path on the host:
sm-translate --emit-msl, then sm-msl-host-runner with each case's buffers
and checks. Robust-access cases are Vulkan-only and skipped.

Usage: run-host-suite.py SUITE_DIR TOOLS_DIR
"""

import concurrent.futures
import os
import shlex
import subprocess
import sys


def run_case(suite, tools, line):
    name, entry, args = line.split("|", 2)
    metal = os.path.join(suite, name + ".metal")
    emit = subprocess.run([os.path.join(tools, "sm-translate"), "--emit-msl",
                           os.path.join(suite, name + ".mlir"), "-o", metal],
                          capture_output=True, text=True)
    if emit.returncode != 0:
        return name, False, "emit-msl failed: " + emit.stderr.strip()
    argv = [os.path.join(tools, "sm-msl-host-runner"), metal, "--entry", entry]
    argv += shlex.split(args.replace("@SEED@", str(abs(hash(name)) % 100000)))
    run = subprocess.run(argv, capture_output=True, text=True)
    lines = [l for l in run.stdout.splitlines() if l.startswith("check")]
    detail = lines[0] if lines else (run.stderr.strip() or run.stdout.strip())
    return name, run.returncode == 0 and bool(lines), detail


def main():
    suite, tools = sys.argv[1], sys.argv[2]
    lines = [l.strip() for l in open(os.path.join(suite, "manifest.txt")) if l.strip()]
    lines = [l for l in lines if not l.startswith("robust_")]
    passed = failed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for name, ok, detail in pool.map(lambda l: run_case(suite, tools, l), lines):
            print("%s %s: %s" % ("PASS" if ok else "FAIL", name, detail))
            passed, failed = passed + ok, failed + (not ok)
    print("msl host suite: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
