"""Where the package finds libSubgroupMatrixCAPI.so and the tools.

In order: SM_CAPI_LIBRARY (and SM_TOOLS_DIR for the tools); the prefix the
package was installed with (`cmake --install` writes `_installed.py` beside
this file, and the wheel of that install carries it); the build folder of
the checkout the package sits in (SM_BUILD_DIR, else build/); and the prefix
of an `sm-opt` found on PATH.
"""

import os
import shutil

_HERE = os.path.dirname(os.path.abspath(__file__))
_LIBRARY = "libSubgroupMatrixCAPI.so"


def _prefixes():
    """[(library folder, tools folder)] to try, best first."""
    found = []
    try:
        from . import _installed
        # Relative first: the prefix may have been moved since.
        for root in (os.path.normpath(os.path.join(
                _HERE, _installed.PREFIX_FROM_PACKAGE)), _installed.PREFIX):
            found.append((os.path.join(root, _installed.LIBDIR),
                          os.path.join(root, _installed.BINDIR)))
    except ImportError:
        pass
    build = _checkout_build()
    found.append((os.path.join(build, "lib"), os.path.join(build, "bin")))
    tool = shutil.which("sm-opt")
    if tool:
        root = os.path.dirname(os.path.dirname(os.path.realpath(tool)))
        found.append((os.path.join(root, "lib"), os.path.join(root, "bin")))
    return found


def _checkout_build():
    checkout = os.path.dirname(os.path.dirname(_HERE))
    return os.environ.get("SM_BUILD_DIR", os.path.join(checkout, "build"))


def library_path():
    """The C API library to load: the first that exists, else the one the
    checkout's build would make (which the error message names)."""
    if os.environ.get("SM_CAPI_LIBRARY"):
        return os.environ["SM_CAPI_LIBRARY"]
    for lib, _ in _prefixes():
        if os.path.exists(os.path.join(lib, _LIBRARY)):
            return os.path.join(lib, _LIBRARY)
    return os.path.join(_checkout_build(), "lib", _LIBRARY)


def tool_path(name):
    """The tool `name` (sm-vulkan-runner, ...) beside the library in use."""
    if os.environ.get("SM_TOOLS_DIR"):
        return os.path.join(os.environ["SM_TOOLS_DIR"], name)
    library = os.path.dirname(library_path())
    for lib, tools in _prefixes():
        if os.path.normpath(lib) == os.path.normpath(library):
            return os.path.join(tools, name)
    return os.path.join(os.path.dirname(library), "bin", name)
