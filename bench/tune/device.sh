#!/bin/bash
# Runs on the GPU machine, in the repository root, with build/tune carried
# there (bench/tune/run.py prepare stages it; SM_TUNE_STAGE names another
# stage, as it did for prepare). Results go to $OUT
# (results.json, console.txt); SM_TUNE_DEVICE_ARGS adds options of
# `run.py device` (--prune-at-limit).
#   bash bench/tune/device.sh [REPEAT]
set -u
STAGE=${SM_TUNE_STAGE:-build/tune}
OUT=${OUT:-/tmp/tune-out}
mkdir -p "$OUT"
. utils/device-vulkan.sh
smUseVulkanLoader "$STAGE/debs"
chmod +x "$STAGE/sm-vulkan-runner"
python3 bench/tune/run.py device "$STAGE" "$OUT" --repeat "${1:-30}" \
  ${SM_TUNE_DEVICE_ARGS:-} 2>&1 |
  tee "$OUT/console.txt"
