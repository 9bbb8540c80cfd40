"""Running the project's tools from tests."""

import os
import subprocess


def run_tool(argv, env=None):
    """The finished process of `argv`, its output captured as text."""
    return subprocess.run(argv, capture_output=True, text=True,
                          errors="replace", env=env)


def run_steps(steps):
    """Runs each command of `steps` in turn until one fails; None, or what
    the failing one said ("TOOL failed: ...")."""
    for argv in steps:
        result = run_tool(argv)
        if result.returncode:
            return "%s failed: %s" % (os.path.basename(argv[0]),
                                      (result.stderr or result.stdout)
                                      .strip()[-800:])
    return None
