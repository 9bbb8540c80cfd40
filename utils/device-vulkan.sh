#!/usr/bin/env bash
# The Vulkan setup every script that runs on the GPU machine shares
# (bench/*/device.sh, test/*/device.sh, the conformance runner).
#
# That machine has NVIDIA's driver and its ICD but no Vulkan loader, and
# reaches nothing outside it: the loader's Debian packages are downloaded
# here, into a stage's debs/ folder, and unpacked there.
#
#   utils/device-vulkan.sh stage DIR   downloads the packages into DIR
#
# Sourced, it defines, for the GPU machine:
#   smUseVulkanLoader DIR   unpacks DIR's packages unless a loader is
#                           installed; points the loader at NVIDIA's ICD
#                           unless VK_DRIVER_FILES names one
#   smHoldGpuClock          holds an idle CUDA context in the background: the
#                           driver leaves the GPU at its idle clock (345 MHz
#                           on the H100) for a process that only uses Vulkan,
#                           and raises it (1980 MHz) while any CUDA context
#                           exists, as cuBLAS and PyTorch always have one.
#                           Call it in the script's own shell, never in a
#                           pipeline: a subshell would keep the holder's
#                           process id from smReleaseGpuClock
#   smGpuClock              prints the SM clock now
#   smReleaseGpuClock       ends that context
# and puts the test library (test/lib/sm_testing), which the device
# scripts' Python imports, on PYTHONPATH.

export PYTHONPATH="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/test/lib${PYTHONPATH:+:$PYTHONPATH}"

smStageVulkanLoader() {
  mkdir -p "$1" &&
    (cd "$1" && apt-get download -qq libvulkan1 libglvnd0 libgl1 libglx0 \
      libegl1 libgles2 >/dev/null 2>&1)
}

smUseVulkanLoader() {
  if ! ldconfig -p | grep -q libvulkan.so.1; then
    for deb in "$1"/*.deb; do dpkg -x "$deb" /; done
    ldconfig
  fi
  export VK_DRIVER_FILES=${VK_DRIVER_FILES:-/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json}
}

smHoldGpuClock() {
  # The holder writes nowhere: a holder that inherited a pipe would keep
  # its reader waiting for as long as it lives.
  python3 -c "import torch, time; torch.zeros(1, device='cuda'); time.sleep(100000)" \
    </dev/null >/dev/null 2>&1 &
  SM_GPU_CLOCK_HOLDER=$!
  # Time for the context to exist and the clock to rise.
  sleep 8
}

smGpuClock() {
  nvidia-smi --query-gpu=clocks.sm --format=csv,noheader
}

smReleaseGpuClock() {
  if [ -n "${SM_GPU_CLOCK_HOLDER:-}" ]; then
    kill "$SM_GPU_CLOCK_HOLDER" 2>/dev/null
    SM_GPU_CLOCK_HOLDER=
  fi
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  case "${1:-}" in
  stage) smStageVulkanLoader "${2:?usage: $0 stage DIR}" ;;
  *)
    echo "usage: $0 stage DIR (or source it)" >&2
    exit 2
    ;;
  esac
fi
