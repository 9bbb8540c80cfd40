#!/bin/bash
# On the GPU machine, with build/bench-runtime carried (run.py stage):
# every plan through sm-plan-runner, then PyTorch eager on the same inputs
# (torch_peer.py), at the same clock, and eager's Llama-layer products
# alone (torch_products.py). Outputs, logs and table.txt go to $OUT (as
# bench-runtime.tgz, with table.txt and products.txt beside it).
#   bash bench/runtime/device.sh [REPEAT]
# With a build of ggml's test-backend-ops (built elsewhere, never by this
# repository) packed as $STAGE/ggml.tar.xz (the binary and its libggml*.so
# side by side), its Vulkan flash attention at the attention group's shapes
# and its matrix-vector products at the decode group's run in the same clock
# window, on its NV cooperative matrix 2 path and with that turned off
# (KHR), into ggml.txt.
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
if [ -f "$STAGE/ggml.tar.xz" ]; then
  mkdir -p "$WORK/ggml-bin" && tar xJf "$STAGE/ggml.tar.xz" -C "$WORK/ggml-bin"
  # The ops of the staged groups: flash attention at the attention group's
  # shapes, and the matrix-vector products of the decode group (ggml's
  # stock m=4096, k=14336 at one and eight tokens).
  ops=()
  ls "$STAGE"/plans | grep -q '^attention_' &&
    ops+=("FLASH_ATTN_EXT" 'nh=32,.*kv=4096,nb=4096')
  ls "$STAGE"/plans | grep -q '^decode_' &&
    ops+=("MUL_MAT" 'type_a=(f16|q8_0|q4_0),type_b=f32,m=4096,n=(1|8),k=14336,')
  ls "$STAGE"/plans | grep -q '^decode_attention' &&
    ops+=("FLASH_ATTN_EXT" 'hsk=128,hsv=128,nh=8,nr23=\[[14],1\],kv=4096,nb=1,')
  for path in coopmat2 khr; do
    disable=""
    [ "$path" = khr ] && disable="GGML_VK_DISABLE_COOPMAT2=1"
    echo "ggml $path (SM clock $(smGpuClock)):"
    for ((i = 0; i < ${#ops[@]}; i += 2)); do
      env $disable LD_LIBRARY_PATH="$WORK/ggml-bin" timeout 300 \
        "$WORK/ggml-bin/test-backend-ops" perf -o "${ops[i]}" -b Vulkan0 \
        -p "${ops[i + 1]}" 2>&1 | grep -E "${ops[i]}|ggml_vulkan: 0"
    done
  done | tee "$WORK/ggml.txt"
  cp "$WORK/ggml.txt" "$OUT/"
fi
smReleaseGpuClock
python3 bench/runtime/torch_peer.py "$STAGE" "$WORK" "$REPEAT" | tee "$WORK/table.txt"
# Eager's Llama-layer projections alone (cuBLAS), beside the layer's.
python3 bench/runtime/torch_products.py "$REPEAT" | tee "$WORK/products.txt"
cp "$WORK/table.txt" "$WORK/products.txt" "$OUT/"
tar czf "$OUT/bench-runtime.tgz" -C "$WORK" .
