#!/usr/bin/env bash
# Builds sm-opt, sm-translate, the runners and the runtime's tools and runs
# the mutation fuzzer (utils/fuzz.py) over the lit corpus and the runners'
# command lines. A campaign of N minutes:
#
#   utils/fuzz.sh --minutes N [--seed S] [--jobs J]
#
# or a reproducible run of N mutants, as CI runs it:
#
#   utils/fuzz.sh --mutants N --seed S
#
# The tools run from a snapshot of build/bin, so that rebuilding during a
# campaign does not disturb it. Findings (the mutant, the command and its
# output) land in build/fuzz-findings; the exit status is 1 if there are any.
set -euo pipefail

repoRoot="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
buildDir="${SM_BUILD_DIR:-$repoRoot/build}"

"$repoRoot/utils/setup.sh" >/dev/null
"$repoRoot/utils/build.sh" sm-opt sm-translate sm-vulkan-runner \
  sm-msl-host-runner sm-intel-host-runner sm-run sm-plan-runner >/dev/null
snapshot="$(mktemp -d "${TMPDIR:-/tmp}/sm-fuzz-tools-XXXXXX")"
trap 'rm -rf "$snapshot"' EXIT
cp "$buildDir/bin/sm-opt" "$buildDir/bin/sm-translate" "$snapshot/"
for runner in sm-vulkan-runner sm-msl-host-runner sm-intel-host-runner \
  sm-run sm-plan-runner; do
  if [ -x "$buildDir/bin/$runner" ]; then cp "$buildDir/bin/$runner" "$snapshot/"; fi
done
# Debian's interpreter, as the rest of the suite uses.
/usr/bin/python3 "$repoRoot/utils/fuzz.py" --tools "$snapshot" \
  --findings "$buildDir/fuzz-findings" "$@"
