#!/usr/bin/env bash
# Makes the execution image as a plain directory tree, for the loopback worker (start_worker.sh binds it
# into the worker's root). It is the tree tools/rbe/Dockerfile makes as a container image, from the same
# pins; the host's Debian 12 /usr stands in for the Debian base layer.
#
# Usage: tools/rbe/make_image_tree.sh IMAGE_DIR
#
#   IMAGE_DIR/opt/venv         a venv of Debian's /usr/bin/python3.11 with exactly requirements.lock,
#                              made at its final path (/opt/venv, inside a bubblewrap root) so every path
#                              it records is /opt/venv
#   IMAGE_DIR/opt/venv.lock    the lock it was made from (the Python launcher checks it; written last, so
#                              it also marks a finished venv)
#   IMAGE_DIR/opt/zig          zig from PyPI's ziglang wheel, the version and sha256 WORKSPACE pins
#   IMAGE_DIR/var/cache/zig    zig's cache, the one place actions may write outside their directory,
#                              holding zig's libc++ and musl for aarch64, built once here
#
# A tree made from the same pins is reused (about 5 minutes to make, 6 GB, from pip's local sources).
set -euo pipefail

readonly ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
readonly LOCK="$ROOT/third_party/python/requirements.lock"
readonly PYTHON=/usr/bin/python3.11
readonly ZIG_WHEEL_PLATFORM=manylinux_2_12_x86_64

fail() { echo "rbe/make_image_tree: $*" >&2; exit 2; }
[[ $# -eq 1 ]] || fail "usage: $0 IMAGE_DIR"
mkdir -p "$1"
readonly IMAGE="$(cd "$1" && pwd)"

command -v bwrap >/dev/null || fail "bwrap is missing: apt-get install --no-install-recommends bubblewrap"
[[ -x "$PYTHON" ]] || fail "$PYTHON is missing: the image's Python is Debian 12's (apt-get install python3.11-venv)"

# zig's pin: the zig_repository call in WORKSPACE (one place for both).
zig_pin() {
  sed -n '/^zig_repository(/,/^)/p' "$ROOT/WORKSPACE" | sed -nE "s/^ *$1 = \"([^\"]+)\",/\1/p"
}
readonly ZIG_VERSION="$(zig_pin version)"
readonly ZIG_SHA256="$(zig_pin sha256)"
[[ -n "$ZIG_VERSION" && -n "$ZIG_SHA256" ]] || fail "cannot read zig_repository's version and sha256 from WORKSPACE"

# Runs a command with the host's root read-only and IMAGE_DIR/opt/venv writable at /opt/venv, so the venv
# is made where the worker will see it. The host's own /opt entries (pip's local wheel directories) stay
# visible beside it.
in_venv_root() {
  local binds=(--ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --tmpfs /opt)
  local entry
  for entry in /opt/*; do
    [[ -e "$entry" ]] && binds+=(--ro-bind "$entry" "$entry")
  done
  bwrap "${binds[@]}" --bind "$IMAGE/opt/venv" /opt/venv --ro-bind "$LOCK" /tmp/requirements.lock "$@"
}

make_venv() {
  if cmp -s "$LOCK" "$IMAGE/opt/venv.lock" && [[ -x "$IMAGE/opt/venv/bin/python3" ]]; then
    echo "rbe/make_image_tree: $IMAGE/opt/venv is up to date with requirements.lock"
    return
  fi
  echo "rbe/make_image_tree: making $IMAGE/opt/venv from requirements.lock (a few minutes)"
  rm -rf "$IMAGE/opt/venv" "$IMAGE/opt/venv.lock"
  mkdir -p "$IMAGE/opt/venv"
  in_venv_root "$PYTHON" -m venv /opt/venv
  in_venv_root /opt/venv/bin/python3 -m pip install --quiet --no-input --disable-pip-version-check \
    --require-hashes --no-deps --requirement /tmp/requirements.lock
  # As the local venv (third_party/python/venv.bzl): content hashes, so no action recompiles torch.
  in_venv_root /opt/venv/bin/python3 -c "import compileall, py_compile; compileall.compile_dir('/opt/venv/lib', \
quiet=2, workers=0, invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)" || true
  in_venv_root /opt/venv/bin/python3 -c 'import torch, executorch.exir, ethosu.vela, tosa_serializer' ||
    fail "the new venv cannot import torch, executorch, vela and tosa_serializer"
  cp "$LOCK" "$IMAGE/opt/venv.lock"
}

make_zig() {
  if [[ "$(cat "$IMAGE/opt/zig.version" 2>/dev/null)" == "$ZIG_VERSION $ZIG_SHA256" ]]; then
    echo "rbe/make_image_tree: $IMAGE/opt/zig is up to date with WORKSPACE's ziglang $ZIG_VERSION"
    return
  fi
  echo "rbe/make_image_tree: unpacking ziglang $ZIG_VERSION into $IMAGE/opt/zig"
  local download
  download="$(mktemp -d)"
  in_venv_root --bind "$download" /tmp/download /opt/venv/bin/python3 -m pip download --quiet --no-input \
    --disable-pip-version-check --no-deps --only-binary=:all: --platform="$ZIG_WHEEL_PLATFORM" --dest=/tmp/download "ziglang==$ZIG_VERSION" ||
    fail "pip download ziglang==$ZIG_VERSION failed"
  local wheel=("$download"/*.whl)
  [[ "$(sha256sum "${wheel[0]}" | cut -d' ' -f1)" == "$ZIG_SHA256" ]] ||
    fail "${wheel[0]##*/} does not have the sha256 WORKSPACE pins ($ZIG_SHA256)"
  "$PYTHON" -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "${wheel[0]}" "$download/unpacked"
  chmod +x "$download/unpacked/ziglang/zig"
  rm -rf "$IMAGE/opt/zig"
  mv "$download/unpacked/ziglang" "$IMAGE/opt/zig"
  rm -rf "$download"
  echo "$ZIG_VERSION $ZIG_SHA256" >"$IMAGE/opt/zig.version"
}

# zig builds libc++, musl and compiler-rt for a target the first time a link needs them (2-3 minutes on
# an idle 2-core machine, longer than a worker's 15-minute action limit on a loaded one). Doing it once
# here, with the flags of the aarch64 toolchain's links (//toolchains/zig), leaves them in the image's
# cache, where every later link finds them.
warm_zig_cache() {
  local stamp="$ZIG_VERSION aarch64-linux-musl static c++ 1"
  if [[ "$(cat "$IMAGE/var/cache/zig.warm" 2>/dev/null)" == "$stamp" ]]; then
    return
  fi
  echo "rbe/make_image_tree: building zig's libc++ and musl for aarch64 into $IMAGE/var/cache/zig (a few minutes)"
  printf 'int main() { return 0; }\n' >"$IMAGE/var/cache/zig.warm.cc"
  bwrap --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --tmpfs /opt --tmpfs /var/cache \
    --ro-bind "$IMAGE/opt/zig" /opt/zig --bind "$IMAGE/var/cache/zig" /var/cache/zig \
    --ro-bind "$IMAGE/var/cache/zig.warm.cc" /tmp/warm.cc \
    --setenv ZIG_LIB_DIR /opt/zig/lib --setenv ZIG_GLOBAL_CACHE_DIR /var/cache/zig \
    --setenv ZIG_LOCAL_CACHE_DIR /var/cache/zig \
    /opt/zig/zig c++ -o /tmp/warm /tmp/warm.cc -Wl,-S -Wl,--gc-sections -target aarch64-linux-musl -static ||
    fail "zig could not link a static aarch64 C++ program"
  rm -f "$IMAGE/var/cache/zig.warm.cc"
  echo "$stamp" >"$IMAGE/var/cache/zig.warm"
}

mkdir -p "$IMAGE/opt" "$IMAGE/var/cache/zig"
make_venv
make_zig
warm_zig_cache
echo "rbe/make_image_tree: $IMAGE is ready"
