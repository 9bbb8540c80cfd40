#!/bin/bash
# On the GPU machine, with build/bench-runtime carried (run.py stage):
# every plan through sm-plan-runner, then PyTorch eager on the same inputs
# (torch_peer.py), at the same clock. Outputs, logs and table.txt go to
# $OUT (as bench-runtime.tgz, with table.txt beside it).
#   bash bench/runtime/device.sh [REPEAT]
set -u
STAGE=build/bench-runtime
REPEAT=${1:-50}
OUT=${OUT:-/tmp/bench-runtime-out}
WORK=/tmp/bench-runtime-work
mkdir -p "$OUT" "$WORK"
for deb in "$STAGE"/debs/*.deb; do dpkg -x "$deb" /; done
ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$WORK/gpu.txt"
# An idle CUDA context keeps the GPU at 1980 MHz while our kernels run
# (a process that only uses Vulkan leaves it at 345 MHz).
python3 bench/runtime/torch_peer.py inputs "$STAGE"
python3 -c "import torch, time; torch.zeros(1, device='cuda'); time.sleep(100000)" &
HOLD=$!
sleep 8
echo "SM clock: $(nvidia-smi --query-gpu=clocks.sm --format=csv,noheader)" | tee -a "$WORK/gpu.txt"
for plan in "$STAGE"/plans/*/; do
  name=$(basename "$plan")
  mkdir -p "$WORK/$name"
  timeout 300 "$STAGE/sm-plan-runner" "$plan" --output-dir "$WORK/$name" \
    --repeat "$REPEAT" >"$WORK/$name/runner.log" 2>&1
  echo "$name: exit status $?"
done
kill $HOLD
python3 bench/runtime/torch_peer.py "$STAGE" "$WORK" "$REPEAT" | tee "$WORK/table.txt"
cp "$WORK/table.txt" "$OUT/"
tar czf "$OUT/bench-runtime.tgz" -C "$WORK" .
