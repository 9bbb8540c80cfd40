#!/usr/bin/env python3
"""Quantized-weight GEMM benchmark: C = A W^T with W dequantized as the
kernel stages it (sm-linalg-to-gpu fuses the dequantizing producer), against
our own f16 kernel on the already dequantized weight and PyTorch on the
same GPU, in one run at one clock.

  bench/dequant/run.py prepare [--sizes 1,16,256,4096] [--nk 4096]
                               [--options "..."]   # here: build, validate
  <device> bash bench/dequant/device.sh            # there: run and check
  bench/dequant/run.py report DIR                  # here: the table

Forms (W stored N x K, as PyTorch stores a linear layer's weight):
  f16   W itself (our f16 kernel, the baseline)
  int8  signed 8-bit W, one f16 scale per output column
  int4  4-bit W packed two to a byte along K, offset by 8, one f16 scale
        per group of 128 along K

`prepare` writes one linalg program per form and M, compiles it with
`sm-opt --sm-linalg-to-gpu="target=nvidia-h100 OPTIONS"` (the default
tiling unless OPTIONS say otherwise: small M splits K, so a program is the
split product, the fill of C and the reduction that adds the parts into it),
lowers, serializes and validates it with spirv-val, and stages the binaries,
the host program's launches, the runner and the Vulkan loader in
build/bench-dequant. On the GPU machine `device` makes fresh random inputs
with PyTorch, runs the launches in order through sm-vulkan-runner, passing
buffers between them (allocations poisoned), checks every element of the
output against a float64 reference computed by PyTorch from the stored
weight (dequantized in double precision, rounded to f16 as the program
rounds, then multiplied), then times every launch (the median of --repeat
dispatches, GPU timestamps) and reports their sum; and it times PyTorch's
f16 matmul on the dequantized weight and, where it applies (M > 16), its
int8 `_int_mm` on 8-bit activations and weights.
"""

import argparse
import ctypes
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("SM_BUILD_DIR", os.path.join(ROOT, "build"))
BIN = os.path.join(BUILD, "bin")
STAGE = os.path.join(BUILD, "bench-dequant")
SPIRV_VAL = os.path.join(ROOT, ".deps", "spirv", "bin", "spirv-val")
FORMS = ("f16", "int8", "int4")
GROUP = 128
# |error| <= TOLERANCE * max(1, |reference|) for every element.
TOLERANCE = 2e-3
# The runner's spelling and the size of the programs' element types.
RUNNER_TYPES = {"f16": "f16", "bf16": "bf16", "f32": "f32", "i8": "i8",
                "i32": "i32"}
ELEMENT_BYTES = {"f16": 2, "bf16": 2, "f32": 4, "i8": 1, "i32": 4}

# The linalg suite's reading of a host program after sm-linalg-to-gpu.
_suite_spec = importlib.util.spec_from_file_location(
    "linalg_suite", os.path.join(ROOT, "test", "Integration", "LinalgToGPU",
                                 "suite.py"))
_suite = importlib.util.module_from_spec(_suite_spec)
_suite_spec.loader.exec_module(_suite)
parse_host, memref_info = _suite.parse_host, _suite.memref_info


def program(form, m, n, k):
    """The linalg program of `form`: arguments A (m x k f16) and the stored
    weight (and scales); result m x n f32."""
    a = "tensor<%dx%dxf16>" % (m, k)
    w = "tensor<%dx%dxf16>" % (n, k)
    c = "tensor<%dx%dxf32>" % (m, n)
    product = """  %%zero = arith.constant 0.0 : f32
  %%e = tensor.empty() : %(c)s
  %%f = linalg.fill ins(%%zero : f32) outs(%%e : %(c)s) -> %(c)s
  %%r = linalg.matmul
    indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
    ins(%%a, %%w : %(a)s, %(w)s) outs(%%f : %(c)s) -> %(c)s
  return %%r : %(c)s
}
""" % dict(a=a, w=w, c=c)
    if form == "f16":
        return "func.func @linear(%%a: %s, %%w: %s) -> %s {\n" % (a, w, c) + product
    if form == "int8":
        q, s = "tensor<%dx%dxi8>" % (n, k), "tensor<%dxf16>" % n
        maps = "affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>"
        body = """    %value = arith.sitofp %q_v : i8 to f16
    %weight = arith.mulf %value, %s_v : f16"""
    else:
        q = "tensor<%dx%dxi8>" % (n, k // 2)
        s = "tensor<%dx%dxf16>" % (n, k // GROUP)
        maps = ("affine_map<(d0, d1) -> (d0, d1 floordiv 2)>, "
                "affine_map<(d0, d1) -> (d0, d1 floordiv %d)>" % GROUP)
        body = """    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c15 = arith.constant 15 : i8
    %c8 = arith.constant 8 : i8
    %k = linalg.index 1 : index
    %odd = arith.andi %k, %c1 : index
    %shift_index = arith.muli %odd, %c4 : index
    %shift = arith.index_cast %shift_index : index to i8
    %shifted = arith.shrui %q_v, %shift : i8
    %nibble = arith.andi %shifted, %c15 : i8
    %centred = arith.subi %nibble, %c8 : i8
    %value = arith.sitofp %centred : i8 to f16
    %weight = arith.mulf %value, %s_v : f16"""
    return """func.func @linear(%%a: %(a)s, %%q: %(q)s, %%s: %(s)s) -> %(c)s {
  %%ew = tensor.empty() : %(w)s
  %%w = linalg.generic {indexing_maps = [%(maps)s, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%%q, %%s : %(q)s, %(s)s) outs(%%ew : %(w)s) {
  ^bb0(%%q_v: i8, %%s_v: f16, %%o: f16):
%(body)s
    linalg.yield %%weight : f16
  } -> %(w)s
""" % dict(a=a, q=q, s=s, c=c, w=w, maps=maps, body=body) + product


def run(command, **kwargs):
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(command), result.stderr))
    return result.stdout


def prepare(args):
    kernels = os.path.join(STAGE, "kernels")
    previous = []
    if args.append:
        previous = json.load(open(os.path.join(STAGE, "manifest.json")))[
            "configs"]
    elif os.path.isdir(STAGE):
        shutil.rmtree(STAGE)
    os.makedirs(kernels, exist_ok=True)
    gemm_stage = os.path.join(BUILD, "bench-gemm")
    debs = os.path.join(STAGE, "debs")
    if os.path.isdir(debs):
        pass
    elif os.path.isdir(os.path.join(gemm_stage, "debs")):
        shutil.copytree(os.path.join(gemm_stage, "debs"), debs)
    else:
        os.makedirs(debs)
        run(["apt-get", "download", "libvulkan1"], cwd=debs)
    shutil.copy(os.path.join(BIN, "sm-vulkan-runner"), STAGE)
    manifest = previous
    n = k = args.nk
    for m in [int(v) for v in args.sizes.split(",")]:
        for form in FORMS:
            stem = "%s_m%d_n%d_k%d%s" % (form, m, n, k,
                                         "_" + args.tag if args.tag else "")
            source = os.path.join(kernels, stem + ".mlir")
            gpu = os.path.join(kernels, stem + ".gpu.mlir")
            lowered = os.path.join(kernels, stem + ".spirv.mlir")
            binary = os.path.join(kernels, stem + ".spv")
            open(source, "w").write(program(form, m, n, k))
            options = ("target=nvidia-h100 " + args.options).strip()
            run([os.path.join(BIN, "sm-opt"), source,
                 "--sm-linalg-to-gpu=" + options, "-o", gpu])
            host = parse_host(open(gpu).read())
            run([os.path.join(BIN, "sm-opt"), gpu, "--sm-lower-to-vulkan",
                 "-o", lowered])
            run([os.path.join(BIN, "sm-translate"), "--serialize-spirv",
                 lowered, "-o", binary])
            run([SPIRV_VAL, "--target-env", "vulkan1.3", binary])
            for path in (source, gpu, lowered):
                os.remove(path)
            manifest.append(dict(
                kernel=stem + ".spv", form=form,
                tiling=args.options or "default", m=m, n=n, k=k, host=host))
            print("staged %s (%s)" % (stem, ", ".join(
                "%s on %s" % (launch["entry"], "x".join(
                    host["constants"].get(g, g) for g in launch["grid"]))
                for launch in host["launches"])))
    json.dump(dict(configs=manifest, group=GROUP, tolerance=TOLERANCE),
              open(os.path.join(STAGE, "manifest.json"), "w"), indent=1)


def run_program(runner, kernel, host, inputs, work, repeat):
    """Runs the launches of `host` (parse_host's description of the program
    after sm-linalg-to-gpu) in order on the tensors `inputs` (its arguments
    but the result), its allocations poisoned (all bytes 0xFF); returns the
    returned buffer as a flat f32 tensor and each launch's entry and median
    time. The timing dispatches run after the checked one, on the buffers as
    that left them."""
    import torch
    buffers, kinds = {}, {}
    for (name, spec), tensor in zip(host["arguments"], inputs):
        host_tensor = tensor.cpu().contiguous()
        # The raw bytes, without a copy through Python objects.
        buffers[name] = ctypes.string_at(
            host_tensor.data_ptr(),
            host_tensor.numel() * host_tensor.element_size())
        kinds[name] = (RUNNER_TYPES[spec.split("x")[-1]], host_tensor.numel())
    for name, (spec, _) in host["allocations"].items():
        shape, count, storage = memref_info(spec)
        kinds[name] = (RUNNER_TYPES[spec.split("x")[-1]], count)
        buffers[name] = b"\xff" * (count * ELEMENT_BYTES[spec.split("x")[-1]])

    def base(name):
        while name in host["aliases"]:
            name = host["aliases"][name]
        return name

    timings = []
    for number, launch in enumerate(host["launches"]):
        command = [runner, kernel, "--entry", launch["entry"], "--grid",
                   ",".join(host["constants"][g] for g in launch["grid"])]
        outputs = []
        for index, name in enumerate(launch["args"]):
            name = base(name)
            kind, count = kinds[name]
            path = os.path.join(work, "%d.%d" % (number, index))
            with open(path, "wb") as file:
                file.write(buffers[name])
            command += ["--arg", "%s:%d:file:%s" % (kind, count, path),
                        "--output", "%d:%s.out" % (index, path)]
            outputs.append((name, path + ".out"))
        log = subprocess.run(command + ["--repeat", str(repeat)],
                             capture_output=True, text=True)
        median = re.search(r"time: median ([0-9.]+) us", log.stdout)
        if log.returncode != 0 or not median:
            raise RuntimeError("launch %d (%s) failed (%d): %s" % (
                number, launch["entry"], log.returncode,
                log.stdout + log.stderr))
        # The outputs are those of the first dispatch, before the timed ones.
        for name, path in outputs:
            buffers[name] = open(path, "rb").read()
        timings.append((launch["entry"], float(median.group(1))))
    result = buffers[base(host["returned"])]
    return (torch.frombuffer(bytearray(result), dtype=torch.float32),
            timings)


def time_torch(call, repeat, calls=20):
    """Per call, the median time of a CUDA graph of `calls` calls, timed as
    bench/gemm/cublas.py times cuBLAS: the GPU time of the calls alone
    (timing single calls from Python would count the launch overhead of
    small problems)."""
    import torch
    spec = importlib.util.spec_from_file_location(
        "cublas", os.path.join(ROOT, "bench", "gemm", "cublas.py"))
    cublas = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cublas)
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(3):
            call()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(calls):
            call()
    # time_call gives seconds per replay.
    return cublas.time_call(graph.replay, repeat) * 1e6 / calls


def device(args):
    """On the GPU machine: inputs, runs, checks and PyTorch timings. The
    CUDA context this process holds keeps the GPU at its full clock while
    the Vulkan kernels run."""
    import torch
    stage, out = args.stage, args.out
    manifest = json.load(open(os.path.join(stage, "manifest.json")))
    runner = os.path.join(stage, "sm-vulkan-runner")
    data = os.path.join(out, "data")
    os.makedirs(data, exist_ok=True)
    results = []
    generator = torch.Generator(device="cuda")

    def sm_clock():
        return subprocess.run(
            ["nvidia-smi", "--query-gpu=clocks.sm", "--format=csv,noheader"],
            capture_output=True, text=True).stdout.strip()
    # The clock rises from idle (345 MHz) a few seconds after a CUDA context
    # exists (bench/gemm/device.sh waits as long); it is sampled while this
    # process holds its context, before the first kernel and after the last.
    torch.zeros(1, device="cuda")
    time.sleep(8)
    clocks = [sm_clock()]
    generator.manual_seed(int.from_bytes(os.urandom(4), "little"))
    for config in manifest["configs"]:
        form, m, n, k = config["form"], config["m"], config["n"], config["k"]
        a = (torch.rand(m, k, device="cuda", generator=generator) * 2 - 1).half()
        if form == "f16":
            w = ((torch.rand(n, k, device="cuda", generator=generator) * 2 - 1)
                 .half())
            stored = [a, w]
            reference_w = w.double()
        elif form == "int8":
            q = torch.randint(-128, 128, (n, k), dtype=torch.int8,
                              device="cuda", generator=generator)
            s = (torch.rand(n, device="cuda", generator=generator) * 0.008 +
                 0.002).half()
            stored = [a, q, s]
            reference_w = (q.double() * s.double()[:, None]).half().double()
        else:
            group = manifest["group"]
            q = torch.randint(-128, 128, (n, k // 2), dtype=torch.int8,
                              device="cuda", generator=generator)
            s = (torch.rand(n, k // group, device="cuda", generator=generator)
                 * 0.008 + 0.002).half()
            stored = [a, q, s]
            byte = q.to(torch.int32) & 0xFF
            nibbles = torch.stack([byte & 15, byte >> 4], dim=2).reshape(n, k)
            scales = s.double().repeat_interleave(group, dim=1)
            reference_w = ((nibbles - 8).double() * scales).half().double()
        reference = a.double() @ reference_w.t()
        result = dict(config)
        del result["host"]
        try:
            got, timings = run_program(runner, os.path.join(
                stage, "kernels", config["kernel"]), config["host"], stored,
                data, args.repeat)
        except RuntimeError as error:
            result.update(checked=False, error=str(error)[-2000:])
            results.append(result)
            print("FAIL %s: %s" % (config["kernel"], error), flush=True)
            continue
        got = got.reshape(m, n).double()
        error = (got.cuda() - reference).abs()
        bound = manifest["tolerance"] * reference.abs().clamp(min=1.0)
        mismatches = int((error > bound).sum()) + int(torch.isnan(got).sum())
        result.update(checked=mismatches == 0, mismatches=mismatches,
                      max_error=float(error.max()),
                      microseconds=sum(t for _, t in timings),
                      launches=["%s %.2f us" % timing for timing in timings])
        # PyTorch on the same problem: f16 matmul of the dequantized
        # weight, and int8 _int_mm where it takes the shape.
        w16 = reference_w.half()
        result["torch_f16_us"] = time_torch(lambda: a @ w16.t(), args.repeat)
        if form == "int8" and m > 16:
            a8 = torch.randint(-128, 128, (m, k), dtype=torch.int8,
                               device="cuda", generator=generator)
            q_t = q.t()
            result["torch_int_mm_us"] = time_torch(
                lambda: torch._int_mm(a8, q_t), args.repeat)
        results.append(result)
        print("%s %s: %d mismatches, max error %.3g, %.2f us (%s; PyTorch "
              "f16 %.2f us)" % ("PASS" if mismatches == 0 else "FAIL",
                                config["kernel"], mismatches,
                                result["max_error"], result["microseconds"],
                                ", ".join(result["launches"]),
                                result["torch_f16_us"]), flush=True)
    clocks.append(sm_clock())
    print("SM clock before the first kernel and after the last: %s, %s" %
          tuple(clocks), flush=True)
    json.dump(results, open(os.path.join(out, "results.json"), "w"), indent=1)


def report(args):
    results = json.load(open(os.path.join(args.dir, "results.json")))
    by_shape = {}
    for r in results:
        key = (r["m"], r["n"], r["k"], r.get("tiling", "default"))
        by_shape.setdefault(key, {})[r["form"]] = r
    print("| M x N x K | tiling | f16 (ours) | int8 (ours) | int4 (ours) "
          "| f16 / int8 | f16 / int4 | PyTorch f16 | PyTorch _int_mm |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for (m, n, k, tiling), forms in sorted(by_shape.items()):
        def cell(form):
            r = forms.get(form)
            if not r:
                return "-"
            if not r.get("checked"):
                return "FAILED"
            return "%.1f us" % r["microseconds"]

        def speedup(form):
            base, r = forms.get("f16"), forms.get(form)
            if not (base and r and base.get("checked") and r.get("checked")):
                return "-"
            return "%.2fx" % (base["microseconds"] / r["microseconds"])
        torch_f16 = forms.get("f16", {}).get("torch_f16_us")
        int_mm = forms.get("int8", {}).get("torch_int_mm_us")
        print("| %dx%dx%d | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            m, n, k, tiling, cell("f16"), cell("int8"), cell("int4"),
            speedup("int8"),
            speedup("int4"), "%.1f us" % torch_f16 if torch_f16 else "-",
            "%.1f us" % int_mm if int_mm else "-"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("--sizes", default="1,16,256,4096")
    p.add_argument("--nk", type=int, default=4096)
    p.add_argument("--options", default="",
                   help="more sm-linalg-to-gpu options (tiling)")
    p.add_argument("--append", action="store_true",
                   help="add to the staged kernels (another tiling)")
    p.add_argument("--tag", default="",
                   help="suffix of the kernels' names (with --append)")
    d = sub.add_parser("device")
    d.add_argument("stage")
    d.add_argument("out")
    d.add_argument("--repeat", type=int, default=50)
    r = sub.add_parser("report")
    r.add_argument("dir")
    args = parser.parse_args()
    {"prepare": prepare, "device": device, "report": report}[args.command](args)


if __name__ == "__main__":
    main()
