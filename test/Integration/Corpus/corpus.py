#!/usr/bin/env python3
"""The front-end corpus's command line (sm_testing.corpus holds the
programs' references and the checks):

  corpus.py run TOOLS [--target T] [--reduced] [--only A,B] [--skip C,D]
                [--seed N] [--upstream]
  corpus.py kernels TOOLS [--target T] [--reduced]
"""

import os
import sys

# The test library (test/lib), also when run by hand.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, os.pardir, "lib"))

from sm_testing.corpus import main

if __name__ == "__main__":
    sys.exit(main())
