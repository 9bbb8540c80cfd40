"""MLIR's diagnostics reach Python as MLIRError with location and message."""

import pytest

import subgroup_matrix as sm


def test_parse_error_location():
    text = "func.func @f() {\n  %x = subgroup_matrix.splat\n}\n"
    with pytest.raises(sm.MLIRError) as error:
        sm.parse(text)
    assert error.value.message == "expected SSA operand"
    # MLIR points just past `splat`, where the operand should be.
    assert (error.value.line, error.value.column) == (2, 29)
    assert error.value.location.startswith("loc(")


def test_verifier_error_location():
    text = """\
func.func @f(%a: !subgroup_matrix.left<16x8xf16>, %b: !subgroup_matrix.right<16x16xf16>,
             %c: !subgroup_matrix.result<16x16xf32>) {
  %d = subgroup_matrix.mma %a, %b, %c : !subgroup_matrix.left<16x8xf16>, !subgroup_matrix.right<16x16xf16> -> !subgroup_matrix.result<16x16xf32>
  return
}
"""
    with pytest.raises(sm.MLIRError) as error:
        sm.parse(text)
    assert error.value.line == 3 and error.value.column == 8
    assert "'subgroup_matrix.mma' op" in error.value.message
    assert "K" in error.value.message or "8" in error.value.message


def test_invalid_type_in_text():
    with pytest.raises(sm.MLIRError) as error:
        sm.parse("func.func @f(%a: !subgroup_matrix.left<0x16xf16>) {\n  return\n}\n")
    assert error.value.line == 1
    assert "0x16" in str(error.value) or "positive" in str(error.value)


def test_pipeline_error_from_target_check():
    k = sm.KernelBuilder("g", target="nvidia-h100")
    k.load(k.buffer("A", "f16"), 0, 16, sm.left(16, 16, "f16"))
    module = k.build()
    with pytest.raises(sm.MLIRError) as error:
        sm.compile(module, target="apple-m1", output="msl")
    assert "is not supported by target 'apple-m1'" in error.value.message
    assert error.value.line is not None


def test_unknown_pass():
    module = sm.parse("module {}")
    with pytest.raises(sm.MLIRError, match="no-such-pass"):
        module.run_pipeline("no-such-pass")


def test_several_diagnostics_are_all_kept():
    text = """\
gpu.module @kernels {
  gpu.func @k(%A: memref<?xf16>) kernel {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %a = subgroup_matrix.load %A[%c0] stride %c32 : memref<?xf16> -> !subgroup_matrix.left<16x16xf16>
    %b = subgroup_matrix.load %A[%c0] stride %c32 : memref<?xf16> -> !subgroup_matrix.left<32x16xf16>
    gpu.return
  }
}
"""
    module = sm.parse(text)
    with pytest.raises(sm.MLIRError) as error:
        module.run_pipeline("sm-check-target{target=apple-m1}")
    errors = [d for d in error.value.diagnostics if "error:" in d]
    assert len(errors) == 2
    assert error.value.line == 5
    assert 'loc("input.mlir":6:10)' in errors[1] and "left<32x16xf16>" in errors[1]
