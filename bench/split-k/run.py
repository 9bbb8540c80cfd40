#!/usr/bin/env python3
"""Split K on the LLM shape (4096 x 512 x 14336, f16 -> f32): the program
`C += A B` through sm-linalg-to-gpu with split-k = 1, 2, 4 and 8, on the
H100, against cuBLAS in the same run at the same clock.

  bench/split-k/run.py prepare        # here: build the binaries
  <device> python3 bench/split-k/run.py device   # there: check, time
  
On the device each variant runs its launches in order (the split product,
then the reduction that adds the parts into C) on random inputs, and the
result is checked against a double-precision reference on 64 sampled rows
(every element of those rows; error within 1e-4 of the sum of the terms'
magnitudes); then every launch is timed with GPU
timestamps (median of 20) and the medians are summed. cuBLAS computes
C = A B (+ C) with torch.addmm.
"""

import json
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("SM_BUILD_DIR", os.path.join(ROOT, "build"))
STAGE = os.path.join(BUILD, "bench-split-k")
M, N, K = 4096, 512, 14336
PARTS = [1, 2, 4, 8]


def prepare():
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "linalg_suite", os.path.join(ROOT, "test", "Integration", "LinalgToGPU",
                                     "suite.py"))
    suite = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(suite)
    parse_host = suite.parse_host
    if os.path.isdir(STAGE):
        shutil.rmtree(STAGE)
    os.makedirs(STAGE)
    source = os.path.join(STAGE, "llm.mlir")
    with open(source, "w") as f:
        f.write("func.func @llm(%%a: memref<%dx%dxf16>, %%b: memref<%dx%dxf16>,"
                " %%c: memref<%dx%dxf32>) {\n  linalg.matmul ins(%%a, %%b : "
                "memref<%dx%dxf16>, memref<%dx%dxf16>) outs(%%c : "
                "memref<%dx%dxf32>)\n  return\n}\n" % (
                    M, K, K, N, M, N, M, K, K, N, M, N))
    variants = []
    bin_dir = os.path.join(BUILD, "bin")
    for parts in PARTS:
        gpu = subprocess.run(
            [os.path.join(bin_dir, "sm-opt"), source,
             "--sm-linalg-to-gpu=target=nvidia-h100 split-k=%d" % parts],
            check=True, capture_output=True, text=True).stdout
        binary = os.path.join(STAGE, "split%d.spv" % parts)
        lowered = subprocess.run(
            [os.path.join(bin_dir, "sm-opt"), "--sm-lower-to-vulkan"],
            input=gpu, check=True, capture_output=True, text=True).stdout
        subprocess.run([os.path.join(bin_dir, "sm-translate"),
                        "--serialize-spirv", "-o", binary], input=lowered,
                       check=True, text=True)
        variants.append(dict(parts=parts, binary=os.path.basename(binary),
                             host=parse_host(gpu)))
    with open(os.path.join(STAGE, "variants.json"), "w") as f:
        json.dump(variants, f)
    shutil.copy(os.path.join(bin_dir, "sm-vulkan-runner"), STAGE)
    os.makedirs(os.path.join(STAGE, "debs"))
    subprocess.run(["apt-get", "download", "-qq", "libvulkan1", "libglvnd0",
                    "libgl1", "libglx0", "libegl1", "libgles2"],
                   cwd=os.path.join(STAGE, "debs"), check=True)
    print("staged %d variants in %s" % (len(variants), STAGE))


def device():
    import numpy as np
    import torch
    out = os.environ.get("OUT", "/tmp")
    runner = os.path.join(STAGE, "sm-vulkan-runner")
    variants = json.load(open(os.path.join(STAGE, "variants.json")))
    rng = np.random.default_rng()
    a = rng.uniform(-1, 1, (M, K)).astype(np.float16)
    b = rng.uniform(-1, 1, (K, N)).astype(np.float16)
    c0 = rng.uniform(-1, 1, (M, N)).astype(np.float32)
    rows = np.sort(rng.choice(M, 64, replace=False))
    reference = a[rows].astype(np.float64) @ b.astype(np.float64) + c0[rows]
    # The forward error bound of a dot product scales with the sum of the
    # magnitudes of its terms (14336 of them here): the tolerance is 1e-4 of
    # it (about 0.4; a lost K part or a lost row is off by tens).
    magnitude = (np.abs(a[rows].astype(np.float64)) @
                 np.abs(b.astype(np.float64)) + np.abs(c0[rows]))
    work = "/tmp/split-k"
    os.makedirs(work, exist_ok=True)
    lines = []
    for variant in variants:
        host = variant["host"]
        arguments = [name for name, _ in host["arguments"]]
        buffers = {arguments[0]: a.tobytes(), arguments[1]: b.tobytes(),
                   arguments[2]: c0.tobytes()}
        kinds = {arguments[0]: ("f16", M * K), arguments[1]: ("f16", K * N),
                 arguments[2]: ("f32", M * N)}
        for name, spec in host["allocations"].items():
            count = 1
            for d in spec.split("x")[:-1]:
                count *= int(d)
            kinds[name] = ("f32", count)
            buffers[name] = b"\xff" * (4 * count)

        def base(name):
            while name in host["aliases"]:
                name = host["aliases"][name]
            return name

        binary = os.path.join(STAGE, variant["binary"])
        total = 0.0
        timings = []
        for number, launch in enumerate(host["launches"]):
            argv = [runner, binary, "--entry", launch["entry"], "--grid",
                    ",".join(str(g) for g in launch["grid"])]
            timed = list(argv)
            files = []
            for index, name in enumerate(launch["args"]):
                name = base(name)
                kind, count = kinds[name]
                path = os.path.join(work, "%d.%d" % (number, index))
                with open(path, "wb") as f:
                    f.write(buffers[name])
                argv += ["--arg", "%s:%d:file:%s" % (kind, count, path),
                         "--output", "%d:%s.out" % (index, path)]
                timed += ["--arg", "%s:%d:random" % (kind, count)]
                files.append((name, path + ".out"))
            subprocess.run(argv, check=True, capture_output=True)
            for name, path in files:
                buffers[name] = open(path, "rb").read()
            log = subprocess.run(timed + ["--repeat", "20"], check=True,
                                 capture_output=True, text=True).stdout
            median = float(re.search(r"median ([0-9.]+) us", log).group(1))
            timings.append("%s %.1f us" % (launch["entry"], median))
            total += median
        c = np.frombuffer(buffers[base(arguments[2])], np.float32).reshape(M, N)
        error = np.abs(c[rows] - reference) / magnitude
        bad = int((error > 1e-4).sum() + np.isnan(c[rows]).sum())
        tflops = 2.0 * M * N * K / (total * 1e-6) / 1e12
        lines.append("split-k=%d: %d launches (%s), %.1f us, %.1f TFLOP/s; "
                     "check on 64 rows (%d elements): %s, max error / sum|a b| %.3g" % (
                         variant["parts"], len(host["launches"]),
                         ", ".join(timings), total, tflops, 64 * N,
                         "PASSED" if bad == 0 else "FAILED (%d)" % bad,
                         float(np.nanmax(error))))
        print(lines[-1], flush=True)
    ta = torch.from_numpy(a).cuda()
    tb = torch.from_numpy(b).cuda()
    tc = torch.from_numpy(c0).cuda()
    for _ in range(3):
        torch.addmm(tc, ta.float(), tb.float())
    # f16 inputs with f32 accumulation, as ours: torch.matmul on f16 (cuBLAS
    # accumulates in f32), then the f32 add of C.
    times = []
    for _ in range(20):
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        r = torch.matmul(ta, tb).float() + tc
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) * 1e3)
    times.sort()
    median = times[len(times) // 2]
    lines.append("cuBLAS (torch.matmul f16 + f32 add of C): %.1f us, %.1f "
                 "TFLOP/s" % (median, 2.0 * M * N * K / (median * 1e-6) / 1e12))
    print(lines[-1])
    with open(os.path.join(out, "split-k.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    {"prepare": prepare, "device": device}[sys.argv[1]]()
