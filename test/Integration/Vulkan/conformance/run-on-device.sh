#!/usr/bin/env bash
# Runs the conformance suite that utils/gpu-conformance.sh prepared, on the
# machine with the GPU. Writes results.tsv, the device description and a
# tarball of one log per case to $OUT (or ./conformance-results).
#
# Usage: run-on-device.sh SUITE_DIR
set -u
suite="$(cd "$1" && pwd)"
out="${OUT:-$PWD/conformance-results}"
logs="$(mktemp -d)/logs"
mkdir -p "$out" "$logs"

# utils/device-vulkan.sh, copied beside this script.
. "$suite/device-vulkan.sh"
smUseVulkanLoader "$suite/debs"
runner="$suite/sm-vulkan-runner"

{
  date -u +"date: %Y-%m-%d %H:%M UTC"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null |
    sed 's/^/gpu: /'
  "$runner" --list-devices
} | tee "$out/device.txt"
"$runner" --list-coopmat > "$out/coopmat.txt" 2>&1

# Runs the cases of DIR/manifest.txt (binaries DIR/NAME.spv); writes
# RESULTS (a TSV) and a summary line starting with LABEL.
runCases() {
  local dir="$1" results="$2" label="$3" passed=0 failed=0
  printf "case\tresult\tdetails\n" > "$results"
  while IFS='|' read -r name entry args; do
    [ -n "$name" ] || continue
    log="$logs/$label-$name.log"
    args="${args//@SEED@/$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}"
    # shellcheck disable=SC2086
    "$runner" "$dir/$name.spv" --entry "$entry" --subgroup-size 32 $args \
      > "$log" 2>&1
    status=$?
    line=$(grep -m1 "^check gemm" "$log" || tail -n1 "$log")
    if [ $status -eq 0 ] && grep -q "PASSED" "$log"; then
      passed=$((passed + 1)); result=PASS
    else
      failed=$((failed + 1)); result=FAIL
    fi
    printf "%s\t%s\t%s\n" "$name" "$result" "${line#*: }" >> "$results"
    echo "$result $label $name: ${line#*: }"
  done < "$dir/manifest.txt"
  echo "$label: $passed passed, $failed failed" | tee -a "$out/summary.txt"
  [ $failed -eq 0 ]
}

: > "$out/summary.txt"
failed=0
runCases "$suite" "$out/results.tsv" conformance || failed=1
if [ -d "$suite/emulated-workgroup" ]; then
  runCases "$suite/emulated-workgroup" "$out/emulated-workgroup-results.tsv" \
    "emulated conformance, workgroup exchange" || failed=1
fi
if [ -d "$suite/emulated" ]; then
  runCases "$suite/emulated" "$out/emulated-results.tsv" \
    "emulated conformance" || failed=1
fi
tar -czf "$out/logs.tar.gz" -C "$(dirname "$logs")" logs

# convert, map and reduce (test/Integration/MatrixFunctions), checked against
# the suite's own double-precision reference.
functionsStatus=0
if [ -d "$suite/functions" ]; then
  PYTHONPATH="$suite/lib" python3 "$suite/suite.py" run --prebuilt vulkan "$suite/functions" "$suite" \
    > "$out/functions.txt" 2>&1 || functionsStatus=1
  tail -n1 "$out/functions.txt" | tee -a "$out/summary.txt"
fi
# Upstream gpu.subgroup_mma code through sm-convert-gpu-mma
# (test/Conversion/GPUToSubgroupMatrix/execution.mlir), against the runner's
# GEMM reference: D = 2 (A B + C).
mmaStatus=0
if [ -f "$suite/gpu-mma.spv" ]; then
  "$runner" "$suite/gpu-mma.spv" --entry gemm --grid 4 \
    --arg f16:2048:random --arg f16:2048:random --arg f32:1024:random \
    --check gemm:M=32,N=32,K=64,A=0,B=1,C=2,acc=2,mul=2 > "$out/gpu-mma.txt" 2>&1 ||
    mmaStatus=1
  grep "check gemm" "$out/gpu-mma.txt" | sed 's/^/gpu-mma: /' | tee -a "$out/summary.txt"
fi
# One binary with a dynamic M (test/Integration/LinalgToGPU/dynamic-m.mlir):
# M is the kernel's last argument; a grid of ceil(M / 16) tile rows covers
# every tile height (rows past M are bounds-checked).
dynamicStatus=0
if [ -f "$suite/dynamic-m.spv" ]; then
  for m in 1 7 16 100 1000; do
    "$runner" "$suite/dynamic-m.spv" --entry matmul_0 --grid 1,$(((m + 15) / 16)),1 \
      --arg f16:$((m * 72)):random --arg f16:6480:random --arg f32:$((m * 90)):random \
      --scalar i32:$m --check gemm:M=$m,N=90,K=72,A=0,B=1,C=2,acc=2 \
      > "$logs/dynamic-m-$m.txt" 2>&1 || dynamicStatus=1
    grep "check gemm" "$logs/dynamic-m-$m.txt" | sed "s/^/dynamic M = $m: /" |
      tee -a "$out/dynamic-m.txt"
  done
  cat "$out/dynamic-m.txt" >> "$out/summary.txt"
fi
# One binary with M, N and K dynamic (dynamic-mnk.mlir), launched as its
# binary records it: grid, buffer lengths, size arguments and check all
# follow from --size.
if [ -f "$suite/dynamic-mnk.spv" ]; then
  for sizes in "1 4096 4096" "7 90 72" "16 4096 14336" "333 555 777" "1000 1000 1000"; do
    set -- $sizes
    "$runner" "$suite/dynamic-mnk.spv" --size M=$1 --size N=$2 --size K=$3 \
      > "$logs/dynamic-mnk-$1x$2x$3.txt" 2>&1 || dynamicStatus=1
    grep "check gemm" "$logs/dynamic-mnk-$1x$2x$3.txt" |
      sed "s/^/dynamic M, N, K: /" | tee -a "$out/dynamic-mnk.txt"
  done
  cat "$out/dynamic-mnk.txt" >> "$out/summary.txt"
fi
[ $failed -eq 0 ] && [ $functionsStatus -eq 0 ] &&
  [ $mmaStatus -eq 0 ] && [ $dynamicStatus -eq 0 ]
