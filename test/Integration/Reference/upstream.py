#!/usr/bin/env python3
"""Upstream MLIR as the reference (sm_testing.upstream_reference): a
linalg program run by upstream MLIR's own CPU pipeline beside sm-run, on
the same inputs, and the two outputs compared.

  upstream.py check TOOLS PROGRAM.mlir... [--target T] [--entry F]
                    [--shapes 4x8,16] [--seed N]
  upstream.py stage TOOLS PROGRAM.mlir... --dir DIR [--target T] [--seed N]
                    [--spirv-val PATH]
  upstream.py compare DIR OUTPUTS

`stage` and `compare` check programs on a GPU machine that has none of
this toolchain (device.sh): each program's device plan and inputs are
written here with upstream's outputs for them, sm-plan-runner runs the
plans there, and the outputs that come back are compared here.
"""

import argparse
import json
import pathlib
import sys

import numpy as np
import os

# The test library (test/lib), also when run by hand.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, os.pardir, "lib"))

from sm_testing.program_check import compare
from sm_testing.upstream_reference import (ReferenceError, check,
                                           program_inputs, stage_program)


def stage(options):
    """For a GPU machine without this toolchain: each program's device plan
    (sm-run --emit-plan) with its inputs, and upstream's outputs for them,
    in DIR/<program>/."""
    for program in options.programs:
        text = pathlib.Path(program).read_text()
        directory = pathlib.Path(options.dir) / pathlib.Path(program).stem
        try:
            arrays = program_inputs(text, options)
        except ReferenceError as error:
            print("UNCHECKED %s: %s" % (directory.name, error))
            continue
        print(stage_program(options.tools, text, arrays, directory,
                            options.target, options.entry,
                            options.spirv_val), flush=True)
    return 0


def compare_staged(options):
    """Compares what the GPU machine wrote (OUTPUTS/<program>/) with the
    staged reference outputs."""
    counts = {}
    for directory in sorted(pathlib.Path(options.dir).iterdir()):
        if not (directory / "reference.json").exists():
            continue
        staged = json.loads((directory / "reference.json").read_text())
        tolerance = staged["tolerance"]
        outputs = pathlib.Path(options.outputs) / directory.name
        details, status = [], "PASSED"
        references = sorted(directory.glob("reference_*.npy"))
        if not references:
            status, details = "UNCHECKED", ["nothing staged"]
        for reference in references:
            what, index = reference.stem.split("_")[1:]
            index = int(index)
            element = staged["elements"]["%s_%d" % (what, index)]
            got = outputs / ("%s_%d.npy" % (what, index))
            want = np.load(reference)
            if not got.exists():
                # An argument the program does not write is not written.
                if what == "arg":
                    continue
                status = "FAILED"
                details.append("%s %d: not written" % (what, index))
                continue
            passed, detail = compare(np.load(got), want, element, tolerance)
            if not passed:
                status = "FAILED"
            details.append("%s %d: %s" % (what, index, detail))
        counts[status] = counts.get(status, 0) + 1
        print("%s %s: %s" % (status, directory.name, "; ".join(details)))
    print("%d passed, %d failed" % (counts.get("PASSED", 0),
                                    counts.get("FAILED", 0) +
                                    counts.get("UNCHECKED", 0)))
    return 0 if set(counts) <= {"PASSED"} else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["check", "stage", "compare"])
    parser.add_argument("tools", help="TOOLS (check, stage) or the staged "
                        "DIR (compare)")
    parser.add_argument("programs", nargs="+",
                        help="PROGRAM.mlir... (check, stage) or OUTPUTS "
                        "(compare)")
    parser.add_argument("--dir", help="stage: where the plans go")
    parser.add_argument("--spirv-val", metavar="PATH",
                        help="stage: validate every binary of each plan")
    parser.add_argument("--target", default="cpu-lavapipe")
    parser.add_argument("--entry")
    parser.add_argument("--shapes", default="",
                        help="run-time shapes of the arguments, comma "
                        "separated (4x8,16), for dynamic sizes; without it, "
                        "a program's `// SHAPES: 4x8 16` line gives them")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--pipeline-options", default="",
                        help="check: sm-linalg-to-gpu options to compile "
                        "with (split-k=8, tile-m=64, ...)")
    options = parser.parse_args()
    if options.command == "stage":
        return stage(options)
    if options.command == "compare":
        options.dir, options.outputs = options.tools, options.programs[0]
        return compare_staged(options)
    counts = {}
    for program in options.programs:
        text = pathlib.Path(program).read_text()
        try:
            arrays = program_inputs(text, options)
            status, detail = check(options.tools, text, options.target,
                                   arrays, options.entry,
                                   pipeline_options=options.pipeline_options)
        except ReferenceError as error:
            status, detail = "UNCHECKED", str(error)
        counts[status] = counts.get(status, 0) + 1
        print("%s %s: %s" % (status, pathlib.Path(program).name, detail),
              flush=True)
    print("refused %d, unchecked %d" % (counts.get("REFUSED", 0),
                                        counts.get("UNCHECKED", 0)))
    print("%d passed, %d failed" % (counts.get("PASSED", 0),
                                    counts.get("FAILED", 0)))
    return 0 if counts.get("PASSED", 0) == len(options.programs) else 1


if __name__ == "__main__":
    sys.exit(main())


if __name__ == "__main__":
    sys.exit(main())
