"""How each path checks a case of the linalg suite: compiled with
sm-linalg-to-gpu (the form sm-run takes) and the kernels checked the way
the path needs them, then each variant run whole by sm-run on fresh
random inputs (allocations poisoned by the runtime) and its output
compared with the case's double-precision reference, each expected value
rounded to the output's storage type.

PATH is vulkan, intel or msl: how the kernels are checked besides running
(Vulkan SPIR-V and Intel OpenCL SPIR-V through spirv-val); sm-run runs the
program on the target's device (the CPU host runners for Intel and Apple).
"""

import math
import os

import numpy as np

from sm_testing.elements import round_to
from sm_testing.numerics import from_array, to_array
from sm_testing.program_check import SmRunError, compare, run_sm
from sm_testing.tools import run_steps



def build(path, case, out, tools, spirv_val, target):
    """Compiles the case into OUT/<case>.gpu.mlir and checks its kernels
    the way `path` needs them: Vulkan SPIR-V serialized and validated, the
    Intel form's OpenCL SPIR-V validated. Returns (compiled program,
    error)."""
    tool = lambda t: os.path.join(tools, t)  # noqa: E731
    source = os.path.join(out, case.name + ".mlir")
    if not os.path.exists(source):
        with open(source, "w") as f:
            f.write(case.text)
    gpu = os.path.join(out, case.name + ".gpu.mlir")
    steps = [[tool("sm-opt"), source, ("--sm-linalg-to-gpu=target=%s %s" % (
        target, case.options)).strip(), "-o", gpu]]
    if path == "vulkan":
        lowered = os.path.join(out, case.name + ".spirv.mlir")
        kernel = os.path.join(out, case.name + ".spv")
        steps += [[tool("sm-opt"), gpu, "--sm-lower-to-vulkan", "-o", lowered],
                  [tool("sm-translate"), "--serialize-spirv", lowered, "-o",
                   kernel]]
        # Every binary, bf16 included (SPIRV-Tools 2026).
        if spirv_val:
            steps.append([spirv_val, "--target-env", "vulkan1.3", kernel])
    elif path == "intel" and spirv_val:
        lowered = os.path.join(out, case.name + ".intel.mlir")
        binary = os.path.join(out, case.name + ".intel.spv")
        steps += [[tool("sm-opt"), gpu, "--sm-lower-to-intel", "-o", lowered],
                  [tool("sm-translate"), "--emit-intel-spirv", lowered, "-o",
                   binary],
                  [spirv_val, "--target-env", "spv1.4", binary]]
    error = run_steps(steps)
    if error:
        return None, error
    # The launch ops the program became, as written (one in a loop counts
    # once).
    launches = open(gpu).read().count("gpu.launch_func ")
    if case.launches is not None and launches != case.launches:
        return None, "expected %d launch(es), got %d" % (case.launches,
                                                         launches)
    return gpu, None


def fresh_inputs(case_inputs, rng):
    """Random arrays for the function's arguments: (flat values, array)
    per argument. A distribution (low, high, specials) also sets the flat
    positions in `specials` ({index: value}) to their values (NaN, inf)."""
    inputs = []
    for _, shape, storage, distribution in case_inputs:
        low, high = distribution[:2]
        count = math.prod(shape)
        if storage in ("f16", "bf16", "f32"):
            values = [round_to(rng.uniform(low, high), storage)
                      for _ in range(count)]
        else:
            values = [rng.randint(low, high) for _ in range(count)]
        for index, value in (distribution[2] if len(distribution) > 2
                             else {}).items():
            values[index] = value
        inputs.append((values, to_array(values, shape, storage)))
    return inputs


def output_file(directory, argument_count):
    """Where the case's output was written: its result, or else the last
    argument, which a memref program writes."""
    result = os.path.join(directory, "result_0.npy")
    if os.path.exists(result):
        return result
    return os.path.join(directory, "arg_%d.npy" % (argument_count - 1))


def compare_output(case, got_array, inputs, reference):
    """(ok, detail) of the output against the double-precision reference,
    each expected value rounded to the output's storage and each element
    within the case's tolerance of the larger of it and 1."""
    storage = from_array(got_array)[1]
    expected = [round_to(value, storage) for value in reference(inputs)]
    return compare(got_array.reshape(-1),
                   to_array(expected, (len(expected),), storage), storage,
                   case.tolerance, floor=1.0, rms_floor=False)


def variant_label(case, case_inputs, detail):
    if len(case.variants) == 1:
        return detail
    return "%s %s: %s" % (case_inputs[0][0], "x".join(
        str(d) for d in case_inputs[0][1]), detail)


def check_case(path, case, out, tools, spirv_val, target, rng, stage="",
               env=None):
    """(ok, detail): builds the case and runs each of its variants through
    sm-run on fresh inputs, comparing the output with the reference; with
    `stage`, writes each variant's device plan and inputs into
    STAGE/<case>.v<N> instead of running it."""
    program, error = build(path, case, out, tools, spirv_val, target)
    if error:
        return False, error
    details = []
    for number, (case_inputs, reference) in enumerate(case.variants):
        directory = os.path.join(stage or out, "%s.v%d" % (case.name, number))
        os.makedirs(directory, exist_ok=True)
        inputs = fresh_inputs(case_inputs, rng)
        try:
            outputs = run_sm(tools, program, target, None,
                             [array for _, array in inputs], directory,
                             env=env, emit_plan=bool(stage))
        except SmRunError as failure:
            return False, "; ".join(details + [variant_label(
                case, case_inputs, str(failure))])
        if stage:
            details.append(variant_label(case, case_inputs, "staged"))
            continue
        got = outputs.get(("result", 0))
        if got is None:
            got = outputs.get(("arg", len(inputs) - 1))
        if got is None:
            return False, "; ".join(details + [variant_label(
                case, case_inputs, "sm-run wrote no output")])
        ok, detail = compare_output(case, got,
                                    [values for values, _ in inputs],
                                    reference)
        details.append(variant_label(case, case_inputs, detail))
        if not ok:
            return False, "; ".join(details)
    return True, "; ".join(details)


def check_staged_case(root, case):
    """(ok, detail) of a case's staged variants that ran elsewhere
    (sm-plan-runner wrote their outputs beside the inputs in
    ROOT/<case>.v<N>), or None where none was staged."""
    details, ok = [], True
    for number, (case_inputs, reference) in enumerate(case.variants):
        directory = os.path.join(root, "%s.v%d" % (case.name, number))
        if not os.path.isdir(directory):
            continue
        inputs = [from_array(np.load(os.path.join(
            directory, "input_%d.npy" % i)))[0]
            for i in range(len(case_inputs))]
        output = output_file(directory, len(inputs))
        if not os.path.exists(output):
            log = os.path.join(directory, "runner.log")
            detail = "no output (%s)" % (open(log).read().strip()[-600:]
                                         if os.path.exists(log) else
                                         "no log")
            good = False
        else:
            good, detail = compare_output(case, np.load(output), inputs,
                                          reference)
        details.append(variant_label(case, case_inputs, detail))
        ok = ok and good
    if not details:
        return None
    return ok, "; ".join(details)
