"""The project's test library: what lit's execution suites, the device
scripts, the benchmarks and the digests share.

  numerics        element types: rounding, wrapping, bytes, NumPy arrays
  tools           running the project's tools
  program_check   running a program through sm-run and comparing its
                  outputs with a reference (float64, the precision policy,
                  or upstream MLIR's own execution: upstream_reference)
  linalg          the linalg programs of sm-linalg-to-gpu's execution suite,
                  one module per subject, and how each path checks them
  lit_cases       the lit test format that makes each case a lit test

Found by PYTHONPATH: test/lit.cfg.py sets it for the tests, and
utils/setup.sh makes it importable for the scripts in bench/ and utils/.
"""
