"""Uses the subgroup_matrix package as pip installed it: prints where the
package and the C API library it loaded are, builds a GEMM kernel with the
KernelBuilder, compiles it for lavapipe and runs it with the prefix's
sm-vulkan-runner, which checks C against its double-precision reference.

Usage: use_wheel.py  (run by downstream.test)
"""

import subgroup_matrix as sm
from subgroup_matrix import _paths

TILE, SUBGROUP_SIZE, SIZE = 16, 8, 32

print("package: %s" % sm.__file__)
print("library: %s" % _paths.library_path())

k = sm.KernelBuilder("gemm", target="cpu-lavapipe",
                     workgroup=(SUBGROUP_SIZE, 1, 1))
A, B, C = k.buffer("A", "f16"), k.buffer("B", "f16"), k.buffer("C", "f32")
K, ld = k.scalar("K"), k.scalar("ld")
row, col = k.mul(k.block_id("y"), TILE), k.mul(k.block_id("x"), TILE)
acc = k.splat(k.constant(0, "f32"), sm.result(TILE, TILE, "f32"))
with k.loop(0, K, TILE, carried=[acc]) as loop:
    a = k.load(A, k.add(k.mul(row, ld), loop.index), ld,
               sm.left(TILE, TILE, "f16"))
    b = k.load(B, k.add(k.mul(loop.index, ld), col), ld,
               sm.right(TILE, TILE, "f16"))
    loop.yield_(k.mma(a, b, loop.carried[0]))
k.store(loop.results[0], C, k.add(k.mul(row, ld), col), ld)

spirv = sm.compile(k.build(), target="cpu-lavapipe", output="spirv")
print("spirv: %d bytes" % len(spirv))
passed, report = sm.run_vulkan(
    spirv,
    [sm.Buffer("f16", SIZE * SIZE), sm.Buffer("f16", SIZE * SIZE),
     sm.Buffer("f32", SIZE * SIZE, "poison"),
     sm.Scalar("i32", SIZE), sm.Scalar("i32", SIZE)],
    grid=(SIZE // TILE, SIZE // TILE, 1),
    checks=["gemm:M=%d,N=%d,K=%d,A=0,B=1,C=2,lda=%d,ldb=%d,ldc=%d"
            % ((SIZE,) * 6)])
print(report)
print("run: %s" % ("PASSED" if passed else "FAILED"))
