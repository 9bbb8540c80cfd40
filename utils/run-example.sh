#!/usr/bin/env bash
# The project's main job: installs what is missing, builds, and takes an
# example kernel through the pipeline: parse, verify, check it against its
# target (matrix configurations, workgroup size) and check that every
# subgroup matrix op runs in subgroup-uniform control flow; then lower it to
# Vulkan SPIR-V with cooperative matrices, serialize it and validate the
# binary with spirv-val, emit it as Metal Shading Language, and lower it to
# the Intel per-invocation form and its SPIR-V (validated too). Prints the
# checked module and writes it, the .spv, the .metal and the .intel.spv to
# build/examples/.
#
# Usage: utils/run-example.sh [examples/FILE.mlir]
set -euo pipefail

repoRoot="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
example="${1:-$repoRoot/examples/gemm_f16.mlir}"
buildDir="${SM_BUILD_DIR:-$repoRoot/build}"

"$repoRoot/utils/setup.sh"
# Everything the README's examples use, the Python package's C API library
# included.
"$repoRoot/utils/build.sh" sm-opt sm-translate sm-run sm-plan-runner \
  sm-vulkan-runner sm-msl-host-runner sm-intel-host-runner SubgroupMatrixCAPI

outDir="$buildDir/examples"
mkdir -p "$outDir"
name="$(basename "$example" .mlir)"
checked="$outDir/$name.checked.mlir"

"$buildDir/bin/sm-opt" "$example" --sm-check-target --sm-check-uniformity \
  -o "$checked"
cat "$checked"
echo "[example] $example: verified, matches its target, subgroup-uniform"
echo "[example] wrote $checked"

spirv="$outDir/$name.spv"
"$buildDir/bin/sm-opt" "$example" --sm-lower-to-vulkan |
  "$buildDir/bin/sm-translate" --serialize-spirv -o "$spirv"
"$repoRoot/.deps/spirv/bin/spirv-val" --target-env vulkan1.3 "$spirv"
echo "[example] wrote $spirv (Vulkan SPIR-V, accepted by spirv-val)"

metal="$outDir/$name.metal"
"$buildDir/bin/sm-translate" --emit-msl "$example" -o "$metal"
echo "[example] wrote $metal (Metal Shading Language)"

# The Intel form needs an Intel target: the example's matrices exist on
# Xe-HPC (its tiling assumes subgroups of 32, so this binary shows the path
# rather than a kernel to launch as is).
intel="$outDir/$name.intel.spv"
"$buildDir/bin/sm-opt" "$example" --sm-lower-to-intel=target=intel-xe-hpc |
  "$buildDir/bin/sm-translate" --emit-intel-spirv -o "$intel"
"$repoRoot/.deps/spirv/bin/spirv-val" --target-env spv1.4 "$intel"
echo "[example] wrote $intel (OpenCL SPIR-V with SPV_INTEL_subgroup_matrix_multiply_accumulate, accepted by spirv-val)"
