#!/bin/bash
# On the GPU machine, with build/bench-runtime carried (run.py stage):
# every plan through sm-plan-runner, then PyTorch eager on the same inputs
# (torch_peer.py), at the same clock, and eager's Llama-layer products
# alone (torch_products.py). Outputs, logs and table.txt go to $OUT (as
# bench-runtime.tgz, with table.txt and products.txt beside it).
#   bash bench/runtime/device.sh [REPEAT]
set -u
STAGE=build/bench-runtime
REPEAT=${1:-50}
OUT=${OUT:-/tmp/bench-runtime-out}
WORK=/tmp/bench-runtime-work
mkdir -p "$OUT" "$WORK"
. utils/device-vulkan.sh
smUseVulkanLoader "$STAGE/debs"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$WORK/gpu.txt"
python3 bench/runtime/torch_peer.py inputs "$STAGE"
smHoldGpuClock
echo "SM clock: $(smGpuClock)" | tee -a "$WORK/gpu.txt"
for plan in "$STAGE"/plans/*/; do
  name=$(basename "$plan")
  mkdir -p "$WORK/$name"
  timeout 300 "$STAGE/sm-plan-runner" "$plan" --output-dir "$WORK/$name" \
    --repeat "$REPEAT" >"$WORK/$name/runner.log" 2>&1
  echo "$name: exit status $?"
done
smReleaseGpuClock
python3 bench/runtime/torch_peer.py "$STAGE" "$WORK" "$REPEAT" | tee "$WORK/table.txt"
# Eager's Llama-layer projections alone (cuBLAS), beside the layer's.
python3 bench/runtime/torch_products.py "$REPEAT" | tee "$WORK/products.txt"
cp "$WORK/table.txt" "$WORK/products.txt" "$OUT/"
tar czf "$OUT/bench-runtime.tgz" -C "$WORK" .
