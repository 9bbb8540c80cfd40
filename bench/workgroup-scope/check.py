#!/usr/bin/env python3
"""Checks the outputs of bench/workgroup-scope/device.sh against PyTorch in
f32 (attention) and f64 (GEMM), on the GPU machine.

  check.py attention Q K V OUTPUT...
  check.py gemm A f16 B OUTPUT...
  check.py gemm A int4 PACKED SCALES OUTPUT...
"""

import sys

import numpy as np
import torch

HEADS, SEQ, DIM = 32, 4096, 128
M = N = K = 4096
GROUP = 128


def tensor(path, dtype, shape):
    return torch.from_numpy(np.fromfile(path, dtype).reshape(shape).astype(
        np.float64 if dtype == np.float32 else np.float32)).cuda()


def report(path, error, bad, count):
    print("%s: max error %.3g, %d of %d elements outside tolerance" % (
        path.split("/")[-1], error, bad, count))


def attention(q, k, v, outputs):
    shape = (HEADS, SEQ, DIM)
    q, k, v = (tensor(p, np.float16, shape) for p in (q, k, v))
    reference = torch.nn.functional.scaled_dot_product_attention(q, k, v)
    for path in outputs:
        out = tensor(path, np.float16, shape)
        error = (out - reference).abs()
        bad = (error > 2e-3 + 2e-2 * reference.abs()) | torch.isnan(out)
        report(path, error.max().item(), int(bad.sum()), out.numel())


def gemm(a, kind, rest):
    a = tensor(a, np.float16, (M, K)).double()
    if kind == "f16":
        b = tensor(rest[0], np.float16, (K, N)).double()
        outputs = rest[1:]
    else:
        packed = np.fromfile(rest[0], np.uint8).reshape(K // 2, N).astype(
            np.int32)
        scales = np.fromfile(rest[1], np.float32).reshape(K // GROUP, N)
        nibbles = np.empty((K, N), np.int32)
        nibbles[0::2], nibbles[1::2] = packed & 15, packed >> 4
        decoded = ((nibbles - 8).astype(np.float32) *
                   np.repeat(scales, GROUP, axis=0)).astype(np.float16)
        b = torch.from_numpy(decoded.astype(np.float64)).cuda()
        outputs = rest[2:]
    reference, magnitude = a @ b, a.abs() @ b.abs()
    for path in outputs:
        out = torch.from_numpy(np.fromfile(path, np.float32).reshape(
            M, N).astype(np.float64)).cuda()
        error = (out - reference).abs()
        bad = (error > 1e-3 * magnitude + 1e-3) | torch.isnan(out)
        report(path, error.max().item(), int(bad.sum()), out.numel())


if __name__ == "__main__":
    if sys.argv[1] == "attention":
        attention(*sys.argv[2:5], sys.argv[5:])
    else:
        gemm(sys.argv[2], sys.argv[3], sys.argv[4:])
