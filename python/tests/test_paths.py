"""Where the package looks for the C API library and the tools
(subgroup_matrix._paths): the environment first, then an install's record,
then the checkout's build folder, then the prefix of an sm-opt on PATH."""

import os

from subgroup_matrix import _paths


def test_environment_names_the_library(monkeypatch, tmp_path):
    library = tmp_path / "libSubgroupMatrixCAPI.so"
    monkeypatch.setenv("SM_CAPI_LIBRARY", str(library))
    assert _paths.library_path() == str(library)


def test_missing_library_names_the_checkout_build(monkeypatch, tmp_path):
    monkeypatch.delenv("SM_CAPI_LIBRARY", raising=False)
    monkeypatch.setenv("SM_BUILD_DIR", str(tmp_path / "nowhere"))
    monkeypatch.setenv("PATH", str(tmp_path))
    assert _paths.library_path() == str(
        tmp_path / "nowhere" / "lib" / "libSubgroupMatrixCAPI.so")


def test_sm_opt_on_path_gives_its_prefix(monkeypatch, tmp_path):
    prefix = tmp_path / "prefix"
    (prefix / "bin").mkdir(parents=True)
    (prefix / "lib").mkdir()
    tool = prefix / "bin" / "sm-opt"
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    (prefix / "lib" / "libSubgroupMatrixCAPI.so").write_bytes(b"")
    monkeypatch.delenv("SM_CAPI_LIBRARY", raising=False)
    monkeypatch.delenv("SM_TOOLS_DIR", raising=False)
    monkeypatch.setenv("SM_BUILD_DIR", str(tmp_path / "nowhere"))
    monkeypatch.setenv("PATH", str(prefix / "bin"))
    assert _paths.library_path() == str(
        prefix / "lib" / "libSubgroupMatrixCAPI.so")
    assert _paths.tool_path("sm-vulkan-runner") == os.path.join(
        str(prefix), "bin", "sm-vulkan-runner")


def test_tools_directory_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("SM_TOOLS_DIR", str(tmp_path))
    assert _paths.tool_path("sm-vulkan-runner") == str(
        tmp_path / "sm-vulkan-runner")
