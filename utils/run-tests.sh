#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test: the lit suite
# (check-sm), which also runs the GoogleTest unit tests, then the Python
# package's pytest suite.
set -euo pipefail

repoRoot="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

"$repoRoot/utils/setup.sh"
"$repoRoot/utils/build.sh"
"$repoRoot/utils/build.sh" check-sm
# Debian's interpreter, which has the python3-pytest that setup installs.
/usr/bin/python3 -m pytest -q "$repoRoot/python/tests"
