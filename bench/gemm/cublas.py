#!/usr/bin/env python3
"""cuBLAS on the benchmark's shapes through PyTorch: warm-up, then the
median of CUDA-event-timed calls. Prints JSON keyed like the kernels.

Usage: cublas.py MANIFEST GLOB REPEAT
"""

import fnmatch
import json
import statistics
import sys

import torch


def time_call(call, repeat):
    for _ in range(3):
        call()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeat):
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        call()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) * 1e-3)
    return statistics.median(times)


def main():
    manifest = json.load(open(sys.argv[1]))
    pattern, repeat = sys.argv[2], int(sys.argv[3])
    results = {}
    for config in manifest["configs"]:
        stem = config["kernel"][: -len(".spv")]
        if not fnmatch.fnmatch(stem, pattern):
            continue
        m, n, k = config["m"], config["n"], config["k"]
        kind = config["type"]
        note = ""
        if kind == "s8-s32":
            a = torch.randint(-128, 127, (m, k), dtype=torch.int8, device="cuda")
            b = torch.randint(-128, 127, (k, n), dtype=torch.int8, device="cuda")
            if config["transposed_b"]:
                b = b.t().contiguous().t()
            call = lambda: torch._int_mm(a, b)
        else:
            dtype = torch.bfloat16 if kind.startswith("bf16") else torch.float16
            a = torch.randn(m, k, dtype=dtype, device="cuda")
            b = torch.randn(k, n, dtype=dtype, device="cuda")
            if config["transposed_b"]:
                b = b.t().contiguous().t()
            call = lambda: torch.matmul(a, b)
            # cuBLAS through torch writes C in the input type and accumulates
            # in f32 for both f16 rows.
            note = "%s out" % ("bf16" if dtype == torch.bfloat16 else "f16")
        try:
            seconds = time_call(call, repeat)
            results[stem] = {"tflops": 2.0 * m * n * k / seconds / 1e12,
                             "note": note}
        except Exception as error:  # report, do not stop the other shapes
            results[stem] = {"error": str(error)}
            print("%s: %s" % (stem, error), file=sys.stderr)
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
