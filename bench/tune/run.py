#!/usr/bin/env python3
"""Tiling tuner for the GEMMs sm-tile-matmul generates: for a target and a
set of problems, generate candidate tilings, run every one on the GPU
machine with its result checked, and write the winners into a tuning
table that sm-tile-matmul and sm-linalg-to-gpu read.

  bench/tune/run.py prepare [--problems P,...] [--target nvidia-h100]
                            [--candidates "OPTIONS;OPTIONS..."] [--bounds]
  <device> bash bench/tune/device.sh [REPEAT]
  bench/tune/run.py report OUT... [--write]

A problem is TYPES:MxNxK, with :bt for B stored transposed (N x K), e.g.
f16-f16:4096x4096x4096 or s8-s32:4096x4096x4096:bt; TYPES as in
bench/gemm (f16-f32, f16-f16, bf16-f32, s8-s32) and f32-f32.

`prepare` enumerates candidates per problem (workgroup tiles, subgroup
grids, K depths; see candidates()), runs `sm-opt --sm-tile-matmul` with
each (a candidate the pass rejects, e.g. for workgroup memory, is pruned
there with the pass's message), lowers, serializes and validates them with
spirv-val, and stages them with the runner in build/tune. `device` (on the
GPU machine, carrying build/tune) holds a CUDA context so that the clock is
the one cuBLAS runs at, has the driver compile each candidate (recording
its registers and workgroup memory; with --prune-at-limit it skips those
at 255 registers per invocation, the limit, which may or may not spill:
the NVIDIA driver reports 255 both for kernels that run well and for
kernels it spilled into workgroup memory), then runs them: the first
dispatch is checked element by
element against a double-precision reference by sm-vulkan-runner, then
--repeat dispatches are timed (GPU timestamps, median). `report` prints
every candidate (with how many of its workgroups an SM holds at once, and
whether registers, workgroup memory or invocations limit that) and, with
--write, writes the checked winners into data/tuning/<target>.tuning with
the figures that made them win. With --bounds, `prepare` also stages the
diagnostic variants of bounds.py beside each candidate (without most of its
multiply-accumulates, without its global loads; wrong by design, so never
winners), and `report` prints their times beside the candidate's checked
one: what its time is made of.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys

# The test library of this checkout (test/lib), from wherever this runs.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, os.pardir, "test", "lib"))

import bounds  # (beside this script)
from sm_testing.gemm import TYPES as GEMM_TYPES, git_commit, matmul_module

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("SM_BUILD_DIR", os.path.join(ROOT, "build"))
BIN = os.path.join(BUILD, "bin")
STAGE = os.environ.get("SM_TUNE_STAGE", os.path.join(BUILD, "tune"))
SPIRV_VAL = os.path.join(ROOT, ".deps", "spirv", "bin", "spirv-val")
REGISTER_LIMIT = 255
# The dialect's names of the element types a table line matches (8-bit
# integer matrices are signed or unsigned).
COMPONENT_NAMES = {"i8": "si8", "i32": "si32"}

# bench/gemm's types, and f32 (emulated matrices on targets without f32
# ones), which only the tuner runs.
TYPES = dict(GEMM_TYPES, **{"f32-f32": ("f32", "f32")})
# Downloads the Vulkan loader's packages, which device.sh unpacks on the GPU
# machine (utils/device-vulkan.sh).
STAGE_LOADER = [os.path.join(ROOT, "utils", "device-vulkan.sh"), "stage"]

DEFAULT_PROBLEMS = [
    "f16-f32:4096x4096x4096", "f16-f16:4096x4096x4096",
    "bf16-f32:4096x4096x4096", "s8-s32:4096x4096x4096",
    "s8-s32:4096x4096x4096:bt", "f16-f32:1000x1000x1000",
]


def parse_problem(text):
    parts = text.split(":")
    m, n, k = (int(v) for v in parts[1].split("x"))
    return {"types": parts[0], "m": m, "n": n, "k": k,
            "bt": len(parts) > 2 and parts[2] == "bt"}


def problem_name(p):
    return "%s_%dx%dx%d%s" % (p["types"], p["m"], p["n"], p["k"],
                              "_bt" if p["bt"] else "")


def candidates(problem):
    """Tilings to try: the target's default first, then workgroup tiles
    with subgroup grids whose blocks of 16x16 result matrices fit the
    registers (at most 16 accumulators of 32-bit elements per subgroup, 32
    of 16-bit ones, a register each per 2 or 4 elements per invocation),
    at the default K depth (with and without the next step prefetched into
    registers), and with 2x2 subgroups one step deeper. Tiles
    under 128x128 only where 128x128 tiles would leave SMs idle."""
    input_type, acc_type = TYPES[problem["types"]]
    acc_bits = 16 if acc_type in ("f16", "bf16") else 32
    narrow = input_type == "i8"
    depths = [64, 128] if narrow else [32, 64]
    big = (problem["m"] // 128) * (problem["n"] // 128) >= 132
    tiles = [(128, 128), (128, 256), (256, 128), (256, 256)]
    if not big:
        tiles = [(64, 64), (64, 128), (128, 64)] + tiles[:2]
    grids = [(2, 2), (2, 4), (4, 2), (4, 4)]
    result = [""]
    for tm, tn in tiles:
        for sm, sn in grids:
            if tm % (16 * sm) or tn % (16 * sn):
                continue
            block = (tm // sm // 16) * (tn // sn // 16)
            if block > (32 if acc_bits == 16 else 16) or block < 2:
                continue
            for depth in depths if (sm, sn) == (2, 2) else depths[:1]:
                options = ("tile-m=%d tile-n=%d tile-k=%d subgroups-m=%d "
                           "subgroups-n=%d" % (tm, tn, depth, sm, sn))
                result.append(options)
                # The next step's copy in registers while this one
                # multiplies: it hides the global loads' latency where the
                # registers allow.
                if depth == depths[0]:
                    result.append(options + " prefetch=1")
    return result


ELEMENT_BYTES = {"i8": 1, "f16": 2, "bf16": 2, "i16": 2, "f32": 4, "i32": 4}


def declared_workgroup_memory(tiled):
    """The workgroup memory the kernel declares (its gpu.func's workgroup
    attributions) and its invocations: the driver reporting more workgroup
    memory than this spilled registers into it."""
    with open(tiled) as f:
        for line in f:
            if "gpu.func" not in line or "workgroup(" not in line:
                continue
            buffers = re.findall(
                r"memref<(\d+)x(\w+), #gpu.address_space<workgroup>>", line)
            threads = re.search(r"known_block_size = array<i32: (\d+), "
                                r"(\d+), (\d+)>", line)
            result = {"declared_shared_bytes": sum(
                int(n) * ELEMENT_BYTES.get(t, 4) for n, t in buffers)}
            if threads:
                result["threads"] = (int(threads.group(1)) *
                                     int(threads.group(2)) *
                                     int(threads.group(3)))
            return result
    return {}


# What one multiprocessor of the target holds, to tell how many workgroups
# of a candidate run on it at once. Vulkan reports workgroup memory only per
# workgroup; the 48 KiB per SM of the H100 is measured: the same kernel
# (253 registers, 128 invocations, so two workgroups by registers) with its
# workgroup memory padded to 24192 bytes ran in 472.8 us, padded to 24704
# bytes in 790.1 us (bench/tune, 2026-11-24).
MULTIPROCESSOR_LIMITS = {
    "nvidia-h100": {"registers": 65536, "register_unit": 256, "warps": 64,
                    "workgroups": 32, "workgroup_memory": 48 * 1024},
}


def resident_workgroups(target, candidate):
    """How many workgroups of the candidate one multiprocessor holds, and
    what limits it ("registers", "workgroup memory" or "invocations"), from
    the registers and the workgroup memory the driver reported; None where
    the target's limits are not known."""
    limits = MULTIPROCESSOR_LIMITS.get(target)
    threads = candidate.get("threads")
    if not limits or not threads or not candidate.get("registers"):
        return None
    warps = -(-threads // 32)
    unit = limits["register_unit"]
    per_warp = -(-candidate["registers"] * 32 // unit) * unit
    shared = (candidate.get("shared_bytes") or
              candidate.get("declared_shared_bytes") or 0)
    counts = {
        "registers": limits["registers"] // (per_warp * warps),
        "workgroup memory": (limits["workgroup_memory"] // shared
                             if shared else limits["workgroups"]),
        "invocations": min(limits["warps"] // warps, limits["workgroups"]),
    }
    bound = min(counts, key=lambda k: counts[k])
    return counts[bound], bound


def occupancy_text(target, candidate):
    resident = resident_workgroups(target, candidate)
    if not resident:
        return ""
    count, bound = resident
    return "%d workgroup%s per SM (%s)" % (count, "s" if count != 1 else "",
                                          bound)


def spilled_bytes(candidate):
    """Bytes per invocation the driver spilled into workgroup memory (the
    workgroup memory it reports beyond what the kernel declares), or 0."""
    extra = ((candidate.get("shared_bytes") or 0) -
             candidate.get("declared_shared_bytes", 1 << 40))
    threads = candidate.get("threads")
    return extra // threads if extra > 0 and threads else 0


def prepare(args):
    subprocess.run(["ninja", "-C", BUILD, "sm-opt", "sm-translate",
                    "sm-vulkan-runner"], check=True)
    if os.path.isdir(STAGE):
        shutil.rmtree(STAGE)
    kernels = os.path.join(STAGE, "kernels")
    os.makedirs(kernels)
    problems = [parse_problem(p) for p in
                (args.problems.split(",") if args.problems else DEFAULT_PROBLEMS)]
    manifest = {"target": args.target, "commit": git_commit(),
                "problems": []}
    for problem in problems:
        name = problem_name(problem)
        input_type, acc_type = TYPES[problem["types"]]
        source = os.path.join(kernels, name + ".mlir")
        with open(source, "w") as f:
            f.write(matmul_module(problem["m"], problem["n"], problem["k"],
                                  input_type, acc_type, problem["bt"]))
        entry = dict(problem, name=name, candidates=[])
        tried = ([""] + [c.strip() for c in args.candidates.split(";")
                         if c.strip() and c.strip() != "default"]
                 if args.candidates else candidates(problem))
        for index, options in enumerate(tried):
            stem = "%s_c%d" % (name, index)
            tiled = os.path.join(kernels, stem + ".tiled.mlir")
            lowered = os.path.join(kernels, stem + ".spirv.mlir")
            binary = os.path.join(kernels, stem + ".spv")
            candidate = {"options": options or "default", "kernel": stem + ".spv"}
            # Candidates start from the target's defaults, not from the
            # shipped table (which an earlier run of this tuner wrote);
            # the candidate "table" is the shipped table's tiling.
            pipeline = ("target=%s" % args.target if options == "table" else
                        "target=%s tuning-table=none %s" % (
                            args.target, options)).strip()
            tile = subprocess.run([os.path.join(BIN, "sm-opt"), source,
                        "--sm-tile-matmul=" + pipeline, "-o", tiled],
                       capture_output=True, text=True)
            if tile.returncode != 0:
                message = re.search(r"error: (.*)", tile.stderr)
                candidate["pruned"] = "sm-tile-matmul: " + (
                    message.group(1) if message else tile.stderr.strip()[:200])
                del candidate["kernel"]
                entry["candidates"].append(candidate)
                continue
            candidate.update(declared_workgroup_memory(tiled))
            for command in ([os.path.join(BIN, "sm-opt"), "--sm-lower-to-vulkan",
                             tiled, "-o", lowered],
                            [os.path.join(BIN, "sm-translate"),
                             "--serialize-spirv", lowered, "-o", binary]):
                subprocess.run(command, check=True)
            if input_type != "bf16":
                subprocess.run([SPIRV_VAL, "--target-env", "vulkan1.3", binary],
                               check=True)
            for path in (tiled, lowered):
                os.remove(path)
            entry["candidates"].append(candidate)
            if args.bounds:
                for variant in bounds.VARIANTS:
                    diagnostic = dict(candidate, diagnostic=variant,
                                      of=candidate["kernel"],
                                      kernel="%s_%s.spv" % (stem, variant))
                    try:
                        bounds.make_variant(variant, binary, os.path.join(
                            kernels, diagnostic["kernel"]))
                    except ValueError as error:
                        print("%s: no %s variant: %s" % (stem, variant, error))
                        continue
                    entry["candidates"].append(diagnostic)
        os.remove(source)
        manifest["problems"].append(entry)
        print("%s: %d candidates, %d pruned by sm-tile-matmul" % (
            name, len(entry["candidates"]),
            sum("pruned" in c for c in entry["candidates"])), flush=True)
    with open(os.path.join(STAGE, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    shutil.copy(os.path.join(BIN, "sm-vulkan-runner"), STAGE)
    subprocess.run(STAGE_LOADER + [os.path.join(STAGE, "debs")],
                   check=True)


def device(args):
    import torch
    torch.zeros(1, device="cuda")  # hold a context: the clock cuBLAS gets
    clock = subprocess.run(["nvidia-smi", "--query-gpu=name,clocks.sm",
                            "--format=csv,noheader"], capture_output=True,
                           text=True).stdout.strip()
    runner = os.path.join(args.stage, "sm-vulkan-runner")
    manifest = json.load(open(os.path.join(args.stage, "manifest.json")))
    os.makedirs(args.out, exist_ok=True)
    for problem in manifest["problems"]:
        for candidate in problem["candidates"]:
            if "pruned" in candidate:
                continue
            kernel = os.path.join(args.stage, "kernels", candidate["kernel"])
            stats = subprocess.run([runner, kernel, "--compile-only",
                         "--pipeline-statistics"], capture_output=True,
                        text=True, timeout=120)
            registers = re.search(r"Register Count: (\d+)", stats.stdout)
            shared = re.search(r"Shared Memory Size: (\d+)", stats.stdout)
            if stats.returncode != 0 or not registers:
                candidate["pruned"] = "the driver did not compile it: " + (
                    stats.stdout + stats.stderr).strip()[-200:]
                continue
            candidate["registers"] = int(registers.group(1))
            candidate["shared_bytes"] = int(shared.group(1)) if shared else None
            if (candidate["registers"] >= REGISTER_LIMIT and
                    args.prune_at_limit):
                candidate["pruned"] = ("%d registers per invocation, the "
                                       "limit (--prune-at-limit)" % candidate["registers"])
                continue
            timed = subprocess.run([runner, kernel, "--repeat", str(args.repeat)],
                        capture_output=True, text=True, timeout=300)
            median = re.search(r"time: median ([0-9.]+) us", timed.stdout)
            candidate["checked"] = (timed.returncode == 0 and
                                    "PASSED" in timed.stdout)
            candidate["median_us"] = float(median.group(1)) if median else None
            if not candidate["checked"]:
                candidate["log"] = (timed.stdout + timed.stderr)[-400:]
            # Written after every candidate: a run cut short keeps its
            # figures.
            with open(os.path.join(args.out, "results.json"), "w") as f:
                json.dump(dict(manifest, gpu=clock), f, indent=1)
            spill = spilled_bytes(candidate)
            print("%s %-60s %s regs%s, %s, %s us %s" % (
                problem["name"], candidate["options"], candidate["registers"],
                " (+%d B spilled)" % spill if spill else "",
                occupancy_text(manifest["target"], candidate),
                candidate["median_us"],
                "diagnostic %s, wrong by design" % candidate["diagnostic"]
                if "diagnostic" in candidate else
                "checked" if candidate["checked"] else "FAILED"), flush=True)
    manifest["gpu"] = clock
    manifest["clock_after"] = subprocess.run(
        ["nvidia-smi", "--query-gpu=clocks.sm", "--format=csv,noheader"],
        capture_output=True, text=True).stdout.strip()
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(manifest, f, indent=1)


def rate(problem, candidate):
    return (2.0 * problem["m"] * problem["n"] * problem["k"] /
            (candidate["median_us"] * 1e-6) / 1e12)


def short_commit(commit):
    """The abbreviated commit, keeping git_commit's mark of a tree with
    changes not yet committed."""
    return commit[:7] + commit[40:]


def print_bounds(problem):
    """For each candidate staged with --bounds: its checked time beside the
    times of its diagnostic variants (bounds.py), which are wrong by design
    and only tell what the candidate's time is made of."""
    for candidate in problem["candidates"]:
        variants = {c["diagnostic"]: c for c in problem["candidates"]
                    if c.get("of") == candidate.get("kernel") and
                    c.get("median_us")}
        if "diagnostic" in candidate or not variants or not candidate.get(
                "checked"):
            continue
        full = candidate["median_us"]
        print("  bounds   %s: %.1f us checked; %s" % (
            candidate["options"], full, "; ".join(
                "%s %.1f us (%+.0f%%)" % (name, variants[name]["median_us"],
                                         100.0 * (variants[name]["median_us"]
                                                  / full - 1))
                for name in bounds.VARIANTS if name in variants)))


def report(args):
    # Later result folders replace the figures of the same problem.
    problems, header = {}, None
    for folder in args.results:
        results = json.load(open(os.path.join(folder, "results.json")))
        header = results
        for problem in results["problems"]:
            problems[problem["name"]] = problem
    lines = []
    winners = []
    for name, problem in problems.items():
        print("\n%s" % name)
        measured = [c for c in problem["candidates"]
                    if c.get("checked") and c.get("median_us") and
                    "diagnostic" not in c]
        for candidate in sorted(measured, key=lambda c: c["median_us"]):
            spill = spilled_bytes(candidate)
            print("  %7.1f  %3d regs  %-32s %s%s" % (
                rate(problem, candidate), candidate["registers"],
                occupancy_text(header["target"], candidate),
                candidate["options"],
                "  (spills %d bytes per invocation into workgroup memory)" %
                spill if spill else ""))
        for candidate in problem["candidates"]:
            if "pruned" in candidate:
                print("  pruned   %s: %s" % (candidate["options"],
                                            candidate["pruned"]))
            elif not candidate.get("checked") and "diagnostic" not in candidate:
                print("  FAILED   %s" % candidate["options"])
        print_bounds(problem)
        default = next(c for c in problem["candidates"]
                       if c["options"] == "default" and
                       "diagnostic" not in c)
        if not measured:
            continue
        best = min(measured, key=lambda c: c["median_us"])
        if best is default:
            continue
        winners.append((problem, best, default))
    if not args.write:
        return 0
    path = os.path.join(ROOT, "data", "tuning", header["target"] + ".tuning")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(
            "# Tuned tilings for sm-tile-matmul and sm-linalg-to-gpu on "
            "target=%s\n# (bench/tune/run.py measures them and `report "
            "--write` writes this file).\n"
            "# A line: INPUT ACCUMULATOR MxNxK LAYOUT OPTIONS... # why it "
            "won\n# LAYOUT is b (B stored K x N) or bt (N x K). A line "
            "applies to contractions\n# of its element types and layout "
            "whose M and N are from its own to twice\n# them and K from half "
            "to twice (the nearest line wins); explicit tiling\n# options "
            "and tuning-table=none turn it off.\n"
            "# Measured on %s at %s, every candidate's result checked element "
            "by\n# element; the winners were measured with the default "
            "tiling in the same run\n# (commit %s).\n" % (
                header["target"], header["gpu"].split(",")[0],
                header.get("clock_after", "?"),
                short_commit(header["commit"])))
        for problem, best, default in winners:
            input_type, acc_type = (COMPONENT_NAMES.get(t, t) for t in
                                    TYPES[problem["types"]])
            unit = "T%s/s" % ("OP" if input_type == "si8" else "FLOP")
            if default.get("checked") and default.get("median_us"):
                against = "against %.1f with the default tiling" % rate(
                    problem, default)
            else:
                against = "the default tiling %s" % (
                    "was pruned (%s)" % default["pruned"] if "pruned" in default
                    else "failed its check")
            spill = spilled_bytes(best)
            occupancy = occupancy_text(header["target"], best)
            f.write("%s %s %dx%dx%d %s %s # %.1f %s, %s; %d registers%s%s, "
                    "checked\n" % (
                        input_type, acc_type, problem["m"], problem["n"],
                        problem["k"], "bt" if problem["bt"] else "b",
                        best["options"], rate(problem, best), unit, against,
                        best["registers"],
                        " (%d bytes per invocation spilled into workgroup "
                        "memory)" % spill if spill else "",
                        ", " + occupancy if occupancy else ""))
    print("wrote %s (%d lines)" % (path, len(winners)))
    return 0


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="step", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("--problems")
    p.add_argument("--target", default="nvidia-h100")
    p.add_argument("--candidates",
                   help="';'-separated tilings to try instead of the "
                   "enumeration ('default' is always tried; 'table' is the "
                   "shipped tuning table's tiling for the problem)")
    p.add_argument("--bounds", action="store_true",
                   help="stage beside each candidate the diagnostic "
                   "variants of bounds.py (timed, wrong by design)")
    d = sub.add_parser("device")
    d.add_argument("stage")
    d.add_argument("out")
    d.add_argument("--repeat", type=int, default=30)
    d.add_argument("--prune-at-limit", action="store_true",
                   help="skip candidates at the register limit (faster; "
                   "some of them run well)")
    r = sub.add_parser("report")
    r.add_argument("results", nargs="+")
    r.add_argument("--write", action="store_true")
    args = parser.parse_args()
    if args.step == "prepare":
        prepare(args)
    elif args.step == "device":
        device(args)
    else:
        return report(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
