"""CompiledProgram.run and .time: whole programs on numpy arrays, on
lavapipe, against float64 references; and the errors of bad arrays."""

import os

import pytest

LAVAPIPE_ICD = "/usr/share/vulkan/icd.d/lvp_icd.json"
pytestmark = pytest.mark.skipif(not os.path.exists(LAVAPIPE_ICD),
                                reason="Mesa lavapipe not installed")
# The loader reads this when the runtime opens its first device, in this
# process.
os.environ["VK_DRIVER_FILES"] = LAVAPIPE_ICD

np = pytest.importorskip("numpy")
import subgroup_matrix as sm  # noqa: E402

DYNAMIC_MLP = """
func.func @mlp(%x: tensor<?x64xf16>, %w: tensor<64x32xf16>)
    -> tensor<?x32xf32> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x64xf16>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m) : tensor<?x32xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x32xf32>)
      -> tensor<?x32xf32>
  %y = linalg.matmul ins(%x, %w : tensor<?x64xf16>, tensor<64x32xf16>)
      outs(%acc : tensor<?x32xf32>) -> tensor<?x32xf32>
  return %y : tensor<?x32xf32>
}
"""

ACCUMULATE = """
func.func @accumulate(%a: memref<32x64xf16>, %b: memref<64x16xf16>,
                      %c: memref<32x16xf32>) {
  linalg.matmul ins(%a, %b : memref<32x64xf16>, memref<64x16xf16>)
                outs(%c : memref<32x16xf32>)
  return
}
"""


def random(rng, shape, dtype):
    return rng.uniform(-1, 1, shape).astype(dtype)


def test_one_compile_runs_several_shapes():
    rng = np.random.default_rng()
    program = sm.compile_linalg(DYNAMIC_MLP, target="cpu-lavapipe")
    w = random(rng, (64, 32), np.float16)
    for rows in (16, 45):
        x = random(rng, (rows, 64), np.float16)
        y = program.run(x, w)
        assert y.dtype == np.float32 and y.shape == (rows, 32)
        want = x.astype(np.float64) @ w.astype(np.float64)
        np.testing.assert_allclose(y, want, rtol=2e-3, atol=2e-3)


SCALED = """
func.func @scaled(%x: tensor<16x24xf32>, %scale: f32, %shift: tensor<f32>)
    -> tensor<16x24xf32> {
  %s = tensor.extract %shift[] : tensor<f32>
  %e = tensor.empty() : tensor<16x24xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                        affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<16x24xf32>) outs(%e : tensor<16x24xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.mulf %v, %scale : f32
    %a = arith.addf %m, %s : f32
    linalg.yield %a : f32
  } -> tensor<16x24xf32>
  return %y : tensor<16x24xf32>
}
"""


def test_scalar_arguments():
    # A scalar argument is a numpy scalar (a rank-0 array); each value
    # runs with its own (the launches carry it).
    rng = np.random.default_rng()
    program = sm.compile_linalg(SCALED, target="cpu-lavapipe")
    x = random(rng, (16, 24), np.float32)
    for scale, shift in ((2.5, -1.0), (-0.75, 0.5)):
        y = program.run(x, np.float32(scale), np.array(shift, np.float32))
        want = x.astype(np.float64) * scale + shift
        np.testing.assert_allclose(y, want, rtol=1e-6, atol=1e-6)


def run_accumulate(target):
    """C + A B through `target`, against float64; returns the output and C."""
    rng = np.random.default_rng()
    program = sm.compile_linalg(ACCUMULATE, target=target)
    a = random(rng, (32, 64), np.float16)
    b = random(rng, (64, 16), np.float16)
    c = random(rng, (32, 16), np.float32)
    updated = program.run(a, b, c)
    want = c.astype(np.float64) + a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(updated, want, rtol=2e-3, atol=2e-3)
    return updated, c


def test_written_argument_comes_back():
    updated, c = run_accumulate("cpu-lavapipe")
    # The caller's array is not modified.
    assert not np.shares_memory(updated, c)


def test_time_reports_each_kernel():
    rng = np.random.default_rng()
    program = sm.compile_linalg(DYNAMIC_MLP, target="cpu-lavapipe")
    timings = program.time(random(rng, (16, 64), np.float16),
                           random(rng, (64, 32), np.float16), repeat=3)
    assert timings.runs == 3
    assert [name for name, _ in timings.steps] == ["@kernels::@matmul_0"]
    assert timings.total_us > 0
    assert timings.host_us >= timings.total_us


def test_bad_arrays_are_errors():
    program = sm.compile_linalg(ACCUMULATE, target="cpu-lavapipe")
    a = np.zeros((32, 64), np.float16)
    b = np.zeros((64, 16), np.float16)
    with pytest.raises(sm.MLIRError, match="takes 3 arguments, but 2"):
        program.run(a, b)
    with pytest.raises(sm.MLIRError,
                       match="it takes float32 elements, but a float64"):
        program.run(a, b, np.zeros((32, 16), np.float64))
    with pytest.raises(sm.MLIRError, match="but an array of shape f4.16x16."):
        program.run(a, b, np.zeros((16, 16), np.float32))


def test_intel_target_runs_through_the_host_runner():
    run_accumulate("intel-xe-hpc")


def test_native_lavapipe_needs_the_root_loader():
    """cpu-lavapipe-coopmat's lavapipe (Mesa 26) needs a newer C library
    than this process has: the runtime says so instead of opening another
    device (sm-run starts itself through the root's loader instead)."""
    program = sm.compile_linalg(ACCUMULATE, target="cpu-lavapipe-coopmat")
    rng = np.random.default_rng()
    a = random(rng, (32, 64), np.float16)
    b = random(rng, (64, 16), np.float16)
    c = np.zeros((32, 16), np.float32)
    with pytest.raises(sm.MLIRError, match="Mesa 26's lavapipe"):
        program.run(a, b, c)
