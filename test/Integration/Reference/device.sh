#!/bin/bash
# Programs checked against upstream MLIR on the H100:
# `stage` (here, with a build) writes the device plan of each program of
# Inputs/ and Inputs/Regressions/, of the corpus's TOSA programs at model
# size (test/Integration/Corpus/Inputs/*_tosa.mlir) and the README's TOSA
# example, of the dynamo MLPs at model size (three
# 1024-wide layers, 256 rows; f32 and bf16) and of generate.py's seeds 0 to
# 59 for nvidia-h100 (native matrices where the types have them), with fresh
# random inputs and upstream MLIR's outputs for them (upstream.py stage),
# into build/reference-device, and copies sm-plan-runner and the Vulkan
# loader's packages beside them;
# `stage-generated A:B` writes the plans of generate.py's seeds A to B-1
# alone (a long run, in batches small enough to carry) the same way;
# `run` (on the GPU machine, that folder carried) runs each plan with an
# idle CUDA context held and writes the outputs into $OUT/outputs.tar.gz;
# `check TAR` (here) compares them with upstream's (upstream.py compare).
#   bash test/Integration/Reference/device.sh stage
#   bash test/Integration/Reference/device.sh stage-generated 1000:1400
#   bash test/Integration/Reference/device.sh run
#   bash test/Integration/Reference/device.sh check TAR
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
STAGE=$ROOT/build/reference-device
. "$ROOT/utils/device-vulkan.sh"

case "${1:-}" in
stage)
  # (The programs stay here: the plans hold what runs.)
  programs=$ROOT/build/reference-programs
  rm -rf "$STAGE" "$programs" && mkdir -p "$STAGE/debs" "$programs"
  for element in f32 bf16; do
    /usr/bin/python3 "$HERE/dynamo_mlp.py" 256 1024 3 "$element" 11 \
      >"$programs/dynamo_mlp_3x1024_$element.mlir" || exit 1
  done
  /usr/bin/python3 "$HERE/dynamo_mlp.py" 256 1024 2 f32 12 \
    >"$programs/dynamo_mlp_2x1024_f32.mlir" || exit 1
  for seed in $(seq 0 59); do
    /usr/bin/python3 "$HERE/generate.py" emit "$seed" \
      >"$programs/generated_$seed.mlir" || exit 1
  done
  /usr/bin/python3 "$HERE/upstream.py" stage "$ROOT/build/bin" \
    "$HERE"/Inputs/*.mlir "$HERE"/Inputs/Regressions/*.mlir \
    "$HERE"/Inputs/OnceRefused/*.mlir "$programs"/*.mlir \
    "$HERE"/Inputs/Tosa/*.mlir "$ROOT"/test/Integration/Corpus/Inputs/*_tosa.mlir \
    "$ROOT"/examples/linear_relu_tosa.mlir \
    --target nvidia-h100 --dir "$STAGE/plans" --seed 21 || exit 1
  cp "$ROOT/build/bin/sm-plan-runner" "$STAGE/"
  smStageVulkanLoader "$STAGE/debs" || exit 1
  echo "staged in $STAGE"
  ;;
stage-generated)
  rm -rf "$STAGE" && mkdir -p "$STAGE/debs"
  /usr/bin/python3 "$HERE/generate.py" stage "$ROOT/build/bin" \
    --seeds "${2:?seeds A:B}" --target nvidia-h100 --dir "$STAGE/plans" |
    grep -v '^staged' || true
  cp "$ROOT/build/bin/sm-plan-runner" "$STAGE/"
  smStageVulkanLoader "$STAGE/debs" || exit 1
  echo "staged $(ls "$STAGE/plans" | wc -l) programs in $STAGE"
  ;;
run)
  OUT=${OUT:-/tmp/reference-out}
  smUseVulkanLoader "$STAGE/debs"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  smHoldGpuClock
  rm -rf /tmp/reference-outputs && mkdir -p /tmp/reference-outputs
  for plan in "$STAGE"/plans/*/; do
    name=$(basename "$plan")
    mkdir -p "/tmp/reference-outputs/$name"
    timeout 120 "$STAGE/sm-plan-runner" "$plan" \
      --output-dir "/tmp/reference-outputs/$name" \
      >"/tmp/reference-outputs/$name/runner.log" 2>&1
    echo "$name: exit status $?"
  done
  smReleaseGpuClock
  # (compressed: what comes back from the machine is at most 16 MiB a file)
  tar -C /tmp/reference-outputs -czf "$OUT/outputs.tar.gz" .
  ;;
check)
  rm -rf "$STAGE/outputs" && mkdir -p "$STAGE/outputs"
  tar -C "$STAGE/outputs" -xf "$2" || exit 1
  /usr/bin/python3 "$HERE/upstream.py" compare "$STAGE/plans" "$STAGE/outputs"
  ;;
*)
  echo "usage: $0 stage | stage-generated A:B | run | check TAR" >&2
  exit 2
  ;;
esac
