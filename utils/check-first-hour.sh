#!/usr/bin/env bash
# A new user's first hour: clones this repository's HEAD into an empty
# folder, runs only the README's first command there (utils/run-example.sh),
# and then the documentation test (every command of README.md, docs/ and
# python/, run as written) in that clone. It fails if the examples need
# anything that first command does not build. (The clone shares this
# machine's dependencies and ccache, as any clone does.)
#
# Usage: utils/check-first-hour.sh  (utils/run-tests.sh runs it)
set -euo pipefail

repoRoot="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work=$(mktemp -d /tmp/sm-first-hour.XXXXXX)
trap 'rm -rf "$work"' EXIT

git clone -q "$repoRoot" "$work/subgroup-matrix"
cd "$work/subgroup-matrix"
echo "[first-hour] clone of $(git log --oneline -1 | cut -c1-60)"
utils/run-example.sh >"$work/example.log" 2>&1 ||
  { tail -n 30 "$work/example.log"; exit 1; }
echo "[first-hour] utils/run-example.sh: $(tail -n 1 "$work/example.log" | cut -c1-80)"
PATH="/usr/lib/llvm-22/bin:$PATH" lit -q build/test/Docs/documented-commands.test
tail -n 1 build/test/Docs/Output/documented-commands.test.tmp.txt |
  sed 's/^/[first-hour] /'
