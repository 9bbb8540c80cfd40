#!/usr/bin/env python3
"""Attention on the H100: softmax(Q K^T / sqrt(d)) V for 16 heads of 4096
queries and keys, head dimension 128, f16 in and out, with and without a
causal mask, written on linalg as front-ends write it (the linalg suite's
attention_program) and compiled by sm-linalg-to-gpu into one
flash-attention kernel; against torch.nn.functional.scaled_dot_product_
attention on the same GPU in the same run, at the same clock (a CUDA
context is held while our kernels run).

  bench/attention/run.py prepare [OPTIONS...]   # here: build the binaries
  <device> python3 bench/attention/run.py device   # there: check, time

Each OPTIONS is a variant of sm-linalg-to-gpu's options besides the target
(e.g. "attention-key-block=32 attention-softmax=registers"); without any,
the target's defaults. Every variant is checked and timed.

On the device each kernel runs on fresh random inputs (uniform in [-1, 1])
and its whole output is compared with PyTorch's attention computed in f32
(the math backend: an independent reference); then it is timed with GPU
timestamps (median of 20 dispatches). FLOPs are 4 B H S^2 D, halved for
the causal mask.
"""

import importlib.util
import itertools
import json
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
BUILD = os.environ.get("SM_BUILD_DIR", os.path.join(ROOT, "build"))
STAGE = os.path.join(BUILD, "bench-attention")
HEADS, SEQUENCE, HEAD_DIM = 16, 4096, 128
CASES = [("non_causal", False), ("causal", True)]


def prepare(variants):
    spec = importlib.util.spec_from_file_location(
        "linalg_suite", os.path.join(ROOT, "test", "Integration",
                                     "LinalgToGPU", "suite.py"))
    suite = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(suite)
    if os.path.isdir(STAGE):
        shutil.rmtree(STAGE)
    os.makedirs(STAGE)
    bin_dir = os.path.join(BUILD, "bin")
    spirv_val = os.path.join(ROOT, ".deps", "spirv", "bin", "spirv-val")
    cases = []
    for (name, causal), variant in itertools.product(CASES, variants or [""]):
        text = suite.attention_program(name, HEADS, SEQUENCE, SEQUENCE,
                                       HEAD_DIM, "f16", causal, "f16")
        gpu = subprocess.run(
            [os.path.join(bin_dir, "sm-opt"),
             "--sm-linalg-to-gpu=target=nvidia-h100 " + variant], input=text,
            check=True, capture_output=True, text=True).stdout
        if variant:
            name += " [%s]" % variant
        host = suite.parse_host(gpu)
        if [l["entry"] for l in host["launches"]] != ["attention_0"]:
            sys.exit("%s did not become one attention kernel: %s" % (
                name, host["launches"]))
        lowered = subprocess.run(
            [os.path.join(bin_dir, "sm-opt"), "--sm-lower-to-vulkan"],
            input=gpu, check=True, capture_output=True, text=True).stdout
        binary = os.path.join(STAGE, "kernel%d.spv" % len(cases))
        subprocess.run([os.path.join(bin_dir, "sm-translate"),
                        "--serialize-spirv", "-o", binary], input=lowered,
                       check=True, text=True)
        subprocess.run([spirv_val, "--target-env", "vulkan1.3", binary],
                       check=True)
        grid = [int(host["constants"][g]) for g in host["launches"][0]["grid"]]
        cases.append(dict(name=name, causal=causal, grid=grid,
                          binary=os.path.basename(binary)))
    with open(os.path.join(STAGE, "cases.json"), "w") as f:
        json.dump(cases, f)
    shutil.copy(os.path.join(bin_dir, "sm-vulkan-runner"), STAGE)
    os.makedirs(os.path.join(STAGE, "debs"))
    subprocess.run(["apt-get", "download", "-qq", "libvulkan1", "libglvnd0",
                    "libgl1", "libglx0", "libegl1", "libgles2"],
                   cwd=os.path.join(STAGE, "debs"), check=True)
    print("staged %d kernels in %s" % (len(cases), STAGE))


def unpack_vulkan_loader():
    """The GPU machine has NVIDIA's driver but no Vulkan loader: unpack
    the Debian packages staged beside the binaries."""
    if "libvulkan.so.1" in subprocess.run(["ldconfig", "-p"],
                                          capture_output=True,
                                          text=True).stdout:
        return
    debs = os.path.join(STAGE, "debs")
    for deb in sorted(os.listdir(debs)):
        subprocess.run(["dpkg", "-x", os.path.join(debs, deb), "/"],
                       check=True)
    subprocess.run(["ldconfig"], check=True)


def device():
    unpack_vulkan_loader()
    os.environ.setdefault(
        "VK_DRIVER_FILES",
        "/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json")
    import torch
    import torch.nn.functional as F
    # The clock follows CUDA contexts: hold one while our kernels run.
    torch.zeros(1, device="cuda")
    out = os.environ.get("OUT", "/tmp")
    runner = os.path.join(STAGE, "sm-vulkan-runner")
    cases = json.load(open(os.path.join(STAGE, "cases.json")))
    work = "/tmp/attention"
    os.makedirs(work, exist_ok=True)
    shape = (HEADS, SEQUENCE, HEAD_DIM)
    count = HEADS * SEQUENCE * HEAD_DIM
    lines = ["GPU: %s; SM clock with the context held: %s MHz" % (
        torch.cuda.get_device_name(),
        subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm",
                        "--format=csv,noheader,nounits"],
                       capture_output=True, text=True).stdout.strip())]
    print(lines[0], flush=True)
    for case in cases:
        q, k, v = [(torch.rand(shape, device="cuda") * 2 - 1).half()
                   for _ in range(3)]
        paths = []
        for name, tensor in (("q", q), ("k", k), ("v", v)):
            path = os.path.join(work, name + ".bin")
            tensor.cpu().numpy().tofile(path)
            paths.append(path)
        result = os.path.join(work, "o.bin")
        argv = [runner, os.path.join(STAGE, case["binary"]), "--grid",
                ",".join(str(g) for g in case["grid"])]
        for path in paths:
            argv += ["--arg", "f16:%d:file:%s" % (count, path)]
        argv += ["--arg", "f16:%d:poison" % count, "--output",
                 "3:%s" % result, "--repeat", "20", "--pipeline-statistics"]
        log = subprocess.run(argv, capture_output=True, text=True)
        if log.returncode:
            sys.exit("runner failed: " + log.stdout + log.stderr)
        median = float(re.search(r"median ([0-9.]+) us", log.stdout).group(1))
        import numpy as np
        ours = torch.from_numpy(np.fromfile(result, np.float16).reshape(
            shape)).cuda().float()
        with torch.nn.attention.sdpa_kernel(
                torch.nn.attention.SDPBackend.MATH):
            reference = F.scaled_dot_product_attention(
                q.float(), k.float(), v.float(), is_causal=case["causal"])
        error = (ours - reference).abs()
        bad = int((error > 2e-3).sum() + torch.isnan(ours).sum())
        flops = 4.0 * HEADS * SEQUENCE * SEQUENCE * HEAD_DIM
        if case["causal"]:
            flops /= 2
        # PyTorch's fastest attention for f16 on this GPU, on (batch, heads,
        # sequence, head) tensors (its fused kernels take 4-D inputs).
        q4, k4, v4 = q[None], k[None], v[None]
        for _ in range(3):
            F.scaled_dot_product_attention(q4, k4, v4,
                                           is_causal=case["causal"])
        times = []
        for _ in range(20):
            start = torch.cuda.Event(enable_timing=True)
            stop = torch.cuda.Event(enable_timing=True)
            start.record()
            F.scaled_dot_product_attention(q4, k4, v4,
                                           is_causal=case["causal"])
            stop.record()
            stop.synchronize()
            times.append(start.elapsed_time(stop) * 1e3)
        times.sort()
        torch_median = times[len(times) // 2]
        lines.append(
            "%s: ours %.1f us, %.1f TFLOP/s (check of all %d elements "
            "against f32 PyTorch: %s, max abs error %.3g); PyTorch SDPA %.1f "
            "us, %.1f TFLOP/s; ours / PyTorch %.2f" % (
                case["name"], median, flops / median / 1e6, count,
                "PASSED" if bad == 0 else "FAILED (%d)" % bad,
                float(error.max()), torch_median, flops / torch_median / 1e6,
                torch_median / median))
        print(lines[-1], flush=True)
        statistics = [line.strip() for line in log.stdout.splitlines()
                      if re.search(r"register|shared|spill|local", line,
                                   re.IGNORECASE)]
        if statistics:
            lines.append("  driver: " + "; ".join(statistics))
            print(lines[-1], flush=True)
    with open(os.path.join(out, "attention.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    if sys.argv[1] == "prepare":
        prepare(sys.argv[2:])
    else:
        device()
