#!/usr/bin/env bash
# Configures (once) and builds the project into build/ (or $SM_BUILD_DIR).
# Extra arguments are ninja targets; the default builds everything.
set -euo pipefail

repoRoot="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
buildDir="${SM_BUILD_DIR:-$repoRoot/build}"

if [ ! -f "$buildDir/build.ninja" ]; then
  cmake -S "$repoRoot" -B "$buildDir" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_ENABLE_ASSERTIONS=ON \
    ${SM_CMAKE_ARGS:-}
fi
ninja -C "$buildDir" "$@"
