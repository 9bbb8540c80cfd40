#!/usr/bin/env python3
"""Builds and runs a conformance suite on the Vulkan device of this machine.

Usage: run.py SUITE_DIR TOOLS_DIR [--spirv-val PATH] [--lower-option OPT]...

SUITE_DIR is what generate.py wrote. Each kernel is lowered with
sm-opt --sm-lower-to-vulkan (robust_* cases with robust-access=1, plus any
--lower-option), serialized, validated by spirv-val when given, and run by
TOOLS_DIR/sm-vulkan-runner with the manifest's arguments (the runner's
checks compare with its CPU reference on fresh random inputs; outputs start
poisoned). The Vulkan driver is the one the environment selects
(VK_DRIVER_FILES). Prints one line per case and "conformance: N passed,
M failed"; exits 1 if any case failed.
"""

import argparse
import os
import random
import shlex
import subprocess
import sys


def run(argv, **kwargs):
    return subprocess.run(argv, capture_output=True, text=True, **kwargs)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("suite")
    parser.add_argument("tools")
    parser.add_argument("--spirv-val", default="")
    parser.add_argument("--lower-option", action="append", default=[])
    options = parser.parse_args()
    tool = lambda name: os.path.join(options.tools, name)  # noqa: E731
    passed = failed = 0
    for line in open(os.path.join(options.suite, "manifest.txt")):
        line = line.strip()
        if not line:
            continue
        name, entry, args = line.split("|", 2)
        source = os.path.join(options.suite, name + ".mlir")
        binary = os.path.join(options.suite, name + ".spv")
        lower = list(options.lower_option)
        if name.startswith("robust_"):
            lower.append("robust-access=1")
        pipeline = "--sm-lower-to-vulkan" + ("=" + " ".join(lower) if lower else "")
        steps = [[tool("sm-opt"), source, pipeline, "-o", binary + ".mlir"],
                 [tool("sm-translate"), "--serialize-spirv", binary + ".mlir",
                  "-o", binary]]
        if options.spirv_val:
            steps.append([options.spirv_val, "--target-env", "vulkan1.3", binary])
        error = None
        for argv in steps:
            result = run(argv)
            if result.returncode:
                error = "%s failed: %s" % (os.path.basename(argv[0]),
                                           (result.stderr or result.stdout).strip()[-400:])
                break
        if error is None:
            args = args.replace("@SEED@", str(random.randrange(1 << 31)))
            result = run([tool("sm-vulkan-runner"), binary, "--entry", entry]
                         + shlex.split(args))
            checks = [l for l in result.stdout.splitlines()
                      if l.startswith("check ")]
            detail = "; ".join(l.split(": ", 1)[-1] for l in checks) or \
                (result.stderr + result.stdout).strip()[-400:]
            ok = result.returncode == 0 and "PASSED" in result.stdout
        else:
            ok, detail = False, error
        print("%s %s: %s" % ("PASS" if ok else "FAIL", name, detail), flush=True)
        passed += ok
        failed += not ok
    print("conformance: %d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
