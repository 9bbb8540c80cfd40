"""compile() for the three outputs, and running through the Vulkan runner."""

import os
import sys

import pytest

import subgroup_matrix as sm

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "examples"))
from tiled_gemm import tiled_gemm  # noqa: E402

GEMMS = {
    "nvidia-h100": dict(tile=(16, 16, 16), component="f16", accumulator="f32",
                        subgroups=4, subgroup_size=32),
    "intel-xe-hpc": dict(tile=(8, 16, 16), component="f16", accumulator="f32",
                         subgroups=4, subgroup_size=16),
    "apple-m1": dict(tile=(8, 8, 8), component="f32", accumulator="f32",
                     subgroups=4, subgroup_size=32),
}


def gemm(target):
    return tiled_gemm(target, **GEMMS[target])


def test_vulkan_spirv(spirv_val):
    binary = sm.compile(gemm("nvidia-h100"), target="nvidia-h100", output="spirv")
    assert isinstance(binary, bytes) and binary[:4] == b"\x03\x02\x23\x07"
    spirv_val(binary, "vulkan1.3")
    assert b"SPV_KHR_cooperative_matrix" in binary


def test_intel_spirv(spirv_val):
    binary = sm.compile(gemm("intel-xe-hpc"), target="intel-xe-hpc",
                        output="intel-spirv")
    assert binary[:4] == b"\x03\x02\x23\x07"
    spirv_val(binary, "spv1.4")
    assert b"SPV_INTEL_subgroup_matrix_multiply_accumulate" in binary


def test_msl():
    source = sm.compile(gemm("apple-m1"), target="apple-m1", output="msl")
    assert isinstance(source, str)
    assert "#include <metal_stdlib>" in source
    assert "simdgroup_float8x8" in source
    assert "simdgroup_multiply_accumulate" in source
    assert "kernel void gemm(" in source


def test_compile_leaves_the_module_alone():
    module = gemm("nvidia-h100")
    before = str(module)
    sm.compile(module, target="nvidia-h100", output="spirv")
    assert str(module) == before


def test_compile_arguments():
    module = gemm("nvidia-h100")
    with pytest.raises(ValueError, match="output must be one of"):
        sm.compile(module, target="nvidia-h100", output="ptx")
    with pytest.raises(TypeError):
        sm.compile(str(module), target="nvidia-h100", output="spirv")


def test_target_mismatch_is_an_mlir_error():
    # Apple's 8x8 tiles are narrower than the 16 columns of Xe-HPC's systolic
    # arrays, so the Intel lowering refuses them with a located diagnostic
    # rather than producing a binary.
    with pytest.raises(sm.MLIRError) as error:
        sm.compile(gemm("apple-m1"), target="intel-xe-hpc", output="intel-spirv")
    assert error.value.line is not None
    assert "intel-xe-hpc" in error.value.message


def test_wide_loop_carried_accumulator(spirv_val):
    # 16x16 f32 on DG2's subgroups of 8 is 32 floats per invocation carried
    # around the K loop (this once aborted inside LLVM's SPIR-V backend).
    module = tiled_gemm("intel-xe-hpg", (16, 16, 16), "f16", "f32", 4, 8)
    spirv_val(sm.compile(module, target="intel-xe-hpg", output="intel-spirv"),
              "spv1.4")


def test_many_intel_modules_in_one_process(spirv_val):
    # LLVM 22's SPIR-V backend leaks block labels from one module into the
    # next one compiled in the same process (llvm/llvm-project#160613): a
    # module whose MachineFunction reused a freed one's address took its old
    # label ids, defined twice or past the new module's id bound. With the
    # backend in this process, this test failed in six runs of eight.
    shapes = [("intel-xe-hpg", (16, 16, 16), 4, 8),
              ("intel-xe-hpc", (8, 16, 16), 4, 16),
              ("intel-xe-hpc", (8, 16, 16), 1, 16),
              ("intel-xe-hpg", (8, 16, 16), 2, 8)]
    for round in range(25):
        with pytest.raises(sm.MLIRError):
            sm.compile(sm.parse(_BACKEND_FATAL_ERROR), target="intel-xe-hpg",
                       output="intel-spirv")
        for target, tile, subgroups, subgroup_size in shapes:
            module = tiled_gemm(target, tile, "f16", "f32", subgroups,
                                subgroup_size)
            spirv_val(sm.compile(module, target=target, output="intel-spirv"),
                      "spv1.4")


def test_example_writes_three_outputs(tmp_path, spirv_val):
    import subprocess
    example = os.path.join(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))), "examples", "tiled_gemm.py")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.path.dirname(os.path.dirname(sm.__file__))] +
        os.environ.get("PYTHONPATH", "").split(os.pathsep)))
    completed = subprocess.run([sys.executable, example, str(tmp_path)],
                               capture_output=True, text=True, env=env)
    assert completed.returncode == 0, completed.stderr
    spirv_val((tmp_path / "gemm.vulkan.spv").read_bytes(), "vulkan1.3")
    spirv_val((tmp_path / "gemm.intel.spv").read_bytes(), "spv1.4")
    assert "simdgroup_multiply_accumulate" in (tmp_path / "gemm.metal.metal").read_text()


RADV_ICD = "/usr/share/vulkan/icd.d/radeon_icd.json"


@pytest.mark.skipif(not os.path.exists(RADV_ICD), reason="Mesa RADV not installed")
def test_run_vulkan_compiles_on_radv():
    # RADV's null-hardware RDNA3 device compiles the pipeline with the real
    # AMD compiler (it cannot dispatch).
    binary = sm.compile(gemm("nvidia-h100"), target="nvidia-h100", output="spirv")
    passed, report = sm.run_vulkan(
        binary, [sm.Buffer("f16", 4096), sm.Buffer("f16", 4096),
                 sm.Buffer("f32", 4096, "poison")] + [sm.Scalar("i32", 64)] * 4,
        environment={"RADV_FORCE_FAMILY": "navi31", "VK_DRIVER_FILES": RADV_ICD},
        extra=["--subgroup-size", "32", "--compile-only"])
    assert passed, report
    assert "pipeline: created for entry point 'gemm'" in report
    # A missing argument is the runner's error, reported, not raised.
    passed, report = sm.run_vulkan(
        binary, [sm.Buffer("f16", 4096)],
        environment={"RADV_FORCE_FAMILY": "navi31", "VK_DRIVER_FILES": RADV_ICD},
        extra=["--subgroup-size", "32", "--compile-only"])
    assert not passed
    assert "error" in report


def test_msl_runs_on_the_host(tmp_path):
    # The Metal output, compiled as C++ with the host metal_stdlib and run on
    # the CPU, against the runner's double-precision reference with C
    # poisoned first: four 8x8 subgroup tiles per workgroup, 32x32x32.
    import subprocess
    from conftest import BUILD_DIR
    source = tmp_path / "gemm.metal"
    source.write_text(sm.compile(gemm("apple-m1"), target="apple-m1", output="msl"))
    size = 32
    completed = subprocess.run(
        [os.path.join(BUILD_DIR, "bin", "sm-msl-host-runner"), str(source),
         "--entry", "gemm", "--arg", "f32:%d:random" % (size * size),
         "--arg", "f32:%d:random" % (size * size),
         "--arg", "f32:%d:poison" % (size * size)]
        + ["--scalar", "i32:%d" % size] * 4
        + ["--grid", "%d,%d" % (size // 8, size // 32),
           "--check", "gemm:M=%d,N=%d,K=%d,A=0,B=1,C=2,lda=%d,ldb=%d,ldc=%d"
           % ((size,) * 6)],
        capture_output=True, text=True)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "PASSED: 1024 elements, 0 mismatches" in completed.stdout


OCLOC = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), ".deps", "intel-root", "usr", "bin", "ocloc")


@pytest.mark.skipif(not os.path.lexists(OCLOC) or os.geteuid() != 0,
                    reason="Intel ocloc not installed (utils/setup.sh as root)")
def test_intel_spirv_builds_with_ocloc(tmp_path):
    # Intel's own compiler builds the Intel output for Ponte Vecchio and
    # turns the matrix instructions into dpas.
    import subprocess
    from conftest import REPO_ROOT
    binary = tmp_path / "gemm.spv"
    binary.write_bytes(sm.compile(gemm("intel-xe-hpc"), target="intel-xe-hpc",
                                  output="intel-spirv"))
    completed = subprocess.run([os.path.join(REPO_ROOT, "utils", "ocloc.sh"),
                                str(binary), "pvc"], capture_output=True)
    output = completed.stdout.decode(errors="replace")
    assert completed.returncode == 0, output
    assert "Build succeeded" in output and "dpas.8x8" in output


# LLVM's SPIR-V backend cannot legalize a loop-carried vector of 20 floats
# and reports a fatal error, which used to end the calling process.
_BACKEND_FATAL_ERROR = """
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"intel-xe-hpg">} {
  gpu.func @odd_phi(%A: memref<?xf32>, %n: index) kernel attributes {known_block_size = array<i32: 8, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %init = arith.constant dense<1.0> : vector<20xf32>
    %sum = scf.for %i = %c0 to %n step %c1 iter_args(%v = %init) -> (vector<20xf32>) {
      %twice = arith.addf %v, %v : vector<20xf32>
      scf.yield %twice : vector<20xf32>
    }
    %e = vector.extract %sum[3] : f32 from vector<20xf32>
    memref.store %e, %A[%c0] : memref<?xf32>
    gpu.return
  }
}
"""


def test_backend_fatal_error_is_an_mlir_error(spirv_val):
    with pytest.raises(sm.MLIRError) as error:
        sm.compile(sm.parse(_BACKEND_FATAL_ERROR), target="intel-xe-hpg",
                   output="intel-spirv")
    assert "LLVM's SPIR-V backend failed" in error.value.message
    assert "unable to legalize" in error.value.message
    # The process survived, and the backend still works.
    module = tiled_gemm("intel-xe-hpg", (16, 16, 16), "f16", "f32", 4, 8)
    spirv_val(sm.compile(module, target="intel-xe-hpg", output="intel-spirv"),
              "spv1.4")
