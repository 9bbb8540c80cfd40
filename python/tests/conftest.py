"""Puts the package of this checkout (and the test library) first on the path and finds the tools
the tests use (SM_BUILD_DIR, SM_DEPS_PREFIX override the defaults)."""

import os
import shutil
import subprocess
import sys

import pytest

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO_ROOT = os.path.dirname(PYTHON_DIR)
sys.path[:0] = [PYTHON_DIR, os.path.join(REPO_ROOT, "test", "lib")]

BUILD_DIR = os.environ.get("SM_BUILD_DIR", os.path.join(REPO_ROOT, "build"))
DEPS_PREFIX = os.environ.get("SM_DEPS_PREFIX", os.path.join(REPO_ROOT, ".deps"))


def _spirv_val():
    bundled = os.path.join(DEPS_PREFIX, "spirv", "bin", "spirv-val")
    return bundled if os.path.exists(bundled) else shutil.which("spirv-val")


@pytest.fixture
def spirv_val(tmp_path):
    """Validates SPIR-V bytes with spirv-val for a target environment and
    returns its output; fails the test when spirv-val rejects them."""
    tool = _spirv_val()
    if tool is None:
        pytest.fail("spirv-val not found; run utils/setup.sh")

    def validate(binary, target_env):
        path = tmp_path / "module.spv"
        path.write_bytes(binary)
        completed = subprocess.run([tool, "--target-env", target_env, str(path)],
                                   capture_output=True, text=True)
        assert completed.returncode == 0, completed.stdout + completed.stderr
        return completed.stdout + completed.stderr

    return validate
