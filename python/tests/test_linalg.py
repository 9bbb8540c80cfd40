"""compile_linalg: a linalg program to kernels, launches and binaries."""

import os
import struct

import pytest

import subgroup_matrix as sm

MLP = """
#map = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>
func.func @mlp(%x: tensor<64x32xf16>, %w: tensor<32x96xf16>,
               %bias: tensor<96xf32>) -> tensor<64x96xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x96xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<64x96xf32>) -> tensor<64x96xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<64x32xf16>, tensor<32x96xf16>)
                      outs(%acc : tensor<64x96xf32>) -> tensor<64x96xf32>
  %e2 = tensor.empty() : tensor<64x96xf32>
  %y = linalg.generic {indexing_maps = [#map, #bias, #map],
                       iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<64x96xf32>, tensor<96xf32>)
      outs(%e2 : tensor<64x96xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<64x96xf32>
  %e3 = tensor.empty() : tensor<64x96xf32>
  %n = linalg.generic {indexing_maps = [#map, #map],
                       iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<64x96xf32>) outs(%e3 : tensor<64x96xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.negf %a : f32
    linalg.yield %m : f32
  } -> tensor<64x96xf32>
  return %n : tensor<64x96xf32>
}
"""


def test_launches_in_program_order():
    program = sm.compile_linalg(MLP, target="nvidia-h100", output="spirv")
    assert program.binary[:4] == b"\x03\x02\x23\x07"
    # The bias, the ReLU and the negation all run in the product's kernel:
    # their intermediate tensors are temporaries nothing else reads.
    assert [launch.kernel for launch in program.launches] == ["matmul_0"]
    first = program.launches[0]
    # 64 x 96 fits one 128 x 128 workgroup tile of 2 x 2 subgroups.
    assert first.grid == (1, 1, 1) and first.workgroup_size == 128
    assert first.arguments[:3] == [sm.Buffer("f16", 2048),
                                   sm.Buffer("f16", 3072),
                                   sm.Buffer("f32", 96)]
    assert "linalg." not in str(program.module).split("gpu.module")[0]


def test_spirv_validates(spirv_val):
    program = sm.compile_linalg(MLP, target="nvidia-h100", output="spirv")
    spirv_val(program.binary, "vulkan1.3")
    intel = sm.compile_linalg(MLP, target="intel-xe-hpc",
                              output="intel-spirv")
    spirv_val(intel.binary, "spv1.4")


def test_metal_and_intel():
    metal = sm.compile_linalg(MLP.replace("f16", "f32"), target="apple-m1",
                              output="msl")
    assert "simdgroup_multiply_accumulate" in metal.binary
    intel = sm.compile_linalg(MLP, target="intel-xe-hpc",
                              output="intel-spirv")
    assert intel.binary[:4] == b"\x03\x02\x23\x07"


def test_unsupported_op_is_a_located_error():
    program = """
func.func @f(%x: memref<64xf32>, %y: memref<64xf32>, %flag: i1) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>,
                                   affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%x : memref<64xf32>) outs(%y : memref<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    %m = arith.select %flag, %a, %n : f32
    linalg.yield %m : f32
  }
  return
}
"""
    with pytest.raises(sm.MLIRError) as error:
        sm.compile_linalg(program, target="nvidia-h100")
    assert "cannot be put on the GPU: its body uses a value of type 'i1' " \
        "from outside, which kernels cannot take" in str(error.value)
    assert ":3:" in str(error.value)


DYNAMIC_MATMUL = """
func.func @linear(%x: memref<?x?xf16>, %w: memref<?x?xf16>,
                  %y: memref<?x?xf32>) {
  linalg.matmul ins(%x, %w : memref<?x?xf16>, memref<?x?xf16>)
                outs(%y : memref<?x?xf32>)
  return
}
"""

DYNAMIC_NEGATION = """
func.func @negate(%x: memref<?xf32>, %y: memref<?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>,
                                   affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%x : memref<?xf32>) outs(%y : memref<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  }
  return
}
"""


def test_dynamic_sizes_resolve_at_launch():
    program = sm.compile_linalg(DYNAMIC_MATMUL, target="nvidia-h100")
    with pytest.raises(sm.MLIRError, match="argument 0 of 'linear' has "
                       "dynamic sizes"):
        program.launches
    (launch,) = program.launches_for((130, 72), (72, 90), (130, 90))
    assert launch.kernel == "matmul_0"
    # 128 x 128 workgroup tiles: one column of tiles, two rows.
    assert launch.grid == (1, 2, 1)
    assert launch.arguments == [sm.Buffer("f16", 9360),
                                sm.Buffer("f16", 6480),
                                sm.Buffer("f32", 11700), sm.Scalar("i32", 130),
                                sm.Scalar("i32", 90), sm.Scalar("i32", 72)]
    # Arrays give their shapes.
    np = pytest.importorskip("numpy")
    (same,) = program.launches_for(np.zeros((130, 72), np.float16),
                                   np.zeros((72, 90), np.float16),
                                   np.zeros((130, 90), np.float32))
    assert same == launch
    with pytest.raises(sm.MLIRError) as error:
        program.launches_for((130, 72), (72,), (130, 90))
    assert str(error.value) == 'loc("input.mlir":2:1): error: argument 1 is ' \
        "'memref<?x?xf16>', but an array of 1 dimensions was given"
    # Shapes that fit each argument but disagree with each other: N is 91
    # in w, 90 in y.
    with pytest.raises(sm.MLIRError, match=r"input.mlir\":4:3\): error: the "
                       r"shapes of the arrays disagree: dimension 1 of "
                       r"operand 2 .* \(90 and 91\)"):
        program.launches_for((130, 72), (72, 91), (130, 90))


SPLIT_K_MLP = """
func.func @mlp(%x: tensor<16x4096xf16>, %w: tensor<4096x512xf16>)
    -> tensor<16x512xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x512xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<16x512xf32>)
      -> tensor<16x512xf32>
  %y = linalg.matmul ins(%x, %w : tensor<16x4096xf16>, tensor<4096x512xf16>)
                     outs(%acc : tensor<16x512xf32>) -> tensor<16x512xf32>
  return %y : tensor<16x512xf32>
}
"""


def test_split_k_launches_come_from_the_host_function():
    program = sm.compile_linalg(SPLIT_K_MLP, target="nvidia-h100")
    launches = program.launches
    # A long K over few rows is split: the parts, then their sum.
    assert [launch.kernel for launch in launches] == ["matmul_0",
                                                      "elementwise_1"]
    product = launches[0]
    assert product.grid[2] > 1
    # x, w and the workspace of one 16 x 512 product per part.
    assert product.arguments[:2] == [sm.Buffer("f16", 65536),
                                     sm.Buffer("f16", 2097152)]
    assert product.arguments[2] == sm.Buffer("f32", 16 * 512 * product.grid[2])


LAVAPIPE_ICD = "/usr/share/vulkan/icd.d/lvp_icd.json"


@pytest.mark.skipif(not os.path.exists(LAVAPIPE_ICD),
                    reason="Mesa lavapipe not installed")
def test_dynamic_kernel_runs_at_chosen_size(tmp_path):
    program = sm.compile_linalg(DYNAMIC_NEGATION, target="nvidia-h100")
    (launch,) = program.launches_for((300,), (300,))
    # 300 elements in workgroups of 256.
    assert launch.grid == (2, 1, 1)
    arguments = [sm.Buffer("f32", 300, "iota")] + launch.arguments[1:]
    output = tmp_path / "y.bin"
    passed, report = sm.run_vulkan(
        program.binary, arguments, grid=launch.grid, entry=launch.kernel,
        environment={"VK_DRIVER_FILES": LAVAPIPE_ICD},
        extra=["--output", "1:%s" % output])
    assert passed, report
    values = struct.unpack("<300f", output.read_bytes())
    assert list(values) == [-float(i) for i in range(300)]


def test_run_vulkan_points_arrays_to_run():
    np = pytest.importorskip("numpy")
    program = sm.compile_linalg(DYNAMIC_NEGATION, target="nvidia-h100")
    with pytest.raises(TypeError, match=r"not ndarray; to run a program on "
                       r"arrays, use compile_linalg\(\.\.\.\)\.run"):
        sm.run_vulkan(program.binary, [np.zeros(4, np.float32)])
