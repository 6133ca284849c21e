#!/usr/bin/env bash
# Installs everything ropeviz needs on Debian 12, idempotently: apt packages, Dear ImGui 1.86
# sources from Debian's source package (sha256-checked), and the npm packages of the browser tests, of the
# tokenizer cross-check and of the web build (its closure compiler).
set -euo pipefail
cd "$(dirname "$0")"
root=$PWD
deps=$root/build/_deps

packages=(
  build-essential cmake ninja-build pkg-config
  emscripten
  libeigen3-dev doctest-dev libstb-dev
  libglfw3-dev libgl-dev libgl1-mesa-dri
  fonts-dejavu-core python3-fonttools
  libbenchmark-dev clang libclang-rt-14-dev
  chromium xvfb xauth
  python3-torch libopenblas0-pthread
  unicode-data
)
imgui_version=1.86+ds-1
imgui_tarball=imgui_1.86+ds.orig.tar.xz
imgui_sha256=0dace0e8e57d298eb6e93af12dc19420cb96330832f6495c733b90aeeef11f64

say() { printf 'setup: %s\n' "$*"; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

install_packages() {
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  # node and npm may come from outside Debian on some machines; any working pair will do.
  command -v node >/dev/null && command -v npm >/dev/null || missing+=(nodejs npm)
  [ ${#missing[@]} -eq 0 ] && return 0
  say "installing Debian packages: ${missing[*]}"
  as_root apt-get update -qq || die "apt-get update failed: is Debian's package archive reachable?"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" \
    || die "apt-get install failed for: ${missing[*]}"
}

# The machine's own archive URIs, written as a private deb-src list (nothing system-wide changes).
write_source_list() {
  local list=$1
  : > "$list"
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    awk '/^URIs:/{u=$2}
         /^Suites:/{for(i=2;i<=NF;i++)
                      if ($i !~ /security/ && u !~ /security/) print "deb-src [trusted=yes] " u " " $i " main"}' \
      /etc/apt/sources.list.d/debian.sources >> "$list"
  fi
  if [ -f /etc/apt/sources.list ]; then
    awk '$1=="deb" && $0 !~ /security/ {sub(/^deb /,"deb-src "); print}' /etc/apt/sources.list >> "$list"
  fi
  [ -s "$list" ] || die "no Debian archive found in /etc/apt to fetch imgui's source package from"
}

fetch_imgui() {
  [ -f "$deps/imgui/imgui.cpp" ] && [ -f "$deps/imgui/backends/imgui_impl_glfw.cpp" ] && return 0
  say "fetching Dear ImGui $imgui_version sources from Debian's source package"
  local apt=$deps/apt
  mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$deps/dl"
  write_source_list "$apt/src.list"
  local opts=(-o "Dir::Etc::SourceList=$apt/src.list" -o Dir::Etc::SourceParts=/dev/null
              -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache" -o APT::Sandbox::User=root)
  apt-get "${opts[@]}" -qq update || die "could not read the deb-src index (no network to the Debian archive?)"
  (cd "$deps/dl" && apt-get "${opts[@]}" -qq source --download-only "imgui=$imgui_version") \
    || die "apt-get source imgui=$imgui_version failed"
  echo "$imgui_sha256  $deps/dl/$imgui_tarball" | sha256sum -c --quiet \
    || die "sha256 mismatch for $imgui_tarball"
  rm -rf "$deps/imgui" && mkdir -p "$deps/imgui"
  tar -xJf "$deps/dl/$imgui_tarball" -C "$deps/imgui" --strip-components=1
  [ -f "$deps/imgui/imgui.cpp" ] || die "unpacked imgui has no imgui.cpp"
}

install_npm() {  # install_npm DIR PACKAGE WHAT: npm ci in DIR unless PACKAGE is installed from its current lock
  local dir=$root/$1
  if [ -d "$dir/node_modules/$2" ] && [ "$dir/node_modules/.package-lock.json" -nt "$dir/package-lock.json" ]; then
    return 0
  fi
  say "installing npm packages for $3"
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) || die "npm ci failed in $1 (npm registry reachable?)"
}

install_packages
fetch_imgui
install_npm tests/web playwright-core "the browser tests"
install_npm tests/tokenizer @huggingface/tokenizers "the tokenizer cross-check (Hugging Face's JS tokenizer)"
install_npm web/closure google-closure-compiler-linux "the web build's closure compiler"
say "ok"
