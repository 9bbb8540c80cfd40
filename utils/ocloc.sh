#!/usr/bin/env bash
# Compiles a SPIR-V kernel with Intel's offline compiler (ocloc, IGC) for one
# device, in the Debian 13 root that utils/setup.sh prepared, and prints the
# build log and the kernel's disassembly.
#
# Usage: utils/ocloc.sh KERNEL.spv DEVICE   (DEVICE: pvc, bmg, dg2, ...)
set -euo pipefail

repoRoot="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
root="${SM_DEPS_PREFIX:-$repoRoot/.deps}/intel-root"
kernel="$1" device="$2"
[ -e "$root/usr/bin/ocloc" ] || [ -L "$root/usr/bin/ocloc" ] || { echo "no ocloc in $root (run utils/setup.sh as root)" >&2; exit 2; }

work="$(mktemp -d "$root/tmp/ocloc-XXXXXX")"
inside="/tmp/$(basename "$work")"
trap 'rm -rf "$work"' EXIT
cp "$kernel" "$work/kernel.spv"
chroot "$root" ocloc compile -spirv_input -file "$inside/kernel.spv" \
  -device "$device" -output "$inside/kernel" -output_no_suffix 2>&1
binary="$(ls "$work"/kernel*.bin 2>/dev/null | head -n 1)"
[ -n "$binary" ] || { echo "ocloc produced no binary" >&2; exit 1; }
chroot "$root" ocloc disasm -file "$inside/$(basename "$binary")" \
  -device "$device" -dump "$inside/disasm" >/dev/null 2>&1 || true
find "$work/disasm" -type f -name '*.asm' -exec cat {} + 2>/dev/null
find "$work/disasm" -type f -name '.*' -exec cat {} + 2>/dev/null || true
