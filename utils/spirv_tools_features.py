"""What the SPIRV-Tools in use can do, asked of the tools rather than of
their version: test/lit.cfg.py (the `spirv-val-bf16` feature) and the
fuzzer (utils/fuzz.py) use it."""

import os
import subprocess
import tempfile

# The smallest module with a bf16 type: SPV_KHR_bfloat16, capability 5116.
_BF16_MODULE = ("OpCapability Shader\n"
                "OpCapability Linkage\n"
                "OpCapability BFloat16TypeKHR\n"
                "OpExtension \"SPV_KHR_bfloat16\"\n"
                "OpMemoryModel Logical GLSL450\n"
                "%bf16 = OpTypeFloat 16 BFloat16KHR\n")


def spirv_val_reads_bf16(spirv_val):
    """Whether `spirv_val` validates bf16 types: the spirv-as beside it
    assembles the module above and `spirv_val` accepts it."""
    spirv_as = os.path.join(os.path.dirname(spirv_val), "spirv-as")
    with tempfile.TemporaryDirectory() as work:
        source = os.path.join(work, "bf16.spvasm")
        binary = os.path.join(work, "bf16.spv")
        with open(source, "w") as f:
            f.write(_BF16_MODULE)
        for argv in ([spirv_as, "--target-env", "spv1.6", source, "-o",
                      binary],
                     [spirv_val, "--target-env", "spv1.6", binary]):
            try:
                if subprocess.run(argv, capture_output=True).returncode:
                    return False
            except OSError:
                return False
    return True


if __name__ == "__main__":
    # spirv_tools_features.py bf16 SPIRV_VAL: exit status 0 when it can.
    import sys
    if len(sys.argv) != 3 or sys.argv[1] != "bf16":
        sys.exit("usage: spirv_tools_features.py bf16 SPIRV_VAL")
    sys.exit(0 if spirv_val_reads_bf16(sys.argv[2]) else 1)
