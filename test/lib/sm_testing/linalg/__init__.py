"""The execution suite of sm-linalg-to-gpu: linalg programs as front-ends
write them, compiled for a target, run whole by sm-run and compared with a
double-precision evaluation of the program. Each case also says how many
launches the program must become (fusion shows as one).

One module per subject declares its cases (`cases(target, t, acc, unit)`);
`cases_for` collects them; `checking` builds and runs them on each path.
"""

from sm_testing.linalg import (attention, convolutions, decode, dynamic,
                               epilogues, generics, products, quantized, rows)
from sm_testing.linalg.common import TARGETS

SUBJECTS = (products, epilogues, convolutions, quantized, decode, generics,
            rows, attention, dynamic)


def cases_for(target):
    """Every case of every subject for `target`, in subject order."""
    types = TARGETS[target]
    cases = []
    for subject in SUBJECTS:
        cases += subject.cases(target, types["inputs"], types["acc"],
                               (-1.0, 1.0))
    return cases
