"""The GEMM programs the benchmarks time (bench/gemm, bench/tune) and what
their reports record of the tree they measured."""

import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))

# name: (input element type, accumulator element type)
TYPES = {
    "f16-f32": ("f16", "f32"),
    "f16-f16": ("f16", "f16"),
    "bf16-f32": ("bf16", "f32"),
    "s8-s32": ("i8", "i32"),
}


def matmul_module(m, n, k, input_type, acc_type, transposed_b):
    """C += A B on memrefs (B stored N x K where `transposed_b`)."""
    a = "memref<%dx%dx%s>" % (m, k, input_type)
    b = ("memref<%dx%dx%s>" % (n, k, input_type) if transposed_b
         else "memref<%dx%dx%s>" % (k, n, input_type))
    c = "memref<%dx%dx%s>" % (m, n, acc_type)
    maps = ""
    if transposed_b:
        maps = (" indexing_maps = [affine_map<(m, n, k) -> (m, k)>, "
                "affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]")
    return ("func.func @gemm(%%a: %s, %%b: %s, %%c: %s) {\n"
            "  linalg.matmul%s ins(%%a, %%b : %s, %s) outs(%%c : %s)\n"
            "  return\n}\n" % (a, b, c, maps, a, b, c))


def git_commit():
    """The commit measured, marked where tracked files were changed."""
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain",
                            "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    return commit + ("+uncommitted" if dirty else "")
