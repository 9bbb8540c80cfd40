"""Build, compile and run subgroup_matrix kernels from Python.

    import subgroup_matrix as sm

    kernel = sm.KernelBuilder("gemm", target="nvidia-h100", workgroup=(128, 1, 1))
    a = kernel.buffer("A", "f16")
    ...
    module = kernel.build()                  # parsed and verified by MLIR
    spirv = sm.compile(module, target="nvidia-h100", output="spirv")

The package talks to libSubgroupMatrixCAPI.so through ctypes; MLIR's
diagnostics become `MLIRError` exceptions, and mistakes the kernel builder can
see (shapes, types) become `KernelError` before any IR is built.
"""

from ._capi import MLIRError
from .builder import KernelBuilder, KernelError, Value
from .ir import (COMPONENT_TYPES, Context, MatrixType, Module, Target, left,
                 parse, result, right)
from .outputs import (Buffer, CompiledProgram, Launch, Scalar, compile,
                      compile_linalg, run_vulkan)

__all__ = [
    "Buffer", "COMPONENT_TYPES", "CompiledProgram", "Context", "KernelBuilder",
    "KernelError", "Launch", "MLIRError", "MatrixType", "Module", "Scalar", "Target",
    "Value", "compile", "compile_linalg", "left", "parse", "result", "right",
    "run_vulkan",
]
