#!/usr/bin/env python3
"""Runs the Vulkan tiled GEMM that tiled_gemm.py wrote on a Vulkan device
with subgroup size 32 (an NVIDIA GPU), for several sizes, and checks every
element of C against the runner's double-precision reference on fresh
random inputs, with C poisoned first.

Needs only sm-vulkan-runner, not the C API library, so it runs on GPU
machines that have no LLVM.

Usage: check_gemm_vulkan.py gemm.vulkan.spv [MxNxK ...]
"""

import os
import sys

# The package of this checkout (python/), from wherever this runs.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import subgroup_matrix as sm

TILE_M, TILE_N, SUBGROUPS = 16, 16, 4


def check(spirv, m, n, k, repeat=5):
    return sm.run_vulkan(
        spirv,
        [sm.Buffer("f16", m * k), sm.Buffer("f16", k * n),
         sm.Buffer("f32", m * n, "poison")]
        + [sm.Scalar("i32", v) for v in (k, k, n, n)],
        grid=(n // TILE_N, m // (SUBGROUPS * TILE_M), 1),
        checks=["gemm:M=%d,N=%d,K=%d,A=0,B=1,C=2,lda=%d,ldb=%d,ldc=%d"
                % (m, n, k, k, n, n)],
        extra=["--repeat", str(repeat)])


def main():
    spirv = open(sys.argv[1], "rb").read()
    sizes = sys.argv[2:] or ["64x64x64", "128x256x512", "1024x1024x1024"]
    failures = 0
    for size in sizes:
        m, n, k = (int(x) for x in size.split("x"))
        passed, report = check(spirv, m, n, k)
        failures += not passed
        print("== %s: %s\n%s" % (size, "PASSED" if passed else "FAILED", report))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
