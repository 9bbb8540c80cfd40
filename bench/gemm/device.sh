#!/bin/bash
# Runs on the GPU machine, in the repository root, with build/bench-gemm
# carried there (bench/gemm/run.py prepare stages it): every kernel through
# sm-vulkan-runner, then cuBLAS through PyTorch on the same shapes. Results
# go to $OUT (runner.log, cublas.json, gpu.txt, manifest.json).
#   bash bench/gemm/device.sh [KERNEL-GLOB] [REPEAT]
# With build/peer-sample carried too, NVIDIA's sample runs in the same run
# (SAMPLE_ARGS: its options, default --shmem, the KHR subgroup-scope
# kernels; SAMPLE_ARGS= runs its NV workgroup-scope kernels as well).
set -u
STAGE=build/bench-gemm
GLOB=${1:-*}
REPEAT=${2:-50}
OUT=${OUT:-/tmp/bench-out}
mkdir -p "$OUT"
. utils/device-vulkan.sh
smUseVulkanLoader "$STAGE/debs"
cp "$STAGE/manifest.json" "$OUT/"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$OUT/gpu.txt"
chmod +x "$STAGE/sm-vulkan-runner"
# cuBLAS runs with a CUDA context, which raises the clock: one is held while
# our kernels run, so both are measured at the same clock (gpu.txt records
# it).
smHoldGpuClock
echo "SM clock while our kernels run: $(smGpuClock)" >>"$OUT/gpu.txt"
: >"$OUT/runner.log"
for kernel in "$STAGE"/kernels/$GLOB.spv; do
  name=$(basename "$kernel")
  echo "=== kernel $name ===" >>"$OUT/runner.log"
  timeout 300 "$STAGE/sm-vulkan-runner" "$kernel" --repeat "$REPEAT" \
    >>"$OUT/runner.log" 2>&1
  echo "exit status $?" >>"$OUT/runner.log"
  tail -4 "$OUT/runner.log" | head -3
done
# NVIDIA's Vulkan sample (vk_cooperative_matrix_perf), where a build of it
# was placed in build/peer-sample and carried (its code, and how to build
# it, stay out of this repository): timed in the same run at the same clock,
# then its own correctness mode (256^3, exact comparison).
PEER=build/peer-sample
if [ -x "$PEER/vk_cooperative_matrix_perf" ]; then
  (cd "$PEER" &&
    timeout "${SAMPLE_TIMEOUT:-240}" ./vk_cooperative_matrix_perf \
      ${SAMPLE_ARGS:---shmem} >"$OUT/sample.log" 2>&1
    timeout 200 ./vk_cooperative_matrix_perf --correctness \
      ${SAMPLE_ARGS:---shmem} >"$OUT/sample-correctness.log" 2>&1)
  echo "NVIDIA sample: $(grep -c TFlops "$OUT/sample.log") timings"
fi
smReleaseGpuClock
python3 bench/gemm/cublas.py "$STAGE/manifest.json" "$GLOB" "$REPEAT" \
  >"$OUT/cublas.json" 2>"$OUT/cublas.err"
cat "$OUT/cublas.err" | tail -5
