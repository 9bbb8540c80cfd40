# -*- Python -*-
# The lit configuration of the subgroup_matrix regression suite.

import os
import sys

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "SUBGROUP_MATRIX"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py",
                   "Unit", "lib"]
# The fast tier (check-sm-fast, `utils/run-tests.sh --fast`): everything but
# the tests that execute kernels, on a device or the host runners, or run
# the documentation's commands, or build the downstream project.
if lit_config.params.get("tier") == "fast":
    config.excludes += ["Integration", "execution.test", "execution.mlir",
                        "execution-xe-hpc.test", "execution-xe-hpg.test",
                        "host-execution.test", "documented-commands.test",
                        "Downstream"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.sm_binary_dir, "test")

config.substitutions.append(("%sm_src_root", config.sm_source_dir))
config.substitutions.append(("%sm_build_root", config.sm_binary_dir))
config.substitutions.append(("%sm_tools_dir", config.sm_tools_dir))

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
# Mesa's on-disk shader cache stays on: most of an execution suite's time is
# lavapipe compiling kernels with LLVM, and a machine that has run the suites
# before has most of them cached. The cache is keyed by the SPIR-V binary and
# the driver's build, so a kernel whose binary changed compiles afresh, and a
# cached one is what the same driver made of the same binary. Runs that must
# compile everything set MESA_SHADER_CACHE_DISABLE=true themselves.
for variable in ("MESA_SHADER_CACHE_DISABLE", "MESA_SHADER_CACHE_DIR",
                 "XDG_CACHE_HOME"):
    if variable in os.environ:
        config.environment[variable] = os.environ[variable]
# Mesa 25.0's drivers leak (128 bytes per pipeline in RADV's shader cache
# and disassembly paths) and are unloaded before LeakSanitizer reports, so
# their frames cannot be suppressed by name: runs of the runner on a Mesa
# driver keep the address and undefined-behaviour checks of the sanitizer
# build but not its leak check. Other tools keep all three. %mesa_env runs
# on Debian 12's Mesa (RADV's null-hardware device), outside the root below.
config.substitutions.append(
    ("%mesa_env", "env -u SM_VULKAN_ROOT ASAN_OPTIONS=detect_leaks=0"))

# The sanitizer build (utils/run-tests.sh runs the suite twice) leaves out
# the long execution suites marked `UNSUPPORTED: sanitizers`, whose time goes
# to lavapipe's and the host compilers' work on kernels rather than to this
# project's code; the release run executes them, and the sanitizer run keeps
# every lowering test, the property check over the corpus and the small
# execution tests (which exercise the runners).
if getattr(config, "sm_sanitizers", False):
    config.available_features.add("sanitizers")

sys.path.insert(0, os.path.join(config.sm_source_dir, "utils"))
from spirv_tools_features import spirv_val_reads_bf16  # noqa: E402

# The test library (test/lib/sm_testing): the suites' scripts import it, and
# the linalg suite's lit.local.cfg makes each of its cases a test.
config.sm_test_library = os.path.join(config.sm_source_dir, "test", "lib")
config.environment["PYTHONPATH"] = os.pathsep.join(
    [config.sm_test_library] +
    ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else []))
sys.path.insert(0, config.sm_test_library)

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
# on the CPU. Two lavapipes: Debian 12's Mesa (%lavapipe, %lavapipe_env)
# runs the emulated matrices (cpu-lavapipe); Mesa 26 in the Debian root that
# setup makes (%lavapipe_coopmat, %lavapipe_coopmat_env) runs the native
# ones (cpu-lavapipe-coopmat): its tools run through the root's loader
# (SM_VULKAN_ROOT, lib/Runtime/Vulkan/DriverRoot.h). The sanitizer build
# has no root lavapipe: its runtime is built for Debian 12's C library.
icd_dir = "/usr/share/vulkan/icd.d"
runner = os.path.join(config.sm_tools_dir, "sm-vulkan-runner")
# .deps/spirv/bin -> .deps
deps_dir = os.path.dirname(os.path.dirname(config.spirv_tools_dir))
vulkan_root = os.environ.get("SM_VULKAN_ROOT") or os.path.join(
    deps_dir, "vulkan-root")
root_lavapipe_icd = os.path.join(vulkan_root, "sm-icd.d", "lvp_icd.json")
# The environments of the two lavapipes, for the tests that run programs
# on them (as %lavapipe_coopmat_env and %lavapipe_env, and as dictionaries
# for test formats of Python's: config.sm_device_environments).
root_lavapipe_environment = {"ASAN_OPTIONS": "detect_leaks=0",
                             "SM_VULKAN_ROOT": vulkan_root,
                             "VK_DRIVER_FILES": root_lavapipe_icd}
lavapipe_environment = {"ASAN_OPTIONS": "detect_leaks=0",
                        "VK_DRIVER_FILES": os.path.join(icd_dir,
                                                        "lvp_icd.json")}
config.sm_device_environments = {}


def env_prefix(environment):
    return "env " + " ".join("%s=%s" % item for item in environment.items())


root_lavapipe_env = env_prefix(root_lavapipe_environment)


def lavapipe_has_cooperative_matrices():
    """Whether the root's lavapipe reports KHR cooperative matrices (asked
    of the device, not of Mesa's version)."""
    import subprocess
    environment = dict(config.environment, SM_VULKAN_ROOT=vulkan_root,
                       VK_DRIVER_FILES=root_lavapipe_icd)
    try:
        listed = subprocess.run([runner, "--list-coopmat"], env=environment,
                                capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return listed.returncode == 0 and "<8x8x8, f16 -> f32>" in listed.stdout


if os.path.exists(runner):
    config.available_features.add("vulkan-runner")
    config.substitutions.append(("%sm_vulkan_runner", runner))
    # RADV's null-hardware device is Debian 12's Mesa 25 (Mesa 26's does not
    # start without a GPU): the runner stays out of the root for it.
    radv_icd = "/usr/share/vulkan/icd.d/radeon_icd.json"
    if os.path.exists(radv_icd):
        config.available_features.add("radv")
        config.substitutions.append(
            ("%radv",
             "env -u SM_VULKAN_ROOT ASAN_OPTIONS=detect_leaks=0 "
             "RADV_FORCE_FAMILY=navi31 "
             "RADV_DEBUG=shaders "
             "VK_DRIVER_FILES=%s %s --subgroup-size 32 --compile-only"
             % (radv_icd, runner)))
    # Before %lavapipe, whose name begins theirs.
    if os.path.exists(root_lavapipe_icd) and \
            not getattr(config, "sm_sanitizers", False) and \
            lavapipe_has_cooperative_matrices():
        config.available_features.add("lavapipe-coopmat")
        config.sm_device_environments["lavapipe-coopmat"] = \
            root_lavapipe_environment
        config.substitutions.append(
            ("%lavapipe_coopmat_env", root_lavapipe_env))
        config.substitutions.append(
            ("%lavapipe_coopmat", "%s %s" % (root_lavapipe_env, runner)))
    lavapipe_icd = os.path.join(icd_dir, "lvp_icd.json")
    if os.path.exists(lavapipe_icd):
        config.available_features.add("lavapipe")
        config.sm_device_environments["lavapipe"] = lavapipe_environment
        config.substitutions.append(
            ("%lavapipe_env", env_prefix(lavapipe_environment)))
        config.substitutions.append(
            ("%lavapipe", "%s %s" % (env_prefix(lavapipe_environment),
                                     runner)))
spirv_val = os.path.join(config.spirv_tools_dir, "spirv-val")
if os.path.exists(spirv_val) and spirv_val_reads_bf16(spirv_val):
    # Tests that validate bf16 binaries require it: without the Debian root
    # (SPIRV-Tools 2025.1) they are unsupported, never partly run.
    config.available_features.add("spirv-val-bf16")
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
config.substitutions.append(
    ("%spirv_dis_path", os.path.join(config.spirv_tools_dir, "spirv-dis")))
