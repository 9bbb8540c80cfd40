#!/usr/bin/env python3
"""Runs a generated GEMM case suite (see Vulkan/conformance/generate.py)
through one of the host-executed paths and prints one line per case and a
summary:

  msl    sm-translate --emit-msl, then sm-msl-host-runner;
  intel  sm-opt --sm-lower-to-intel, sm-translate --emit-intel-spirv checked
         by spirv-val (and, with --ocloc, compiled by Intel's ocloc for
         each listed device, which must produce dpas instructions), and
         --emit-intel-host-llvm run by sm-intel-host-runner.

Robust-access cases are Vulkan-only and skipped.

Usage: run-case-suite.py {msl,intel} SUITE_DIR TOOLS_DIR [SPIRV_VAL]
                         [--ocloc DEVICE,...]
"""

import argparse
import concurrent.futures
import os
import shlex
import sys

# The test library (test/lib), also when run by hand.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, "lib"))

from sm_testing.tools import run_steps, run_tool


run = run_tool


OCLOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                     "utils", "ocloc.sh")


def run_case(path, suite, tools, spirv_val, devices, line):
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
        error = run_steps([
            [tool("sm-opt"), source, "--sm-lower-to-intel", "-o", lowered],
            [tool("sm-translate"), "--emit-intel-spirv", lowered, "-o", binary],
            [spirv_val, "--target-env", "spv1.4", binary],
            [tool("sm-translate"), "--emit-intel-host-llvm", lowered, "-o",
             kernel]])
        if error:
            return name, False, error
        for device in devices:
            step = run([OCLOC, binary, device])
            if "Build succeeded" not in step.stdout or "dpas" not in step.stdout:
                return name, False, "ocloc for %s: %s" % (
                    device, (step.stdout + step.stderr).strip()[-300:])
        runner = tool("sm-intel-host-runner")
    argv = [runner, kernel, "--entry", entry]
    argv += shlex.split(args.replace("@SEED@", str(abs(hash(name)) % 100000)))
    result = run(argv)
    checks = [l for l in result.stdout.splitlines() if l.startswith("check")]
    # The line that says most: a failed check, else the case's own check
    # rather than the bounds check every run prints.
    failed = [l for l in checks if "FAILED" in l]
    own = [l for l in checks if not l.startswith("check bounds")]
    detail = (failed or own or checks or
              [result.stderr.strip() or result.stdout.strip()])[0]
    return name, result.returncode == 0 and bool(checks), detail


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("path", choices=["msl", "intel"])
    parser.add_argument("suite")
    parser.add_argument("tools")
    parser.add_argument("spirv_val", nargs="?", default="spirv-val")
    parser.add_argument("--ocloc", default="")
    options = parser.parse_args()
    path, suite, tools = options.path, options.suite, options.tools
    spirv_val = options.spirv_val
    devices = [d for d in options.ocloc.split(",") if d]
    lines = [l.strip() for l in open(os.path.join(suite, "manifest.txt")) if l.strip()]
    lines = [l for l in lines if not l.startswith("robust_")]
    passed = failed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for name, ok, detail in pool.map(
                lambda l: run_case(path, suite, tools, spirv_val, devices, l),
                lines):
            print("%s %s: %s" % ("PASS" if ok else "FAIL", name, detail))
            passed, failed = passed + ok, failed + (not ok)
    print("%s suite%s: %d passed, %d failed" % (
        path, " (ocloc: %s)" % ", ".join(devices) if devices else "", passed,
        failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
