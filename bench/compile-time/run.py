#!/usr/bin/env python3
"""Compile time of the Vulkan lowering against upstream MLIR's.

Times `sm-opt --sm-lower-to-vulkan` on modules of 1k, 10k and 100k
subgroup-matrix ops against `mlir-opt --convert-gpu-to-spirv` on the same
kernels written with `gpu.subgroup_mma_*` ops: same machine, same run,
medians of several repetitions. Each kernel function holds a chain of
load, load, multiply-accumulate and one store; functions have about 1000
ops each, as a graph compiler's output would have many kernels.

Runs alternate between the two tools; modules under 10k ops get up to ten
times more runs, as their times are a few tens of milliseconds.

Usage: run.py [--repeat N] [--sizes 1000,10000,100000] [--no-verify]
       (SM_BUILD_DIR, MLIR_OPT override the tools)
"""

import argparse
import os
import statistics
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("SM_BUILD_DIR", os.path.join(ROOT, "build"))
SM_OPT = os.path.join(BUILD, "bin", "sm-opt")
MLIR_OPT = os.environ.get("MLIR_OPT", "/usr/lib/llvm-22/bin/mlir-opt")
OPS_PER_FUNCTION = 1000
ELEMENTS = 4096


def chain(function_ops):
    """How many multiply-accumulates a function of about `function_ops`
    matrix ops has: 1 load of C + 3 per step + 1 store."""
    return max(1, (function_ops - 2) // 3)


def ours(total_ops):
    memref_f16, memref_f32 = "memref<%dxf16>" % ELEMENTS, "memref<%dxf32>" % ELEMENTS
    left, right = "!subgroup_matrix.left<16x16xf16>", "!subgroup_matrix.right<16x16xf16>"
    result = "!subgroup_matrix.result<16x16xf32>"
    lines = ['gpu.module @kernels attributes {subgroup_matrix.target = '
             '#subgroup_matrix.target<"nvidia-h100">} {']
    ops, index = 0, 0
    while ops < total_ops:
        steps = chain(min(OPS_PER_FUNCTION, total_ops - ops))
        lines.append("  gpu.func @k%d(%%A: %s, %%B: %s, %%C: %s) kernel attributes "
                     "{known_block_size = array<i32: 32, 1, 1>} {"
                     % (index, memref_f16, memref_f16, memref_f32))
        lines.append("    %o = arith.constant 0 : index")
        lines.append("    %s = arith.constant 16 : index")
        lines.append("    %%c0 = subgroup_matrix.load %%C[%%o] stride %%s : %s -> %s"
                     % (memref_f32, result))
        for step in range(steps):
            lines.append("    %%a%d = subgroup_matrix.load %%A[%%o] stride %%s : %s -> %s"
                         % (step, memref_f16, left))
            lines.append("    %%b%d = subgroup_matrix.load %%B[%%o] stride %%s : %s -> %s"
                         % (step, memref_f16, right))
            lines.append("    %%c%d = subgroup_matrix.mma %%a%d, %%b%d, %%c%d : %s, %s -> %s"
                         % (step + 1, step, step, step, left, right, result))
        lines.append("    subgroup_matrix.store %%c%d, %%C[%%o] stride %%s : %s, %s"
                     % (steps, result, memref_f32))
        lines.append("    gpu.return\n  }")
        ops += 3 * steps + 2
        index += 1
    lines.append("}")
    return "\n".join(lines) + "\n", ops


def upstream(total_ops):
    storage = "#spirv.storage_class<StorageBuffer>"
    memref_f16 = "memref<%dxf16, %s>" % (ELEMENTS, storage)
    memref_f32 = "memref<%dxf32, %s>" % (ELEMENTS, storage)
    a, b = '!gpu.mma_matrix<16x16xf16, "AOp">', '!gpu.mma_matrix<16x16xf16, "BOp">'
    c = '!gpu.mma_matrix<16x16xf32, "COp">'
    lines = ["module attributes {gpu.container_module, spirv.target_env = "
             "#spirv.target_env<#spirv.vce<v1.6, [Shader, CooperativeMatrixKHR, "
             "Float16, StorageBuffer16BitAccess], [SPV_KHR_storage_buffer_storage_class, "
             "SPV_KHR_cooperative_matrix, SPV_KHR_16bit_storage]>, "
             "#spirv.resource_limits<>>} {", "gpu.module @kernels {"]
    ops, index = 0, 0
    while ops < total_ops:
        steps = chain(min(OPS_PER_FUNCTION, total_ops - ops))
        lines.append("  gpu.func @k%d(%%A: %s, %%B: %s, %%C: %s) kernel attributes "
                     "{spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size "
                     "= [32, 1, 1]>} {" % (index, memref_f16, memref_f16, memref_f32))
        lines.append("    %o = arith.constant 0 : index")
        lines.append("    %%c0 = gpu.subgroup_mma_load_matrix %%C[%%o] {leadDimension = "
                     "16 : index} : %s -> %s" % (memref_f32, c))
        for step in range(steps):
            lines.append("    %%a%d = gpu.subgroup_mma_load_matrix %%A[%%o] "
                         "{leadDimension = 16 : index} : %s -> %s" % (step, memref_f16, a))
            lines.append("    %%b%d = gpu.subgroup_mma_load_matrix %%B[%%o] "
                         "{leadDimension = 16 : index} : %s -> %s" % (step, memref_f16, b))
            lines.append("    %%c%d = gpu.subgroup_mma_compute %%a%d, %%b%d, %%c%d : "
                         "%s, %s -> %s" % (step + 1, step, step, step, a, b, c))
        lines.append("    gpu.subgroup_mma_store_matrix %%c%d, %%C[%%o] {leadDimension = "
                     "16 : index} : %s, %s" % (steps, c, memref_f32))
        lines.append("    gpu.return\n  }")
        ops += 3 * steps + 2
        index += 1
    lines += ["}", "}"]
    return "\n".join(lines) + "\n", ops


def run_once(argv):
    start = time.perf_counter()
    completed = subprocess.run(argv, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    if completed.returncode != 0:
        raise SystemExit("%s failed:\n%s" % (" ".join(argv), completed.stderr[-2000:]))
    return elapsed


def time_tools(first, second, repeat):
    """Medians of `repeat` runs of each, alternating between the two so that
    a change in the machine's load affects both alike."""
    times = ([], [])
    for _ in range(repeat):
        times[0].append(run_once(first))
        times[1].append(run_once(second))
    return statistics.median(times[0]), statistics.median(times[1])


def check_lowered(argv, marker):
    """Both sides must really produce cooperative-matrix SPIR-V."""
    completed = subprocess.run(argv, capture_output=True, text=True, check=True)
    count = completed.stdout.count(marker)
    if count == 0:
        raise SystemExit("%s produced no %s" % (argv[0], marker))
    return count


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--no-verify", action="store_true",
                        help="pass --verify-each=0 to both tools (no "
                        "verification between passes)")
    options = parser.parse_args()
    print("sm-opt: %s\nmlir-opt: %s\nmedian of %d runs (wall time, parse to print)\n"
          % (SM_OPT, MLIR_OPT, options.repeat))
    print("%8s  %12s  %12s  %7s  %14s  %14s" % ("ops", "sm-opt s", "mlir-opt s",
                                                 "ratio", "sm-opt us/op",
                                                 "mlir-opt us/op"))
    with tempfile.TemporaryDirectory() as work:
        for size in (int(s) for s in options.sizes.split(",")):
            ours_text, ours_ops = ours(size)
            theirs_text, theirs_ops = upstream(size)
            assert ours_ops == theirs_ops
            ours_path = os.path.join(work, "ours-%d.mlir" % size)
            theirs_path = os.path.join(work, "upstream-%d.mlir" % size)
            open(ours_path, "w").write(ours_text)
            open(theirs_path, "w").write(theirs_text)
            ours_argv = [SM_OPT, ours_path, "--sm-lower-to-vulkan"]
            theirs_argv = [MLIR_OPT, theirs_path, "--convert-gpu-to-spirv"]
            if options.no_verify:
                ours_argv.append("--verify-each=0")
                theirs_argv.append("--verify-each=0")
            mma = "spirv.KHR.CooperativeMatrixMulAdd"
            if check_lowered(ours_argv, mma) != check_lowered(theirs_argv, mma):
                raise SystemExit("the two lowerings differ in multiply-adds")
            # Small modules take milliseconds: more runs for a stable median.
            repeat = options.repeat * max(1, min(10, 10000 // size))
            ours_time, theirs_time = time_tools(ours_argv, theirs_argv, repeat)
            print("%8d  %12.3f  %12.3f  %7.2f  %14.2f  %14.2f" % (
                ours_ops, ours_time, theirs_time, ours_time / theirs_time,
                1e6 * ours_time / ours_ops, 1e6 * theirs_time / ours_ops))


if __name__ == "__main__":
    main()
