# Sourced by tests/rbe/check.sh and bench/rbe_scaling.sh: the loopback worker's life cycle.
#
#   rbe_prepare STATE_DIR        builds the worker and the image tree under STATE_DIR (reused between runs)
#   rbe_start STATE_DIR SLOTS RUN_DIR
#                                starts a fresh worker (empty CAS, kept in RUN_DIR with its log) with SLOTS
#                                execution slots on a free 127.0.0.1 port; sets RBE_PORT, RBE_WORKER_PID
#   rbe_stop                     stops the worker rbe_start started (by its pid)
#
# Errors go through rbe_cannot_run MESSAGE (exit 2), which callers may redefine.

readonly RBE_TOOLS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
RBE_PORT=""
RBE_WORKER_PID=""

rbe_cannot_run() { echo "rbe: CANNOT RUN: $*" >&2; exit 2; }

rbe_prepare() {
  local state="$1"
  command -v bwrap >/dev/null || rbe_cannot_run "bwrap is missing: apt-get install --no-install-recommends bubblewrap"
  [[ -d /usr/src/bazel-bootstrap/src/tools/remote ]] ||
    rbe_cannot_run "Bazel's worker source is missing: apt-get install --no-install-recommends bazel-bootstrap-source"
  "$RBE_TOOLS/build_worker.sh" "$state/worker" >/dev/null || rbe_cannot_run "the worker did not build (above)"
  # pip's warnings about the host's unused local indexes are noise here.
  "$RBE_TOOLS/make_image_tree.sh" "$state/image" 2>&1 | grep -v "is ignored: it is neither a file nor a directory" || true
  [[ -f "$state/image/opt/venv.lock" ]] || rbe_cannot_run "the execution image tree was not made (above)"
}

rbe_start() {
  local state="$1" slots="$2" run="$3"
  RBE_PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  "$RBE_TOOLS/start_worker.sh" "$state/worker" "$state/image" "$run" "$RBE_PORT" "$slots" &
  RBE_WORKER_PID=$!
  local _
  for _ in $(seq 60); do
    (exec 3<>"/dev/tcp/127.0.0.1/$RBE_PORT") 2>/dev/null && return 0
    kill -0 "$RBE_WORKER_PID" 2>/dev/null || { cat "$run/worker.log" >&2; rbe_cannot_run "the worker exited (its log is above)"; }
    sleep 1
  done
  rbe_cannot_run "the worker does not listen on 127.0.0.1:$RBE_PORT after 60 s"
}

rbe_stop() {
  if [[ -n "$RBE_WORKER_PID" ]]; then
    kill "$RBE_WORKER_PID" 2>/dev/null || true
    wait "$RBE_WORKER_PID" 2>/dev/null || true
  fi
  RBE_WORKER_PID=""
}
