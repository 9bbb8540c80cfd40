#!/bin/bash
# Runs on the GPU machine, in the repository root, with build/bench-dequant
# carried there (bench/dequant/run.py prepare stages it). Results go to $OUT
# (results.json, gpu.txt, console.txt).
#   bash bench/dequant/device.sh [REPEAT]
set -u
STAGE=build/bench-dequant
OUT=${OUT:-/tmp/bench-dequant-out}
mkdir -p "$OUT"
for deb in "$STAGE"/debs/*.deb; do dpkg -x "$deb" /; done
ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
chmod +x "$STAGE/sm-vulkan-runner"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$OUT/gpu.txt"
# run.py device holds a CUDA context (PyTorch) for the whole run, so the
# Vulkan kernels run at the clock PyTorch's do; it prints the SM clock it
# sees before the first kernel and after the last (console.txt).
python3 bench/dequant/run.py device "$STAGE" "$OUT" --repeat "${1:-50}" 2>&1 |
  tee "$OUT/console.txt"
