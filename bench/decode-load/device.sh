#!/bin/bash
# On the GPU machine, with build/bench-decode-load carried (run.py stage):
# each lowering of the decode product runs into a poisoned output, then
# REPEAT more dispatches are timed, at the clock an idle CUDA context holds;
# outputs and logs go to $OUT, and run.py check compares them.
#   bash bench/decode-load/device.sh [REPEAT]
set -u
STAGE=build/bench-decode-load
REPEAT=${1:-20}
OUT=${OUT:-/tmp/bench-decode-load-out}
mkdir -p "$OUT"
. utils/device-vulkan.sh
smUseVulkanLoader "$STAGE/debs"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
chmod +x "$STAGE/sm-vulkan-runner"
read -r M N K WORKGROUPS < <(python3 -c "import json; l = json.load(open('$STAGE/launch.json')); print(l['m'], l['n'], l['k'], l['workgroups'])")
smHoldGpuClock
echo "SM clock: $(smGpuClock)" | tee -a "$OUT/gpu.txt"
for variant in coopmat2 khr; do
  timeout 120 "$STAGE/sm-vulkan-runner" "$STAGE/$variant.spv" \
    --arg "f16:$((M * K)):file:$STAGE/a.bin" \
    --arg "i8:$((K * N)):file:$STAGE/w.bin" \
    --arg "f16:$N:file:$STAGE/scale.bin" \
    --arg "f32:$((M * N)):poison" --grid "$WORKGROUPS" \
    --output "3:$OUT/$variant.out" --repeat "$REPEAT" >"$OUT/$variant.log" 2>&1
  echo "$variant: exit status $?; $(grep -m1 'time:' "$OUT/$variant.log")"
done
smReleaseGpuClock
