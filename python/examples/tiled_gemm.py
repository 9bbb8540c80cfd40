#!/usr/bin/env python3
"""Builds a tiled GEMM (C = A * B) with the kernel builder, for each target
family, and writes its three outputs: Vulkan SPIR-V, Intel SPIR-V and Metal.

Each workgroup of `subgroups` subgroups computes a tile of C; subgroup `sg`
owns a TILE_M x TILE_N tile, walks K in steps of TILE_K and stores its
accumulator once.

Usage: tiled_gemm.py OUT_DIR
"""

import os
import sys

# The package of this checkout (python/), from wherever this runs.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import subgroup_matrix as sm


def tiled_gemm(target, tile, component, accumulator, subgroups, subgroup_size):
    tile_m, tile_n, tile_k = tile
    storage = {"f16": "f16", "f32": "f32"}[component]
    k = sm.KernelBuilder("gemm", target=target,
                         workgroup=(subgroups * subgroup_size, 1, 1))
    A, B = k.buffer("A", storage), k.buffer("B", storage)
    C = k.buffer("C", accumulator)
    K, lda, ldb, ldc = (k.scalar(name) for name in ("K", "lda", "ldb", "ldc"))
    sg, bx, by = k.subgroup_id(), k.block_id("x"), k.block_id("y")
    row = k.add(k.mul(by, subgroups * tile_m), k.mul(sg, tile_m))
    col = k.mul(bx, tile_n)
    zero = k.constant(0, accumulator)
    acc = k.splat(zero, sm.result(tile_m, tile_n, accumulator))
    with k.loop(0, K, tile_k, carried=[acc]) as loop:
        a = k.load(A, k.add(k.mul(row, lda), loop.index), lda,
                   sm.left(tile_m, tile_k, component))
        b = k.load(B, k.add(k.mul(loop.index, ldb), col), ldb,
                   sm.right(tile_k, tile_n, component))
        loop.yield_(k.mma(a, b, loop.carried[0]))
    k.store(loop.results[0], C, k.add(k.mul(row, ldc), col), ldc)
    return k.build()


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(out, exist_ok=True)
    builds = [
        ("vulkan", "nvidia-h100", (16, 16, 16), "f16", "f32", 4, 32, "spirv", "spv"),
        ("intel", "intel-xe-hpc", (8, 16, 16), "f16", "f32", 4, 16, "intel-spirv", "spv"),
        ("metal", "apple-m1", (8, 8, 8), "f32", "f32", 4, 32, "msl", "metal"),
    ]
    for tag, target, tile, component, accumulator, subgroups, size, output, ext in builds:
        module = tiled_gemm(target, tile, component, accumulator, subgroups, size)
        data = sm.compile(module, target=target, output=output)
        path = os.path.join(out, "gemm.%s.%s" % (tag, ext))
        with open(path, "w" if isinstance(data, str) else "wb") as f:
            f.write(data)
        print("%s: %s for %s, %d bytes" % (path, output, target, len(data)))


if __name__ == "__main__":
    main()
