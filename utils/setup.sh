#!/usr/bin/env bash
# Installs everything this project needs on a Debian 12 machine (run as root).
#
#  - LLVM/MLIR 22, lit/FileCheck, GoogleTest and ccache from Debian's packages;
#  - SPIRV-Tools in .deps/spirv/bin, the one spirv-val of the project:
#    SPIRV-Tools 2026 (which reads bf16) from the Debian root below where it
#    can be made, else SPIRV-Tools 2025.1 built from Debian 13 (trixie)
#    sources; Debian 12's own predate the cooperative-matrix extensions.
#    SPIRV-Headers 1.4.309 from trixie go to .deps/spirv/include;
#  - the Vulkan 1.4.309 headers of Debian 13 (Debian 12's lack
#    VK_KHR_cooperative_matrix), unpacked into the same prefix; the runner links
#    the system's Vulkan loader;
#  - Mesa 25.0.7 from bookworm-backports: lavapipe runs compute kernels on the
#    CPU, and RADV's null-hardware RDNA3 device compiles cooperative-matrix
#    pipelines without a GPU;
#  - Intel's offline compiler ocloc (IGC) from Debian unstable in a Debian 13
#    root (.deps/intel-root), which compiles the Intel kernels for real
#    devices; it needs root for the chroot.
#
# The trixie suite is reached through a private apt configuration (its own source
# list and state directory) so that the system's package selection never sees it.
# The archive address is taken from the system's apt sources, never hard-coded.
#
# A second run, in this checkout or another one on the same machine, finds
# everything in place and returns within seconds.
set -euo pipefail

repoRoot="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# What is built or unpacked below (SPIRV-Tools, the Vulkan headers, Intel's
# compiler root) depends on nothing in the checkout, so every clone on this
# machine shares one copy: .deps is a link to $SM_SHARED_DEPS (by default in
# the user's cache directory), and a fresh clone finds everything in place.
# An existing .deps, or SM_DEPS_PREFIX, is used as it is.
if [ -z "${SM_DEPS_PREFIX:-}" ] && [ ! -e "$repoRoot/.deps" ] &&
  [ ! -L "$repoRoot/.deps" ]; then
  sharedDeps="${SM_SHARED_DEPS:-${XDG_CACHE_HOME:-$HOME/.cache}/subgroup-matrix/deps}"
  mkdir -p "$sharedDeps" && ln -s "$sharedDeps" "$repoRoot/.deps"
fi
depsPrefix="${SM_DEPS_PREFIX:-$repoRoot/.deps}"
spirvPrefix="$depsPrefix/spirv"
spirvToolsVersion=2025.1

log() { echo "[setup] $*"; }

asRoot() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

installDebianPackages() {
  local packages=(libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools
    cmake ninja-build g++ libgtest-dev libgmock-dev python3 python3-pytest python3-numpy python3-venv python3-pip xz-utils zlib1g-dev
    libzstd-dev libvulkan1 ccache)
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
      missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    log "Debian packages present"
    return
  fi
  log "installing: ${missing[*]}"
  asRoot apt-get update -qq
  DEBIAN_FRONTEND=noninteractive asRoot apt-get install -y -qq "${missing[@]}"
}

# Prints the first Debian archive URI of the system's apt configuration.
debianArchiveUri() {
  local uri
  uri=$(grep -hE '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null |
    awk '{print $2}' | grep -E '/debian/?$' | head -n1 || true)
  if [ -z "$uri" ] && [ -f /etc/apt/sources.list ]; then
    uri=$(grep -hE '^deb ' /etc/apt/sources.list |
      awk '{for (i = 2; i <= NF; ++i) if ($i ~ /^[a-z]+:\/\//) {print $i; exit}}' |
      grep -E '/debian/?$' | head -n1 || true)
  fi
  [ -n "$uri" ] || { echo "no Debian archive found in apt sources" >&2; exit 1; }
  echo "${uri%/}"
}

# Runs apt-get against a private configuration that only knows trixie.
trixieApt() {
  local aptDir="$depsPrefix/apt"
  "$@" -o Dir::Etc::SourceList="$aptDir/sources.list" \
    -o Dir::Etc::SourceParts="$aptDir/sources.list.d" \
    -o Dir::State="$aptDir/state" -o Dir::Cache="$aptDir/cache" \
    -o Dir::State::status="$aptDir/state/status" \
    -o APT::Get::List-Cleanup=0 -o Debug::NoLocking=1 \
    -o APT::Sandbox::User=root
}

prepareTrixieApt() {
  local aptDir="$depsPrefix/apt" archive
  archive=$(debianArchiveUri)
  mkdir -p "$aptDir/sources.list.d" "$aptDir/state/lists/partial" \
    "$aptDir/cache/archives/partial"
  : >"$aptDir/state/status"
  cat >"$aptDir/sources.list" <<SRC
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $archive trixie main
deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $archive trixie main
SRC
  trixieApt apt-get update -qq
}

# The SPIR-V headers the runtime includes (spirv/unified1/spirv.hpp).
installSpirvHeaders() {
  if [ -f "$spirvPrefix/include/spirv/unified1/spirv.hpp" ]; then
    return
  fi
  log "unpacking SPIRV-Headers into $spirvPrefix/include"
  [ -d "$depsPrefix/apt/state/lists" ] || prepareTrixieApt
  local work="$depsPrefix/work-headers"
  rm -rf "$work" && mkdir -p "$work" "$spirvPrefix/include"
  (
    cd "$work"
    trixieApt apt-get download -qq spirv-headers/trixie
    dpkg -x spirv-headers_*.deb headers
    cp -r headers/usr/include/spirv "$spirvPrefix/include/"
  )
  rm -rf "$work"
}

# spirv-val, spirv-dis and spirv-as in $spirvPrefix/bin: the root's
# SPIRV-Tools 2026 where the root has them, else 2025.1 built from source.
installSpirvTools() {
  installSpirvHeaders
  if [ -x "$vulkanRoot/usr/bin/spirv-val" ]; then
    writeSpirvToolsWrappers
    log "SPIRV-Tools from $vulkanRoot in $spirvPrefix/bin:" \
      "$("$spirvPrefix/bin/spirv-val" --version | head -n1)"
    return
  fi
  if [ -x "$spirvPrefix/bin/spirv-val" ] &&
    "$spirvPrefix/bin/spirv-val" --version | grep -q "v$spirvToolsVersion"; then
    log "SPIRV-Tools $spirvToolsVersion present in $spirvPrefix" \
      "(it cannot read bf16: the tests that validate bf16 binaries are" \
      "unsupported)"
    return
  fi
  log "building SPIRV-Tools $spirvToolsVersion into $spirvPrefix"
  [ -d "$depsPrefix/apt/state/lists" ] || prepareTrixieApt
  local work="$depsPrefix/work"
  rm -rf "$work" && mkdir -p "$work"
  (
    cd "$work"
    trixieApt apt-get download -qq spirv-headers/trixie
    dpkg -x spirv-headers_*.deb headers
    trixieApt apt-get source -qq --tar-only --download-only spirv-tools/trixie
    mkdir src && tar -xf spirv-tools_*.orig.tar.* -C src --strip-components=1
    local launcher=()
    command -v ccache >/dev/null && launcher=(
      "-DCMAKE_CXX_COMPILER_LAUNCHER=env;CCACHE_BASEDIR=$work;CCACHE_NOHASHDIR=1;ccache"
      "-DCMAKE_C_COMPILER_LAUNCHER=env;CCACHE_BASEDIR=$work;CCACHE_NOHASHDIR=1;ccache")
    cmake -S src -B build -G Ninja -DCMAKE_BUILD_TYPE=Release \
      "${launcher[@]}" \
      -DSPIRV-Headers_SOURCE_DIR="$work/headers/usr" \
      -DSPIRV_SKIP_TESTS=ON -DSPIRV_WERROR=OFF \
      -DCMAKE_INSTALL_PREFIX="$spirvPrefix" >/dev/null
    ninja -C build spirv-val spirv-dis spirv-as >/dev/null
    mkdir -p "$spirvPrefix/bin"
    rm -f "$spirvPrefix/bin/spirv-val" "$spirvPrefix/bin/spirv-dis" \
      "$spirvPrefix/bin/spirv-as"
    cp build/tools/spirv-val build/tools/spirv-dis build/tools/spirv-as \
      "$spirvPrefix/bin/"
  )
  rm -rf "$work"
  "$spirvPrefix/bin/spirv-val" --version | head -n1
}

# Mesa from bookworm-backports, the suite of the system's own archive.
installMesa() {
  if dpkg-query -W -f='${Version}' mesa-vulkan-drivers 2>/dev/null |
    grep -q '^25\.'; then
    log "Mesa 25 Vulkan drivers present"
    return
  fi
  local archive list=/etc/apt/sources.list.d/bookworm-backports.sources
  archive=$(debianArchiveUri)
  if [ ! -f "$list" ]; then
    asRoot tee "$list" >/dev/null <<SRC
Types: deb
URIs: $archive
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  fi
  log "installing Mesa 25 Vulkan drivers from bookworm-backports"
  asRoot apt-get update -qq
  DEBIAN_FRONTEND=noninteractive asRoot apt-get install -y -qq \
    -t bookworm-backports mesa-vulkan-drivers
}

installVulkanHeaders() {
  local prefix="$depsPrefix/vulkan"
  if [ -f "$prefix/include/vulkan/vulkan_core.h" ] &&
    grep -q "VK_KHR_cooperative_matrix" "$prefix/include/vulkan/vulkan_core.h"; then
    log "Vulkan headers present in $prefix"
    return
  fi
  log "unpacking the Vulkan 1.4 headers into $prefix"
  [ -d "$depsPrefix/apt/state/lists" ] || prepareTrixieApt
  local work="$depsPrefix/work-vulkan"
  rm -rf "$work" && mkdir -p "$work"
  (
    cd "$work"
    trixieApt apt-get download -qq libvulkan-dev/trixie
    dpkg -x libvulkan-dev_*.deb unpacked
    mkdir -p "$prefix/include"
    cp -r unpacked/usr/include/vulkan unpacked/usr/include/vk_video "$prefix/include/"
  )
  rm -rf "$work"
}

# Intel's offline GPU compiler (IGC through ocloc) needs a newer C library:
# it runs in a Debian 13 root, with the packages of Debian unstable.
installIntelCompiler() {
  local root="$depsPrefix/intel-root"
  if [ -L "$root/usr/bin/ocloc" ] || [ -e "$root/usr/bin/ocloc" ]; then
    log "Intel ocloc present in $root"
    return
  fi
  if [ "$(id -u)" -ne 0 ]; then
    log "not root: skipping Intel ocloc (chroot needs root)"
    return
  fi
  log "installing Intel ocloc into a Debian 13 root at $root"
  dpkg-query -W -f='${Status}' debootstrap 2>/dev/null | grep -q "ok installed" ||
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap
  local archive
  archive=$(debianArchiveUri)
  rm -rf "$root"
  debootstrap --variant=minbase trixie "$root" "$archive" >/dev/null
  echo "deb $archive sid main" >"$root/etc/apt/sources.list.d/sid.list"
  chroot "$root" apt-get -qq -o Acquire::Check-Valid-Until=false update
  DEBIAN_FRONTEND=noninteractive chroot "$root" apt-get -qq \
    -o Acquire::Check-Valid-Until=false install -y --no-install-recommends \
    intel-ocloc libigc2 libigdfcl2 >/dev/null
  chroot "$root" ocloc --help >/dev/null 2>&1 || true
}

# Mesa 26's lavapipe (cooperative matrices on the CPU: VK_KHR_cooperative_matrix
# and VK_NV_cooperative_matrix2) and SPIRV-Tools 2026 (which validate bf16)
# need a newer C library than Debian 12: they live in a Debian root,
# .deps/vulkan-root, made from the stable suite, each package taken from the
# most stable suite that serves a version with the features (stable, then
# trixie-backports, then forky, then unstable). The tools do not chroot into
# it: lib/Runtime/Vulkan/DriverRoot.cpp runs them through the root's dynamic
# loader and libraries, and .deps/spirv/bin/spirv-val runs the root's through a
# wrapper (writeSpirvToolsWrappers).
# What was installed is recorded in vulkan-root/sm-versions.txt.
vulkanRoot="$depsPrefix/vulkan-root"
vulkanRootSuites=(trixie trixie-backports forky sid)

vulkanRootApt() {
  DEBIAN_FRONTEND=noninteractive chroot "$vulkanRoot" apt-get -qq \
    -o Acquire::Check-Valid-Until=false "$@"
}

# Installs PACKAGE into the root from the first suite whose candidate is at
# least MINIMUM; prints a clear message and fails when no suite serves one.
installIntoVulkanRoot() {
  local package=$1 minimum=$2 suite version
  for suite in "${vulkanRootSuites[@]}"; do
    version=$(chroot "$vulkanRoot" apt-cache madison "$package" 2>/dev/null |
      awk -F'|' -v s="$suite" '$3 ~ " "s"/" {gsub(/ /, "", $2); print $2; exit}')
    [ -n "$version" ] || continue
    if dpkg --compare-versions "$version" ge "$minimum"; then
      log "installing $package $version from $suite into $vulkanRoot"
      vulkanRootApt install -y --no-install-recommends -t "$suite" \
        "$package" >/dev/null
      echo "$package $version ($suite)" >>"$vulkanRoot/sm-versions.txt"
      return 0
    fi
  done
  log "the Debian archive serves no $package >= $minimum in any of:" \
    "${vulkanRootSuites[*]}; the tests that need it will be unsupported"
  return 1
}

# Writes the root's Vulkan driver manifests with library paths relative to
# the manifest, so that the loader loads the root's drivers, not the host's.
writeVulkanRootManifests() {
  local manifest library
  mkdir -p "$vulkanRoot/sm-icd.d"
  for manifest in "$vulkanRoot"/usr/share/vulkan/icd.d/*.json; do
    [ -e "$manifest" ] || continue
    library=$(sed -n 's/.*"library_path": *"\([^"]*\)".*/\1/p' "$manifest")
    case "$library" in /*) ;; *) library="/usr/lib/x86_64-linux-gnu/$library" ;; esac
    sed "s|\"library_path\": *\"[^\"]*\"|\"library_path\": \"..$library\"|" \
      "$manifest" >"$vulkanRoot/sm-icd.d/$(basename "$manifest" | sed 's/\.x86_64//')"
  done
}

# Runs the root's SPIRV-Tools through its loader: spirv-val, spirv-dis and
# spirv-as in $spirvPrefix/bin, in place of any built ones.
writeSpirvToolsWrappers() {
  local tool bin="$spirvPrefix/bin"
  mkdir -p "$bin"
  rm -rf "$depsPrefix/spirv-root"
  for tool in spirv-val spirv-dis spirv-as; do
    rm -f "$bin/$tool"
    cat >"$bin/$tool" <<WRAP
#!/bin/sh
root="\$(dirname "\$0")/../../vulkan-root"
exec "\$root/lib64/ld-linux-x86-64.so.2" --library-path \\
  "\$root/usr/lib/x86_64-linux-gnu:\$root/lib/x86_64-linux-gnu" \\
  "\$root/usr/bin/$tool" "\$@"
WRAP
    chmod +x "$bin/$tool"
  done
}

installVulkanRoot() {
  if [ -f "$vulkanRoot/sm-versions.txt" ] &&
    grep -q '^complete' "$vulkanRoot/sm-versions.txt"; then
    log "Vulkan root present in $vulkanRoot:"
    grep -v '^complete' "$vulkanRoot/sm-versions.txt" | sed 's/^/[setup]   /'
    return
  fi
  if [ "$(id -u)" -ne 0 ]; then
    log "not root: skipping the Vulkan root (Mesa 26, SPIRV-Tools 2026);" \
      "Debian 12's Mesa and SPIRV-Tools $spirvToolsVersion stay in use"
    return
  fi
  log "making a Debian root for Mesa 26 and SPIRV-Tools 2026 at $vulkanRoot"
  dpkg-query -W -f='${Status}' debootstrap 2>/dev/null | grep -q "ok installed" ||
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap
  local archive suite
  archive=$(debianArchiveUri)
  rm -rf "$vulkanRoot"
  debootstrap --variant=minbase "${vulkanRootSuites[0]}" "$vulkanRoot" \
    "$archive" >/dev/null
  for suite in "${vulkanRootSuites[@]:1}"; do
    echo "deb $archive $suite main" >>"$vulkanRoot/etc/apt/sources.list.d/sm.list"
  done
  # Without pinning apt would take every package from the newest suite.
  cat >"$vulkanRoot/etc/apt/preferences.d/sm" <<PIN
Package: *
Pin: release n=${vulkanRootSuites[0]}
Pin-Priority: 500

Package: *
Pin: release n=sid
Pin-Priority: 100

Package: *
Pin: release n=forky
Pin-Priority: 100
PIN
  vulkanRootApt update
  : >"$vulkanRoot/sm-versions.txt"
  installIntoVulkanRoot mesa-vulkan-drivers 26 || true
  installIntoVulkanRoot libvulkan1 1.4 || true
  installIntoVulkanRoot spirv-tools 2026 || true
  writeVulkanRootManifests
  echo complete >>"$vulkanRoot/sm-versions.txt"
}

# Nothing is written into the system's Python: the scripts and tests of this
# checkout find python/ and test/lib themselves, and users install the
# package (README: "Installing"). Earlier setups wrote a subgroup_matrix.pth
# into site-packages; it is removed where it names this checkout.
removeOldPythonPackagePath() {
  local python site
  for python in "$(command -v python3 || true)" /usr/bin/python3; do
    [ -x "$python" ] || continue
    for site in $("$python" -c 'import site; print(" ".join(site.getsitepackages() + [site.getusersitepackages()]))'); do
      if [ -f "$site/subgroup_matrix.pth" ] &&
        grep -qx "$repoRoot/python" "$site/subgroup_matrix.pth"; then
        rm -f "$site/subgroup_matrix.pth"
        log "removed $site/subgroup_matrix.pth (an earlier setup's)"
      fi
    done
  done
}

installDebianPackages
removeOldPythonPackagePath
installMesa
installVulkanHeaders
installIntelCompiler
installVulkanRoot
installSpirvTools
log "done"
