#!/bin/bash
# The kernels of this directory on a GPU with matrix units (the H100):
# `stage` (here, with a build) lowers each natively and with emulation=all
# into build/emulation-device, with the runner and the Vulkan loader's
# packages (the NVIDIA driver needs the GL vendor libraries beside it);
# `run` (on the GPU machine, that folder carried) runs every
# binary against its reference: the runner's --check for the GEMM-shaped
# ones, forms.py's double-precision reference for the others. Fresh random
# inputs and poisoned outputs each time.
#   bash test/Integration/Emulation/device.sh stage
#   bash test/Integration/Emulation/device.sh run      # prints PASS/FAIL lines
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
STAGE=$ROOT/build/emulation-device
. "$ROOT/utils/device-vulkan.sh"
# kernel entry -> runner arguments ("forms" for forms.py's reference)
declare -A CHECKS=(
  [gemm-2d]="--arg f16:16384:random --arg f16:16384:random --arg f32:4096:poison --grid 4,4 --check gemm:M=64,N=64,K=256,A=0,B=1,C=2"
  [bf16-2d]="--arg bf16:256:random --arg bf16:256:random --arg f32:256:poison --check gemm:M=16,N=16,K=16,A=0,B=1,C=2"
  [staged-b-epilogue]="--arg f16:2048:random --arg f16:2048:random --arg f32:1024:poison --grid 2,2 --check gemm:M=32,N=32,K=64,A=0,B=1,C=2,mul=0.5,add=0.25"
  [packed-words]="--arg f16:256:random --arg f16:256:random --arg f32:256:poison --check gemm:M=16,N=16,K=16,A=0,B=1,C=2"
  [subview-dynamic]="--arg f16:2048:random --arg f16:4096:random --arg f32:2048:poison --scalar i32:32 --grid 4,2 --check gemm:M=32,N=64,K=64,A=0,B=1,C=2"
  [int8-convert-map-reduce]=forms
  [attention-step]=forms
)

case "${1:-}" in
stage)
  rm -rf "$STAGE" && mkdir -p "$STAGE/debs"
  for name in "${!CHECKS[@]}"; do
    for mode in native emulated; do
      option="target=nvidia-h100"
      [ "$mode" = emulated ] && option="target=nvidia-h100 emulation=all"
      "$ROOT/build/bin/sm-opt" "$HERE/$name.mlir" "--sm-lower-to-vulkan=$option" |
        "$ROOT/build/bin/sm-translate" --serialize-spirv -o "$STAGE/$name.$mode.spv" ||
        exit 1
    done
  done
  cp "$ROOT/build/bin/sm-vulkan-runner" "$STAGE/"
  smStageVulkanLoader "$STAGE/debs" || exit 1
  echo "staged $(ls "$STAGE"/*.spv | wc -l) binaries in $STAGE"
  ;;
run)
  smUseVulkanLoader "$STAGE/debs"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  failed=0
  for name in $(printf '%s\n' "${!CHECKS[@]}" | sort); do
    for mode in native emulated; do
      binary="$STAGE/$name.$mode.spv"
      if [ "${CHECKS[$name]}" = forms ]; then
        entry=$(echo "$name" | tr - _)
        line=$(python3 "$HERE/forms.py" "$entry" "$binary" "$STAGE" | tail -n1)
      else
        output=$("$STAGE/sm-vulkan-runner" "$binary" ${CHECKS[$name]} 2>&1)
        line=$(echo "$output" | grep -E "^check gemm" | head -n1)
        echo "$output" | grep -q "check gemm.*PASSED" &&
          ! echo "$output" | grep -q FAILED && line="PASS $line" ||
          line="FAIL $line $(echo "$output" | tail -n2)"
      fi
      echo "$name ($mode): $line"
      case "$line" in PASS*) ;; *) failed=$((failed + 1)) ;; esac
    done
  done
  echo "device forms: $failed failed"
  [ "$failed" = 0 ]
  ;;
*)
  echo "usage: $0 stage|run" >&2
  exit 2
  ;;
esac
