#!/usr/bin/env python3
"""Generates the Vulkan conformance suite: one kernel per case, and a manifest
of sm-vulkan-runner invocations that check each against the CPU reference.

The cases cover every configuration of a target's data file (by default the
H100's): mma and multiply, every row/column-major combination of A, B and
C, strides wider than the matrix and non-zero offsets, workgroup memory for
loads and stores, splat and every scalar op with run-time scalars, signed
and unsigned integers over their full range, and a multi-subgroup tiled
kernel with a K loop. Inputs are random with a fresh seed per run and
outputs are poisoned, so unwritten elements show.

Usage: generate.py DATA_FILE OUT_DIR [--target NAME] [--subgroup N]
                   [--layouts all|cycle]
Writes OUT_DIR/NAME.mlir for every case and OUT_DIR/manifest.txt with one
line per run: NAME|ENTRY|RUNNER ARGUMENTS. --layouts cycle gives each
configuration one mma case, cycling through the 8 layout combinations, and
staging through workgroup memory for every fourth configuration (for suites
with many configurations).
"""

import argparse
import os
import sys

# Data-file spellings -> (dialect component type, memref storage type,
# runner buffer type, bytes per element).
TYPES = {
    "f16": ("f16", "f16", "f16", 2),
    "bf16": ("bf16", "bf16", "bf16", 2),
    "f32": ("f32", "f32", "f32", 4),
    "s8": ("si8", "i8", "i8", 1),
    "u8": ("ui8", "i8", "u8", 1),
    "s32": ("si32", "i32", "i32", 4),
    "u32": ("ui32", "i32", "u32", 4),
}
SUBGROUP = 32
TARGET = "nvidia-h100"


def read_configs(path):
    configs = []
    for line in open(path):
        line = line.split("#")[0].split()
        if len(line) < 7:
            continue
        m, n, k = (int(x) for x in line[:3])
        a, b, c, r = line[3:7]
        saturating = len(line) > 7 and line[7] == "1"
        if a == b and c == r and not saturating:
            configs.append((m, n, k, a, r))
    return configs


def aligned(elements, size):
    """Rounds a count of elements up to a multiple of 16 bytes."""
    per16 = 16 // size
    return (elements + per16 - 1) // per16 * per16


class Layout:
    """Where a rows x cols matrix sits in its buffer."""

    def __init__(self, rows, cols, size, col_major, pad, offset_units):
        self.rows, self.cols, self.col_major = rows, cols, col_major
        minor, major = (rows, cols) if col_major else (cols, rows)
        self.stride = aligned(minor, size) + pad * (16 // size)
        self.offset = offset_units * (16 // size)
        self.major = major
        self.minor = minor
        self.count = self.offset + self.stride * (major - 1) + minor + 16

    def check_keys(self, name):
        keys = ["ld%s=%d" % (name, self.stride), "%s-offset=%d" % (name, self.offset)]
        if self.col_major:
            keys.append("%s-col-major" % name)
        return keys


def mat(kind, rows, cols, t):
    return "!subgroup_matrix.%s<%dx%dx%s>" % (kind, rows, cols, t)


def tile_kernel(name, cfg, la, lb, lc, op, scalars):
    """One subgroup computes D = A * B (+ C), then optional scalar ops."""
    m, n, k, a, r = cfg
    at, ast, _, _ = TYPES[a]
    rt, rst, _, _ = TYPES[r]
    left, right, result = mat("left", m, k, at), mat("right", k, n, at), mat("result", m, n, rt)
    scalar_type = rt if rt in ("f16", "bf16", "f32") else "i32"
    args = ["%%A: memref<?x%s>" % ast, "%%B: memref<?x%s>" % ast,
            "%%C: memref<?x%s>" % rst, "%%D: memref<?x%s>" % rst]
    args += ["%%%s: index" % x for x in ("lda", "ldb", "ldc", "offa", "offb", "offc")]
    args += ["%%s%d: %s" % (i, scalar_type) for i in range(len(scalars))]
    cm = lambda layout: " col_major" if layout.col_major else ""
    body = [
        "%%a = subgroup_matrix.load %%A[%%offa] stride %%lda%s : memref<?x%s> -> %s" % (cm(la), ast, left),
        "%%b = subgroup_matrix.load %%B[%%offb] stride %%ldb%s : memref<?x%s> -> %s" % (cm(lb), ast, right),
    ]
    if op == "mma":
        body.append("%%c = subgroup_matrix.load %%C[%%offc] stride %%ldc%s : memref<?x%s> -> %s" % (cm(lc), rst, result))
        body.append("%%d0 = subgroup_matrix.mma %%a, %%b, %%c : %s, %s -> %s" % (left, right, result))
    elif op == "multiply":
        body.append("%%d0 = subgroup_matrix.multiply %%a, %%b : %s, %s -> %s" % (left, right, result))
    else:  # splat: the accumulator is a splat of the first scalar
        body.append("%%c = subgroup_matrix.splat %%s0 : %s -> %s" % (scalar_type, result))
        body.append("%%d0 = subgroup_matrix.mma %%a, %%b, %%c : %s, %s -> %s" % (left, right, result))
    last = "%d0"
    first_op = 1 if op == "splat" else 0
    for i, (kind, _) in enumerate(scalars[first_op:], start=first_op):
        body.append("%%d%d = subgroup_matrix.scalar_%s %s, %%s%d : %s, %s" % (i + 1, kind, last, i, result, scalar_type))
        last = "%%d%d" % (i + 1)
    body.append("subgroup_matrix.store %s, %%D[%%offc] stride %%ldc%s : %s, memref<?x%s>" % (last, cm(lc), result, rst))
    return kernel_module(name, args, body)


def workgroup_kernel(name, cfg, la, lb, lc):
    """A and B are staged through workgroup memory by all invocations, and D is
    stored to workgroup memory before the invocations copy it out."""
    m, n, k, a, r = cfg
    at, ast, _, _ = TYPES[a]
    rt, rst, _, _ = TYPES[r]
    left, right, result = mat("left", m, k, at), mat("right", k, n, at), mat("result", m, n, rt)
    wg = lambda count, t: "memref<%dx%s, #gpu.address_space<workgroup>>" % (count, t)
    args = ["%%A: memref<?x%s>" % ast, "%%B: memref<?x%s>" % ast,
            "%%C: memref<?x%s>" % rst, "%%D: memref<?x%s>" % rst]
    args += ["%%%s: index" % x for x in ("lda", "ldb", "ldc", "offa", "offb", "offc")]
    cm = lambda layout: " col_major" if layout.col_major else ""

    def copy(src, dst, layout, t_src, t_dst, to_workgroup, tag):
        # Element e of the rows x cols tile: (row, col) = (e / cols, e % cols);
        # global index offset + row*ld + col (or col*ld + row when col-major);
        # workgroup index row*stride + col (or col*stride + row).
        g = "%%%s_g" % tag
        lines = [
            "scf.for %%e = %%tid to %%c%d step %%c%d {" % (layout.rows * layout.cols, SUBGROUP),
            "  %%row = arith.divui %%e, %%c%d : index" % layout.cols,
            "  %%col = arith.remui %%e, %%c%d : index" % layout.cols,
        ]
        if layout.col_major:
            lines += ["  %%gmaj = arith.muli %%col, %%ld%s : index" % tag,
                      "  %gmin = arith.addi %gmaj, %row : index",
                      "  %%wmaj = arith.muli %%col, %%c%d : index" % layout.stride,
                      "  %wi = arith.addi %wmaj, %row : index"]
        else:
            lines += ["  %%gmaj = arith.muli %%row, %%ld%s : index" % tag,
                      "  %gmin = arith.addi %gmaj, %col : index",
                      "  %%wmaj = arith.muli %%row, %%c%d : index" % layout.stride,
                      "  %wi = arith.addi %wmaj, %col : index"]
        lines.append("  %%gi = arith.addi %%gmin, %%off%s : index" % tag)
        if to_workgroup:
            lines += ["  %%v = memref.load %s[%%gi] : memref<?x%s>" % (src, t_src),
                      "  memref.store %%v, %s[%%wi] : %s" % (dst, t_dst)]
        else:
            lines += ["  %%v = memref.load %s[%%wi] : %s" % (src, t_src),
                      "  memref.store %%v, %s[%%gi] : memref<?x%s>" % (dst, t_dst)]
        lines.append("}")
        return lines

    consts = sorted({0, SUBGROUP, la.rows * la.cols, lb.rows * lb.cols, lc.rows * lc.cols,
                     la.cols, lb.cols, lc.cols, la.stride, lb.stride, lc.stride})
    body = ["%%c%d = arith.constant %d : index" % (c, c) for c in consts if c != 0]
    body.append("%tid = gpu.thread_id x")
    wa, wb, wd = wg(la.count, ast), wg(lb.count, ast), wg(lc.count, rst)
    body += copy("%A", "%wa", la, ast, wa, True, "a")
    body += copy("%B", "%wb", lb, ast, wb, True, "b")
    body.append("gpu.barrier")
    body.append("%%a = subgroup_matrix.load %%wa[%%c0] stride %%c%d%s : %s -> %s" % (la.stride, cm(la), wa, left))
    body.append("%%b = subgroup_matrix.load %%wb[%%c0] stride %%c%d%s : %s -> %s" % (lb.stride, cm(lb), wb, right))
    body.append("%%c = subgroup_matrix.load %%C[%%offc] stride %%ldc%s : memref<?x%s> -> %s" % (cm(lc), rst, result))
    body.append("%%d = subgroup_matrix.mma %%a, %%b, %%c : %s, %s -> %s" % (left, right, result))
    body.append("subgroup_matrix.store %%d, %%wd[%%c0] stride %%c%d%s : %s, %s" % (lc.stride, cm(lc), result, wd))
    body.append("gpu.barrier")
    body += copy("%wd", "%D", lc, wd, rst, False, "c")
    body = ["%c0 = arith.constant 0 : index"] + body
    workgroup = "workgroup(%%wa : %s, %%wb : %s, %%wd : %s)" % (wa, wb, wd)
    return kernel_module(name, args, body, workgroup)


def kernel_module(name, args, body, workgroup=""):
    # --target none: no attribute, for the paths with a default target (Metal
    # lowers for what its language expresses).
    attributes = ("" if TARGET == "none" else
                  ' attributes {subgroup_matrix.target = #subgroup_matrix.target<"%s">}' % TARGET)
    lines = ['gpu.module @kernels%s {' % attributes,
             "  gpu.func @%s(%s) %s kernel attributes {known_block_size = array<i32: %d, 1, 1>} {"
             % (name, ", ".join(args), workgroup, SUBGROUP)]
    lines += ["    " + line for line in body]
    lines += ["    gpu.return", "  }", "}"]
    return "\n".join(lines) + "\n"


def tiled_gemm_case(out_dir, example_path, m, n, k):
    """The multi-subgroup example kernel (4 subgroups, 64x16 per workgroup,
    K loop) on a larger problem."""
    name = "tiled_gemm_f16_f32_%dx%dx%d" % (m, n, k)
    with open(example_path) as source:
        text = source.read()
    with open(os.path.join(out_dir, name + ".mlir"), "w") as out:
        out.write(text)
    args = ["--arg f16:%d:random" % (m * k), "--arg f16:%d:random" % (k * n),
            "--arg f32:%d:poison" % (m * n), "--scalar i32:%d" % k,
            "--scalar i32:%d" % k, "--scalar i32:%d" % n, "--scalar i32:%d" % n,
            "--grid %d,%d" % (n // 16, m // 64),
            "--check gemm:M=%d,N=%d,K=%d,A=0,B=1,C=2" % (m, n, k)]
    return "%s|gemm|%s" % (name, " ".join(args))


def robust_cases(out_dir, configs):
    """Kernels lowered with robust-access=1 (their names start with robust_):
    in bounds they compute as usual; a load out of bounds reads zeros (so
    D = 0 * B + C = C) and a store out of bounds leaves D untouched. They
    multiply with the device's f16 -> f32 configuration, 16x16x16 where it
    has one."""
    f16 = [c for c in configs if c[3:] == ("f16", "f32")]
    cfg = (16, 16, 16, "f16", "f32")
    if f16 and cfg not in f16:
        cfg = f16[0]
    m, n, k = cfg[:3]
    la, lb, lc = Layout(m, k, 2, False, 1, 1), Layout(k, n, 2, True, 1, 1), Layout(m, n, 4, False, 1, 1)
    lines = []
    # C and D start equal (one fresh seed, which run-on-device.sh draws for
    # @SEED@), so that D = C after a load out of bounds compares whole
    # buffers.
    buffers = ["--arg f16:%d:random" % la.count, "--arg f16:%d:random" % lb.count,
               "--arg f32:%d:random:@SEED@" % lc.count, "--arg f32:%d:random:@SEED@" % lc.count]
    for case, (offa, offc), checks in [
            ("inbounds", (la.offset, lc.offset),
             "--check gemm:M=%d,N=%d,K=%d,A=0,B=1,C=3,acc=2," % (m, n, k)
             + ",".join(la.check_keys("a") + lb.check_keys("b"))
             + ",ldc=%d,c-offset=%d,ldacc=%d,acc-offset=%d" % (lc.stride, lc.offset, lc.stride, lc.offset)),
            ("load_out_of_bounds", (la.count - 8, lc.offset), "--expect-same 3:2"),
            ("store_out_of_bounds", (la.offset, lc.count - 4), "--expect-same 3:3")]:
        name = "robust_%s" % case
        with open(os.path.join(out_dir, name + ".mlir"), "w") as out:
            out.write(tile_kernel(name, cfg, la, lb, lc, "mma", ()))
        scalars = ["--scalar i32:%d" % v for v in (la.stride, lb.stride, lc.stride, offa, lb.offset, offc)]
        lines.append("%s|%s|%s --append-lengths %s" % (name, name, " ".join(buffers + scalars), checks))
    return lines


def main():
    global SUBGROUP, TARGET
    parser = argparse.ArgumentParser()
    parser.add_argument("data")
    parser.add_argument("out_dir")
    parser.add_argument("--target", default=TARGET,
                        help="preset attached to every case, or none")
    parser.add_argument("--subgroup", type=int, default=SUBGROUP)
    parser.add_argument("--layouts", choices=["all", "cycle"], default="all")
    options = parser.parse_args()
    data, out_dir = options.data, options.out_dir
    SUBGROUP, TARGET = options.subgroup, options.target
    example = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                           "..", "..", "..", "..", "examples", "gemm_f16.mlir")
    os.makedirs(out_dir, exist_ok=True)
    manifest = []

    def add(name, cfg, text, la, lb, lc, op, scalars=()):
        m, n, k, a, r = cfg
        _, _, arun, asize = TYPES[a]
        _, _, rrun, rsize = TYPES[r]
        with open(os.path.join(out_dir, name + ".mlir"), "w") as out:
            out.write(text)
        args = ["--arg %s:%d:random" % (arun, la.count), "--arg %s:%d:random" % (arun, lb.count),
                "--arg %s:%d:random" % (rrun, lc.count), "--arg %s:%d:poison" % (rrun, lc.count)]
        args += ["--scalar i32:%d" % v for v in (la.stride, lb.stride, lc.stride, la.offset, lb.offset, lc.offset)]
        scalar_type = rrun if rrun in ("f16", "bf16", "f32") else "i32"
        args += ["--scalar %s:%g" % (scalar_type, v) for _, v in scalars]
        keys = ["M=%d" % m, "N=%d" % n, "K=%d" % k, "A=0", "B=1", "C=3"]
        keys += la.check_keys("a") + lb.check_keys("b")
        keys += ["ldc=%d" % lc.stride, "c-offset=%d" % lc.offset] + (["c-col-major"] if lc.col_major else [])
        if op == "mma":
            keys += ["acc=2", "ldacc=%d" % lc.stride, "acc-offset=%d" % lc.offset] + (["acc-col-major"] if lc.col_major else [])
        ops = list(scalars)
        if op == "splat":
            keys.append("init=%g" % ops[0][1])
            ops = ops[1:]
        keys += ["%s=%g" % (kind, v) for kind, v in ops]
        args.append("--check gemm:" + ",".join(keys))
        manifest.append("%s|%s|%s" % (name, name, " ".join(args)))

    for index, cfg in enumerate(read_configs(data)):
        m, n, k, a, r = cfg
        asize, rsize = TYPES[a][3], TYPES[r][3]
        base = "%s_%s_%dx%dx%d" % (a, r, m, n, k)
        codes = range(8) if options.layouts == "all" else [index % 8]
        for code in codes:
            cma, cmb, cmc = bool(code & 4), bool(code & 2), bool(code & 1)
            la = Layout(m, k, asize, cma, 1, 2)
            lb = Layout(k, n, asize, cmb, 2, 1)
            lc = Layout(m, n, rsize, cmc, 1, 3)
            tag = "".join("c" if x else "r" for x in (cma, cmb, cmc))
            name = "mma_%s_%s" % (base, tag)
            add(name, cfg, tile_kernel(name, cfg, la, lb, lc, "mma", ()), la, lb, lc, "mma")
        la, lb, lc = Layout(m, k, asize, False, 0, 0), Layout(k, n, asize, False, 0, 0), Layout(m, n, rsize, False, 0, 0)
        name = "multiply_%s" % base
        add(name, cfg, tile_kernel(name, cfg, la, lb, lc, "multiply", ()), la, lb, lc, "multiply")
        # Splat accumulator and every scalar op with run-time scalars.
        integer = r in ("s32", "u32")
        if integer:
            scalars = [("splat", -3 if r == "s32" else 5), ("add", -100000 if r == "s32" else 100000),
                       ("sub", 77), ("mul", -3 if r == "s32" else 3)]
        else:
            scalars = [("splat", 0.25), ("add", 0.5), ("sub", -1.25), ("mul", 2.0), ("div", 4.0)]
        name = "scalar_ops_%s" % base
        la, lb, lc = Layout(m, k, asize, True, 1, 1), Layout(k, n, asize, False, 1, 1), Layout(m, n, rsize, False, 1, 1)
        add(name, cfg, tile_kernel(name, cfg, la, lb, lc, "splat", scalars), la, lb, lc, "splat", scalars)
        if options.layouts == "cycle" and index % 4:
            continue
        # Workgroup memory for A, B and D, with the layouts mixed.
        la, lb, lc = Layout(m, k, asize, False, 1, 0), Layout(k, n, asize, True, 1, 0), Layout(m, n, rsize, True, 1, 0)
        name = "workgroup_%s" % base
        add(name, cfg, workgroup_kernel(name, cfg, la, lb, lc), la, lb, lc, "mma")

    manifest.extend(robust_cases(out_dir, read_configs(data)))
    # The example's tiling assumes subgroups of 32 (the H100's, and Metal's
    # for suites without a target); on other targets sm-tile-matmul's kernels
    # are the tiled ones (see lit tests).
    if TARGET in ("nvidia-h100", "none"):
        manifest.append(tiled_gemm_case(out_dir, example, 256, 128, 256))
    with open(os.path.join(out_dir, "manifest.txt"), "w") as out:
        out.write("\n".join(manifest) + "\n")
    print("%d cases in %s" % (len(manifest), out_dir))


if __name__ == "__main__":
    main()
