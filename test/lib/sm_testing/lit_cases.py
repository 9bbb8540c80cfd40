"""A lit test format that makes each case of the linalg suite, on each of
the paths a directory names, one lit test: `<path name>/<case>`. Cases are
declared once (sm_testing.linalg); lit collects them, runs them in
parallel, and reports each by name, so a case that is dropped or fails
shows as itself.

A directory's lit.local.cfg sets

  config.test_format = LinalgCaseFormat({
      "intel": CasePath("intel-xe-hpc", "intel"),
      "lavapipe": CasePath("cpu-lavapipe", "vulkan", requires=["lavapipe"],
                           environment="lavapipe", only=[...]),
  })

Each test compiles its case for the path's target, checks the kernels the
path's way and runs every variant through sm-run on fresh random inputs
(the seed is printed), comparing with the case's double-precision
reference (sm_testing.linalg.checking).
"""

import os
import random
import shutil

import lit.formats
import lit.Test
import lit.TestRunner

from sm_testing.linalg import cases_for
from sm_testing.linalg.checking import check_case


class CasePath:
    """One way of running the suite: the target it compiles for, how its
    kernels are checked (a path of sm_testing.linalg.checking), the lit
    features it needs, the device environment it runs in (a key of
    config.sm_device_environments) and, where its device is slow, the
    parts of case names it keeps."""

    def __init__(self, target, path, requires=(), environment=None,
                 only=()):
        self.target, self.path = target, path
        self.requires, self.environment = list(requires), environment
        self.only = list(only)

    def keeps(self, name):
        return not self.only or any(part in name for part in self.only)


# Each process's cases by target: lit sends the format to its workers, and
# a case's reference (a closure) does not travel.
_CASES = {}


def cases_of(target):
    if target not in _CASES:
        _CASES[target] = {case.name: case for case in cases_for(target)}
    return _CASES[target]


class LinalgCaseFormat(lit.formats.TestFormat):
    def __init__(self, paths):
        self.paths = paths

    def getTestsInDirectory(self, testSuite, path_in_suite, litConfig,
                            localConfig):
        for name, path in sorted(self.paths.items()):
            for case in cases_of(path.target).values():
                if path.keeps(case.name):
                    yield lit.Test.Test(testSuite,
                                        path_in_suite + (name, case.name),
                                        localConfig)

    def execute(self, test, litConfig):
        path_name, case_name = test.path_in_suite[-2:]
        path = self.paths[path_name]
        features = test.config.available_features
        # A long execution suite: the release build runs it, the sanitizer
        # build leaves it out (test/lit.cfg.py).
        if "sanitizers" in features:
            return lit.Test.UNSUPPORTED, "run by the release build only"
        missing = [f for f in path.requires if f not in features]
        if missing:
            return lit.Test.UNSUPPORTED, "requires %s" % ", ".join(missing)
        case = cases_of(path.target)[case_name]
        environment = dict(os.environ)
        environment.update(test.config.environment)
        if path.environment:
            environment.update(
                test.config.sm_device_environments[path.environment])
        _, work = lit.TestRunner.getTempPaths(test)
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        seed = random.SystemRandom().randrange(1 << 30)
        tools = test.config.sm_tools_dir
        spirv_val = os.path.join(test.config.spirv_tools_dir, "spirv-val")
        try:
            ok, detail = check_case(
                path.path, case, work, tools,
                spirv_val if os.path.exists(spirv_val) else "",
                path.target, random.Random(seed), env=environment)
        except Exception as error:  # a harness error fails the case
            ok, detail = False, "harness error: %r" % error
        output = "%s %s on %s (seed %d): %s\n" % (
            "PASS" if ok else "FAIL", case_name, path.target, seed, detail)
        return (lit.Test.PASS if ok else lit.Test.FAIL), output
