#!/usr/bin/env python3
"""Runs whole programs through sm-run and checks every output.

Each case is a linalg program (on tensors or memrefs) with the shapes to run
it at. On Vulkan targets sm-run runs it on a Vulkan device; on Intel and
Apple targets through the CPU host runners, one launch at a time. Inputs are fresh random arrays (the seed is printed, and --seed
repeats a run); each output sm-run writes (result_<i>.npy, arg_<i>.npy) is
compared with a float64 reference computed here with numpy. Outputs that
the program allocates start poisoned (all bytes 0xFF), and written
arguments start with random data, so an element that no kernel writes is a
mismatch. Prints one line per run and a summary; exits 1 on any failure.
"""

import argparse
import os
import pathlib
import subprocess
import sys
import tempfile

import numpy as np

# The test library (test/lib), also when run by hand.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, os.pardir, "lib"))

from sm_testing.cli import add_selection_arguments, is_selected
from sm_testing.linalg.attention import attention_program
from sm_testing.linalg.common import tensor
from sm_testing.linalg.quantized import dequantization_program
from sm_testing.program_check import compare as compare_output

def mlp_program(rows, k, n):
    """relu(x W + bias) with f32 accumulation; `rows` "?" for a dynamic
    number of rows."""
    x, y = "tensor<%sx%dxf16>" % (rows, k), "tensor<%sx%dxf32>" % (rows, n)
    dynamic = rows == "?"
    return """
#rows = affine_map<(d0, d1) -> (d0, d1)>
#columns = affine_map<(d0, d1) -> (d1)>
func.func @mlp(%%x: %(x)s, %%w: tensor<%(k)dx%(n)dxf16>,
               %%bias: tensor<%(n)dxf32>) -> %(y)s {
%(dim)s  %%zero = arith.constant 0.0 : f32
  %%e = tensor.empty(%(sizes)s) : %(y)s
  %%acc = linalg.fill ins(%%zero : f32) outs(%%e : %(y)s) -> %(y)s
  %%mm = linalg.matmul ins(%%x, %%w : %(x)s, tensor<%(k)dx%(n)dxf16>)
      outs(%%acc : %(y)s) -> %(y)s
  %%r = linalg.generic {indexing_maps = [#rows, #columns, #rows],
                       iterator_types = ["parallel", "parallel"]}
      ins(%%mm, %%bias : %(y)s, tensor<%(n)dxf32>) outs(%%e : %(y)s) {
  ^bb0(%%v: f32, %%b: f32, %%out: f32):
    %%s = arith.addf %%v, %%b : f32
    %%relu = arith.maximumf %%s, %%zero : f32
    linalg.yield %%relu : f32
  } -> %(y)s
  return %%r : %(y)s
}
""" % dict(x=x, y=y, k=k, n=n, sizes="%m" if dynamic else "",
           dim="  %%c0 = arith.constant 0 : index\n"
               "  %%m = tensor.dim %%x, %%c0 : %s\n" % x if dynamic else "")


MLP = mlp_program("?", 256, 128)

def accumulate_program(m, k, n, t):
    """C += A B on memrefs, C (f32) an argument the program writes."""
    a, b, c = ("memref<%dx%dx%s>" % shape for shape in
               ((m, k, t), (k, n, t), (m, n, "f32")))
    return """
func.func @accumulate(%%a: %(a)s, %%b: %(b)s, %%c: %(c)s) {
  linalg.matmul ins(%%a, %%b : %(a)s, %(b)s) outs(%%c : %(c)s)
  return
}
""" % dict(a=a, b=b, c=c)


ACCUMULATE = accumulate_program(64, 128, 48, "f16")

# The same product tiled as a plan written by hand says (sm-plan-kernels
# keeps it): 32x16 tiles of 2x1 subgroups, 16 deep, two stages, C loaded
# before the K loop; 40x40 of C leaves ragged tiles at both edges.
ACCUMULATE_BY_PLAN = accumulate_program(40, 48, 40, "f16").replace(
    "linalg.matmul ins",
    "linalg.matmul {subgroup_matrix.plan = #subgroup_matrix.contraction_plan<"
    "config = <16x16x16, f16 -> f32>, tile_m = 32, tile_n = 16, tile_k = 16, "
    "subgroups_m = 2, subgroups_n = 1, padding = 8, stages = 2, "
    "prefetch = true, preload_c = true, stage_b_transposed = false, "
    "vector_width = 1, group_m = 1, split_k = 1>} ins")
ACCUMULATE_F32 = accumulate_program(32, 64, 24, "f32")

SCALED = """
func.func @scaled(%x: memref<64x48xf32>, %scale: f32) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      outs(%x : memref<64x48xf32>) {
  ^bb0(%v: f32):
    %s = arith.mulf %v, %scale : f32
    linalg.yield %s : f32
  }
  return
}
"""

TWO_LAYERS = """
func.func @two_layers(%x: tensor<32x64xf16>, %w1: tensor<64x96xf16>,
                      %w2: tensor<96x16xf16>) -> (tensor<32x16xf32>,
                                                  tensor<32x96xf16>) {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<32x96xf32>
  %a1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<32x96xf32>)
      -> tensor<32x96xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<32x64xf16>, tensor<64x96xf16>)
      outs(%a1 : tensor<32x96xf32>) -> tensor<32x96xf32>
  %e16 = tensor.empty() : tensor<32x96xf16>
  %h16 = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>,
                       affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<32x96xf32>) outs(%e16 : tensor<32x96xf16>) {
  ^bb0(%v: f32, %out: f16):
    %t = arith.truncf %v : f32 to f16
    linalg.yield %t : f16
  } -> tensor<32x96xf16>
  %e2 = tensor.empty() : tensor<32x16xf32>
  %a2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<32x16xf32>)
      -> tensor<32x16xf32>
  %y = linalg.matmul ins(%h16, %w2 : tensor<32x96xf16>, tensor<96x16xf16>)
      outs(%a2 : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %y, %h16 : tensor<32x16xf32>, tensor<32x96xf16>
}
"""

# The generated docs' @mlp: split over K on the H100 (a kernel of partial
# products into an intermediate buffer, then their sum with the epilogue).
SPLIT_K_MLP = mlp_program(256, 512, 1024)

# A host function as one writes it by hand: a dynamic size, an allocation,
# a copy, and a loop of launches with a scalar argument.
HOST_LOOP = """
module attributes {gpu.container_module} {
  gpu.module @kernels attributes {
      subgroup_matrix.target = #subgroup_matrix.target<"cpu-lavapipe">} {
    gpu.func @add_one(%buf: memref<?xf32>, %n: index) kernel
        attributes {known_block_size = array<i32: 64, 1, 1>} {
      %i = gpu.global_id x
      %inside = arith.cmpi ult, %i, %n : index
      scf.if %inside {
        %v = memref.load %buf[%i] : memref<?xf32>
        %one = arith.constant 1.0 : f32
        %w = arith.addf %v, %one : f32
        memref.store %w, %buf[%i] : memref<?xf32>
      }
      gpu.return
    }
  }
  func.func @add_three(%x: memref<?xf32>) -> memref<?xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c64 = arith.constant 64 : index
    %n = memref.dim %x, %c0 : memref<?xf32>
    %copy = memref.alloc(%n) : memref<?xf32>
    memref.copy %x, %copy : memref<?xf32> to memref<?xf32>
    %blocks = arith.ceildivui %n, %c64 : index
    scf.for %step = %c0 to %c3 step %c1 {
      gpu.launch_func @kernels::@add_one blocks in (%blocks, %c1, %c1)
          threads in (%c64, %c1, %c1)
          args(%copy : memref<?xf32>, %n : index)
    }
    return %copy : memref<?xf32>
  }
}
"""


ATTENTION = attention_program("attention", 2, 48, 40, 64, "f16", True,
                                    "f16")

DEQUANT_INT8 = dequantization_program(
    "dequant", tensor((33, 64), "f16"), None,
    [("q", tensor((64, 48), "i8")), ("s", tensor((48,), "f16"))],
    ["affine_map<(d0, d1) -> (d0, d1)>", "affine_map<(d0, d1) -> (d1)>"],
    """    %qf = arith.sitofp %q_v : i8 to f16
    %w = arith.mulf %qf, %s_v : f16""", (64, 48), "f16", "f32", 33, 48, 64,
    False)


# i4 in and out: arrays hold one value per byte, buffers pack two (2310
# of them: the last 32-bit word half full). The i4 sum wraps as i4 does.
INT4_ROUND_TRIP = """
#map = affine_map<(i, j) -> (i, j)>
#column = affine_map<(i, j) -> (j)>
func.func @int4(%q: tensor<33x70xi4>, %s: tensor<70xf32>)
    -> (tensor<33x70xf32>, tensor<33x70xi4>) {
  %three = arith.constant 3 : i4
  %e = tensor.empty() : tensor<33x70xf32>
  %d = linalg.generic {indexing_maps = [#map, #column, #map],
                       iterator_types = ["parallel", "parallel"]}
      ins(%q, %s : tensor<33x70xi4>, tensor<70xf32>)
      outs(%e : tensor<33x70xf32>) {
  ^bb0(%v: i4, %scale: f32, %out: f32):
    %f = arith.sitofp %v : i4 to f32
    %m = arith.mulf %f, %scale : f32
    linalg.yield %m : f32
  } -> tensor<33x70xf32>
  %e4 = tensor.empty() : tensor<33x70xi4>
  %shifted = linalg.generic {indexing_maps = [#map, #map],
                             iterator_types = ["parallel", "parallel"]}
      ins(%q : tensor<33x70xi4>) outs(%e4 : tensor<33x70xi4>) {
  ^bb0(%v: i4, %out: i4):
    %a = arith.addi %v, %three : i4
    linalg.yield %a : i4
  } -> tensor<33x70xi4>
  return %d, %shifted : tensor<33x70xf32>, tensor<33x70xi4>
}
"""


# Long reductions into few outputs, each split in two kernels (parts
# folded by workgroups of their own, then the parts): a maximum over a
# whole tensor (rank 0) and four sums of 65536 terms.
SPLIT_REDUCTIONS = """
#all = affine_map<(i, j) -> (i, j)>
#scalar = affine_map<(i, j) -> ()>
#row = affine_map<(i, j) -> (i)>
func.func @split(%x: tensor<256x512xf32>, %y: tensor<4x65536xf32>)
    -> (tensor<f32>, tensor<4xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<f32>
  %f0 = linalg.fill ins(%ninf : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %max = linalg.generic {indexing_maps = [#all, #scalar],
                         iterator_types = ["reduction", "reduction"]}
      ins(%x : tensor<256x512xf32>) outs(%f0 : tensor<f32>) {
  ^bb0(%v: f32, %acc: f32):
    %m = arith.maximumf %acc, %v : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  %e1 = tensor.empty() : tensor<4xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4xf32>)
      -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#all, #row],
                         iterator_types = ["parallel", "reduction"]}
      ins(%y : tensor<4x65536xf32>) outs(%f1 : tensor<4xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %a = arith.addf %acc, %v : f32
    linalg.yield %a : f32
  } -> tensor<4xf32>
  return %max, %sum : tensor<f32>, tensor<4xf32>
}
"""


def split_reductions_reference(x, y):
    return {"result_0": np.array(x.astype(np.float64).max()),
            "result_1": y.astype(np.float64).sum(axis=1)}


def int4(rng, shape):
    return rng.integers(-8, 8, shape).astype(np.int8)


def int8(rng, shape):
    return rng.integers(-128, 128, shape).astype(np.int8)


def scales(rng, shape):
    return rng.uniform(0.002, 0.01, shape).astype(np.float16)


def f16(rng, shape):
    return rng.uniform(-1, 1, shape).astype(np.float16)


def f32(rng, shape):
    return rng.uniform(-1, 1, shape).astype(np.float32)


def large_f32(rng, shape):
    return rng.uniform(-1e6, 1e6, shape).astype(np.float32)


def tiny_f32(rng, shape):
    """A scalar far below what six decimals print (1e-7 written as %f is
    0.000000): it must reach the kernel exactly."""
    return np.asarray(rng.uniform(1e-7, 2e-7, shape), np.float32)


def mlp_reference(x, w, bias):
    h = x.astype(np.float64) @ w.astype(np.float64) + bias
    return {"result_0": np.maximum(h, 0)}


def scaled_reference(x, scale):
    return {"arg_0": x.astype(np.float64) * float(scale)}


def accumulate_reference(a, b, c):
    return {"arg_2": c.astype(np.float64) +
            a.astype(np.float64) @ b.astype(np.float64)}


def attention_reference(q, k, v):
    q, k, v = (t.astype(np.float64) for t in (q, k, v))
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(q.shape[-1])
    rows, columns = scores.shape[1:]
    scores[:, np.triu(np.ones((rows, columns), bool), 1)] = -np.inf
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    weights /= weights.sum(-1, keepdims=True)
    return {"result_0": weights @ v}


def dequant_reference(a, q, s):
    # The program dequantizes in f16 (one rounding), then multiplies.
    w = (q.astype(np.float64) * s.astype(np.float64)).astype(np.float16)
    return {"result_0": a.astype(np.float64) @ w.astype(np.float64)}


def int4_reference(q, s):
    q = q.astype(np.int64)
    return {"result_0": q * s.astype(np.float64),
            "result_1": (q + 3 + 8) % 16 - 8}


def add_three_reference(x):
    # The argument is only read: no arg_0.npy may appear.
    return {"result_0": x.astype(np.float64) + 3, "arg_0": None}


# A weight that is a constant of the program (as a front-end that folds
# its parameters writes it): the plan uploads it once. Drawn from a fixed
# seed so that a staged run is checked against the same weight.
CONSTANT_WEIGHT = np.random.default_rng(35).uniform(
    -1, 1, (64, 32)).astype(np.float16)
CONSTANT_PROJECTION = """
func.func @projection(%%x: tensor<?x64xf16>) -> tensor<?x32xf32> {
  %%w = arith.constant dense<[%s]> : tensor<64x32xf16>
  %%c0 = arith.constant 0 : index
  %%m = tensor.dim %%x, %%c0 : tensor<?x64xf16>
  %%zero = arith.constant 0.0 : f32
  %%e = tensor.empty(%%m) : tensor<?x32xf32>
  %%acc = linalg.fill ins(%%zero : f32) outs(%%e : tensor<?x32xf32>)
      -> tensor<?x32xf32>
  %%y = linalg.matmul ins(%%x, %%w : tensor<?x64xf16>, tensor<64x32xf16>)
      outs(%%acc : tensor<?x32xf32>) -> tensor<?x32xf32>
  return %%y : tensor<?x32xf32>
}
""" % ", ".join("[%s]" % ", ".join(repr(float(v)) for v in row)
                for row in CONSTANT_WEIGHT)


def constant_projection_reference(x):
    return {"result_0": x.astype(np.float64) @
            CONSTANT_WEIGHT.astype(np.float64)}


def two_layers_reference(x, w1, w2):
    h = x.astype(np.float64) @ w1.astype(np.float64)
    h16 = h.astype(np.float16)
    return {"result_0": h16.astype(np.float64) @ w2.astype(np.float64),
            "result_1": h16.astype(np.float64)}


# name, program, [input makers per run], reference, tolerance
CASES = [
    ("mlp (dynamic rows, bias, relu)", MLP,
     [[(f16, (64, 256)), (f16, (256, 128)), (f32, (128,))],
      [(f16, (37, 256)), (f16, (256, 128)), (f32, (128,))]],
     mlp_reference, 2e-3),
    ("accumulate into a memref argument", ACCUMULATE,
     [[(f16, (64, 128)), (f16, (128, 48)), (f32, (64, 48))]],
     accumulate_reference, 2e-3),
    ("accumulate as a hand-written plan says", ACCUMULATE_BY_PLAN,
     [[(f16, (40, 48)), (f16, (48, 40)), (f32, (40, 40))]],
     accumulate_reference, 2e-3),
    ("two layers, two results", TWO_LAYERS,
     [[(f16, (32, 64)), (f16, (64, 96)), (f16, (96, 16))]],
     two_layers_reference, 4e-3),
    ("the docs' @mlp (split-K on the H100)", SPLIT_K_MLP,
     [[(f16, (256, 512)), (f16, (512, 1024)), (f32, (1024,))]],
     mlp_reference, 3e-3),
    ("int8 weights dequantized as they are staged", DEQUANT_INT8,
     [[(f16, (33, 64)), (int8, (64, 48)), (scales, (48,))]],
     dequant_reference, 2e-3),
    ("causal attention (GPU only: emulated on lavapipe it takes minutes)",
     ATTENTION, [[(f16, (2, 48, 64)), (f16, (2, 40, 64)), (f16, (2, 40, 64))]],
     attention_reference, 5e-3),
    ("a weight that is a constant of the program", CONSTANT_PROJECTION,
     [[(f16, (16, 64))], [(f16, (5, 64))]], constant_projection_reference,
     2e-3),
    ("a host loop of launches, a copy, a dynamic size", HOST_LOOP,
     [[(f32, (1000,))], [(f32, (64,))]], add_three_reference, 1e-6),
    ("i4 arguments and results (packed in the device's buffers)",
     INT4_ROUND_TRIP, [[(int4, (33, 70)), (f32, (70,))]], int4_reference,
     1e-6),
    ("long reductions into few outputs, split in two kernels",
     SPLIT_REDUCTIONS, [[(f32, (256, 512)), (f32, (4, 65536))]],
     split_reductions_reference, 1e-5),
    ("a scalar argument of about 1e-7, passed exactly", SCALED,
     [[(large_f32, (64, 48)), (tiny_f32, ())]], scaled_reference, 1e-5),
    ("f32 product into a memref argument (Apple's configuration)",
     ACCUMULATE_F32, [[(f32, (32, 64)), (f32, (64, 24)), (f32, (32, 24))]],
     accumulate_reference, 1e-5),
]


def compare(name, got, want, tolerance):
    """(ok, detail) of output `name`: each element within the tolerance of
    the larger of it, 1 and the output's root mean square."""
    ok, detail = compare_output(got, want, "f64", tolerance, floor=1.0)
    return ok, "%s: %s" % (name, detail)


def check_outputs(reference, inputs, directory, tolerance):
    """(ok, details) of the outputs in `directory` against `reference`."""
    details, ok = [], True
    for output, want in reference(*inputs).items():
        path = directory / (output + ".npy")
        if want is None:
            if path.exists():
                ok = False
                details.append("%s: written, though the program only reads "
                               "it" % output)
            continue
        if not path.exists():
            ok = False
            details.append("%s: not written" % output)
            continue
        good, detail = compare(output, np.load(path), want, tolerance)
        ok &= good
        details.append(detail)
    return ok, details


def selected(name, options):
    """Whether --only and --skip keep the case, and whether it can run on
    the target."""
    if "GPU only" in name and options.target.startswith("cpu-lavapipe"):
        return False
    return is_selected(name, options.only, options.skip)


def runs(rng, options):
    """(case number, run number, label, inputs) of every run."""
    for number, (name, _, shapes, _, _) in enumerate(CASES):
        if not selected(name, options):
            continue
        for run, makers in enumerate(shapes):
            inputs = [make(rng, shape) for make, shape in makers]
            label = "%s [%s]" % (name, ", ".join(
                "x".join(str(d) for d in a.shape) for a in inputs))
            yield number, run, label, inputs


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", required=True)
    parser.add_argument("--target", default="cpu-lavapipe")
    parser.add_argument("--seed", type=int)
    parser.add_argument("--repeat", type=int, default=0)
    add_selection_arguments(parser)
    parser.add_argument("--spirv-val", metavar="PATH",
                        help="with --via-plan or --stage, validate every "
                        "binary the plan holds (those the device runs)")
    # How the programs run: through sm-run (the default), or as device
    # plans run here, staged for a GPU machine, or checked once it ran them.
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--via-plan", action="store_true",
                      help="run each program as sm-run --emit-plan and "
                      "sm-plan-runner")
    mode.add_argument("--stage", metavar="DIR",
                      help="only write each run's plan and inputs into "
                      "DIR/caseN.runM (for sm-plan-runner elsewhere)")
    mode.add_argument("--check", metavar="DIR",
                      help="check the outputs sm-plan-runner wrote into "
                      "DIR/caseN.runM against the staged inputs")
    options = parser.parse_args()
    if options.check:
        return check_staged(pathlib.Path(options.check))
    seed = options.seed if options.seed is not None else \
        int.from_bytes(os.urandom(4), "little")
    print("seed %d" % seed)
    rng = np.random.default_rng(seed)
    sm_run = os.path.join(options.tools, "sm-run")
    plan_runner = os.path.join(options.tools, "sm-plan-runner")
    passed = failed = 0
    with tempfile.TemporaryDirectory() as scratch:
        scratch = pathlib.Path(options.stage or scratch)
        scratch.mkdir(parents=True, exist_ok=True)
        for number, run, label, inputs in runs(rng, options):
            name, program, _, reference, tolerance = CASES[number]
            source = scratch / ("case%d.mlir" % number)
            source.write_text(program)
            directory = scratch / ("case%d.run%d" % (number, run))
            directory.mkdir()
            argv = [sm_run, str(source), "--target", options.target,
                    "--output-dir", str(directory)]
            for index, array in enumerate(inputs):
                path = directory / ("input_%d.npy" % index)
                np.save(path, array)
                argv += ["--input", str(path)]
            commands = [argv]
            if options.stage or options.via_plan:
                commands = [argv + ["--emit-plan", str(directory)]]
                if options.via_plan:
                    commands.append([plan_runner, str(directory)])
            if options.repeat:
                commands[-1] += ["--repeat", str(options.repeat)]
            for command in commands:
                done = subprocess.run(command, capture_output=True, text=True)
                if done.returncode:
                    break
            # The binaries of a plan are those the device runs.
            if not done.returncode and options.spirv_val and \
                    (options.stage or options.via_plan):
                for binary in sorted(directory.glob("binary_*.spv")):
                    command = [options.spirv_val, "--target-env", "vulkan1.3",
                               str(binary)]
                    done = subprocess.run(command, capture_output=True,
                                          text=True)
                    if done.returncode:
                        break
            if done.returncode:
                print("FAILED %s: %s exited %d: %s" % (
                    label, os.path.basename(command[0]), done.returncode,
                    (done.stderr + done.stdout).strip()[-1500:]))
                failed += 1
                continue
            if options.stage:
                print("STAGED %s: %s" % (label, directory))
                passed += 1
                continue
            ok, details = check_outputs(reference, inputs, directory,
                                        tolerance)
            if options.repeat:
                details.append(" | ".join(
                    line.strip() for line in done.stdout.splitlines()
                    if "us" in line))
            print("%s %s: %s" % ("PASSED" if ok else "FAILED", label,
                                 "; ".join(details)))
            passed += ok
            failed += not ok
    print("programs: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


def check_staged(root):
    """Checks the outputs of staged runs that ran elsewhere."""
    passed = failed = 0
    for number, (name, _, shapes, reference, tolerance) in enumerate(CASES):
        for run in range(len(shapes)):
            directory = root / ("case%d.run%d" % (number, run))
            if not directory.exists():
                continue
            inputs = [np.load(directory / ("input_%d.npy" % i))
                      for i in range(len(shapes[run]))]
            label = "%s [%s]" % (name, ", ".join(
                "x".join(str(d) for d in a.shape) for a in inputs))
            ok, details = check_outputs(reference, inputs, directory,
                                        tolerance)
            log = directory / "runner.log"
            if log.exists():
                details.append(" | ".join(
                    line.strip() for line in log.read_text().splitlines()
                    if "us" in line or "error" in line))
            print("%s %s: %s" % ("PASSED" if ok else "FAILED", label,
                                 "; ".join(details)))
            passed += ok
            failed += not ok
    print("programs: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
