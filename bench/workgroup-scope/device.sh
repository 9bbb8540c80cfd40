#!/bin/bash
# Runs on the GPU machine, in the repository root, with
# build/bench-workgroup-scope carried (bench/workgroup-scope/kernels.py
# stage): every workgroup-scope kernel and sm-linalg-to-gpu's own attention
# kernel through sm-vulkan-runner on the same random inputs, timed at the
# clock an idle CUDA context holds, then every output checked against
# PyTorch (check.py). Prints the log; $OUT/workgroup-scope.txt keeps it.
#   bash bench/workgroup-scope/device.sh [REPEAT]
set -u
STAGE=build/bench-workgroup-scope
REPEAT=${1:-20}
OUT=${OUT:-/tmp/bench-workgroup-scope-out}
WORK=/tmp/bench-workgroup-scope
mkdir -p "$OUT" "$WORK"
. utils/device-vulkan.sh
smUseVulkanLoader "$STAGE/debs"
RUNNER=$STAGE/sm-vulkan-runner
chmod +x "$RUNNER"
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
smHoldGpuClock
echo "SM clock: $(smGpuClock)"
run() {  # NAME SPV ARGS...
  echo "== $1"
  timeout 300 "$RUNNER" "${@:2}" --repeat "$REPEAT" 2>&1 |
    grep -E "^time:|error|FAILED"
}
n=$((32 * 4096 * 128))
attention_args="--arg f16:$n:random:1 --arg f16:$n:random:2 --arg f16:$n:random:3 --arg f16:$n:poison"
for kernel in "$STAGE"/kernels/attention_*.spv; do
  name=$(basename "$kernel" .spv)
  br=$(echo "$name" | cut -d_ -f2)
  run "$name (grid $((32 * 4096 / br)))" "$kernel" $attention_args \
    --grid $((32 * 4096 / br)) --output 0:$WORK/q --output 1:$WORK/k \
    --output 2:$WORK/v --output 3:$WORK/out_$name
done
# launch @kernels::@NAME BINARY X Y Z
read -r _ entry _ x y z <"$STAGE/ours_attention.launch"
run "ours_attention (sm-linalg-to-gpu, grid $x,$y,$z)" "$STAGE/ours_attention.spv" \
  --entry "${entry##*@}" $attention_args --grid "$x,$y,$z" \
  --output 3:$WORK/out_ours_attention
m=4096
for kernel in "$STAGE"/kernels/gemm_*.spv; do
  name=$(basename "$kernel" .spv)
  tm=$(echo "$name" | cut -d_ -f2); tn=$(echo "$name" | cut -d_ -f3)
  grid=$(((m / tm) * (m / tn)))
  if [ "${name##*_}" = int4 ]; then
    b="--arg i8:$((m * m / 2)):random:5 --arg f32:$((m * m / 128)):random:6"
    outputs="--output 1:$WORK/b_int4 --output 2:$WORK/scales --output 3:$WORK/out_$name"
  else
    b="--arg f16:$((m * m)):random:4"
    outputs="--output 1:$WORK/b_f16 --output 2:$WORK/out_$name"
  fi
  run "$name (grid $grid)" "$kernel" --arg f16:$((m * m)):random:7 $b \
    --arg f32:$((m * m)):poison --grid $grid --output 0:$WORK/a $outputs
done
echo "SM clock: $(smGpuClock)"
smReleaseGpuClock
python3 bench/workgroup-scope/check.py attention $WORK/q $WORK/k $WORK/v $WORK/out_*attention*
python3 bench/workgroup-scope/check.py gemm $WORK/a f16 $WORK/b_f16 $WORK/out_gemm_*_f16
python3 bench/workgroup-scope/check.py gemm $WORK/a int4 $WORK/b_int4 $WORK/scales $WORK/out_gemm_*_int4
} 2>&1 | tee "$OUT/workgroup-scope.txt"
