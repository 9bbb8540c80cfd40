#!/usr/bin/env python3
"""On the GPU machine, after device.sh ran every plan: for each program,
the same computation in PyTorch eager on the same inputs (the reference the
outputs are checked against, and the peer that is timed with CUDA events
at the same clock), and one line of the table per program.

  python3 bench/runtime/torch_peer.py inputs STAGE     # before the plans run
  python3 bench/runtime/torch_peer.py STAGE OUT REPEAT
"""

import json
import math
import os
import re
import sys

import numpy as np
import torch


def mlp(x, w, bias):
    return torch.relu((x @ w).float() + bias)


def attention(q, k, v):
    # As (1, heads, rows, d), the layout PyTorch's fused kernels take.
    return torch.nn.functional.scaled_dot_product_attention(
        q[None], k[None], v[None])[0]


def dequant(x, q, s):
    return (x @ (q.to(torch.float16) * s)).float()


def chain(x, *weights):
    for w in weights:
        x = torch.relu((x @ w).float()).to(torch.float16)
    return x


FUNCTIONS = {"mlp": mlp, "attention": attention, "dequant": dequant,
             "chain": chain}


def time_torch(function, inputs, repeat):
    for _ in range(3):
        function(*inputs)
    torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(repeat):
        function(*inputs)
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) * 1000.0 / repeat


def make_inputs(stage):
    """Fresh random inputs of the staged shapes, in each plan's directory."""
    rng = np.random.default_rng()
    manifest = json.load(open(os.path.join(stage, "manifest.json")))
    for name, entry in manifest.items():
        for index, (shape, dtype, low, high) in enumerate(entry["inputs"]):
            if dtype.startswith("int"):
                array = rng.integers(low, high + 1, shape).astype(dtype)
            else:
                array = rng.uniform(low, high, shape).astype(dtype)
            np.save(os.path.join(stage, "plans", name,
                                 "input_%d.npy" % index), array)


def main():
    if sys.argv[1] == "inputs":
        return make_inputs(sys.argv[2])
    stage, out, repeat = sys.argv[1], sys.argv[2], int(sys.argv[3])
    manifest = json.load(open(os.path.join(stage, "manifest.json")))
    print("%-32s %12s %12s %8s  %s" % ("program", "ours us", "torch us",
                                        "ratio", "check"))
    overheads = []
    for name, entry in manifest.items():
        directory = os.path.join(stage, "plans", name)
        inputs = [torch.from_numpy(np.load(os.path.join(
            directory, "input_%d.npy" % i))).cuda()
            for i in range(len(entry["inputs"]))]
        function = FUNCTIONS[entry["function"]]
        with torch.no_grad():
            want = function(*inputs).double().cpu().numpy()
            peer = time_torch(function, inputs, repeat)
        log = open(os.path.join(out, name, "runner.log")).read()
        ours = re.search(r"time: ([0-9.]+) us", log)
        ours = float(ours.group(1)) if ours else math.nan
        result = os.path.join(out, name, "result_0.npy")
        if not os.path.exists(result):
            check = "FAILED: no output (%s)" % log.strip()[-300:]
        else:
            got = np.load(result).astype(np.float64)
            error = np.abs(got - want)
            bad = ~(error <= entry["tolerance"] * np.maximum(1, np.abs(want)))
            check = "%s: %d elements, %d mismatches, max error %.3g" % (
                "PASSED" if not bad.any() else "FAILED", got.size,
                int(bad.sum()), float(np.nanmax(error)))
        print("%-32s %12.1f %12.1f %8.2f  %s" % (name, ours, peer,
                                               ours / peer, check))
        # Launch overhead: the whole run (on the device, first step to
        # last; and on the host, submission to completion) against the sum
        # of its steps' times.
        steps = re.search(r"steps: ([0-9.]+) us summed; host: ([0-9.]+) us",
                          log)
        if steps:
            summed, host = float(steps.group(1)), float(steps.group(2))
            overheads.append("%-32s %3d steps: %9.1f us summed, run %9.1f us "
                             "(%.2fx), host %9.1f us (%.2fx)" % (
                                 name, log.count(" @"), summed, ours,
                                 ours / summed, host, host / summed))
    print()
    for line in overheads:
        print(line)


if __name__ == "__main__":
    main()
