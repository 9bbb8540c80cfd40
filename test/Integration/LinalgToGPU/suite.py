#!/usr/bin/env python3
"""The command line of sm-linalg-to-gpu's execution suite (the cases live in
sm_testing.linalg, one module per subject; lit runs each case on each path
as a test of its own: cases/lit.local.cfg). The device scripts and the
build-only checks use this:

  suite.py generate TARGET OUT          write OUT/<case>.mlir (the programs)
  suite.py build PATH OUT TOOLS [--spirv-val SPIRV_VAL] [--only TEXT]
  suite.py run PATH OUT TOOLS [--spirv-val X] [--only TEXT] [--skip TEXT]
                               [--seed N] [--stage DIR]
  suite.py compile OUT DRIVER           every built kernel through a driver
  suite.py check DIR                    check staged runs that ran elsewhere
PATH is vulkan, intel or msl (sm_testing.linalg.checking says what each
checks).
"""

import argparse
import os
import random
import re
import shlex
import sys

# The test library (test/lib), also when run by hand.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, os.pardir, "lib"))

from sm_testing.cli import add_suite_commands, is_selected, run_and_report
from sm_testing.linalg import TARGETS, cases_for
from sm_testing.linalg.checking import build, check_case, check_staged_case
from sm_testing.tools import run_tool


def generate(target, out):
    os.makedirs(out, exist_ok=True)
    cases = cases_for(target)
    for case in cases:
        with open(os.path.join(out, case.name + ".mlir"), "w") as f:
            f.write(case.text)
    with open(os.path.join(out, "target.txt"), "w") as f:
        f.write(target)
    print("%d cases for %s in %s" % (len(cases), target, out))


def check_staged(root):
    """Compares the outputs of staged variants that ran elsewhere with the
    reference."""
    target = open(os.path.join(root, "target.txt")).read().strip()
    passed = failed = 0
    for case in cases_for(target):
        checked = check_staged_case(root, case)
        if checked is None:
            continue
        ok, detail = checked
        print("%s %s: %s" % ("PASS" if ok else "FAIL", case.name, detail),
              flush=True)
        passed += ok
        failed += not ok
    print("%s linalg suite: %d passed, %d failed" % (target, passed, failed))
    return 0 if failed == 0 else 1


def compile_kernels(out, driver):
    """Every kernel of every built program, through a real driver."""
    failed = 0
    for name in sorted(os.listdir(out)):
        if not name.endswith(".spv") or name.endswith(".intel.spv"):
            continue
        stem = name[:-len(".spv")]
        kernels = re.findall(r"gpu\.func @(\w+)", open(
            os.path.join(out, stem + ".gpu.mlir")).read())
        for entry in sorted(set(kernels)):
            result = run_tool(shlex.split(driver) + [
                os.path.join(out, name), "--entry", entry])
            ok = result.returncode == 0
            failed += not ok
            print("%s %s:%s" % ("compiled" if ok else "FAILED", stem, entry))
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser()
    sub, _, _, run = add_suite_commands(parser, TARGETS)
    run.add_argument("--seed", type=int,
                     default=random.SystemRandom().randrange(1 << 30))
    run.add_argument("--stage", metavar="DIR", default="",
                     help="write each variant's device plan and inputs into "
                     "DIR/<case>.v<N> (sm-run --emit-plan, for sm-plan-runner "
                     "elsewhere) instead of running it")
    c = sub.add_parser("compile")
    c.add_argument("out")
    c.add_argument("driver", help="a driver compile command taking a "
                   "binary and --entry NAME (e.g. lit's %%radv)")
    k = sub.add_parser("check", help="check staged variants that ran "
                       "elsewhere")
    k.add_argument("staged")
    args = parser.parse_args()
    if args.command == "check":
        return check_staged(args.staged)
    if args.command == "compile":
        return compile_kernels(args.out, args.driver)
    if args.command == "generate":
        generate(args.target, args.out)
        return 0
    target = open(os.path.join(args.out, "target.txt")).read().strip()
    cases = [case for case in cases_for(target)
             if is_selected(case.name, args.only, args.skip)]
    if args.command == "build":
        failed = 0
        for case in cases:
            _, error = build(args.path, case, args.out, args.tools,
                             args.spirv_val, target)
            if error:
                failed += 1
                print("FAILED %s: %s" % (case.name, error))
        print("built %d programs for %s, %d failed" % (len(cases), args.path,
                                                      failed))
        return 1 if failed else 0
    print("seed %d" % args.seed)
    if args.stage:
        os.makedirs(args.stage, exist_ok=True)
        with open(os.path.join(args.stage, "target.txt"), "w") as f:
            f.write(target)

    def check(case):
        rng = random.Random("%d:%s" % (args.seed, case.name))
        try:
            return check_case(args.path, case, args.out, args.tools,
                              args.spirv_val, target, rng, args.stage)
        except Exception as error:  # a harness error fails the case
            return False, "harness error: %r" % error

    # Vulkan devices (lavapipe's JIT included) use every core themselves;
    # the CPU host runners run one program per core.
    jobs = 1 if args.path == "vulkan" else (os.cpu_count() or 1)
    return run_and_report(cases, check, jobs, "%s linalg suite" % args.path,
                          "staged" if args.stage else "passed")

if __name__ == "__main__":
    sys.exit(main())
