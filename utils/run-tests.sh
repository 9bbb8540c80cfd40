#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test: the lit suite
# (check-sm), which also runs the GoogleTest unit tests; the same suite built
# with AddressSanitizer and UndefinedBehaviorSanitizer (into build-asan);
# the Python package's pytest suite; and a fixed, seeded fuzzing run
# (docs/Fuzzing.md). SM_SKIP_SANITIZERS=1 leaves out the sanitizer build,
# which takes longest.
set -euo pipefail

repoRoot="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

"$repoRoot/utils/setup.sh"
"$repoRoot/utils/build.sh"
"$repoRoot/utils/build.sh" check-sm
if [ "${SM_SKIP_SANITIZERS:-0}" != 1 ]; then
  SM_BUILD_DIR="$repoRoot/build-asan" \
    SM_CMAKE_ARGS=-DSM_ENABLE_SANITIZERS=ON "$repoRoot/utils/build.sh" check-sm
fi
# Debian's interpreter, which has the python3-pytest that setup installs.
/usr/bin/python3 -m pytest -q "$repoRoot/python/tests"
"$repoRoot/utils/fuzz.sh" --mutants 3000 --seed 1
