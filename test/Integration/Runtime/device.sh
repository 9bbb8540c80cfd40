#!/bin/bash
# The runtime's programs and the whole linalg suite on the H100, checked
# here:
# `stage` (here, with a build) writes each program's device plan for the
# H100 and its fresh random inputs into build/runtime-device/plans
# (test/Integration/Runtime/check_programs.py --stage) and the linalg
# suite's into build/runtime-device/linalg (test/Integration/LinalgToGPU/
# suite.py run --stage: every case, compiled by sm-run --emit-plan), and
# copies sm-plan-runner and the Vulkan loader's packages beside them;
# `run` (on the GPU machine, that folder carried) runs every plan with an
# idle CUDA context held (so that the GPU runs at its full clock), timing
# --repeat runs, and writes the outputs and logs into $OUT;
# `check DIR` (here) compares the outputs that came back with float64
# references computed from the staged inputs.
#   bash test/Integration/Runtime/device.sh stage
#   bash test/Integration/Runtime/device.sh run [REPEAT]
#   bash test/Integration/Runtime/device.sh check DIR
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
STAGE=$ROOT/build/runtime-device
. "$ROOT/utils/device-vulkan.sh"

case "${1:-}" in
stage)
  rm -rf "$STAGE" && mkdir -p "$STAGE/debs"
  /usr/bin/python3 "$HERE/check_programs.py" --tools "$ROOT/build/bin" \
    --target nvidia-h100 --skip "Apple's configuration" \
    --stage "$STAGE/plans" || exit 1
  rm -rf "$ROOT/build/linalg-suite" && mkdir -p "$ROOT/build/linalg-suite"
  /usr/bin/python3 "$ROOT/test/Integration/LinalgToGPU/suite.py" generate \
    nvidia-h100 "$ROOT/build/linalg-suite" >/dev/null || exit 1
  /usr/bin/python3 "$ROOT/test/Integration/LinalgToGPU/suite.py" run vulkan \
    "$ROOT/build/linalg-suite" "$ROOT/build/bin" \
    --stage "$STAGE/linalg" | tail -n1
  cp "$ROOT/build/bin/sm-plan-runner" "$STAGE/"
  smStageVulkanLoader "$STAGE/debs" || exit 1
  echo "staged the runtime's plans in $STAGE"
  ;;
run)
  OUT=${OUT:-/tmp/runtime-out}
  smUseVulkanLoader "$STAGE/debs"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  smHoldGpuClock
  echo "SM clock: $(smGpuClock)"
  for plan in "$STAGE"/plans/case*.run*/; do
    name=$(basename "$plan")
    mkdir -p "$OUT/$name"
    cp "$plan"/input_*.npy "$OUT/$name/"
    timeout 120 "$STAGE/sm-plan-runner" "$plan" --output-dir "$OUT/$name" \
      --repeat "${2:-20}" >"$OUT/$name/runner.log" 2>&1
    echo "$name: exit status $?; $(grep -h 'time:' "$OUT/$name/runner.log")"
  done
  # The linalg suite: every case once (correctness, not timing).
  cp "$STAGE/linalg/target.txt" "$OUT/linalg-target.txt"
  for plan in "$STAGE"/linalg/*.v*/; do
    name=linalg/$(basename "$plan")
    mkdir -p "$OUT/$name"
    cp "$plan"/input_*.npy "$OUT/$name/"
    timeout 120 "$STAGE/sm-plan-runner" "$plan" --output-dir "$OUT/$name" \
      >"$OUT/$name/runner.log" 2>&1 || echo "$name: exit status $?"
  done
  cp "$OUT/linalg-target.txt" "$OUT/linalg/target.txt"
  smReleaseGpuClock
  ;;
check)
  /usr/bin/python3 "$HERE/check_programs.py" --tools "$ROOT/build/bin" \
    --check "$2"
  status=$?
  /usr/bin/python3 "$ROOT/test/Integration/LinalgToGPU/suite.py" check \
    "$2/linalg" || status=1
  exit $status
  ;;
*)
  echo "usage: $0 stage|run [REPEAT]|check DIR" >&2
  exit 2
  ;;
esac
