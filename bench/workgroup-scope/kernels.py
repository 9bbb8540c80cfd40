#!/usr/bin/env python3
"""Kernels of workgroup-scope matrices, written in the dialect by hand, to
measure VK_NV_cooperative_matrix2's workgroup scope against the
subgroup-scope kernels sm-linalg-to-gpu writes.

  kernels.py stage     writes build/bench-workgroup-scope: every kernel's
                       .mlir and .spv (spirv-val'd), sm-linalg-to-gpu's own
                       attention kernel for the same problem, the runner and
                       the Vulkan loader's packages; then run
                       bench/workgroup-scope/device.sh on the GPU machine.

Attention: softmax(Q K^T / sqrt(128)) V, [32 heads, 4096, 128] f16, one
workgroup per block of Br queries; S = Q K^T of Bc keys, its row maximum
(reduce), P = exp, the row sums (reduce, or P times a matrix of ones,
"ones"), O rescaled and P V accumulated in Bc-column blocks of O. GEMM:
4096^3, C f32 = A f16 x B, one TM x TN tile per workgroup, B f16 or int4
(two rows a byte, f32 scales per 128 rows of K) through decode_load.
"""

import pathlib
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
HEADS, SEQ, DIM = 32, 4096, 128
M = N = K = 4096
GROUP = 128
# (Br, Bc, invocations) and (TM, TN, TK, invocations, int4).
ATTENTION = [(64, 64, 128), (128, 64, 256), (64, 128, 128), (128, 128, 256)]
GEMMS = [(128, 128, 32, 256, False), (128, 128, 32, 256, True),
         (128, 256, 32, 256, True), (256, 128, 32, 256, True)]


def wg(kind, rows, columns, component):
    return "!subgroup_matrix.%s<%dx%dx%s, workgroup>" % (
        kind, rows, columns, component)


def header(arguments, invocations):
    return ['gpu.module @kernels attributes {subgroup_matrix.target = '
            '#subgroup_matrix.target<"nvidia-h100">} {',
            '  gpu.func @main(%s) kernel attributes {known_block_size = '
            'array<i32: %d, 1, 1>} {' % (arguments, invocations)]


def constants(values):
    return ['    %%c%d = arith.constant %d : index' % (c, c)
            for c in sorted(set(values))]


def map_op(result, inputs, types, out_type, arguments, body):
    return (['      %s = subgroup_matrix.map %s : %s -> %s {' % (
        result, ", ".join(inputs), ", ".join(types), out_type),
        '      ^bb0(%%r: index, %%c: index, %s):' % arguments] +
        ['        ' + line for line in body] + ['      }'])


def attention(br, bc, invocations, ones):
    n = HEADS * SEQ * DIM
    mem = "memref<%dxf16>" % n
    R = wg("result", br, bc, "f32")
    Q, KT = wg("left", br, DIM, "f16"), wg("right", DIM, bc, "f16")
    PA, V = wg("left", br, bc, "f16"), wg("right", bc, bc, "f16")
    blocks = DIM // bc
    lines = header(", ".join("%%%s: %s" % (x, mem) for x in "qkvo"),
                   invocations)
    lines += constants([0, 1, DIM, SEQ // br, SEQ * DIM, br * DIM, bc * DIM,
                        SEQ // bc] + [h * bc for h in range(blocks)])
    lines += ['    %zero = arith.constant 0.0 : f32',
              '    %lowest = arith.constant -3.4028234e38 : f32',
              '    %%scale = arith.constant %.9e : f32' % DIM ** -0.5,
              '    %wid = gpu.block_id x',
              '    %%head = arith.divui %%wid, %%c%d : index' % (SEQ // br),
              '    %%block = arith.remui %%wid, %%c%d : index' % (SEQ // br),
              '    %%base = arith.muli %%head, %%c%d : index' % (SEQ * DIM),
              '    %%rows = arith.muli %%block, %%c%d : index' % (br * DIM),
              '    %qoff = arith.addi %base, %rows : index',
              '    %%Q = subgroup_matrix.load %%q[%%qoff] stride %%c%d : %s -> %s'
              % (DIM, mem, Q),
              '    %%z = subgroup_matrix.splat %%zero : f32 -> %s' % R,
              '    %%m0 = subgroup_matrix.splat %%lowest : f32 -> %s' % R]
    carried = ", ".join(["%M = %m0", "%L = %z"] +
                        ["%%o%d = %%z" % h for h in range(blocks)])
    lines.append('    %%res:%d = scf.for %%j = %%c0 to %%c%d step %%c1 '
                 'iter_args(%s) -> (%s) {' % (
                     2 + blocks, SEQ // bc, carried,
                     ", ".join([R] * (2 + blocks))))
    lines += ['      %%keys = arith.muli %%j, %%c%d : index' % (bc * DIM),
              '      %koff = arith.addi %base, %keys : index',
              '      %%KT = subgroup_matrix.load %%k[%%koff] stride %%c%d '
              'col_major : %s -> %s' % (DIM, mem, KT),
              '      %%S = subgroup_matrix.mma %%Q, %%KT, %%z : %s, %s -> %s'
              % (Q, KT, R),
              '      %%rowmax = subgroup_matrix.reduce max rows %%S : %s' % R]
    lines += map_op('%Mn', ['%M', '%rowmax'], [R, R], R,
                    '%x: f32, %y: f32',
                    ['%m = arith.maximumf %x, %y : f32',
                     'subgroup_matrix.yield %m : f32'])
    exp_body = ['%d = arith.subf %x, %y : f32', '%s = arith.mulf %d, %scale : f32',
                '%e = math.exp %s : f32', 'subgroup_matrix.yield %e : f32']
    lines += map_op('%P', ['%S', '%Mn'], [R, R], R, '%x: f32, %y: f32',
                    exp_body)
    lines += map_op('%eM', ['%M', '%Mn'], [R, R], R, '%x: f32, %y: f32',
                    exp_body)
    lines.append('      %%PA = subgroup_matrix.convert %%P : %s -> %s'
                 % (R, PA))
    if ones:
        lines += ['      %one = arith.constant 1.0 : f16',
                  '      %%ones = subgroup_matrix.splat %%one : f16 -> %s'
                  % V,
                  '      %%rowsum = subgroup_matrix.mma %%PA, %%ones, %%z : '
                  '%s, %s -> %s' % (PA, V, R)]
    else:
        lines.append('      %%rowsum = subgroup_matrix.reduce add rows %%P : '
                     '%s' % R)
    lines += map_op('%Ln', ['%eM', '%L', '%rowsum'], [R, R, R], R,
                    '%e: f32, %l: f32, %s: f32',
                    ['%t = arith.mulf %e, %l : f32',
                     '%u = arith.addf %t, %s : f32',
                     'subgroup_matrix.yield %u : f32'])
    for h in range(blocks):
        lines += map_op('%%kept%d' % h, ['%%o%d' % h, '%eM'], [R, R], R,
                        '%x: f32, %e: f32',
                        ['%t = arith.mulf %x, %e : f32',
                         'subgroup_matrix.yield %t : f32'])
        lines += ['      %%voff%d = arith.addi %%koff, %%c%d : index'
                  % (h, h * bc),
                  '      %%V%d = subgroup_matrix.load %%v[%%voff%d] stride '
                  '%%c%d : %s -> %s' % (h, h, DIM, mem, V),
                  '      %%on%d = subgroup_matrix.mma %%PA, %%V%d, %%kept%d : '
                  '%s, %s -> %s' % (h, h, h, PA, V, R)]
    lines.append('      scf.yield %%Mn, %%Ln, %s : %s' % (
        ", ".join("%%on%d" % h for h in range(blocks)),
        ", ".join([R] * (2 + blocks))))
    lines.append('    }')
    R16 = wg("result", br, bc, "f16")
    for h in range(blocks):
        lines += ['  ' + line for line in map_op(
            '%%out%d' % h, ['%%res#%d' % (2 + h), '%res#1'], [R, R], R16,
            '%x: f32, %l: f32',
            ['%t = arith.divf %x, %l : f32', '%h = arith.truncf %t : f32 to f16',
             'subgroup_matrix.yield %h : f16'])]
        lines += ['    %%ooff%d = arith.addi %%qoff, %%c%d : index' % (h, h * bc),
                  '    subgroup_matrix.store %%out%d, %%o[%%ooff%d] stride %%c%d '
                  ': %s, %s' % (h, h, DIM, R16, mem)]
    return "\n".join(lines + ['    gpu.return', '  }', '}']) + "\n"


def gemm(tm, tn, tk, invocations, int4):
    L, B, C = wg("left", tm, tk, "f16"), wg("right", tk, tn, "f16"), \
        wg("result", tm, tn, "f32")
    a_mem, c_mem = "memref<%dxf16>" % (M * K), "memref<%dxf32>" % (M * N)
    b_mem = "memref<%dxi8>" % (K // 2 * N) if int4 else "memref<%dxf16>" % (K * N)
    s_mem = "memref<%dxf32>" % (K // GROUP * N)
    arguments = "%%a: %s, %%b: %s, %s%%c: %s" % (
        a_mem, b_mem, "%%s: %s, " % s_mem if int4 else "", c_mem)
    lines = header(arguments, invocations)
    lines += constants([0, K, N, tk, N // tn, tm * K, tn])
    lines += ['    %zero = arith.constant 0.0 : f32',
              '    %wid = gpu.block_id x',
              '    %%tr = arith.divui %%wid, %%c%d : index' % (N // tn),
              '    %%tc = arith.remui %%wid, %%c%d : index' % (N // tn),
              '    %%row0 = arith.muli %%tr, %%c%d : index' % (tm * K),
              '    %%col0 = arith.muli %%tc, %%c%d : index' % tn,
              '    %%z = subgroup_matrix.splat %%zero : f32 -> %s' % C,
              '    %%acc = scf.for %%k = %%c0 to %%c%d step %%c%d '
              'iter_args(%%x = %%z) -> (%s) {' % (K, tk, C),
              '      %aoff = arith.addi %row0, %k : index',
              '      %%A = subgroup_matrix.load %%a[%%aoff] stride %%c%d : %s -> '
              '%s' % (K, a_mem, L)]
    if int4:
        lines += ['      %%B = subgroup_matrix.decode_load [%%k, %%col0] within '
                  '[%%c%d, %%c%d] : %s {' % (K, N, B),
                  '      ^bb0(%row: index, %col: index):']
        lines += ['        ' + line for line in [
            '%two = arith.constant 2 : index',
            '%%group = arith.constant %d : index' % GROUP,
            '%pair = arith.divui %row, %two : index',
            '%%pair_start = arith.muli %%pair, %%c%d : index' % N,
            '%byte_at = arith.addi %pair_start, %col : index',
            '%g = arith.divui %row, %group : index',
            '%%group_start = arith.muli %%g, %%c%d : index' % N,
            '%group_at = arith.addi %group_start, %col : index',
            '%%byte = memref.load %%b[%%byte_at] : %s' % b_mem,
            '%bits = arith.extui %byte : i8 to i32',
            '%odd_row = arith.remui %row, %two : index',
            '%odd = arith.index_cast %odd_row : index to i32',
            '%four = arith.constant 4 : i32',
            '%shift = arith.muli %odd, %four : i32',
            '%shifted = arith.shrui %bits, %shift : i32',
            '%mask = arith.constant 15 : i32',
            '%nibble = arith.andi %shifted, %mask : i32',
            '%eight = arith.constant 8 : i32',
            '%centered = arith.subi %nibble, %eight : i32',
            '%value = arith.sitofp %centered : i32 to f32',
            '%%scale = memref.load %%s[%%group_at] : %s' % s_mem,
            '%scaled = arith.mulf %value, %scale : f32',
            '%element = arith.truncf %scaled : f32 to f16',
            'subgroup_matrix.yield %element : f16']]
        lines.append('      }')
    else:
        lines += ['      %%brow = arith.muli %%k, %%c%d : index' % N,
                  '      %boff = arith.addi %brow, %col0 : index',
                  '      %%B = subgroup_matrix.load %%b[%%boff] stride %%c%d : '
                  '%s -> %s' % (N, b_mem, B)]
    lines += ['      %%y = subgroup_matrix.mma %%A, %%B, %%x : %s, %s -> %s'
              % (L, B, C),
              '      scf.yield %%y : %s' % C, '    }',
              '    %%crow = arith.muli %%tr, %%c%d : index' % (tm * K),
              '    %coff = arith.addi %crow, %col0 : index',
              '    subgroup_matrix.store %%acc, %%c[%%coff] stride %%c%d : %s, %s'
              % (N, C, c_mem)]
    return "\n".join(lines + ['    gpu.return', '  }', '}']) + "\n"


def compile_kernel(text, stem, tools, spirv_val):
    source = stem.with_suffix(".mlir")
    source.write_text(text)
    lowered = stem.with_suffix(".spirv.mlir")
    binary = stem.with_suffix(".spv")
    for argv in ([tools / "sm-opt", source, "--sm-lower-to-vulkan", "-o",
                  lowered],
                 [tools / "sm-translate", "--serialize-spirv", lowered, "-o",
                  binary],
                 [spirv_val, "--target-env", "vulkan1.3", binary]):
        subprocess.run([str(x) for x in argv], check=True)
    lowered.unlink()


def stage():
    out = ROOT / "build" / "bench-workgroup-scope"
    shutil.rmtree(out, ignore_errors=True)
    (out / "kernels").mkdir(parents=True)
    tools = ROOT / "build" / "bin"
    spirv_val = ROOT / ".deps" / "spirv" / "bin" / "spirv-val"
    for br, bc, invocations in ATTENTION:
        for ones in (False, True):
            name = "attention_%d_%d_%d%s" % (br, bc, invocations,
                                             "_ones" if ones else "")
            compile_kernel(attention(br, bc, invocations, ones),
                           out / "kernels" / name, tools, spirv_val)
    for tm, tn, tk, invocations, int4 in GEMMS:
        name = "gemm_%d_%d_%d_%d_%s" % (tm, tn, tk, invocations,
                                        "int4" if int4 else "f16")
        compile_kernel(gemm(tm, tn, tk, invocations, int4),
                       out / "kernels" / name, tools, spirv_val)
    # sm-linalg-to-gpu's attention for the same problem (the benchmark
    # corpus's program), through the runtime's plan.
    sys.path.insert(0, str(ROOT / "bench" / "runtime"))
    sys.path.insert(0, str(ROOT / "test" / "lib"))
    import numpy as np
    import programs
    plan = out / "ours"
    plan.mkdir()
    program = programs.PROGRAMS["attention_%dx%dx%dx%d_nv" % (
        HEADS, SEQ, SEQ, DIM)]
    (plan / "program.mlir").write_text(program.text)
    argv = [str(tools / "sm-run"), str(plan / "program.mlir"), "--target",
            "nvidia-h100", "--emit-plan", str(plan)]
    for index, (shape, dtype, _, _) in enumerate(program.inputs):
        np.save(plan / ("given_%d.npy" % index), np.zeros(shape, dtype))
        argv += ["--input", str(plan / ("given_%d.npy" % index))]
    subprocess.run(argv, check=True, capture_output=True)
    shutil.copy(plan / "binary_0.spv", out / "ours_attention.spv")
    # Its entry point and grid, for the runner.
    launch = next(line for line in (plan / "plan.txt").read_text().splitlines()
                  if line.startswith("launch "))
    (out / "ours_attention.launch").write_text(launch + "\n")
    shutil.rmtree(plan)
    shutil.copy(tools / "sm-vulkan-runner", out)
    subprocess.run([str(ROOT / "utils" / "device-vulkan.sh"), "stage",
                    str(out / "debs")], check=True)
    print("staged in %s" % out)


if __name__ == "__main__":
    if sys.argv[1:] != ["stage"]:
        sys.exit(__doc__)
    stage()
