"""Running a program through sm-run and comparing its outputs with a
reference: the one way every execution suite (the linalg suite, the
runtime's programs, the corpus, upstream MLIR as the reference) runs a
program and judges what came back.

Outputs are compared exactly for integers and, for floats, with NaN and
infinities in the same places and finite values within a tolerance
relative to the larger of the element and a floor: the output's root mean
square (rounding in a sum grows with its terms, not with the result, so an
element that cancels to near zero is judged at the output's scale), at
least `floor`.
"""

import os
import pathlib
import re
import subprocess

import numpy as np

from sm_testing.numerics import bf16_to_float64

FLOATS = ("f16", "bf16", "f32", "f64")


class SmRunError(Exception):
    """sm-run did not run the program: exit status 2 is a refusal with a
    diagnostic; anything else (a signal, an assertion) is a crash."""

    def __init__(self, status, output):
        super().__init__("sm-run exited %d: %s" % (status, output))
        self.refused = status == 2


def as_float64(array, element):
    """An output of `element` type (bf16 as its bits) as float64."""
    if element == "bf16":
        return bf16_to_float64(array)
    return np.asarray(array).astype(np.float64)


def compare(got, want, element, tolerance, floor=0.0, rms_floor=True):
    """(ok, detail) of one output against the reference (both as stored:
    bf16 as its bits): finite floats within `tolerance` times the larger
    of the element and a floor, which is `floor` or, where `rms_floor`,
    the output's root mean square if larger."""
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        return False, "shape %s, expected %s" % (got.shape, want.shape)
    if element not in FLOATS:
        bad = got != want
        detail = "%d elements, %d differ" % (got.size, int(bad.sum()))
    else:
        got, want = as_float64(got, element), as_float64(want, element)
        finite = np.isfinite(want)
        scale = np.sqrt(np.mean(want[finite] ** 2)) if (
            rms_floor and finite.any()) else 0.0
        scale = max(float(scale), floor)
        with np.errstate(invalid="ignore"):
            error = np.abs(got - want)
            bad = np.where(
                finite,
                ~(error <= tolerance * np.maximum(np.abs(want), scale) +
                  np.finfo(np.float64).tiny),
                # NaN where NaN, the same infinity where infinite.
                ~((np.isnan(want) & np.isnan(got)) | (got == want)))
        worst = float(np.nanmax(np.where(finite & np.isfinite(got), error,
                                         0.0))) if got.size else 0.0
        detail = "%d elements, %d mismatches, max finite error %.3g" % (
            got.size, int(bad.sum()), worst)
    if bad.any():
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        detail += " (first at %s: %r, expected %r)" % (
            index, got[index].item(), want[index].item())
    return not bad.any(), detail


def run_sm(tools, path, target, entry, arrays, workdir, env=None,
           emit_plan=False):
    """sm-run's outputs {("result"|"arg", i): array}, or raises. The inputs
    are written into `workdir` as input_<i>.npy, and the outputs come from
    there. With `emit_plan`, sm-run writes the device plan into `workdir`
    (for sm-plan-runner elsewhere) instead of running it: no outputs."""
    argv = [os.path.join(tools, "sm-run"), str(path), "--target", target,
            "--output-dir", str(workdir)]
    if entry:
        argv += ["--entry", entry]
    if emit_plan:
        argv += ["--emit-plan", str(workdir)]
    for index, array in enumerate(arrays):
        input_path = pathlib.Path(workdir) / ("input_%d.npy" % index)
        np.save(input_path, array)
        argv += ["--input", str(input_path)]
    done = subprocess.run(argv, capture_output=True, text=True, env=env)
    if done.returncode:
        raise SmRunError(done.returncode,
                         (done.stderr + done.stdout).strip()[-1500:])
    outputs = {}
    for line in done.stdout.splitlines():
        found = re.match(r"(result|arg)_(\d+)\.npy:", line)
        if found:
            outputs[(found.group(1), int(found.group(2)))] = np.load(
                pathlib.Path(workdir) / ("%s_%s.npy" % found.groups()))
    return outputs
