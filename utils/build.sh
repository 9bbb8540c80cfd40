#!/usr/bin/env bash
# Configures (once) and builds the project into build/ (or $SM_BUILD_DIR).
# Extra arguments are ninja targets; the default builds everything.
#
# Compiles go through ccache when it is installed (utils/setup.sh installs
# it), with the repository root as its base directory: a fresh clone in
# another folder, or the sanitizer build of an unchanged file, then reuses
# the objects that an earlier build on this machine compiled.
# SM_CCACHE=0 turns it off.
set -euo pipefail

repoRoot="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
buildDir="${SM_BUILD_DIR:-$repoRoot/build}"

launcherArgs=()
if [ "${SM_CCACHE:-1}" != 0 ] && command -v ccache >/dev/null; then
  # The launcher carries ccache's settings, so a plain `ninja -C build` uses
  # them too: paths under the repository root are hashed relative to it, so
  # clones in different folders share entries.
  launcher="env;CCACHE_BASEDIR=$repoRoot;CCACHE_NOHASHDIR=1;CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G};ccache"
  launcherArgs=("-DCMAKE_C_COMPILER_LAUNCHER=$launcher"
    "-DCMAKE_CXX_COMPILER_LAUNCHER=$launcher")
fi

if [ ! -f "$buildDir/build.ninja" ]; then
  cmake -S "$repoRoot" -B "$buildDir" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_ENABLE_ASSERTIONS=ON \
    "${launcherArgs[@]}" \
    ${SM_CMAKE_ARGS:-}
fi
ninja -C "$buildDir" "$@"
if [ ${#launcherArgs[@]} -gt 0 ]; then
  ccache --show-stats 2>/dev/null | grep -iE 'hits|misses' | head -n 3 |
    sed 's/^/[ccache] /' || true
fi
