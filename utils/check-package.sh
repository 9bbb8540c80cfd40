#!/usr/bin/env bash
# Builds the Debian package of the install (cpack -G DEB in build/), makes a
# clean Debian 12 root (debootstrap, minimal variant, with this machine's apt
# sources), installs the package there with `apt-get install ./DEB` (apt
# brings its dependencies: LLVM/MLIR 22, llc, g++, the Vulkan loader and
# Mesa), and runs what a user of the package runs, inside the root, with
# nothing of this checkout but the package and test/Downstream:
#
#  - sm-opt lowering the README's TOSA example to Vulkan SPIR-V (which
#    spirv-val, outside the root, accepts);
#  - sm-run on lavapipe, the Intel host runner and the Metal host runner,
#    each result compared with NumPy's float64 product;
#  - `import subgroup_matrix` with Debian's python3, no path set;
#  - the downstream project (test/Downstream/project) configured against
#    /usr with find_package, built, and its C program run on lavapipe.
#
# Needs root (chroot) and the network (the Debian archive); takes a few
# minutes. Usage: utils/check-package.sh  (utils/run-tests.sh runs it)
set -euo pipefail

repoRoot="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
buildDir="${SM_BUILD_DIR:-$repoRoot/build}"
log() { echo "[package] $*"; }

if [ "$(id -u)" -ne 0 ]; then
  echo "[package] needs root for the chroot" >&2
  exit 1
fi
command -v debootstrap >/dev/null ||
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap

(cd "$buildDir" && rm -f subgroup-matrix_*.deb && cpack -G DEB >/dev/null)
package=$(ls "$buildDir"/subgroup-matrix_*.deb)
log "built $(basename "$package") ($(du -h "$package" | cut -f1))"

root=$(mktemp -d /tmp/sm-package-root.XXXXXX)
cleanup() {
  umount "$root/proc" 2>/dev/null || true
  [ -n "${SM_KEEP_PACKAGE_ROOT:-}" ] || rm -rf "$root"
}
trap cleanup EXIT

archive=$(grep -hE '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null |
  awk '{print $2}' | grep -E '/debian/?$' | head -n1 || true)
[ -n "$archive" ] || { echo "no Debian archive in apt sources" >&2; exit 1; }
debootstrap --variant=minbase bookworm "$root" "$archive" >/dev/null
# This machine's sources: bookworm-security has LLVM/MLIR 22.
rm -f "$root"/etc/apt/sources.list
cp /etc/apt/sources.list.d/*.sources "$root/etc/apt/sources.list.d/"
[ -f /etc/apt/sources.list ] && cp /etc/apt/sources.list "$root/etc/apt/"
mount -t proc proc "$root/proc"
log "clean Debian 12 root in $root"

mkdir -p "$root/work"
cp "$package" "$root/work/"
cp "$repoRoot/examples/linear_relu_tosa.mlir" "$root/work/"
cp -r "$repoRoot/test/Downstream/project" "$root/work/downstream"
inRoot() {
  chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/root \
    DEBIAN_FRONTEND=noninteractive "$@"
}

inRoot apt-get update -qq 2>/dev/null
inRoot apt-get install -y -qq "./work/$(basename "$package")" >/dev/null 2>&1
log "installed: $(inRoot dpkg-query -W -f='${Package} ${Version}' subgroup-matrix)"

inRoot bash -euo pipefail -c '
cd /work
# Mesa names the file per architecture in Debian 12 (lvp_icd.x86_64.json).
export VK_DRIVER_FILES=$(ls /usr/share/vulkan/icd.d/lvp_icd*.json | head -n1)
sm-opt linear_relu_tosa.mlir --sm-linalg-to-gpu=target=nvidia-h100 |
  sm-opt --sm-lower-to-vulkan | sm-translate --serialize-spirv -o linear.spv
echo "[package] sm-opt, sm-translate: linear.spv, $(stat -c %s linear.spv) bytes"

python3 -c "
import numpy as np
r = np.random.default_rng(5)
for name, shape in ((\"x\", (1, 256, 512)), (\"w\", (1, 512, 256)),
                    (\"bias\", (1, 1, 256))):
    np.save(name + \".npy\", r.uniform(-1, 1, shape).astype(np.float16))
"
for target in cpu-lavapipe intel-xe-hpc apple-m1; do
  sm-run linear_relu_tosa.mlir --target $target --input x.npy --input w.npy \
    --input bias.npy --output-dir out-$target >/dev/null
  python3 -c "
import sys
import numpy as np
x, w, b = (np.load(n + \".npy\").astype(np.float64) for n in (\"x\", \"w\", \"bias\"))
want = np.maximum(x @ w + b, 0)
got = np.load(\"out-$target/result_0.npy\").astype(np.float64)
error = np.abs(got - want) / np.maximum(1, np.abs(want))
print(\"[package] sm-run --target $target: %d elements, max relative error %.2g\"
      % (got.size, error.max()))
sys.exit(0 if got.shape == want.shape and error.max() < 2e-2 else 1)
"
done

python3 -c "
import subgroup_matrix as sm
from subgroup_matrix import _paths
module = sm.parse(open(\"linear_relu_tosa.mlir\").read())
module.run_pipeline(\"sm-linalg-to-gpu{target=intel-xe-hpc}\")
print(\"[package] python3: %s with %s, the TOSA example lowered to %d kernel(s)\"
      % (sm.__file__, _paths.library_path(), str(module).count(\"gpu.func @\")))
"
'

# The binary the package's tools made is valid SPIR-V (the project's
# spirv-val, outside the root, which has none).
"$repoRoot/.deps/spirv/bin/spirv-val" --target-env vulkan1.3 \
  "$root/work/linear.spv"
log "spirv-val: linear.spv is valid"

inRoot apt-get install -y -qq cmake ninja-build >/dev/null 2>&1
inRoot bash -euo pipefail -c '
cd /work
cmake -S downstream -B downstream-build -G Ninja -DCMAKE_BUILD_TYPE=Release |
  grep "SubgroupMatrix"
cmake --build downstream-build >/dev/null
VK_DRIVER_FILES=$(ls /usr/share/vulkan/icd.d/lvp_icd*.json | head -n1) \
  downstream-build/downstream-run-linear | sed "s/^/[package] downstream: /"
downstream-build/downstream-opt linear_relu_tosa.mlir \
  --downstream-linalg-to-vulkan=device=nvidia-h100 | grep -c spirv.module |
  sed "s/^/[package] downstream-opt: spirv.modules: /"
'
log "the package installs into a clean Debian 12 root and its tools run there"
