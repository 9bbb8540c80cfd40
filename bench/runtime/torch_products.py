#!/usr/bin/env python3
"""How much of PyTorch eager's Llama-7B layer (512 tokens, f16) its seven
projections take: each F.linear of the layer alone, on fresh random inputs,
timed with CUDA events like torch_peer.py, then the whole MLP and attention
blocks' products summed. Prints one line per product and the sum, so that
a run can put our products (sm-plan-runner's per-kernel times of the same
layer) beside cuBLAS's.

  python3 bench/runtime/torch_products.py [REPEAT]
"""

import sys

import torch

TOKENS, HIDDEN, MLP = 512, 4096, 11008
# (name, inputs, outputs): the layer's projections in order.
PRODUCTS = [("q", HIDDEN, HIDDEN), ("k", HIDDEN, HIDDEN), ("v", HIDDEN, HIDDEN),
            ("o", HIDDEN, HIDDEN), ("gate", HIDDEN, MLP), ("up", HIDDEN, MLP),
            ("down", MLP, HIDDEN)]


def time_linear(x, w, repeat):
    for _ in range(3):
        torch.nn.functional.linear(x, w)
    torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(repeat):
        torch.nn.functional.linear(x, w)
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) * 1000.0 / repeat


def main():
    repeat = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    total = 0.0
    for name, inputs, outputs in PRODUCTS:
        x = torch.rand(TOKENS, inputs, device="cuda", dtype=torch.float16)
        w = torch.rand(outputs, inputs, device="cuda",
                       dtype=torch.float16) * 0.1 - 0.05
        # Checked against a float64 product so that the figure is of a
        # product that computed the right thing.
        result = torch.nn.functional.linear(x, w).double()
        reference = x.double() @ w.double().t()
        error = ((result - reference).abs() /
                 reference.abs().clamp(min=1)).max().item()
        if error > 2e-3:
            print("%s: max error %.2e, not timed" % (name, error))
            continue
        microseconds = time_linear(x, w, repeat)
        total += microseconds
        flops = 2.0 * TOKENS * inputs * outputs
        print("%-5s %5d x %5d x %5d  %7.1f us  %6.1f TFLOP/s  max error %.1e"
              % (name, TOKENS, outputs, inputs, microseconds,
                 flops / microseconds / 1e6, error))
    print("products summed: %.1f us" % total)


if __name__ == "__main__":
    main()
