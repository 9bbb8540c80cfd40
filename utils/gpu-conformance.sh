#!/usr/bin/env bash
# Prepares the Vulkan conformance suite for the GPU machine: builds the tools,
# generates one kernel per case of the target's data file, lowers, serializes
# and validates every kernel with SPIRV-Tools 2026 (bf16 included), and packs
# the runner, the binaries and Debian's Vulkan loader into build/conformance.
# test/Integration/Vulkan/conformance/run-on-device.sh runs it there.
#
# Usage: utils/gpu-conformance.sh [DATA_FILE]
set -euo pipefail

repoRoot="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
buildDir="${SM_BUILD_DIR:-$repoRoot/build}"
data="${1:-$repoRoot/data/device-coopmat/nvidia-h100-vulkan-coopmat.txt}"
suite="$buildDir/conformance"
spirvVal="$repoRoot/.deps/spirv/bin/spirv-val"

"$repoRoot/utils/setup.sh"
python3 "$repoRoot/utils/spirv_tools_features.py" bf16 "$spirvVal" || {
  echo "[conformance] $spirvVal cannot read bf16; utils/setup.sh, run as" \
    "root, provides SPIRV-Tools 2026" >&2
  exit 1
}
"$repoRoot/utils/build.sh" sm-opt sm-translate sm-vulkan-runner

rm -rf "$suite" && mkdir -p "$suite/debs"
python3 "$repoRoot/test/Integration/Vulkan/conformance/generate.py" "$data" "$suite"
validated=0
for kernel in "$suite"/*.mlir; do
  name="$(basename "$kernel" .mlir)"
  options=""
  case "$name" in robust_*) options="=robust-access=1" ;; esac
  "$buildDir/bin/sm-opt" "$kernel" --sm-lower-to-vulkan$options |
    "$buildDir/bin/sm-translate" --serialize-spirv -o "$suite/$name.spv"
  "$spirvVal" --target-env vulkan1.3 "$suite/$name.spv"
  validated=$((validated + 1))
done
echo "[conformance] lowered $(ls "$suite"/*.spv | wc -l) kernels, $validated validated by spirv-val"

# The same kernels with every matrix emulated (emulation=all): a second,
# independent implementation of the same semantics on the same GPU; once
# with operands exchanged by shuffles, once through workgroup memory (the
# default on a GPU with matrix units).
for variant in emulated emulated-workgroup; do
  mkdir -p "$suite/$variant"
  for kernel in "$suite"/*.mlir; do
    name="$(basename "$kernel" .mlir)"
    options="emulation=all emulated-exchange=subgroup"
    [ "$variant" = emulated-workgroup ] &&
      options="emulation=all emulated-exchange=workgroup"
    case "$name" in robust_*) options="$options robust-access=1" ;; esac
    "$buildDir/bin/sm-opt" "$kernel" "--sm-lower-to-vulkan=$options" |
      "$buildDir/bin/sm-translate" --serialize-spirv -o "$suite/$variant/$name.spv"
    "$spirvVal" --target-env vulkan1.3 "$suite/$variant/$name.spv"
  done
  cp "$suite/manifest.txt" "$suite/$variant/"
  echo "[conformance] lowered $(ls "$suite/$variant"/*.spv | wc -l) kernels ($variant)"
done

# convert, map and reduce, with the reference in suite.py.
python3 "$repoRoot/test/Integration/MatrixFunctions/suite.py" generate \
  nvidia-h100 "$suite/functions" >/dev/null
python3 "$repoRoot/test/Integration/MatrixFunctions/suite.py" build vulkan \
  "$suite/functions" "$buildDir/bin" --spirv-val "$spirvVal" | tail -n1
rm -f "$suite"/functions/*.mlir
cp "$repoRoot/test/Integration/MatrixFunctions/suite.py" "$suite/"
# ... and the test library it imports (run-on-device.sh puts it on the path).
rm -rf "$suite/lib" && mkdir -p "$suite/lib"
cp -r "$repoRoot/test/lib/sm_testing" "$suite/lib/"
rm -rf "$suite/lib/sm_testing/__pycache__" "$suite/lib/sm_testing/linalg/__pycache__"

# (Whole linalg programs run through the runtime:
# test/Integration/Runtime/device.sh.)

# Upstream gpu.subgroup_mma code, converted.
"$buildDir/bin/sm-opt" "$repoRoot/test/Conversion/GPUToSubgroupMatrix/execution.mlir" \
  --sm-convert-gpu-mma --sm-lower-to-vulkan=target=nvidia-h100 |
  "$buildDir/bin/sm-translate" --serialize-spirv -o "$suite/gpu-mma.spv"
"$spirvVal" --target-env vulkan1.3 "$suite/gpu-mma.spv"

# A matmul with a dynamic M, built once, run for several M.
"$buildDir/bin/sm-opt" "$repoRoot/test/Integration/LinalgToGPU/dynamic-m.mlir" \
  --sm-linalg-to-gpu=target=nvidia-h100 | "$buildDir/bin/sm-opt" --sm-lower-to-vulkan |
  "$buildDir/bin/sm-translate" --serialize-spirv -o "$suite/dynamic-m.spv"
"$spirvVal" --target-env vulkan1.3 "$suite/dynamic-m.spv"
# A matmul with M, N and K dynamic: its binary records its launch with size
# expressions, which the runner evaluates from --size.
"$buildDir/bin/sm-opt" "$repoRoot/test/Integration/LinalgToGPU/dynamic-mnk.mlir" \
  --sm-linalg-to-gpu=target=nvidia-h100 | "$buildDir/bin/sm-opt" --sm-lower-to-vulkan |
  "$buildDir/bin/sm-translate" --serialize-spirv -o "$suite/dynamic-mnk.spv"
"$spirvVal" --target-env vulkan1.3 "$suite/dynamic-mnk.spv"

cp "$buildDir/bin/sm-vulkan-runner" "$suite/"
cp "$repoRoot/test/Integration/Vulkan/conformance/run-on-device.sh" \
  "$repoRoot/utils/device-vulkan.sh" "$suite/"
"$repoRoot/utils/device-vulkan.sh" stage "$suite/debs"
du -sh "$suite"
