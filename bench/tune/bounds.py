#!/usr/bin/env python3
"""Diagnostic variants of a GEMM kernel, to tell what bounds its speed.

  bench/tune/bounds.py VARIANT IN.spv OUT.spv

VARIANT is one of:
  fewest-mma       keeps only the multiply-accumulates needed for every
                   matrix the kernel loads to still be used (a diagonal of
                   each subgroup's block: 8 of 32 for 8x4 blocks, 4 of 16
                   for 4x4), so the copies, loads and barriers stay and most
                   of the arithmetic goes;
  no-global-loads  the loads from storage buffers inside loops (the K
                   loop's copies of A and B) read zeros instead, so the
                   arithmetic, the workgroup-memory stores and the barriers
                   stay and the traffic from L2 and memory goes.

A kernel whose time hardly changes without most of its multiply-accumulates
is not bound by them; one that runs much faster without its global loads
is bound by its copies. Both variants compute wrong results on purpose: they
are timed, never taken as results (`run.py prepare --bounds` stages them
beside each candidate, and `report` prints them apart from the checked
figures). The edit is made on the disassembly (SPIRV-Tools' spirv-dis and
spirv-as) and the result goes through spirv-val.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VARIANTS = ("fewest-mma", "no-global-loads")
GLOBAL_STORAGE_CLASSES = ("StorageBuffer", "PhysicalStorageBuffer")


def spirv_tool(name):
    """A SPIRV-Tools program: the project's own (utils/setup.sh), else PATH."""
    local = os.path.join(ROOT, ".deps", "spirv", "bin", name)
    return local if os.path.exists(local) else (shutil.which(name) or name)


class Instruction:
    """One line of spirv-dis --raw-id output."""

    def __init__(self, text):
        self.text = text
        match = re.match(r"\s*(?:(%\d+) = )?(Op\w+)(.*)$", text)
        self.result = match.group(1) if match else None
        self.opcode = match.group(2) if match else None
        self.operands = match.group(3).split() if match else []

    def ids(self):
        return [t for t in self.operands if re.fullmatch(r"%\d+", t)]


def parse(text):
    return [Instruction(line) for line in text.splitlines()]


def loop_ranges(instructions):
    """(first, last) positions of the blocks of each structured loop: from
    its OpLoopMerge to the label of its merge block."""
    labels = {inst.result: i for i, inst in enumerate(instructions)
              if inst.opcode == "OpLabel"}
    return [(i, labels[inst.operands[0]])
            for i, inst in enumerate(instructions)
            if inst.opcode == "OpLoopMerge" and inst.operands[0] in labels]


def substitute(instructions, replacements):
    """Drops the instructions whose results are replaced and renames their
    uses (following chains of replacements)."""
    def resolve(name):
        while name in replacements:
            name = replacements[name]
        return name
    lines = []
    for inst in instructions:
        if inst.result in replacements:
            continue
        lines.append(re.sub(r"%\d+", lambda m: resolve(m.group(0))
                            if m.group(0) in replacements else m.group(0),
                            inst.text))
    return lines


def fewest_mma(instructions):
    """Keeps each multiply-accumulate whose A and B matrices are both not
    used yet by a kept one, then one for each matrix still unused; the
    others are replaced by their accumulator operand."""
    mmas = [inst for inst in instructions
            if inst.opcode == "OpCooperativeMatrixMulAddKHR"]
    if not mmas:
        raise ValueError("the kernel has no cooperative-matrix "
                         "multiply-accumulates (an emulated kernel?): "
                         "there is nothing to leave out")
    used, kept = set(), set()
    for inst in mmas:
        a, b = inst.ids()[1:3]
        if a not in used and b not in used:
            kept.add(inst.result)
            used.update((a, b))
    for inst in mmas:
        a, b = inst.ids()[1:3]
        if a not in used or b not in used:
            kept.add(inst.result)
            used.update((a, b))
    replacements = {inst.result: inst.ids()[3] for inst in mmas
                    if inst.result not in kept}
    return substitute(instructions, replacements), (
        "%d of %d multiply-accumulates kept" % (len(kept), len(mmas)))


def no_global_loads(instructions):
    """Replaces each OpLoad from a storage buffer inside a loop by a null
    constant of its type."""
    by_id = {inst.result: inst for inst in instructions if inst.result}

    def storage_class(pointer):
        inst = by_id.get(pointer)
        if inst is None or inst.opcode not in (
                "OpVariable", "OpAccessChain", "OpInBoundsAccessChain",
                "OpPtrAccessChain"):
            return None
        pointer_type = by_id.get(inst.operands[0])
        return pointer_type.operands[0] if pointer_type is not None and \
            pointer_type.opcode == "OpTypePointer" else None

    # Fresh ids start at the module's id bound (from the header comment).
    bound = next(int(m.group(1)) for m in (
        re.match(r"; Bound: (\d+)", inst.text) for inst in instructions) if m)
    inside = set()
    for first, last in loop_ranges(instructions):
        inside.update(range(first, last))
    nulls, replacements = {}, {}
    for i in sorted(inside):
        inst = instructions[i]
        if inst.opcode != "OpLoad":
            continue
        result_type, pointer = inst.operands[0], inst.operands[1]
        if storage_class(pointer) not in GLOBAL_STORAGE_CLASSES:
            continue
        nulls.setdefault(result_type, "%%%d" % (bound + len(nulls)))
        replacements[inst.result] = nulls[result_type]
    lines = substitute(instructions, replacements)
    # The constants go after all types, before the first function.
    first_function = next(i for i, line in enumerate(lines)
                          if re.match(r"\s*%\d+ = OpFunction ", line))
    lines[first_function:first_function] = [
        "%s = OpConstantNull %s" % (name, result_type)
        for result_type, name in nulls.items()]
    return lines, "%d loads from storage buffers in loops replaced" % len(
        replacements)


def make_variant(variant, source, destination):
    """Writes the variant of the kernel in `source` to `destination`,
    validated; returns a line saying what changed."""
    if variant not in VARIANTS:
        raise ValueError("unknown variant %r (one of %s)" %
                         (variant, ", ".join(VARIANTS)))
    disassembly = subprocess.run([spirv_tool("spirv-dis"), "--raw-id", source],
                                 capture_output=True, text=True)
    if disassembly.returncode != 0:
        # SPIRV-Tools 2025.1 knows no bfloat16 (SPV_KHR_bfloat16).
        raise ValueError("spirv-dis cannot disassemble %s: %s" % (
            source, disassembly.stderr.strip()[:200]))
    text = disassembly.stdout
    edit = fewest_mma if variant == "fewest-mma" else no_global_loads
    lines, summary = edit(parse(text))
    with tempfile.TemporaryDirectory() as scratch:
        assembly = os.path.join(scratch, "variant.spvasm")
        with open(assembly, "w") as f:
            f.write("\n".join(lines) + "\n")
        subprocess.run([spirv_tool("spirv-as"), "--target-env", "vulkan1.3",
                        "--preserve-numeric-ids", assembly, "-o",
                        destination], check=True)
    subprocess.run([spirv_tool("spirv-val"), "--target-env", "vulkan1.3",
                    destination], check=True)
    return summary


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in VARIANTS:
        sys.stderr.write(__doc__)
        return 2
    try:
        print(make_variant(*sys.argv[1:]))
    except ValueError as error:
        sys.stderr.write("bounds.py: error: %s\n" % error)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
