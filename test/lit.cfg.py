# -*- Python -*-
# The lit configuration of the subgroup_matrix regression suite.

import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "SUBGROUP_MATRIX"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py",
                   "Unit"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.sm_binary_dir, "test")

config.substitutions.append(("%sm_src_root", config.sm_source_dir))
config.substitutions.append(("%sm_build_root", config.sm_binary_dir))
config.substitutions.append(("%sm_tools_dir", config.sm_tools_dir))

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
# Mesa's drivers compile every kernel afresh: a test must not pass because an
# earlier run left the binary in the on-disk shader cache.
config.environment["MESA_SHADER_CACHE_DISABLE"] = "true"
# Mesa 25.0's drivers leak (128 bytes per pipeline in RADV's shader cache
# and disassembly paths) and are unloaded before LeakSanitizer reports, so
# their frames cannot be suppressed by name: runs of the runner on a Mesa
# driver keep the address and undefined-behaviour checks of the sanitizer
# build but not its leak check. Other tools keep all three.
config.substitutions.append(("%mesa_env", "env ASAN_OPTIONS=detect_leaks=0"))

# The sanitizer build (utils/run-tests.sh runs the suite twice) leaves out
# the long execution suites marked `UNSUPPORTED: sanitizers`, whose time goes
# to lavapipe's and the host compilers' work on kernels rather than to this
# project's code; the release run executes them, and the sanitizer run keeps
# every lowering test, the property check over the corpus and the small
# execution tests (which exercise the runners).
if getattr(config, "sm_sanitizers", False):
    config.available_features.add("sanitizers")

tool_dirs = [config.sm_tools_dir, config.spirv_tools_dir, config.llvm_tools_dir]
tools = [
    "sm-opt",
    "sm-translate",
    "sm-msl-host-runner",
    "sm-intel-host-runner",
    ToolSubst("sm-run", unresolved="ignore"),
    ToolSubst("sm-capi-runtime-test", unresolved="ignore"),
    ToolSubst("spirv-val", unresolved="ignore"),
    ToolSubst("spirv-dis", unresolved="ignore"),
]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# Vulkan devices that need no GPU (Mesa, installed by utils/setup.sh): RADV's
# null-hardware RDNA3 device really compiles pipelines, lavapipe runs kernels
# on the CPU.
icd_dir = "/usr/share/vulkan/icd.d"
runner = os.path.join(config.sm_tools_dir, "sm-vulkan-runner")
if os.path.exists(runner):
    config.available_features.add("vulkan-runner")
    config.substitutions.append(("%sm_vulkan_runner", runner))
    radv_icd = os.path.join(icd_dir, "radeon_icd.json")
    if os.path.exists(radv_icd):
        config.available_features.add("radv")
        config.substitutions.append(
            ("%radv",
             "env ASAN_OPTIONS=detect_leaks=0 RADV_FORCE_FAMILY=navi31 "
             "RADV_DEBUG=shaders "
             "VK_DRIVER_FILES=%s %s --subgroup-size 32 --compile-only"
             % (radv_icd, runner)))
    lavapipe_icd = os.path.join(icd_dir, "lvp_icd.json")
    if os.path.exists(lavapipe_icd):
        config.available_features.add("lavapipe")
        config.substitutions.append(
            ("%lavapipe_env", "env ASAN_OPTIONS=detect_leaks=0 "
             "VK_DRIVER_FILES=%s" % lavapipe_icd))
        config.substitutions.append(
            ("%lavapipe", "env ASAN_OPTIONS=detect_leaks=0 VK_DRIVER_FILES=%s %s"
             % (lavapipe_icd, runner)))
if os.path.exists(os.path.join(config.spirv_tools_dir, "spirv-val")):
    config.available_features.add("spirv-tools")

# Intel's offline compiler in the Debian 13 root of utils/setup.sh.
ocloc = os.path.join(config.sm_source_dir, ".deps", "intel-root", "usr", "bin",
                     "ocloc")
if os.path.lexists(ocloc):
    config.available_features.add("ocloc")
config.substitutions.append(
    ("%ocloc", os.path.join(config.sm_source_dir, "utils", "ocloc.sh")))
config.substitutions.append(
    ("%spirv_val_path", os.path.join(config.spirv_tools_dir, "spirv-val")))
