#!/usr/bin/env bash
# The project's main job: installs what is missing, builds, and takes an
# example kernel through the pipeline: parse, verify, check it against its
# target (matrix configurations, workgroup size) and check that every
# subgroup matrix op runs in subgroup-uniform control flow. Prints the
# checked module and writes it to build/examples/.
#
# Usage: utils/run-example.sh [examples/FILE.mlir]
set -euo pipefail

repoRoot="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
example="${1:-$repoRoot/examples/gemm_f16.mlir}"
buildDir="${SM_BUILD_DIR:-$repoRoot/build}"

"$repoRoot/utils/setup.sh"
"$repoRoot/utils/build.sh" sm-opt sm-translate

outDir="$buildDir/examples"
mkdir -p "$outDir"
name="$(basename "$example" .mlir)"
checked="$outDir/$name.checked.mlir"

"$buildDir/bin/sm-opt" "$example" --sm-check-target --sm-check-uniformity \
  -o "$checked"
cat "$checked"
echo "[example] $example: verified, matches its target, subgroup-uniform"
echo "[example] wrote $checked"
