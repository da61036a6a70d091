#!/usr/bin/env bash
# Proves the remote cache works end to end: starts an HTTP cache (nginx with WebDAV PUT) on loopback,
# builds a model with --config=remote, expunges the local Bazel state, rebuilds, and requires that the
# rebuild took its actions from the cache (and produced the same .pte bytes).
#
# Usage: tests/remote_cache/check.sh [arm_pte target]    (default //models:small_cnn_u55_pte)
# It uses its own Bazel output base and no convenience symlinks, so the caller's local cache and
# bazel-* links are left alone.
set -euo pipefail

readonly TARGET="${1:-//models:small_cnn_u55_pte}"
readonly ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

command -v nginx >/dev/null || {
  echo "remote_cache/check: nginx is missing; install it with: apt-get install --no-install-recommends nginx-light" >&2
  exit 2
}

work="$(mktemp -d)"
output_base="$work/output_base"
nginx_pid_file="$work/nginx.pid"
cleanup() {
  [[ -f "$nginx_pid_file" ]] && kill "$(cat "$nginx_pid_file")" 2>/dev/null || true
  # The output base holds read-only files; let Bazel remove it.
  (cd "$ROOT" && ./bazelw --output_base="$output_base" clean --expunge >/dev/null 2>&1) || true
  rm -rf "$work"
}
trap cleanup EXIT

port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
mkdir -p "$work/store" "$work/client_body"
# nginx's workers run as `nobody`: they must own what they write into.
chown nobody "$work/store" "$work/client_body" 2>/dev/null || chmod 777 "$work/store" "$work/client_body"
chmod 755 "$work"
cat >"$work/nginx.conf" <<CONF
worker_processes 1;
pid $nginx_pid_file;
error_log $work/error.log;
events {}
http {
  access_log $work/access.log;
  client_body_temp_path $work/client_body;
  server {
    listen 127.0.0.1:$port;
    root $work/store;
    client_max_body_size 0;
    location / {
      dav_methods PUT;
      create_full_put_path on;
      dav_access user:rw group:r all:r;
    }
  }
}
CONF
nginx -c "$work/nginx.conf" -p "$work"

bazel_build() {
  (cd "$ROOT" && ./bazelw --output_base="$output_base" build --config=remote \
    --remote_cache="http://127.0.0.1:$port" --symlink_prefix=/ "$TARGET" 2>&1) | tee "$work/build.log" | grep -E "processes|ERROR" || true
  grep -q "Build completed successfully" "$work/build.log"
}

# arm_pte writes <package>/<name>.pte under bazel-bin.
pte_path() {
  local package="${TARGET#//}"
  package="${package%%:*}"
  echo "$(cd "$ROOT" && ./bazelw --output_base="$output_base" info bazel-bin 2>/dev/null)/$package/${TARGET##*:}.pte"
}

echo "remote_cache/check: first build of $TARGET (fills the cache at 127.0.0.1:$port)"
bazel_build
first_pte="$work/first.pte"
cp "$(pte_path)" "$first_pte"
uploads="$(grep -c '"PUT ' "$work/access.log" || true)"
echo "remote_cache/check: $uploads uploads"

(cd "$ROOT" && ./bazelw --output_base="$output_base" clean --expunge >/dev/null 2>&1)
echo "remote_cache/check: local state expunged; rebuilding"
bazel_build
hits="$(grep -oE '[0-9]+ remote cache hit' "$work/build.log" | grep -oE '^[0-9]+' || echo 0)"
# No match is the good case (nothing ran locally): grep's status 1 must not end the script (pipefail).
local_runs="$( (grep -oE '[0-9]+ (linux-sandbox|processwrapper-sandbox|local)' "$work/build.log" || true) \
  | awk '{ sum += $1 } END { print sum + 0 }')"
echo "remote_cache/check: $hits remote cache hits, ${local_runs:-0} local executions"

cmp "$first_pte" "$(pte_path)" || { echo "remote_cache/check: FAILED: the rebuilt .pte differs" >&2; exit 1; }
if [[ "$hits" -lt 1 || "${local_runs:-0}" -ne 0 ]]; then
  echo "remote_cache/check: FAILED: expected every action from the cache" >&2
  exit 1
fi
echo "remote_cache/check: 1 passed, 0 failed"
