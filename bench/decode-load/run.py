#!/usr/bin/env python3
"""The two lowerings of subgroup_matrix.decode_load, timed side by side.

A product D = A * dequantize(W) (A: M x K f16, W: K x N int8 with an f16
scale per column, D in f32) whose kernel loads every right matrix with
`decode_load`: each subgroup computes a 16 x 64 tile of D, stepping K by 16
with one left matrix loaded from global memory and four decoded right
matrices. Built twice for the H100: as the target lists it (the decode is
VK_NV_cooperative_matrix2's OpCooperativeMatrixLoadTensorNV with a
DecodeFunc) and with nv-coopmat2=false (each invocation decodes its share of
the elements into workgroup memory, barriers around it). The kernel stages
nothing in workgroup memory of its own: it measures the decode, not a GEMM.

  bench/decode-load/run.py stage                 # here: kernels, inputs
  <device> bash bench/decode-load/device.sh      # there: run, time, check
  bench/decode-load/run.py check OUT_DIR         # here or there: outputs

`stage` writes build/bench-decode-load (kernels validated by spirv-val,
fresh random inputs, the runner and the Vulkan loader packages); the device
script runs each kernel once into a poisoned output and then --repeat
times with GPU timestamps; `check` compares each output with a
double-precision reference of the same inputs and prints the table.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
BUILD = os.environ.get("SM_BUILD_DIR", os.path.join(ROOT, "build"))
BIN = os.path.join(BUILD, "bin")
STAGE = os.path.join(BUILD, "bench-decode-load")
SPIRV_VAL = os.path.join(ROOT, ".deps", "spirv", "bin", "spirv-val")
M, N, K = 512, 4096, 4096
TILE_M, TILE_N, STEP = 16, 64, 16
SUBGROUPS = 4
VARIANTS = {"coopmat2": "", "khr": "nv-coopmat2=false"}


def kernel_text():
    """The kernel: subgroup s of workgroup w computes tile 4w + s of D
    (tiles along N first)."""
    tiles_n = N // TILE_N
    lines = [
        'gpu.module @kernels attributes {subgroup_matrix.target = '
        '#subgroup_matrix.target<"nvidia-h100">} {',
        "  gpu.func @decode_product(%%a: memref<%dxf16>, %%w: memref<%dxi8>, "
        "%%scale: memref<%dxf16>, %%d: memref<%dxf32>) kernel attributes "
        "{known_block_size = array<i32: %d, 1, 1>} {" % (
            M * K, K * N, N, M * N, 32 * SUBGROUPS)]
    for c in sorted({0, STEP, K, N, SUBGROUPS, tiles_n, TILE_M, TILE_N}):
        lines.append("    %%c%d = arith.constant %d : index" % (c, c))
    lines += [
        "    %zero = arith.constant 0.0 : f32",
        "    %workgroup = gpu.block_id x",
        "    %subgroup = gpu.subgroup_id : index",
        "    %%first = arith.muli %%workgroup, %%c%d : index" % SUBGROUPS,
        "    %tile = arith.addi %first, %subgroup : index",
        "    %%tile_m = arith.divui %%tile, %%c%d : index" % tiles_n,
        "    %%tile_n = arith.remui %%tile, %%c%d : index" % tiles_n,
        "    %%m0 = arith.muli %%tile_m, %%c%d : index" % TILE_M,
        "    %%n0 = arith.muli %%tile_n, %%c%d : index" % TILE_N,
        "    %init = subgroup_matrix.splat %zero : f32 -> "
        "!subgroup_matrix.result<16x16xf32>"]
    acc = "!subgroup_matrix.result<16x16xf32>"
    lines.append("    %%r:4 = scf.for %%k = %%c0 to %%c%d step %%c%d "
                 "iter_args(%%d0 = %%init, %%d1 = %%init, %%d2 = %%init, "
                 "%%d3 = %%init) -> (%s, %s, %s, %s) {" % (
                     K, STEP, acc, acc, acc, acc))
    lines += [
        "      %%a_row = arith.muli %%m0, %%c%d : index" % K,
        "      %a_at = arith.addi %a_row, %k : index",
        "      %%left = subgroup_matrix.load %%a[%%a_at] stride %%c%d : "
        "memref<%dxf16> -> !subgroup_matrix.left<16x16xf16>" % (K, M * K)]
    for j in range(4):
        lines += [
            "      %%column%d_offset = arith.constant %d : index" % (j, 16 * j),
            "      %%column%d = arith.addi %%n0, %%column%d_offset : index" % (
                j, j),
            "      %%b%d = subgroup_matrix.decode_load [%%k, %%column%d] within "
            "[%%c%d, %%c%d] : !subgroup_matrix.right<16x16xf16> {" % (
                j, j, K, N),
            "      ^bb0(%row: index, %col: index):",
            "        %%start = arith.muli %%row, %%c%d : index" % N,
            "        %at = arith.addi %start, %col : index",
            "        %%byte = memref.load %%w[%%at] : memref<%dxi8>" % (K * N),
            "        %value = arith.sitofp %byte : i8 to f16",
            "        %%s = memref.load %%scale[%%col] : memref<%dxf16>" % N,
            "        %element = arith.mulf %value, %s : f16",
            "        subgroup_matrix.yield %element : f16",
            "      }",
            "      %%e%d = subgroup_matrix.mma %%left, %%b%d, %%d%d : "
            "!subgroup_matrix.left<16x16xf16>, "
            "!subgroup_matrix.right<16x16xf16> -> %s" % (j, j, j, acc)]
    lines.append("      scf.yield %%e0, %%e1, %%e2, %%e3 : %s, %s, %s, %s" % (
        acc, acc, acc, acc))
    lines.append("    }")
    lines += [
        "    %%d_row = arith.muli %%m0, %%c%d : index" % N,
        "    %d_at = arith.addi %d_row, %n0 : index"]
    for j in range(4):
        lines += [
            "    %%o%d_offset = arith.constant %d : index" % (j, 16 * j),
            "    %%o%d = arith.addi %%d_at, %%o%d_offset : index" % (j, j),
            "    subgroup_matrix.store %%r#%d, %%d[%%o%d] stride %%c%d : "
            "%s, memref<%dxf32>" % (j, j, N, acc, M * N)]
    lines += ["    gpu.return", "  }", "}"]
    return "\n".join(lines) + "\n"


def run(argv):
    result = subprocess.run(argv, capture_output=True, text=True)
    if result.returncode:
        sys.exit("failed: %s\n%s" % (" ".join(argv), result.stderr[-2000:]))
    return result.stdout


def stage(_):
    shutil.rmtree(STAGE, ignore_errors=True)
    os.makedirs(STAGE)
    source = os.path.join(STAGE, "decode_product.mlir")
    with open(source, "w") as f:
        f.write(kernel_text())
    for name, options in VARIANTS.items():
        lowered = os.path.join(STAGE, name + ".spirv.mlir")
        binary = os.path.join(STAGE, name + ".spv")
        pipeline = "--sm-lower-to-vulkan" + ("=" + options if options else "")
        run([os.path.join(BIN, "sm-opt"), source, pipeline, "-o", lowered])
        run([os.path.join(BIN, "sm-translate"), "--serialize-spirv", lowered,
             "-o", binary])
        run([SPIRV_VAL, "--target-env", "vulkan1.3", binary])
    rng = np.random.default_rng()
    rng.uniform(-1, 1, M * K).astype(np.float16).tofile(
        os.path.join(STAGE, "a.bin"))
    rng.integers(-128, 128, K * N, dtype=np.int8).tofile(
        os.path.join(STAGE, "w.bin"))
    rng.uniform(0, 1.0 / 64, N).astype(np.float16).tofile(
        os.path.join(STAGE, "scale.bin"))
    shutil.copy(os.path.join(BIN, "sm-vulkan-runner"), STAGE)
    run(["bash", os.path.join(ROOT, "utils", "device-vulkan.sh"), "stage",
         os.path.join(STAGE, "debs")])
    with open(os.path.join(STAGE, "launch.json"), "w") as f:
        json.dump({"m": M, "n": N, "k": K,
                   "workgroups": (M // TILE_M) * (N // TILE_N) // SUBGROUPS,
                   "variants": list(VARIANTS)}, f)
    print("staged %s: %d x %d x %d, variants %s" % (
        STAGE, M, N, K, ", ".join(VARIANTS)))


def check(options):
    out = options.out
    a = np.fromfile(os.path.join(STAGE, "a.bin"), np.float16).astype(
        np.float64).reshape(M, K)
    w = np.fromfile(os.path.join(STAGE, "w.bin"), np.int8).astype(
        np.float64).reshape(K, N)
    scale = np.fromfile(os.path.join(STAGE, "scale.bin"), np.float16)
    # The decode rounds each element to f16 (w * scale, one f16 product).
    b = (w * scale.astype(np.float64)).astype(np.float16).astype(np.float64)
    want = a @ b
    flops = 2.0 * M * N * K
    print("| lowering | check | max error | median us | TFLOP/s |")
    print("| --- | --- | --- | --- | --- |")
    for name in VARIANTS:
        path = os.path.join(out, name + ".out")
        log = open(os.path.join(out, name + ".log")).read()
        got = np.fromfile(path, np.float32).astype(np.float64).reshape(M, N)
        error = np.max(np.abs(got - want) / np.maximum(1.0, np.abs(want)))
        ok = bool(np.all(np.isfinite(got))) and error < 1e-3
        median = re.search(r"median ([0-9.]+) us", log)
        us = float(median.group(1)) if median and ok else None
        print("| %s | %s | %.2g | %s | %s |" % (
            name, "pass" if ok else "FAIL", error,
            "%.1f" % us if us else "-",
            "%.1f" % (flops / us / 1e6) if us else "-"))


def main():
    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("stage")
    c = commands.add_parser("check")
    c.add_argument("out")
    options = parser.parse_args()
    return {"stage": stage, "check": check}[options.command](options)


if __name__ == "__main__":
    sys.exit(main())
