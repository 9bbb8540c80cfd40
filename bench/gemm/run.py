#!/usr/bin/env python3
"""GEMM benchmark of the kernels sm-tile-matmul generates, against cuBLAS.

Three steps, because the GPU sits on another machine that only the device
tool reaches (it carries the working tree there and brings $OUT back):

  bench/gemm/run.py prepare           # here: build, generate, validate
  <device> bash bench/gemm/device.sh  # there: run every kernel + cuBLAS
  bench/gemm/run.py report DIR...     # here: table, docs/performance.md

`prepare` builds the tools, writes one `linalg.matmul` per configuration,
runs `sm-opt --sm-tile-matmul=target=nvidia-h100` and `--sm-lower-to-vulkan`
and `sm-translate --serialize-spirv` on it, checks every binary with
spirv-val (SPIRV-Tools 2026, bf16 included) and puts the
binaries, the runner and the Vulkan loader packages in build/bench-gemm.
On the GPU machine, device.sh runs each binary with sm-vulkan-runner (the
launch, arguments and CPU check come from the binary itself; the first
dispatch is the warm-up and is checked against a double-precision
reference, then --repeat dispatches are timed with GPU timestamps and the
median is reported) and times cuBLAS on the same shapes through PyTorch.
`report` prints the table and writes it, with date, driver and commit, into
docs/performance.md between the GEMM markers.

Options of prepare: --sizes 1024,2048 (square sizes), --types f16-f32,...,
--tiling "tile-m=128 ..." (extra sm-tile-matmul options), --emulated (each
kernel also lowered with sm-lower-to-vulkan=emulation=all, operands by
subgroup broadcast and shuffle and, as a third row, through workgroup
memory).
"""

import argparse
import datetime
import json
import os
import re
import shutil
import subprocess
import sys

# The test library of this checkout (test/lib), from wherever this runs.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, os.pardir, "test", "lib"))

from sm_testing.gemm import TYPES, git_commit, matmul_module

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("SM_BUILD_DIR", os.path.join(ROOT, "build"))
BIN = os.path.join(BUILD, "bin")
STAGE = os.path.join(BUILD, "bench-gemm")
SPIRV_VAL = os.path.join(ROOT, ".deps", "spirv", "bin", "spirv-val")
TARGET = "nvidia-h100"

SQUARE_SIZES = [1024, 2048, 4096, 8192]
LLM_SHAPE = (4096, 512, 14336)  # M, N, K
# Shapes that are no multiple of any tile, and the transposed-B layout: run
# for correctness (and timed like the rest).
EXTRA = [
    ("ragged", (1000, 1000, 1000), False),
    ("ragged", (777, 555, 333), False),
    ("transposed-b", (4096, 4096, 4096), True),
    ("transposed-b ragged", (1000, 1000, 1000), True),
    # Decode steps (the small-M tiling: one row of result matrices per
    # workgroup, subgroups along N).
    ("decode", (1, 4096, 4096), False),
    ("decode", (7, 4096, 4096), False),
    ("decode", (16, 4096, 4096), False),
]
# The Vulkan loader and the GL libraries that NVIDIA's ICD needs; the GPU
# machine has neither.
# Downloads the Vulkan loader's packages, which device.sh unpacks on the GPU
# machine (utils/device-vulkan.sh).
STAGE_LOADER = [os.path.join(ROOT, "utils", "device-vulkan.sh"), "stage"]


def run(command, **kwargs):
    return subprocess.run(command, check=True, **kwargs)


def prepare(args):
    run(["ninja", "-C", BUILD, "sm-opt", "sm-translate", "sm-vulkan-runner"])
    if os.path.isdir(STAGE):
        shutil.rmtree(STAGE)
    kernels = os.path.join(STAGE, "kernels")
    os.makedirs(kernels)
    types = args.types.split(",") if args.types else list(TYPES)
    sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else SQUARE_SIZES
    configs = []
    for name in types:
        for size in sizes:
            configs.append((name, "square", (size, size, size), False))
        configs.append((name, "llm", LLM_SHAPE, False))
        if not args.no_extra:
            for label, shape, transposed in EXTRA:
                configs.append((name, label, shape, transposed))
    manifest = []
    for name, label, (m, n, k), transposed in configs:
        input_type, acc_type = TYPES[name]
        stem = "%s_%dx%dx%d%s" % (name, m, n, k, "_bt" if transposed else "")
        source = os.path.join(kernels, stem + ".mlir")
        with open(source, "w") as f:
            f.write(matmul_module(m, n, k, input_type, acc_type, transposed))
        tiled = source.replace(".mlir", ".tiled.mlir")
        lowered = source.replace(".mlir", ".spirv.mlir")
        binary = source.replace(".mlir", ".spv")
        option = "target=%s %s" % (TARGET, args.tiling or "")
        run([os.path.join(BIN, "sm-opt"), "--sm-tile-matmul=" + option.strip(),
             source, "-o", tiled])
        # With --emulated, each kernel also in its emulated form: the same
        # tiled kernel, its matrices emulated (its 16-byte copies stay where
        # both buffers allow them).
        variants = [("", "--sm-lower-to-vulkan", label, tiled)]
        if args.emulated:
            variants.append(("_emulated",
                             "--sm-lower-to-vulkan=emulation=all "
                             "emulated-exchange=subgroup",
                             label + ", emulated", tiled))
            variants.append(("_emulated_workgroup",
                             "--sm-lower-to-vulkan=emulation=all "
                             "emulated-exchange=workgroup",
                             label + ", emulated, workgroup exchange", tiled))
        for suffix, lowering, variant_label, variant_input in variants:
            variant = binary.replace(".spv", suffix + ".spv")
            run([os.path.join(BIN, "sm-opt"), lowering, variant_input, "-o",
                 lowered])
            run([os.path.join(BIN, "sm-translate"), "--serialize-spirv", lowered,
                 "-o", variant])
            run([SPIRV_VAL, "--target-env", "vulkan1.3", variant])
            manifest.append({"kernel": os.path.basename(variant), "type": name,
                             "label": variant_label, "m": m, "n": n, "k": k,
                             "transposed_b": transposed})
            print("prepared %s" % os.path.basename(variant), flush=True)
        for path in (source, tiled, lowered):
            os.remove(path)
    with open(os.path.join(STAGE, "manifest.json"), "w") as f:
        json.dump({"commit": git_commit(), "tiling": args.tiling or "",
                   "configs": manifest}, f, indent=1)
    shutil.copy(os.path.join(BIN, "sm-vulkan-runner"), STAGE)
    run(STAGE_LOADER + [os.path.join(STAGE, "debs")])
    print("staged %d kernels in %s" % (len(manifest), STAGE))


def parse_runner_log(text):
    """Per kernel: passed, TFLOP/s (from the median), median us, errors."""
    results = {}
    for block in text.split("=== kernel ")[1:]:
        name = block.split(" ===", 1)[0].strip()
        median = re.search(r"time: median ([0-9.]+) us", block)
        results[name] = {
            "passed": "PASSED" in block and "FAILED" not in block,
            "median_us": float(median.group(1)) if median else None,
            "log": block,
        }
    return results

# The sample's names for the element types, and our type names.
SAMPLE_TYPES = {("float16_t", "float32_t"): "f16-f32",
                ("float16_t", "float16_t"): "f16-f16",
                ("bfloat16_t", "float32_t"): "bf16-f32",
                ("int8_t", "int32_t"): "s8-s32"}


def sample_sections(text):
    """The lines of the sample's output, each with the (type, scope) of the
    cooperative-matrix configuration whose header precedes it (type None
    for types we do not run); headers are not yielded."""
    current = (None, None)
    for line in text.splitlines():
        props = re.search(r"A = (\S+) B = \S+ C = (\S+) D = \S+ scope = (\S+)",
                          line)
        if props:
            current = (SAMPLE_TYPES.get((props.group(1), props.group(2))),
                       props.group(3))
        else:
            yield current, line


def parse_sample_log(text):
    """NVIDIA's sample: per (type, B column-major, scope), its best TFLOP/s
    and the tile that reached it."""
    best = {}
    for (kind, scope), line in sample_sections(text):
        timing = re.search(r"TILE_M=(\d+) TILE_N=(\d+), TILE_K=(\d+) "
                           r"BColMajor=(\d).*?([0-9.]+) TFlops", line)
        if timing and kind:
            key = (kind, timing.group(4) == "1", scope)
            rate = float(timing.group(5))
            if key not in best or rate > best[key][0]:
                best[key] = (rate, "%sx%sx%s" % timing.groups()[:3])
    return best


def parse_sample_correctness(text):
    """Per (type, scope): whether every test of the sample's correctness
    mode passed."""
    passed = {}
    for key, line in sample_sections(text):
        if key[0] and re.search(r"\b(pass|fail)$", line):
            passed[key] = passed.get(key, True) and line.endswith("pass")
    return passed


def report(args):
    # Several result folders (one per device run) make one table; a kernel
    # measured again in a later folder takes its later figures and commit.
    ours, cublas, configs, gpus, tilings = {}, {}, {}, [], set()
    for results in args.results:
        with open(os.path.join(results, "manifest.json")) as f:
            manifest = json.load(f)
        with open(os.path.join(results, "runner.log")) as f:
            measured = parse_runner_log(f.read())
        ours.update(measured)
        with open(os.path.join(results, "cublas.json")) as f:
            cublas.update(json.load(f))
        with open(os.path.join(results, "gpu.txt")) as f:
            gpu = f.read().strip().replace("\n", "; ")
        if gpu not in gpus:
            gpus.append(gpu)
        tilings.add(manifest["tiling"])
        for config in manifest["configs"]:
            if config["kernel"] in measured:
                configs[config["kernel"]] = dict(config, commit=manifest["commit"][:7])
    order = {name: i for i, name in enumerate(TYPES)}
    ordered = sorted(configs.values(), key=lambda c: order[c["type"]])
    rows = []
    for config in ordered:
        result = ours.get(config["kernel"], {})
        ops = 2.0 * config["m"] * config["n"] * config["k"]
        median = result.get("median_us")
        rate = ops / (median * 1e-6) / 1e12 if median else None
        key = "%s_%dx%dx%d%s" % (config["type"], config["m"], config["n"],
                                  config["k"], "_bt" if config["transposed_b"] else "")
        reference = cublas.get(key, {})
        ref_rate = reference.get("tflops")
        rows.append({
            "type": config["type"], "shape": "%dx%dx%d" % (config["m"], config["n"], config["k"]),
            "label": config["label"], "check": "pass" if result.get("passed") else "FAIL",
            "ours": rate, "cublas": ref_rate, "cublas_note": reference.get("note", ""),
            "cublas_error": reference.get("error", "").split("\n")[0][:60],
            "ratio": rate / ref_rate if rate and ref_rate else None,
            "commit": config["commit"],
        })
    unit = lambda t: "TOP/s" if t.startswith("s8") else "TFLOP/s"
    fmt = lambda x: "%.1f" % x if x is not None else "-"
    lines = ["| type | M x N x K | layout | check | ours (%s) | cuBLAS | ours / cuBLAS | commit |" % "TFLOP/s or TOP/s",
             "| --- | --- | --- | --- | ---: | ---: | ---: | --- |"]
    for r in rows:
        lines.append("| %s | %s | %s | %s | %s | %s%s | %s | %s |" % (
            r["type"], r["shape"], r["label"], r["check"], fmt(r["ours"]),
            fmt(r["cublas"]) if r["cublas"] is not None else "- (%s)" % r["cublas_error"] if r["cublas_error"] else "-",
            (" (%s)" % r["cublas_note"]) if r["cublas_note"] else "",
            "%.2f" % r["ratio"] if r["ratio"] else "-", r["commit"]))
    # NVIDIA's sample, where it ran in one of these runs: its best tile per
    # type at 4096^3 beside ours.
    sample, sample_checked = {}, {}
    for results in args.results:
        log = os.path.join(results, "sample.log")
        if os.path.exists(log):
            sample.update(parse_sample_log(open(log).read()))
            correctness = os.path.join(results, "sample-correctness.log")
            if os.path.exists(correctness):
                sample_checked.update(
                    parse_sample_correctness(open(correctness).read()))
    if sample:
        lines += ["", "Beside NVIDIA's sample (vk_cooperative_matrix_perf, "
                  "its best tile per type and scope, same run):", "",
                  "| type | B layout | ours | sample, KHR subgroup scope | "
                  "sample, NV workgroup scope | ours / sample's best |",
                  "| --- | --- | ---: | ---: | ---: | ---: |"]
        for r in rows:
            if r["shape"] != "4096x4096x4096" or r["ours"] is None:
                continue
            column_major = r["label"] == "transposed-b"
            cells = []
            for scope in ("subgroup", "workgroup"):
                entry = sample.get((r["type"], column_major, scope))
                checked = sample_checked.get((r["type"], scope))
                cells.append("%.1f (%s%s)" % (
                    entry[0], entry[1],
                    "" if checked else ", its check did not run" if checked is None
                    else ", FAILED its check") if entry else "-")
            rates = [sample[k][0] for k in sample
                     if k[0] == r["type"] and k[1] == column_major]
            lines.append("| %s | %s | %.1f | %s | %s | %s |" % (
                r["type"], "N x K" if column_major else "K x N", r["ours"],
                cells[0], cells[1],
                "%.2f" % (r["ours"] / max(rates)) if rates else "-"))
    table = "\n".join(lines)
    header = ("Measured %s on %s; the commit of each kernel is in the last column; "
              "tiling options: %s.\n"
              "Ours: median of the timed dispatches (GPU timestamps) after a checked "
              "warm-up dispatch; cuBLAS: median of CUDA-event-timed torch calls "
              "after warm-up, same machine, same run.\n" % (
                  datetime.date.today().isoformat(), " / ".join(gpus),
                  ", ".join(sorted(t or "the nvidia-h100 defaults" for t in tilings))))
    print(header)
    print(table)
    if args.write:
        path = os.path.join(ROOT, "docs", "performance.md")
        with open(path) as f:
            text = f.read()
        begin, end = "<!-- gemm-table-begin -->", "<!-- gemm-table-end -->"
        block = "%s\n%s\n%s\n%s" % (begin, header, table, end)
        if begin in text:
            text = re.sub(re.escape(begin) + ".*?" + re.escape(end), lambda _: block,
                          text, flags=re.S)
        else:
            text += "\n## GEMM on the H100\n\n" + block + "\n"
        with open(path, "w") as f:
            f.write(text)
        print("wrote %s" % path)
    failed = [r for r in rows if r["check"] != "pass"]
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="step", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("--sizes")
    p.add_argument("--types")
    p.add_argument("--tiling")
    p.add_argument("--no-extra", action="store_true")
    p.add_argument("--emulated", action="store_true",
                   help="also stage every kernel with emulated matrices")
    r = sub.add_parser("report")
    r.add_argument("results", nargs="+")
    r.add_argument("--write", action="store_true")
    args = parser.parse_args()
    if args.step == "prepare":
        prepare(args)
        return 0
    return report(args)


if __name__ == "__main__":
    sys.exit(main())
