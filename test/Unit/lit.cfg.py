# -*- Python -*-
# Runs the GoogleTest unit tests as part of check-sm.

import lit.formats

config.name = "SUBGROUP_MATRIX-Unit"
config.suffixes = []
config.test_source_root = config.sm_unittests_dir
config.test_exec_root = config.sm_unittests_dir
config.test_format = lit.formats.GoogleTest(".", "UnitTests")
