#!/usr/bin/env python3
"""The front-end corpus's command line (sm_testing.corpus holds the
programs' references and the checks):

  corpus.py run TOOLS [--target T] [--reduced] [--only A,B] [--skip C,D]
                [--seed N] [--upstream]
  corpus.py kernels TOOLS [--target T] [--reduced]
"""

import sys

from sm_testing.corpus import main

if __name__ == "__main__":
    sys.exit(main())
