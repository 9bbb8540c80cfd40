"""Modules, matrix types and targets through the C API."""

import os

import pytest

import subgroup_matrix as sm

KERNEL = """\
gpu.module @kernels attributes {subgroup_matrix.target = #subgroup_matrix.target<"nvidia-h100">} {
  gpu.func @scale(%A: memref<?xf32>, %alpha: f32) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %m = subgroup_matrix.load %A[%c0] stride %c16 : memref<?xf32> -> !subgroup_matrix.result<16x16xf32>
    %s = subgroup_matrix.scalar_mul %m, %alpha : !subgroup_matrix.result<16x16xf32>, f32
    subgroup_matrix.store %s, %A[%c0] stride %c16 : !subgroup_matrix.result<16x16xf32>, memref<?xf32>
    gpu.return
  }
}
"""


def test_text_round_trip():
    printed = str(sm.parse(KERNEL))
    assert "subgroup_matrix.scalar_mul" in printed
    assert "!subgroup_matrix.result<16x16xf32>" in printed
    # Printing what was parsed from the printed text changes nothing.
    assert str(sm.parse(printed)) == printed


def test_copy_is_independent():
    module = sm.parse(KERNEL)
    lowered = module.copy().run_pipeline("sm-lower-to-vulkan{target=nvidia-h100}")
    assert "spirv.KHR.CooperativeMatrixLoad" in str(lowered)
    assert "spirv." not in str(module)


def test_modules_in_their_own_context():
    context = sm.Context()
    module = sm.parse(KERNEL, context)
    assert module.context is context
    assert str(module) == str(sm.parse(KERNEL))


@pytest.mark.parametrize("kind", ["left", "right", "result"])
@pytest.mark.parametrize("component", sorted(sm.COMPONENT_TYPES))
def test_matrix_type_through_mlir(kind, component):
    matrix = sm.MatrixType(kind, 8, 16, component)
    assert matrix.mlir == "!subgroup_matrix.%s<8x16x%s>" % (kind, component)
    assert sm.MatrixType.from_mlir(matrix.to_mlir()) == matrix


@pytest.mark.parametrize("kind", ["left", "right", "result"])
def test_workgroup_matrix_type_through_mlir(kind):
    matrix = sm.MatrixType(kind, 64, 32, "f16", scope="workgroup")
    assert matrix.mlir == "!subgroup_matrix.%s<64x32xf16, workgroup>" % kind
    back = sm.MatrixType.from_mlir(matrix.to_mlir())
    assert back == matrix and back.scope == "workgroup"
    assert sm.MatrixType.from_mlir(
        sm.MatrixType(kind, 64, 32, "f16").to_mlir()).scope == "subgroup"


def test_matrix_type_rejects_unknown_scope():
    with pytest.raises(sm.KernelError, match="scope must be subgroup or "
                       "workgroup, not 'device'"):
        sm.MatrixType("left", 16, 16, "f16", scope="device")


def test_matrix_type_scalar_and_storage_types():
    assert sm.left(8, 8, "si8").scalar_type == "i32"
    assert sm.left(8, 8, "si8").storage_type == "i8"
    assert sm.result(8, 8, "ui32").storage_type == "i32"
    assert sm.right(8, 8, "bf16").storage_type == "bf16"


def test_target_presets():
    h100 = sm.Target("nvidia-h100")
    assert h100.subgroup_size == 32
    assert (16, 16, 16, "f16", "f32") in h100.configs
    assert h100.supports(sm.left(16, 16, "f16"))
    assert not h100.supports(sm.left(8, 8, "f32"))
    xe = sm.Target("intel-xe-hpc")
    assert xe.subgroup_size == 16
    assert (8, 16, 16, "f16", "f32") in xe.configs
    assert {n for _, n, _, _, _ in xe.configs} == {16, 32}
    m1 = sm.Target("apple-m1")
    assert set((m, n, k) for m, n, k, _, _ in m1.configs) == {(8, 8, 8)}


def test_unknown_target():
    with pytest.raises(sm.MLIRError, match="unknown target preset 'tpu'"):
        sm.Target("tpu")


def test_import_before_build(tmp_path):
    # Importing needs no library; the first call that does says what to build.
    import subprocess
    import sys
    script = ("import subgroup_matrix as sm\n"
              "try:\n    sm.parse('module {}')\n"
              "except ImportError as e:\n    print('missing:', e)\n")
    env = dict(os.environ, SM_BUILD_DIR=str(tmp_path))
    env.pop("SM_CAPI_LIBRARY", None)
    completed = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env,
        cwd=os.path.dirname(os.path.dirname(sm.__file__)))
    assert completed.returncode == 0, completed.stderr
    assert "missing:" in completed.stdout and "utils/build.sh" in completed.stdout


def test_target_in_its_own_context():
    # Component types are read back through MLIR's printer, so a target of
    # another context than the default one reads the same.
    context = sm.Context()
    assert sm.Target("apple-m1", context).configs == sm.Target("apple-m1").configs
    matrix = sm.right(8, 8, "f16")
    assert sm.MatrixType.from_mlir(matrix.to_mlir(context)) == matrix
