#!/usr/bin/env python3
"""Whole programs through the runtime beside PyTorch eager on the same GPU
(bench/runtime/programs.py), in groups: `layers` (an MLP layer on a dynamic
number of tokens, attention, an int8 dequantizing projection, a chain of 20
small layers for launch overhead), `split-k` (an LLM product split in 1,
2, 4 and 8 parts), `dequant` (f16, int8 and int4 weights at 1 to 4096
rows), `attention` (length 4096, causal and not), `decode` (one and
eight tokens times f16, int8 and int4 weights of 14336 x 4096, as dot
products and as the tiled product; decode attention at 4096 and 32768
keys, static and dynamic) and `decode-plans` (decode attention under
hand-written plans).

  bench/runtime/run.py stage [GROUP,...]          # here: plans for the H100
  <device> bash bench/runtime/device.sh [REPEAT]  # there: run, check, time

`stage` compiles each program for nvidia-h100 (with its sm-linalg-to-gpu
options, if any) and writes its device plan with `sm-run --emit-plan` into
build/bench-runtime/plans/NAME, with sm-plan-runner and the Vulkan loader's
packages beside them. On the GPU machine device.sh makes fresh random
inputs, runs every plan through sm-plan-runner (one submission per run;
--repeat runs timed with GPU timestamps, first launch to last) while an
idle CUDA context keeps the clock at 1980 MHz, then torch_peer.py runs the
same computation in PyTorch eager on the same inputs, checks our output
against it and times it with CUDA events: table.txt.
"""

import json
import pathlib
import shutil
import subprocess
import sys

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
from programs import PROGRAMS  # (beside this script)


def stage(groups):
    out = ROOT / "build" / "bench-runtime"
    shutil.rmtree(out, ignore_errors=True)
    (out / "debs").mkdir(parents=True)
    manifest = {}
    tools = ROOT / "build" / "bin"
    for name, program in PROGRAMS.items():
        if groups and program.group not in groups:
            continue
        directory = out / "plans" / name
        directory.mkdir(parents=True)
        source = directory / "program.mlir"
        source.write_text(program.text)
        if program.options:
            # Compiled here with the options; sm-run takes the result as it
            # is.
            subprocess.run([str(tools / "sm-opt"), str(source),
                            "--sm-linalg-to-gpu=target=nvidia-h100 " +
                            program.options, "-o", str(source)], check=True)
        argv = [str(tools / "sm-run"), str(source), "--target", "nvidia-h100",
                "--emit-plan", str(directory)]
        if "nv-coopmat2=false" in program.options:
            argv.append("--nv-coopmat2=false")
        for index, (shape, dtype, low, high) in enumerate(program.inputs):
            # Zeros of the right shapes: the plan needs the shapes only, and
            # the inputs are made on the GPU machine (torch_peer.py inputs),
            # so that the weights need not travel.
            path = directory / ("given_%d.npy" % index)
            # bfloat16 travels as its bits, int4 one value per byte.
            stored = {"bfloat16": "uint16", "int4": "int8"}.get(dtype, dtype)
            np.save(path, np.zeros(shape, stored))
            argv += ["--input", str(path)]
        done = subprocess.run(argv, capture_output=True, text=True)
        if done.returncode:
            sys.exit("%s: %s" % (name, done.stderr.strip()))
        for index in range(len(program.inputs)):
            (directory / ("given_%d.npy" % index)).unlink()
            (directory / ("input_%d.npy" % index)).unlink()
        launches = (directory / "plan.txt").read_text().count("\nlaunch ")
        print("%s: %d launch(es)" % (name, launches))
        manifest[name] = dict(group=program.group,
                              inputs=[list(spec) for spec in program.inputs],
                              function=program.function,
                              tolerance=program.tolerance,
                              output=program.output, flops=program.flops,
                              reference=program.reference)
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1))
    shutil.copy(tools / "sm-plan-runner", out)
    subprocess.run([str(ROOT / "utils" / "device-vulkan.sh"), "stage",
                    str(out / "debs")], check=True)
    print("staged in %s" % out)


if __name__ == "__main__":
    if sys.argv[1:2] != ["stage"]:
        sys.exit(__doc__)
    stage([group for argument in sys.argv[2:]
           for group in argument.split(",")])
