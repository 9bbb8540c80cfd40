#!/bin/bash
# The documentation's GPU-only commands on the H100, as written:
# `stage` (here, with a build) runs every other documented command into
# build/docs-device/scratch (so the binaries the GPU commands take exist)
# and copies the runner and the Vulkan loader's packages beside it;
# `run` (on the GPU machine, that folder carried) runs the GPU-only blocks
# there (test/Docs/documented_commands.py --gpu).
#   bash test/Docs/device.sh stage
#   bash test/Docs/device.sh run      # PASSED/FAILED per block, a summary
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
STAGE=$ROOT/build/docs-device
. "$ROOT/utils/device-vulkan.sh"

case "${1:-}" in
stage)
  rm -rf "$STAGE" && mkdir -p "$STAGE/debs" "$STAGE/build/bin"
  python3 "$HERE/documented_commands.py" --root "$ROOT" \
    --build "$ROOT/build" --scratch "$STAGE/scratch" || exit 1
  cp "$ROOT/build/bin/sm-vulkan-runner" "$STAGE/build/bin/"
  smStageVulkanLoader "$STAGE/debs" || exit 1
  echo "staged the documented commands' files in $STAGE"
  ;;
run)
  smUseVulkanLoader "$STAGE/debs"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 "$HERE/documented_commands.py" --root "$ROOT" \
    --build "$STAGE/build" --scratch "$STAGE/scratch" --gpu
  ;;
*)
  echo "usage: $0 stage|run" >&2
  exit 2
  ;;
esac
