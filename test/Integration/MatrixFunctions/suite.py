#!/usr/bin/env python3
"""The execution suite of convert, map and reduce.

  suite.py generate TARGET OUT_DIR [--kernel-target NAME] [--beyond NAME]
      writes one kernel per case (OUT_DIR/NAME.mlir) and OUT_DIR/cases.json;
      with --kernel-target, TARGET's cases as kernels for that target (the
      H100's cases emulated on cpu-lavapipe); with --beyond, only the cases
      that target's suite lacks;
  suite.py run [--prebuilt] [--only TEXT] [--runner-arg ARG...]
               {vulkan,intel,msl} OUT_DIR TOOLS_DIR
      builds each case for the path (Vulkan: sm-opt --sm-lower-to-vulkan,
      sm-translate --serialize-spirv, spirv-val where it can read the types;
      Intel: sm-lower-to-intel and --emit-intel-host-llvm; Metal: --emit-msl),
      runs it with the path's runner on fresh random inputs and a poisoned
      output, and compares the output with a reference computed here, in
      double precision, from the same inputs. Prints one line per case and
      "N passed, N failed".

Every kernel runs two workgroups of two subgroups; subgroup s of workgroup w
works on tile 2w + s of each buffer, so the scratch tiles of different
subgroups (Vulkan) and the per-subgroup layouts are both exercised. The
cases cover each op on every component type the target accepts, several
shapes, and the chains a softmax and an epilogue need (the attention
kernel of the cooperative matrix 2 proposal: multiply, row max, map with
exp, row sum, divide, convert to left, multiply).
"""

import argparse
import json
import math
import os
import random
import sys

# The test library (test/lib), also when run by hand.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, os.pardir, "lib"))

from sm_testing.cli import add_suite_commands, is_selected, run_and_report
from sm_testing.elements import (COMPONENTS, EitherRounding, draw, pack,
                                 round_bf16, round_f16, round_f32,
                                 to_component, unpack, wrap)
from sm_testing.scalar_bodies import GELU_ERF
from sm_testing.tools import run_steps, run_tool

# The matrix types each target accepts, as (kind, rows, columns, component).
TARGETS = {
    "nvidia-h100": dict(subgroup=32, types=[
        ("result", 16, 16, "f32"), ("result", 16, 16, "f16"),
        ("result", 16, 8, "f32"), ("result", 16, 8, "f16"),
        ("result", 16, 16, "si32"), ("result", 16, 16, "ui32"),
        ("left", 16, 16, "f16"), ("right", 16, 16, "f16"),
        ("left", 16, 32, "si8"), ("left", 16, 32, "ui8"),
        ("right", 32, 16, "si8"), ("left", 16, 16, "bf16"),
        ("right", 16, 16, "bf16")]),
    # The H100's flexible dimensions (multiples of 16x16x16, 16x16x32 for
    # 8-bit integers, up to 1024), each a single cooperative matrix;
    # generated with --kernel-target nvidia-h100.
    "nvidia-h100-flexible": dict(subgroup=32, types=[
        ("result", 32, 32, "f32"), ("result", 32, 32, "f16"),
        ("result", 48, 16, "f32"), ("result", 16, 64, "f32"),
        ("result", 32, 32, "si32"),
        ("left", 32, 32, "f16"), ("right", 32, 32, "f16"),
        ("left", 48, 16, "f16"), ("right", 16, 16, "f16"),
        ("left", 32, 32, "bf16"), ("right", 32, 32, "bf16"),
        ("left", 32, 64, "si8"), ("right", 64, 32, "si8")],
        multiplies=True,
        blocks2x2=[(("result", 32, 32, "f32"), ("result", 16, 16, "f32")),
                   (("result", 32, 32, "f16"), ("result", 16, 16, "f16")),
                   (("result", 32, 32, "si32"), ("result", 16, 16, "si32")),
                   # Emulated (subgroups of 32), a result narrower than the
                   # subgroup: its blocks take reduceByLines' path.
                   (("result", 32, 16, "f32"), ("result", 16, 8, "f32"))]),
    # The H100's workgroup-scope matrices (VK_NV_cooperative_matrix2): held
    # by a workgroup of 128 invocations, multiples of 32x16x16 (32x16x32 for
    # 8-bit integers); one tile per workgroup; generated with
    # --kernel-target nvidia-h100.
    "nvidia-h100-workgroup": dict(subgroup=32, workgroup=128, types=[
        ("result", 64, 32, "f32"), ("result", 64, 32, "f16"),
        ("result", 32, 32, "f32"), ("result", 32, 32, "si32"),
        ("left", 64, 32, "f16"), ("right", 32, 32, "f16"),
        ("left", 32, 32, "f16"), ("left", 64, 32, "bf16"),
        ("right", 32, 32, "bf16"), ("left", 32, 64, "si8"),
        ("right", 64, 32, "si8")],
        map_shapes=[(64, 32), (32, 32)], multiplies=True,
        blocks2x2=[(("result", 64, 64, "f32"), ("result", 32, 32, "f32")),
                   (("result", 64, 64, "si32"), ("result", 32, 32, "si32"))]),
    "amd-rdna3": dict(subgroup=32, types=[
        ("result", 16, 16, "f32"), ("result", 16, 16, "f16"),
        ("result", 16, 16, "si32"), ("result", 16, 16, "ui32"),
        ("left", 16, 16, "f16"), ("right", 16, 16, "f16"),
        ("left", 16, 16, "si8"), ("left", 16, 16, "ui8"),
        ("right", 16, 16, "si8")]),
    # Intel: chunks of 8 rows (M = 16), two tiles of columns (N = 32),
    # VNNI-packed right matrices, tf32 left matrices whose rows are spread
    # over invocations (K = 8 < 16), and M = 1.
    "intel-xe-hpc": dict(subgroup=16, types=[
        ("result", 8, 16, "f32"), ("result", 16, 16, "f32"),
        ("result", 8, 32, "f32"), ("result", 16, 16, "f16"),
        ("result", 8, 16, "si32"), ("result", 8, 16, "ui32"),
        ("result", 1, 16, "f32"),
        ("left", 8, 16, "f16"), ("left", 16, 16, "f16"),
        ("left", 1, 16, "f16"), ("right", 16, 16, "f16"),
        ("right", 16, 32, "f16"), ("left", 8, 32, "si8"),
        ("right", 32, 16, "si8"), ("left", 8, 16, "bf16"),
        ("left", 8, 8, "f32"), ("left", 16, 8, "f32"),
        ("right", 8, 16, "f32")],
        blocks2x2=[(("result", 16, 32, "f32"), ("result", 8, 16, "f32"))]),
    # Xe-HPG's subgroups of 8: left f16 packs two columns per invocation,
    # so a result becomes a left matrix by shuffles.
    "intel-xe-hpg": dict(subgroup=8, types=[
        ("result", 8, 8, "f32"), ("result", 8, 16, "f32"),
        ("result", 16, 8, "f32"), ("result", 8, 8, "si32"),
        ("left", 8, 16, "f16"), ("right", 16, 8, "f16"),
        ("right", 16, 16, "f16"), ("left", 8, 32, "si8"),
        ("right", 32, 8, "si8"), ("left", 8, 16, "bf16")],
        blocks2x2=[(("result", 16, 16, "f32"), ("result", 8, 8, "f32"))]),
    # Emulated matrices on Mesa's lavapipe (subgroups of 8): every kind in
    # every component type, tiles of subgroup-wide columns (16 = 2 x 8) and
    # one column per invocation (8).
    "cpu-lavapipe": dict(subgroup=8, types=[
        ("result", 16, 16, "f32"), ("result", 16, 16, "f16"),
        ("result", 8, 16, "f32"), ("result", 16, 8, "f32"),
        ("result", 8, 8, "f32"), ("result", 8, 8, "f16"),
        ("result", 16, 16, "si32"), ("result", 16, 16, "ui32"),
        ("result", 16, 16, "bf16"),
        ("left", 16, 16, "f16"), ("right", 16, 16, "f16"),
        ("left", 16, 16, "bf16"), ("right", 16, 16, "bf16"),
        ("left", 16, 16, "f32"), ("left", 16, 32, "si8"),
        ("left", 16, 32, "ui8"), ("right", 32, 16, "si8"),
        ("left", 8, 8, "f16")],
        blocks2x2=[(("result", 16, 16, "f32"), ("result", 8, 8, "f32")),
                   (("result", 16, 16, "f16"), ("result", 8, 8, "f16")),
                   (("result", 16, 16, "bf16"), ("result", 8, 8, "bf16")),
                   (("result", 16, 16, "si32"), ("result", 8, 8, "si32")),
                   (("result", 32, 16, "f32"), ("result", 16, 8, "f32"))]),
    # Mesa 26's lavapipe with its native KHR matrices: 8x8x8 only, f16 into
    # f16 or f32 and 8-bit integers into 32-bit ones.
    "cpu-lavapipe-coopmat": dict(subgroup=8, types=[
        ("result", 8, 8, "f32"), ("result", 8, 8, "f16"),
        ("result", 8, 8, "si32"), ("result", 8, 8, "ui32"),
        ("left", 8, 8, "f16"), ("right", 8, 8, "f16"),
        ("left", 8, 8, "si8"), ("right", 8, 8, "si8"),
        ("left", 8, 8, "ui8"), ("right", 8, 8, "ui8")]),
    # The same lavapipe's flexible dimensions (VK_NV_cooperative_matrix2):
    # multiples of 8x8x8, each a single cooperative matrix; generated with
    # --kernel-target cpu-lavapipe-coopmat. Unsigned 8-bit operands: the
    # signed conversions meet the driver defect of lavapipe-coopmat.test.
    "cpu-lavapipe-coopmat-flexible": dict(subgroup=8, types=[
        ("result", 16, 16, "f32"), ("result", 16, 16, "f16"),
        ("result", 24, 8, "f32"), ("result", 8, 32, "f32"),
        ("result", 16, 16, "ui32"),
        ("left", 16, 16, "f16"), ("right", 16, 16, "f16"),
        ("left", 16, 32, "ui8"), ("right", 32, 16, "ui8"),
        ("left", 24, 16, "f16"), ("right", 16, 8, "f16")],
        multiplies=True,
        blocks2x2=[(("result", 16, 16, "f32"), ("result", 8, 8, "f32")),
                   (("result", 16, 16, "f16"), ("result", 8, 8, "f16")),
                   (("result", 16, 16, "ui32"), ("result", 8, 8, "ui32"))]),
    "apple-m1": dict(subgroup=32, types=[
        ("result", 8, 8, "f32"), ("result", 16, 16, "f32"),
        ("result", 8, 8, "f16"), ("left", 8, 8, "f16"), ("right", 8, 8, "f16"),
        ("left", 16, 16, "f32")],
        blocks2x2=[(("result", 16, 16, "f32"), ("result", 8, 8, "f32"))]),
}

TILES_PER_SUBGROUP_GRID = (2, 2)  # (workgroups, subgroups per workgroup)

# ", workgroup" while the cases of a workgroup-scope target are written
# (cases_for), else empty: every matrix type of a case has its target's
# scope.
TYPE_SCOPE_SUFFIX = ""


def type_name(kind, rows, columns, component):
    return "!subgroup_matrix.%s<%dx%dx%s%s>" % (
        kind, rows, columns, component, TYPE_SCOPE_SUFFIX)


def tile_grid(target, kernel_target=None):
    """(workgroups, tiles per workgroup, invocations per workgroup) of the
    cases of `target` written as kernels for `kernel_target` (the same by
    default): a tile per subgroup of the kernel target's size, or a tile per
    workgroup where the cases' matrices are of workgroup scope. Four tiles
    either way."""
    workgroups, subgroups = TILES_PER_SUBGROUP_GRID
    invocations = TARGETS[target].get("workgroup")
    if invocations:
        return workgroups * subgroups, 1, invocations
    subgroup = TARGETS[kernel_target or target]["subgroup"]
    return workgroups, subgroups, subgroups * subgroup


class Case:
    """One kernel: its inputs (matrix types and value distributions), its
    body (MLIR between the loads and the store) and its reference.

    `bounded_load` ("row" or "col") loads the first input with bounds
    (column-major: its tile read as the transpose, stride = rows);
    `bounded_store` stores the output with bounds. The bounds depend on the
    tile (bounds_of): tile 0 is whole, the others are cut, down to nothing."""

    def __init__(self, name, inputs, output, body, reference, tolerance=0.0,
                 bounded_load=None, bounded_store=False, buffers=None,
                 constants=(), scalars=()):
        self.name, self.inputs, self.output = name, inputs, output
        self.body, self.reference, self.tolerance = body, reference, tolerance
        self.bounded_load, self.bounded_store = bounded_load, bounded_store
        # A decode case reads whole buffers (component, elements,
        # distribution) instead of one matrix per input; its body decodes
        # the output from them, and its reference takes every buffer and
        # the tile; `constants` are the index constants it uses.
        self.buffers = buffers
        self.constants = constants
        # Scalar arguments after the buffers: (name, MLIR type, runner
        # type, value).
        self.scalars = scalars


def bounds_of(tile, rows, columns):
    """The (rows, columns) bounds of tile `tile` in the bounded cases: the
    whole matrix (and more) for tile 0, fewer rows and columns for the next
    ones, none at all once they go below zero."""
    return rows - 3 * tile, columns + 4 - 5 * tile


def decode_bounds_of(tile, rows, columns):
    """The (rows, columns) of the tensor from which tile `tile` of the
    decode cases is decoded: all tiles' rows but the last three, and columns
    that shrink by three from tile to tile, from two more than a tile has."""
    workgroups, subgroups = TILES_PER_SUBGROUP_GRID
    return workgroups * subgroups * rows - 3, columns + 2 - 3 * tile


# What a bounded store leaves outside its bounds: the runner's poison (every
# byte 0xFF).
UNTOUCHED = object()


def kernel_text(case, target, grid):
    """The kernel of `case` for `target`, its tiles laid out as `grid`
    (tile_grid of the cases' target)."""
    workgroups, subgroups, invocations = grid
    args, loads = [], []

    def bounds(rows, columns):
        # bounds_of, computed from the tile index in the kernel.
        return ("    %%brows = arith.constant %d : index\n"
                "    %%bcols = arith.constant %d : index\n"
                "    %%b3 = arith.constant 3 : index\n"
                "    %%b5 = arith.constant 5 : index\n"
                "    %%bt3 = arith.muli %%tile, %%b3 : index\n"
                "    %%bt5 = arith.muli %%tile, %%b5 : index\n"
                "    %%bound_rows = arith.subi %%brows, %%bt3 : index\n"
                "    %%bound_cols = arith.subi %%bcols, %%bt5 : index" % (
                    rows, columns + 4))
    for i, (component, elements, _) in enumerate(case.buffers or []):
        args.append("%%in%d: memref<%dx%s>" % (
            i, elements, COMPONENTS[component][0]))
    for name, mlir_type, _, _ in case.scalars:
        args.append("%%%s: %s" % (name, mlir_type))
    for i, (matrix, _) in enumerate(case.inputs):
        kind, rows, columns, component = matrix
        storage = COMPONENTS[component][0]
        args.append("%%in%d: memref<%dx%s>" % (
            i, workgroups * subgroups * rows * columns, storage))
        layout = ""
        stride = columns
        if i == 0 and case.bounded_load:
            loads.append(bounds(rows, columns))
            layout = " bounds [%bound_rows, %bound_cols]"
            if case.bounded_load == "col":
                layout = " col_major" + layout
                stride = rows
        loads.append(
            "    %%off%d = arith.muli %%tile, %%c%d : index\n"
            "    %%x%d = subgroup_matrix.load %%in%d[%%off%d] stride %%c%d%s "
            ": memref<%dx%s> -> %s" % (
                i, rows * columns, i, i, i, stride, layout,
                workgroups * subgroups * rows * columns, storage,
                type_name(*matrix)))
    kind, rows, columns, component = case.output
    storage = COMPONENTS[component][0]
    out_elements = workgroups * subgroups * rows * columns
    args.append("%%out: memref<%dx%s>" % (out_elements, storage))
    constants = sorted({m[0][1] * m[0][2] for m in case.inputs} |
                       {rows} |
                       {m[0][2] for m in case.inputs} |
                       {m[0][1] for m in case.inputs} |
                       {rows * columns, columns, subgroups} |
                       set(case.constants))
    lines = ["gpu.module @kernels attributes {subgroup_matrix.target = "
             "#subgroup_matrix.target<\"%s\">} {" % target,
             "  gpu.func @%s(%s) kernel attributes {known_block_size = "
             "array<i32: %d, 1, 1>} {" % (case.name, ", ".join(args),
                                          invocations)]
    lines += ["    %%c%d = arith.constant %d : index" % (c, c)
              for c in constants]
    lines += ["    %workgroup = gpu.block_id x"]
    if subgroups == 1:
        # The workgroup's matrices: one tile per workgroup.
        lines += ["    %tile = arith.muli %workgroup, %c1 : index"]
    else:
        lines += ["    %subgroup = gpu.subgroup_id : index",
                  "    %%first = arith.muli %%workgroup, %%c%d : index"
                  % subgroups,
                  "    %tile = arith.addi %first, %subgroup : index"]
    lines += loads
    if case.buffers:
        # decode_bounds_of, computed from the tile index in the kernel.
        decoded_rows, decoded_columns = decode_bounds_of(0, rows, columns)
        lines += ["    %%decoded_rows = arith.constant %d : index" % decoded_rows,
                  "    %%dcols = arith.constant %d : index" % decoded_columns,
                  "    %d3 = arith.constant 3 : index",
                  "    %dt3 = arith.muli %tile, %d3 : index",
                  "    %decoded_cols = arith.subi %dcols, %dt3 : index"]
    lines += ["    " + l for l in case.body.strip().splitlines()]
    store_bounds = ""
    if case.bounded_store:
        lines += bounds(rows, columns).splitlines()
        store_bounds = " bounds [%bound_rows, %bound_cols]"
    lines += ["    %%outoff = arith.muli %%tile, %%c%d : index" % (rows * columns),
              "    subgroup_matrix.store %%%s, %%out[%%outoff] stride %%c%d%s : "
              "%s, memref<%dx%s>" % (
                  # A case without a body stores what it loaded.
                  "y" if case.body.strip() else "x0", columns, store_bounds,
                                     type_name(*case.output), out_elements,
                                     storage),
              "    gpu.return", "  }", "}"]
    return "\n".join(lines) + "\n"


# --- cases -----------------------------------------------------------------

def elementwise(fn):
    """A reference applying fn(row, column, *elements) to each position."""
    def reference(inputs, rows, columns):
        return [fn(i // columns, i % columns, *(x[i] for x in inputs))
                for i in range(rows * columns)]
    return reference


def reduced(kind, component, values):
    """`values` combined by a reduction of `kind`, exactly (integers then
    wrap to the component)."""
    combine = {"add": lambda a, b: a + b, "mul": lambda a, b: a * b,
               "max": max, "min": min}[kind]
    total = values[0]
    for v in values[1:]:
        total = combine(total, v)
    return total if component in ("f16", "bf16", "f32") \
        else wrap(total, component)


def reduction(kind, dims, component):
    def reference(inputs, rows, columns):
        x = inputs[0]
        out = []
        for i in range(rows * columns):
            r, c = divmod(i, columns)
            if dims == "rows":
                line = [x[r * columns + j] for j in range(columns)]
            elif dims == "columns":
                line = [x[j * columns + c] for j in range(rows)]
            else:
                line = x[:rows * columns]
            out.append(reduced(kind, component, line))
        return out
    return reference


def block_reduction(kind, component):
    """The reference of `reduce KIND blocks2x2`: element [i, j] combines the
    operand's 2x2 block at rows 2i, 2i+1 and columns 2j, 2j+1."""
    def reference(inputs, rows, columns):
        x, width = inputs[0], 2 * columns
        return [reduced(kind, component,
                        [x[(2 * i + di) * width + 2 * j + dj]
                         for di in (0, 1) for dj in (0, 1)])
                for i in range(rows) for j in range(columns)]
    return reference


def cases_for(target):
    global TYPE_SCOPE_SUFFIX
    TYPE_SCOPE_SUFFIX = ", workgroup" if TARGETS[target].get("workgroup") \
        else ""
    types = TARGETS[target]["types"]
    have = lambda t: t in types  # noqa: E731
    cases = []
    unit = (-1.0, 1.0)

    # Workgroup-scope matrices have VK_NV_cooperative_matrix2's reductions
    # and changes of kind only, which work on result matrices.
    workgroup = bool(TARGETS[target].get("workgroup"))
    # convert: every pair of accepted types of one shape whose conversion
    # exists (no float -> integer).
    for source in types:
        for result in types:
            if source == result or source[1:3] != result[1:3]:
                continue
            if workgroup and source[0] != result[0] and source[0] != "result":
                continue
            f, t = source[3], result[3]
            if f in ("f16", "bf16", "f32") and t not in ("f16", "bf16", "f32"):
                continue
            # 32-bit integers within f16's range where they become f16.
            wide = 60000 if t == "f16" else 100000
            distribution = unit if f in ("f16", "bf16", "f32") else (
                (-128, 127) if f in ("si8",) else (0, 255) if f == "ui8"
                else (-wide, wide) if f == "si32" else (0, 2 * wide))
            name = "convert_%s_%dx%d%s_to_%s_%s" % (
                source[0], source[1], source[2], f, result[0], t)
            if t in ("f16", "bf16", "f32"):
                convert = lambda r, c, x, t=t: EitherRounding(x, t)  # noqa
            else:
                convert = lambda r, c, x, t=t: to_component(x, t)  # noqa
            cases.append(Case(
                name, [(source, distribution)], result,
                "%%y = subgroup_matrix.convert %%x0 : %s -> %s" % (
                    type_name(*source), type_name(*result)),
                elementwise(convert)))

    def map_case(name, inputs, output, block_args, body, fn, tolerance=0.0):
        signature = ", ".join(type_name(*m) for m, _ in inputs)
        args = ", ".join("%%x%d" % i for i in range(len(inputs)))
        text = ("%%y = subgroup_matrix.map %s : %s -> %s {\n"
                "^bb0(%%row: index, %%col: index, %s):\n%s\n}" % (
                    args, signature, type_name(*output), block_args,
                    "\n".join("  " + l for l in body.strip().splitlines())))
        cases.append(Case(name, inputs, output, text, elementwise(fn),
                          tolerance))

    for shape in TARGETS[target].get("map_shapes",
                                     [(16, 16), (16, 8), (8, 16), (8, 8)]):
        for component in ("f32", "f16"):
            t = ("result",) + shape + (component,)
            if not have(t):
                continue
            tag = "%dx%d%s" % (shape + (component,))
            # Component-wise arithmetic (cooperative matrices do it directly).
            map_case("map_axpy_" + tag, [(t, unit), (t, unit)], t,
                     "%%a: %s, %%b: %s" % (component, component), """
%%s = arith.constant 2.5 : %s
%%p = arith.mulf %%a, %%s : %s
%%q = arith.addf %%p, %%b : %s
subgroup_matrix.yield %%q : %s""" % ((component,) * 4),
                     lambda r, c, a, b, k=component: to_component(
                         to_component(a * 2.5, k) + b, k),
                     # The driver may fuse the multiply and the add.
                     tolerance=2.0 ** -8 if component == "f16" else 2.0 ** -21)
            # A mask that needs the element's position.
            map_case("map_causal_mask_" + tag, [(t, unit)], t,
                     "%%a: %s" % component, """
%%above = arith.cmpi ugt, %%col, %%row : index
%%low = arith.constant -1000.0 : %s
%%m = arith.select %%above, %%low, %%a : %s
subgroup_matrix.yield %%m : %s""" % ((component,) * 3),
                     lambda r, c, a: -1000.0 if c > r else a)
        t32 = ("result",) + shape + ("f32",)
        if have(t32):
            tag = "%dx%df32" % shape
            map_case("map_exp_difference_" + tag, [(t32, unit), (t32, unit)],
                     t32, "%a: f32, %b: f32", """
%d = arith.subf %a, %b : f32
%e = math.exp %d : f32
subgroup_matrix.yield %e : f32""",
                     lambda r, c, a, b: math.exp(a - b), tolerance=4e-6)
            # GELU with erf (which no path has as an instruction: a
            # polynomial on Vulkan and Intel, a helper in Metal).
            map_case("map_gelu_erf_" + tag, [(t32, (-4, 4))], t32,
                     "%x: f32", GELU_ERF + "\nsubgroup_matrix.yield %y : f32",
                     lambda r, c, a: 0.5 * a * (1.0 + math.erf(
                         a / math.sqrt(2.0))), tolerance=2e-6)
            t16 = ("result",) + shape + ("f16",)
            if have(t16):
                map_case("map_scale_to_f16_" + tag, [(t32, (-100, 100))], t16,
                         "%a: f32", """
%s = arith.constant 0.5 : f32
%h = arith.mulf %a, %s : f32
%t = arith.truncf %h : f32 to f16
subgroup_matrix.yield %t : f16""",
                         lambda r, c, a: EitherRounding(a * 0.5, "f16"))
                # f16 and f32 inputs to an f16 result, widened and
                # narrowed in the body: component-wise on matrix units.
                map_case("map_widen_add_to_f16_" + tag,
                         [(t16, (-100, 100)), (t32, (-100, 100))], t16,
                         "%a: f16, %b: f32", """
%w = arith.extf %a : f16 to f32
%s = arith.addf %w, %b : f32
%t = arith.truncf %s : f32 to f16
subgroup_matrix.yield %t : f16""",
                         lambda r, c, a, b: a + b, tolerance=2.0 ** -10)
    for t in types:
        kind, rows, columns, component = t
        if component not in ("si32", "si8"):
            continue
        storage = COMPONENTS[component][0]
        tag = "%s_%dx%d%s" % (kind, rows, columns, component)
        bound = 100 if component == "si8" else 100000
        map_case("map_relu_" + tag, [(t, (-bound, bound))], t,
                 "%%a: %s" % storage, """
%%z = arith.constant 0 : %s
%%m = arith.maxsi %%a, %%z : %s
subgroup_matrix.yield %%m : %s""" % ((storage,) * 3),
                 lambda r, c, a: max(a, 0))
        if component == "si32":
            map_case("map_integer_axpy_" + tag,
                     [(t, (-bound, bound)), (t, (-bound, bound))], t,
                     "%a: i32, %b: i32", """
%s = arith.constant 3 : i32
%p = arith.muli %a, %s : i32
%q = arith.addi %p, %b : i32
subgroup_matrix.yield %q : i32""",
                     lambda r, c, a, b: wrap(3 * a + b, "si32"))
    for t in types:
        if t[0] == "left" and t[3] == "f16":
            map_case("map_left_scale_%dx%df16" % t[1:3], [(t, unit)], t,
                     "%a: f16", """
%s = arith.constant -2.0 : f16
%p = arith.mulf %a, %s : f16
subgroup_matrix.yield %p : f16""", lambda r, c, a: -2.0 * a)

    # bf16 has no scalar arithmetic in SPIR-V: the body computes in f32 and
    # rounds after every op, which is what bf16 arithmetic gives.
    for t in types:
        if t[3] != "bf16":
            continue
        tag = "%s_%dx%dbf16" % t[:3]
        map_case("map_scale_add_mask_" + tag, [(t, unit), (t, unit)], t,
                 "%a: bf16, %b: bf16", """
%s = arith.constant 1.5 : bf16
%p = arith.mulf %a, %s : bf16
%q = arith.addf %p, %b : bf16
%below = arith.cmpi ule, %col, %row : index
%z = arith.constant 0.0 : bf16
%m = arith.select %below, %q, %z : bf16
subgroup_matrix.yield %m : bf16""",
                 lambda r, c, a, b: round_bf16(round_bf16(a * 1.5) + b)
                 if c <= r else 0.0,
                 # Vulkan lets each f32 -> bf16 rounding go toward zero
                 # (NVIDIA's does): an ulp per rounding.
                 tolerance=2.0 ** -6)
        map_case("map_exp_" + tag, [(t, unit)], t, "%a: bf16", """
%e = math.exp %a : bf16
subgroup_matrix.yield %e : bf16""",
                 lambda r, c, a: round_bf16(math.exp(a)),
                 # Rounded to nearest or toward zero: within an ulp.
                 tolerance=2.0 ** -7)
    # Unsigned integers: comparisons and shifts that read the high bit as
    # magnitude.
    for t in types:
        kind, rows, columns, component = t
        if component not in ("ui8", "ui32"):
            continue
        storage = COMPONENTS[component][0]
        top = 255 if component == "ui8" else 4294967295
        map_case("map_unsigned_max_shift_%s_%dx%d%s" % t,
                 [(t, (0, top)), (t, (0, top))], t,
                 "%%a: %s, %%b: %s" % (storage, storage), """
%%m = arith.maxui %%a, %%b : %s
%%one = arith.constant 1 : %s
%%h = arith.shrui %%m, %%one : %s
%%h1 = arith.addi %%h, %%one : %s
%%d = arith.divui %%a, %%h1 : %s
%%s = arith.addi %%h, %%d : %s
subgroup_matrix.yield %%s : %s""" % ((storage,) * 7),
                 lambda r, c, a, b, k=component: wrap(
                     (max(a, b) >> 1) + a // ((max(a, b) >> 1) + 1), k))

    # reduce: every kind over rows, columns and all of result matrices; of
    # left and right matrices, each kind once.
    for t in types:
        kind, rows, columns, component = t
        is_float = component in ("f16", "bf16", "f32")
        if workgroup and kind != "result":
            continue
        for reduction_kind in ("add", "mul", "max", "min"):
            if reduction_kind == "mul" and component in ("si8", "ui8"):
                continue
            for dims in ("rows", "columns", "all"):
                if kind != "result" and (reduction_kind, dims) not in (
                        ("add", "rows"), ("max", "columns"), ("min", "all"),
                        ("mul", "rows"), ("add", "all")):
                    continue
                if not is_float and component == "ui32" and dims != "rows":
                    continue
                if reduction_kind == "mul":
                    # Products near 1 stay representable.
                    distribution = (0.9, 1.1) if is_float else (1, 3)
                    if not is_float and dims == "all":
                        distribution = (-3, 3)
                else:
                    distribution = unit if is_float else (
                        (-100000, 100000) if component == "si32"
                        else (0, 100000))
                count = columns if dims == "rows" else rows if dims == "columns" \
                    else rows * columns
                epsilon = {"f16": 2.0 ** -10, "bf16": 2.0 ** -7}.get(
                    component, 2.0 ** -22)
                tolerance = 0.0 if not is_float or reduction_kind in (
                    "max", "min") else count * epsilon
                cases.append(Case(
                    "reduce_%s_%s_%s%dx%d%s" % (
                        reduction_kind, dims,
                        "" if kind == "result" else kind + "_", rows,
                        columns, component),
                    [(t, distribution)], t,
                    "%%y = subgroup_matrix.reduce %s %s %%x0 : %s" % (
                        reduction_kind, dims, type_name(*t)),
                    reduction(reduction_kind, dims, component), tolerance))

    # reduce over 2x2 blocks (a max-pool's step), into the half-size type
    # the target lists for each operand: every kind of the first pair, add
    # and max of the others.
    for n, (source, pooled) in enumerate(TARGETS[target].get("blocks2x2", [])):
        component = source[3]
        is_float = component in ("f16", "bf16", "f32")
        for reduction_kind in ("add", "max", "min", "mul") if n == 0 \
                else ("add", "max"):
            distribution = unit if is_float else (
                (-100000, 100000) if component == "si32" else (0, 100000))
            if reduction_kind == "mul":
                distribution = (0.9, 1.1) if is_float else (-3, 3)
            epsilon = {"f16": 2.0 ** -10, "bf16": 2.0 ** -7}.get(
                component, 2.0 ** -22)
            tolerance = 0.0 if not is_float or reduction_kind in (
                "max", "min") else 4 * epsilon
            cases.append(Case(
                "reduce_%s_blocks2x2_%dx%d%s" % (
                    reduction_kind, source[1], source[2], component),
                [(source, distribution)], pooled,
                "%%y = subgroup_matrix.reduce %s blocks2x2 %%x0 : %s -> %s" % (
                    reduction_kind, type_name(*source), type_name(*pooled)),
                block_reduction(reduction_kind, component), tolerance))

    # The attention step of the cooperative matrix 2 proposal:
    # O = softmax(Q K^T) V on one tile, in registers.
    q, k, v = (("left", 16, 16, "f16"), ("right", 16, 16, "f16"),
               ("right", 16, 16, "f16"))
    s = ("result", 16, 16, "f32")
    if all(have(x) for x in (q, k, s)):
        body = """
%%s = subgroup_matrix.multiply %%x0, %%x1 : %(q)s, %(k)s -> %(s)s
%%max = subgroup_matrix.reduce max rows %%s : %(s)s
%%p = subgroup_matrix.map %%s, %%max : %(s)s, %(s)s -> %(s)s {
^bb0(%%row: index, %%col: index, %%x: f32, %%m: f32):
  %%d = arith.subf %%x, %%m : f32
  %%e = math.exp %%d : f32
  subgroup_matrix.yield %%e : f32
}
%%sum = subgroup_matrix.reduce add rows %%p : %(s)s
%%n = subgroup_matrix.map %%p, %%sum : %(s)s, %(s)s -> %(s)s {
^bb0(%%row: index, %%col: index, %%x: f32, %%l: f32):
  %%r = arith.divf %%x, %%l : f32
  subgroup_matrix.yield %%r : f32
}
%%ph = subgroup_matrix.convert %%n : %(s)s -> %(q)s
%%y = subgroup_matrix.multiply %%ph, %%x2 : %(q)s, %(v)s -> %(s)s""" % dict(
            q=type_name(*q), k=type_name(*k), v=type_name(*v),
            s=type_name(*s))

        def attention(inputs, rows, columns):
            Q, K, V = inputs
            out = []
            for i in range(16):
                scores = [sum(Q[i * 16 + p] * K[p * 16 + j] for p in range(16))
                          for j in range(16)]
                top = max(scores)
                e = [math.exp(x - top) for x in scores]
                total = sum(e)
                p16 = [round_f16(x / total) for x in e]
                for j in range(16):
                    out.append(sum(p16[p] * V[p * 16 + j] for p in range(16)))
            return out
        cases.append(Case("attention_softmax_qk_v", [(q, unit), (k, unit),
                                                      (v, unit)], s, body,
                          attention, tolerance=2e-3))

    # D = A B + C for every left, right and result type that chain, where
    # the target asks for them (flexible dimensions: M, N and K other than
    # a configuration's).
    if TARGETS[target].get("multiplies"):
        for a in types:
            for b in types:
                for c in types:
                    if (a[0], b[0], c[0]) != ("left", "right", "result") or \
                            a[2] != b[1] or (a[1], b[2]) != c[1:3] or \
                            a[3] != b[3]:
                        continue
                    if (a[3], c[3]) not in (("f16", "f32"), ("f16", "f16"),
                                            ("bf16", "f32"), ("ui8", "ui32"),
                                            ("si8", "si32")):
                        continue
                    m, n, depth = a[1], b[2], a[2]
                    integer = c[3] in ("ui32", "si32")
                    body = ("%%y = subgroup_matrix.mma %%x0, %%x1, %%x2 : "
                            "%s, %s -> %s" % (type_name(*a), type_name(*b),
                                              type_name(*c)))

                    def product(inputs, rows, columns, depth=depth,
                                component=c[3]):
                        A, B, C = inputs
                        out = [sum(A[i * depth + p] * B[p * columns + j]
                                   for p in range(depth)) + C[i * columns + j]
                               for i in range(rows) for j in range(columns)]
                        if component in ("ui32", "si32"):
                            return [wrap(x, component) for x in out]
                        if component == "f16":
                            return [EitherRounding(x, "f16") for x in out]
                        return out
                    operand = ((-8, 7) if a[3] == "si8" else (0, 15)) \
                        if integer else unit
                    cases.append(Case(
                        "mma_%dx%dx%d_%s_to_%s" % (m, n, depth, a[3], c[3]),
                        [(a, operand), (b, operand),
                         (c, (0, 1000) if integer else unit)], c, body,
                        product,
                        # f16 accumulation rounds at each of the K steps.
                        tolerance=0.0 if integer else depth * 2.0 ** -9
                        if c[3] == "f16" else 2.0 ** -18))

    # An epilogue: D = A B + C, then bias and ReLU in registers, as f16.
    c16 = ("result", 16, 16, "f16")
    if all(have(x) for x in (q, k, s, c16)):
        body = """
%%d = subgroup_matrix.mma %%x0, %%x1, %%x2 : %(a)s, %(b)s -> %(s)s
%%y = subgroup_matrix.map %%d, %%x3 : %(s)s, %(s)s -> %(h)s {
^bb0(%%row: index, %%col: index, %%x: f32, %%bias: f32):
  %%t = arith.addf %%x, %%bias : f32
  %%z = arith.constant 0.0 : f32
  %%r = arith.maximumf %%t, %%z : f32
  %%h = arith.truncf %%r : f32 to f16
  subgroup_matrix.yield %%h : f16
}""" % dict(a=type_name(*q), b=type_name(*k), s=type_name(*s),
            h=type_name(*c16))

        def epilogue(inputs, rows, columns):
            A, B, C, bias = inputs
            out = []
            for i in range(16):
                for j in range(16):
                    d = sum(A[i * 16 + p] * B[p * 16 + j] for p in range(16))
                    out.append(round_f16(max(d + C[i * 16 + j]
                                             + bias[i * 16 + j], 0.0)))
            return out
        cases.append(Case("epilogue_bias_relu_f16", [
            (q, unit), (k, unit), (s, unit), (s, unit)], c16, body, epilogue,
            tolerance=2e-3))

    # Decode loads: quantized tensors of tiles x rows rows dequantized into
    # left and right matrices of floats, subgroup s of workgroup w decoding
    # rows from (2w + s) x rows, within the tensor's rows (the last tile
    # cut) and a number of columns that shrinks from tile to tile
    # (decode_bounds_of); zeros outside. Int8 with a scale per column, computed
    # in the matrix's component type; int4 packed two to a byte along K
    # (the rows of a right matrix, the columns of a left one) in groups of
    # four along K with an f32 scale and a zero point each, computed in
    # f32 (rounded there) and then narrowed to the component.
    tiles = TILES_PER_SUBGROUP_GRID[0] * TILES_PER_SUBGROUP_GRID[1]

    def rounded_through_f32(value, component):
        # The f32 product is rounded, then truncated to the component, which
        # Vulkan lets round to nearest even or toward zero.
        if component == "f32":
            return round_f32(value)
        return EitherRounding(round_f32(value), component)

    def decode_case(name, t, buffers, body, decode, constants=(),
                    scalars=(), expect=to_component):
        kind, rows, columns, component = t
        text = ("%%first_row = arith.muli %%tile, %%c%d : index\n"
                "%%y = subgroup_matrix.decode_load [%%first_row, %%c0] within "
                "[%%decoded_rows, %%decoded_cols] : %s {\n"
                "^bb0(%%row: index, %%col: index):\n%s\n}" % (
                    rows, type_name(*t),
                    "\n".join("  " + l for l in body.strip().splitlines())))

        def reference(values, rows, columns, tile):
            bound = decode_bounds_of(tile, rows, columns)
            out = []
            for i in range(rows * columns):
                r, c = tile * rows + i // columns, i % columns
                out.append(expect(decode(values, r, c), component)
                           if r < bound[0] and c < bound[1] else 0)
            return out
        cases.append(Case(name, [], t, text, reference, buffers=buffers,
                          constants=(0,) + tuple(constants),
                          scalars=scalars))

    for t in types:
        kind, rows, columns, component = t
        if kind == "result" or component not in ("f16", "bf16", "f32"):
            continue
        tag = "%s_%dx%d%s" % t
        storage = COMPONENTS[component][0]
        total_rows = tiles * rows
        # Int8 scaled per column, in the component type (bf16 has no
        # arithmetic of its own); the row stride is a scalar argument of the
        # kernel.
        if component != "bf16":
            decode_case(
                "decode_int8_scaled_" + tag, t,
                [("si8", total_rows * columns, (-128, 127)),
                 (component, columns, (0.0, 0.125))],
                """
%%start = arith.muli %%row, %%stride : index
%%at = arith.addi %%start, %%col : index
%%byte = memref.load %%in0[%%at] : memref<%dxi8>
%%value = arith.sitofp %%byte : i8 to %s
%%scale = memref.load %%in1[%%col] : memref<%dx%s>
%%element = arith.mulf %%value, %%scale : %s
subgroup_matrix.yield %%element : %s""" % (
                    total_rows * columns, storage, columns, storage,
                    storage, storage),
                lambda v, r, c, n=columns: v[0][r * n + c] * v[1][c],
                scalars=[("stride", "index", "i32", columns)])
        # Int4 group-wise with zero points, packed along K.
        group = 4
        along_rows = kind == "right"
        packed_columns = columns if along_rows else columns // 2
        group_columns = columns if along_rows else columns // group
        packed_count = (total_rows // 2 if along_rows else total_rows) * \
            packed_columns
        group_count = (total_rows // group if along_rows else total_rows) * \
            group_columns
        # The byte and the group of element (row, col): K's half and
        # quarter select them along K, the other coordinate across.
        if along_rows:
            k = "%row"
            byte_at = ("%%byte_start = arith.muli %%packed_k, %%c%d : index\n"
                       "%%byte_at = arith.addi %%byte_start, %%col : index"
                       % packed_columns)
            group_at = ("%%group_start = arith.muli %%group_k, %%c%d : index\n"
                        "%%group_at = arith.addi %%group_start, %%col : index"
                        % group_columns)
        else:
            k = "%col"
            byte_at = ("%%byte_start = arith.muli %%row, %%c%d : index\n"
                       "%%byte_at = arith.addi %%byte_start, %%packed_k : index"
                       % packed_columns)
            group_at = ("%%group_start = arith.muli %%row, %%c%d : index\n"
                        "%%group_at = arith.addi %%group_start, %%group_k : "
                        "index" % group_columns)
        body = """
%%two = arith.constant 2 : index
%%four = arith.constant 4 : index
%%packed_k = arith.divui %(k)s, %%two : index
%(byte_at)s
%%group_k = arith.divui %(k)s, %%four : index
%(group_at)s
%%byte = memref.load %%in0[%%byte_at] : memref<%(packed)dxi8>
%%bits = arith.extui %%byte : i8 to i32
%%odd_k = arith.remui %(k)s, %%two : index
%%odd = arith.index_cast %%odd_k : index to i32
%%c4_i32 = arith.constant 4 : i32
%%shift = arith.muli %%odd, %%c4_i32 : i32
%%shifted = arith.shrui %%bits, %%shift : i32
%%c15_i32 = arith.constant 15 : i32
%%nibble = arith.andi %%shifted, %%c15_i32 : i32
%%zero_byte = memref.load %%in2[%%group_at] : memref<%(groups)dxi8>
%%zero = arith.extui %%zero_byte : i8 to i32
%%centered = arith.subi %%nibble, %%zero : i32
%%value = arith.sitofp %%centered : i32 to f32
%%scale = memref.load %%in1[%%group_at] : memref<%(groups)dxf32>
%%scaled = arith.mulf %%value, %%scale : f32
""" % dict(k=k, byte_at=byte_at, group_at=group_at, packed=packed_count,
           groups=group_count)
        if component == "f32":
            body += "subgroup_matrix.yield %scaled : f32"
        else:
            body += ("%%element = arith.truncf %%scaled : f32 to %s\n"
                     "subgroup_matrix.yield %%element : %s" % (storage,
                                                              storage))

        def int4(v, r, c, along_rows=along_rows, pc=packed_columns,
                 gc=group_columns):
            kk, oo = (r, c) if along_rows else (c, r)
            byte = v[0][(kk // 2) * pc + oo if along_rows
                        else oo * pc + kk // 2]
            at = ((kk // group) * gc + oo if along_rows
                  else oo * gc + kk // group)
            return (((byte >> (4 * (kk % 2))) & 15) - v[2][at]) * v[1][at]
        decode_case(
            "decode_int4_grouped_" + tag, t,
            [("ui8", packed_count, (0, 255)),
             ("f32", group_count, (0.0, 0.25)),
             ("ui8", group_count, (0, 15))],
            body, int4, constants=(packed_columns, group_columns),
            expect=rounded_through_f32)

    # Loads and stores with bounds (the tiles at a matrix's ragged edges):
    # every type loaded row-major, result and f16 left matrices column-major
    # too, and every result type stored. The references take the tile's
    # bounds (bounds_of) as an extra argument.
    def distribution_of(component):
        return unit if component in ("f16", "bf16", "f32") else (
            (-100, 100) if component.startswith("si") else (0, 200))

    def bounded_load(major):
        def reference(inputs, rows, columns, bound):
            x = inputs[0]
            out = []
            for i in range(rows * columns):
                r, c = divmod(i, columns)
                inside = r < bound[0] and c < bound[1]
                out.append((x[c * rows + r] if major == "col" else x[i])
                           if inside else 0)
            return out
        return reference

    def bounded_store(inputs, rows, columns, bound):
        return [inputs[0][i] if (i // columns < bound[0] and
                                 i % columns < bound[1]) else UNTOUCHED
                for i in range(rows * columns)]
    for t in types:
        kind, rows, columns, component = t
        tag = "%s_%dx%d%s" % t
        majors = ["row"]
        if kind == "result" or (kind == "left" and component == "f16"):
            majors.append("col")
        for major in majors:
            cases.append(Case(
                "load_bounded_%s%s" % ("col_major_" if major == "col" else "",
                                       tag),
                [(t, distribution_of(component))], t, "",
                bounded_load(major), bounded_load=major))
        if kind == "result":
            cases.append(Case(
                "store_bounded_" + tag, [(t, distribution_of(component))], t,
                "", bounded_store, bounded_store=True))
    return cases


# --- generate and run ------------------------------------------------------

def generate(target, out, kernel_target=None, beyond=None):
    """Writes the cases of `target`'s matrix types, as kernels for
    `kernel_target` (the same by default; cpu-lavapipe runs another
    target's cases emulated, against the same references), leaving out
    those that the cases of `beyond` already are."""
    os.makedirs(out, exist_ok=True)
    manifest = []
    covered = {case.name for case in cases_for(beyond)} if beyond else set()
    for case in cases_for(target):
        if case.name in covered:
            continue
        with open(os.path.join(out, case.name + ".mlir"), "w") as f:
            f.write(kernel_text(case, kernel_target or target,
                                tile_grid(target, kernel_target)))
        manifest.append(case.name)
    with open(os.path.join(out, "cases.json"), "w") as f:
        json.dump({"target": target, "cases": manifest}, f, indent=1)
    print("generated %d cases for %s in %s%s" % (
        len(manifest), target, out,
        " (kernels for %s)" % kernel_target if kernel_target else ""))


# Options of sm-lower-to-vulkan for every case (--vulkan-option), as
# "nv-coopmat2=false" to run the SPV_KHR_cooperative_matrix fallback on a
# target with cooperative matrix 2 features.
VULKAN_OPTIONS = []


def build(path, case, out, tools, spirv_val):
    source = os.path.join(out, case.name + ".mlir")
    tool = lambda t: os.path.join(tools, t)  # noqa: E731
    if path == "vulkan":
        lowered = os.path.join(out, case.name + ".spirv.mlir")
        binary = os.path.join(out, case.name + ".spv")
        pipeline = "--sm-lower-to-vulkan"
        if VULKAN_OPTIONS:
            pipeline += "=" + " ".join(VULKAN_OPTIONS)
        steps = [[tool("sm-opt"), source, pipeline, "-o", lowered],
                 [tool("sm-translate"), "--serialize-spirv", lowered, "-o",
                  binary]]
        # Every binary, bf16 included (SPIRV-Tools 2026).
        if spirv_val:
            steps.append([spirv_val, "--target-env", "vulkan1.3", binary])
        kernel = binary
    elif path == "intel":
        lowered = os.path.join(out, case.name + ".intel.mlir")
        kernel = os.path.join(out, case.name + ".ll")
        steps = [[tool("sm-opt"), source, "--sm-lower-to-intel", "-o", lowered],
                 [tool("sm-translate"), "--emit-intel-host-llvm", lowered, "-o",
                  kernel]]
        if spirv_val:
            binary = os.path.join(out, case.name + ".intel.spv")
            steps += [[tool("sm-translate"), "--emit-intel-spirv", lowered,
                       "-o", binary],
                      [spirv_val, "--target-env", "spv1.4", binary]]
    else:
        kernel = os.path.join(out, case.name + ".metal")
        steps = [[tool("sm-translate"), "--emit-msl", source, "-o", kernel]]
    error = run_steps(steps)
    return (None, error) if error else (kernel, None)


def runner_for(path, tools):
    return os.path.join(tools, {"vulkan": "sm-vulkan-runner",
                                "intel": "sm-intel-host-runner",
                                "msl": "sm-msl-host-runner"}[path])


def check_case(path, case, out, tools, spirv_val, rng, extra, prebuilt,
               grid):
    if prebuilt:
        kernel = os.path.join(out, case.name + {
            "vulkan": ".spv", "intel": ".ll", "msl": ".metal"}[path])
    else:
        kernel, error = build(path, case, out, tools, spirv_val)
        if error:
            return False, error
    workgroups, subgroups, _ = grid
    tiles = workgroups * subgroups
    argv = [runner_for(path, tools), kernel, "--entry", case.name]
    inputs = []
    for i, (component, count, distribution) in enumerate(case.buffers or []):
        values = [draw(distribution, component, rng) for _ in range(count)]
        inputs.append(values)
        data = os.path.join(out, "%s.in%d" % (case.name, i))
        with open(data, "wb") as f:
            f.write(pack(values, component))
        argv += ["--arg", "%s:%d:file:%s" % (COMPONENTS[component][1],
                                             len(values), data)]
    for _, _, runner_type, value in case.scalars:
        argv += ["--scalar", "%s:%s" % (runner_type, value)]
    for i, (matrix, distribution) in enumerate(case.inputs):
        kind, rows, columns, component = matrix
        values = [draw(distribution, component, rng)
                  for _ in range(tiles * rows * columns)]
        inputs.append(values)
        data = os.path.join(out, "%s.in%d" % (case.name, i))
        with open(data, "wb") as f:
            f.write(pack(values, component))
        argv += ["--arg", "%s:%d:file:%s" % (COMPONENTS[component][1],
                                             len(values), data)]
    kind, rows, columns, component = case.output
    count = tiles * rows * columns
    result_path = os.path.join(out, case.name + ".out")
    argv += ["--arg", "%s:%d:poison" % (COMPONENTS[component][1], count),
             "--grid", str(workgroups),
             "--output", "%d:%s" % (len(inputs) + len(case.scalars),
                                     result_path)] + extra
    result = run_tool(argv)
    bounds = [l for l in result.stdout.splitlines()
              if l.startswith("check bounds")]
    if result.returncode or not os.path.exists(result_path):
        return False, "runner failed (%d): %s" % (
            result.returncode, (result.stderr + result.stdout).strip()[-600:])
    got = unpack(open(result_path, "rb").read(), component)
    poison = unpack(b"\xff" * COMPONENTS[component][2], component)[0]
    tile = rows * columns
    mismatches, worst, first = 0, 0.0, None
    for t in range(tiles):
        tile_inputs = []
        for (matrix, _), values in zip(case.inputs, inputs):
            size = matrix[1] * matrix[2]
            tile_inputs.append(values[t * size:(t + 1) * size])
        if case.buffers:
            expected = case.reference(inputs, rows, columns, t)
        elif case.bounded_load or case.bounded_store:
            expected = case.reference(tile_inputs, rows, columns,
                                      bounds_of(t, rows, columns))
        else:
            expected = case.reference(tile_inputs, rows, columns)
        for i, want in enumerate(expected):
            have = got[t * tile + i]
            if want is UNTOUCHED:
                # Still the poison: NaN for floats, all ones for integers.
                ok = (math.isnan(have) if isinstance(have, float)
                      else have == poison)
                error = 0.0 if ok else math.inf
                want = "the poison (untouched)"
            elif case.tolerance:
                error = abs(have - want) if not math.isnan(have) else math.inf
                ok = error <= case.tolerance * max(1.0, abs(want))
            else:
                error = 0.0 if have == want else (
                    abs(have - want) if not math.isnan(have) else math.inf)
                ok = have == want or (
                    isinstance(want, EitherRounding) and
                    have == want.alternative)
                if ok:
                    error = 0.0
            worst = max(worst, error)
            if not ok:
                mismatches += 1
                if first is None:
                    first = "tile %d [%d][%d]: %r, expected %r" % (
                        t, i // columns, i % columns, have, want)
    detail = "%d elements, %d mismatches, max error %.3g%s; %s" % (
        tiles * tile, mismatches, worst,
        "" if first is None else " (first: %s)" % first,
        bounds[0] if bounds else "no bounds check")
    return mismatches == 0 and "PASSED" in (bounds[0] if bounds else ""), detail


def build_all(path, out, tools, spirv_val):
    """Builds every case (for a runner on another machine); returns 1 if
    any fails."""
    target = json.load(open(os.path.join(out, "cases.json")))["target"]
    failed = 0
    for case in cases_for(target):
        _, error = build(path, case, out, tools, spirv_val)
        if error:
            failed += 1
            print("FAIL %s: %s" % (case.name, error))
    print("built %d cases for %s, %d failed" % (
        len(cases_for(target)) - failed, path, failed))
    return 1 if failed else 0


def run(path, out, tools, spirv_val, extra, only, skip, prebuilt=False):
    target = json.load(open(os.path.join(out, "cases.json")))["target"]
    wanted = set(json.load(open(os.path.join(out, "cases.json")))["cases"])
    # Fresh inputs every run; each case draws from its own generator so that
    # the cases can run in parallel.
    seed = random.randrange(1 << 30)
    selected = [case for case in cases_for(target)
                if case.name in wanted and is_selected(case.name, only, skip)]

    def check(case):
        rng = random.Random("%d:%s" % (seed, case.name))
        return check_case(path, case, out, tools, spirv_val, rng, extra,
                          prebuilt, tile_grid(target))

    # Vulkan cases share one device: one at a time.
    jobs = 1 if path == "vulkan" else (os.cpu_count() or 1)
    return run_and_report(selected, check, jobs, "%s suite" % path)

def main():
    parser = argparse.ArgumentParser()
    _, g, b, r = add_suite_commands(parser, TARGETS)
    for command in (b, r):
        command.add_argument("--vulkan-option", dest="vulkan_options",
                             action="append", default=[],
                             help="an option of sm-lower-to-vulkan for "
                                  "every case, as nv-coopmat2=false "
                                  "(repeatable)")
    g.add_argument("--kernel-target", choices=sorted(TARGETS),
                   help="write the cases for this target instead (e.g. "
                        "cpu-lavapipe, to run another target's cases "
                        "emulated)")
    g.add_argument("--beyond", choices=sorted(TARGETS),
                   help="leave out the cases this target's suite has too")
    r.add_argument("--prebuilt", action="store_true",
                   help="the kernels were built by 'build' (on another "
                        "machine); only run them")
    r.add_argument("--runner-arg", dest="extra", action="append", default=[],
                   help="one more argument for the runner (repeatable)")
    options = parser.parse_args()
    if options.command == "generate":
        generate(options.target, options.out, options.kernel_target,
                 options.beyond)
        return 0
    VULKAN_OPTIONS.extend(options.vulkan_options)
    if options.command == "build":
        return build_all(options.path, options.out, options.tools,
                         options.spirv_val)
    return run(options.path, options.out, options.tools, options.spirv_val,
               options.extra, options.only, options.skip, options.prebuilt)


if __name__ == "__main__":
    sys.exit(main())
