#!/usr/bin/env python3
"""Whole programs through the runtime beside PyTorch eager on the same GPU:
an MLP layer on a dynamic number of tokens (16 and 512), attention and an
int8 dequantizing projection (bench/runtime/programs.py).

  bench/runtime/run.py stage          # here: plans and inputs for the H100
  <device> bash bench/runtime/device.sh [REPEAT]   # there: run, check, time

`stage` writes each program with fresh random inputs, compiles it for
nvidia-h100 and writes its device plan with `sm-run --emit-plan` into
build/bench-runtime/plans/NAME, with sm-plan-runner and the Vulkan loader's
packages beside them. On the GPU machine device.sh runs every plan through
sm-plan-runner on fresh random inputs made there (one submission per run; --repeat runs timed with GPU
timestamps, first launch to last) while an idle CUDA context keeps the
clock at 1980 MHz, then torch_peer.py runs the same computation in PyTorch
eager on the same inputs, checks our output against it and times it with
CUDA events: table.txt.
"""

import json
import os
import pathlib
import shutil
import subprocess
import sys

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))
from programs import PROGRAMS  # noqa: E402


def stage():
    out = ROOT / "build" / "bench-runtime"
    shutil.rmtree(out, ignore_errors=True)
    (out / "debs").mkdir(parents=True)
    rng = np.random.default_rng()
    manifest = {}
    for name, (program, specs, function, tolerance) in PROGRAMS.items():
        directory = out / "plans" / name
        directory.mkdir(parents=True)
        source = directory / "program.mlir"
        source.write_text(program)
        argv = [str(ROOT / "build" / "bin" / "sm-run"), str(source),
                "--target", "nvidia-h100", "--emit-plan", str(directory)]
        for index, (shape, dtype, low, high) in enumerate(specs):
            if dtype.startswith("int"):
                array = rng.integers(low, high + 1, shape).astype(dtype)
            else:
                array = rng.uniform(low, high, shape).astype(dtype)
            path = directory / ("given_%d.npy" % index)
            np.save(path, array)
            argv += ["--input", str(path)]
        done = subprocess.run(argv, capture_output=True, text=True)
        if done.returncode:
            sys.exit("%s: %s" % (name, done.stderr.strip()))
        # The inputs are made again on the GPU machine (torch_peer.py
        # inputs), so that the weights need not travel.
        for index in range(len(specs)):
            (directory / ("given_%d.npy" % index)).unlink()
            (directory / ("input_%d.npy" % index)).unlink()
        launches = (directory / "plan.txt").read_text().count("\nlaunch ")
        print("%s: %d launch(es)" % (name, launches))
        manifest[name] = dict(inputs=[list(spec) for spec in specs],
                              function=function, tolerance=tolerance)
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1))
    shutil.copy(ROOT / "build" / "bin" / "sm-plan-runner", out)
    subprocess.run(["apt-get", "download", "-qq", "libvulkan1", "libglvnd0",
                    "libgl1", "libglx0", "libegl1", "libgles2"],
                   cwd=out / "debs", check=True, capture_output=True)
    print("staged in %s" % out)


if __name__ == "__main__":
    if sys.argv[1:] != ["stage"]:
        sys.exit(__doc__)
    stage()
