#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test: the lit suite
# (check-sm), which also runs the GoogleTest unit tests; the README's first
# command alone in a fresh clone, then the documentation test there
# (utils/check-first-hour.sh); the same suite built
# with AddressSanitizer and UndefinedBehaviorSanitizer (into build-asan);
# the Python package's pytest suite; the Debian package installed into a
# clean Debian 12 root (utils/check-package.sh); and a fixed, seeded fuzzing
# run (docs/Fuzzing.md). SM_SKIP_SANITIZERS=1 leaves out the sanitizer build,
# which takes longest. Each step's time is printed as it ends.
#
# `utils/run-tests.sh --fast` is the developer's loop: an incremental build
# and the fast tier (check-sm-fast: parsing, FileCheck, diagnostics and unit
# tests, no kernel executed), in a few minutes.
set -euo pipefail

repoRoot="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# Runs a step and prints how long it took.
step() {
  local name=$1 start=$SECONDS
  shift
  "$@"
  echo "[run-tests] $name: $((SECONDS - start)) s"
}

if [ "${1:-}" = --fast ]; then
  step "release build" "$repoRoot/utils/build.sh"
  step "fast tier" "$repoRoot/utils/build.sh" check-sm-fast
  echo "[run-tests] total: $SECONDS s"
  exit 0
fi

step setup "$repoRoot/utils/setup.sh"
step "release build" "$repoRoot/utils/build.sh"
step "release check-sm" "$repoRoot/utils/build.sh" check-sm
# A new user's first hour: the README's first command alone, in a fresh
# clone, then the documentation test there.
step "first hour" "$repoRoot/utils/check-first-hour.sh"
# The Debian package of the install, in a clean Debian 12 root (chroot: root
# only). SM_SKIP_PACKAGE=1 leaves it out.
if [ "${SM_SKIP_PACKAGE:-0}" != 1 ] && [ "$(id -u)" -eq 0 ]; then
  step "package" "$repoRoot/utils/check-package.sh"
else
  echo "[run-tests] package: skipped (SM_SKIP_PACKAGE=1, or not root)"
fi
if [ "${SM_SKIP_SANITIZERS:-0}" != 1 ]; then
  export SM_BUILD_DIR="$repoRoot/build-asan"
  export SM_CMAKE_ARGS=-DSM_ENABLE_SANITIZERS=ON
  step "sanitizer build" "$repoRoot/utils/build.sh"
  step "sanitizer check-sm" "$repoRoot/utils/build.sh" check-sm
  unset SM_BUILD_DIR SM_CMAKE_ARGS
fi
# Debian's interpreter, which has the python3-pytest that setup installs.
step pytest /usr/bin/python3 -m pytest -q "$repoRoot/python/tests"
step fuzzing "$repoRoot/utils/fuzz.sh" --mutants 3000 --seed 1
echo "[run-tests] total: $SECONDS s"
