#!/usr/bin/env bash
# Starts Bazel's remote worker (built by build_worker.sh) inside a bubblewrap root that holds only the
# execution image: the host's /usr (Debian 12), Java's configuration, the image tree's /opt (venv, zig)
# and /var/cache/zig, and the worker's own directories. The workspace, the Bazel output base and the home
# directory do not exist in it, so an action that reaches for anything it did not declare fails there.
#
# Usage: tools/rbe/start_worker.sh WORKER_CLASSPATH_DIR IMAGE_DIR STATE_DIR PORT SLOTS
#   WORKER_CLASSPATH_DIR  build_worker.sh's OUT_DIR (holds classes/)
#   IMAGE_DIR             make_image_tree.sh's IMAGE_DIR
#   STATE_DIR             the worker's CAS and execution directories, and its log (worker.log)
#   PORT                  the 127.0.0.1 port it listens on
#   SLOTS                 how many actions it runs at once
# Runs in the foreground until killed; start it with & and stop it by its pid.
#
# The root shares the host's network namespace only so that the Bazel client reaches the worker on
# loopback (the worker binds 127.0.0.1 only; build_worker.sh); actions themselves need no network.
set -euo pipefail

readonly SERVER_JAR=/usr/share/bazel/A-server.jar
readonly JAVA_CONFIG=/etc/java-17-openjdk

fail() { echo "rbe/start_worker: $*" >&2; exit 2; }
[[ $# -eq 5 ]] || fail "usage: $0 WORKER_CLASSPATH_DIR IMAGE_DIR STATE_DIR PORT SLOTS"
readonly CLASSES="$(cd "$1" && pwd)/classes"
readonly IMAGE="$(cd "$2" && pwd)"
mkdir -p "$3"
readonly STATE="$(cd "$3" && pwd)"
readonly PORT="$4" SLOTS="$5"

command -v bwrap >/dev/null || fail "bwrap is missing: apt-get install --no-install-recommends bubblewrap"
[[ -d "$CLASSES" ]] || fail "$CLASSES is missing: run tools/rbe/build_worker.sh first"
[[ -f "$IMAGE/opt/venv.lock" && -d "$IMAGE/opt/zig" ]] || fail "$IMAGE is no finished image tree: run tools/rbe/make_image_tree.sh"
# /usr/bin/java points into /etc/alternatives, which the root does not hold.
java="$(readlink -f "$(command -v java)")" || fail "java is missing: install Debian's openjdk-17-jre-headless"
[[ "$java" == /usr/* ]] || fail "java resolves to $java, outside /usr: the worker's root holds only /usr"

mkdir -p "$STATE/cas" "$STATE/work" "$STATE/tmp"
# Each start is a fresh worker: no results of an earlier run may count for this one.
rm -rf "${STATE:?}/cas/"* "${STATE:?}/work/"*

exec bwrap \
  --ro-bind /usr /usr \
  --symlink usr/lib /lib --symlink usr/lib64 /lib64 --symlink usr/bin /bin --symlink usr/sbin /sbin \
  --ro-bind "$JAVA_CONFIG" "$JAVA_CONFIG" \
  --ro-bind "$IMAGE/opt" /opt \
  --bind "$IMAGE/var/cache/zig" /var/cache/zig \
  --ro-bind "$CLASSES" /worker/classes \
  --bind "$STATE/cas" /worker/cas \
  --bind "$STATE/work" /worker/work \
  --bind "$STATE/tmp" /tmp \
  --proc /proc --dev /dev \
  --unshare-pid --unshare-ipc --unshare-uts --die-with-parent \
  --chdir /worker \
  --clearenv --setenv PATH /usr/bin:/bin --setenv HOME /worker/work --setenv TMPDIR /tmp \
  "$java" -cp "/worker/classes:$SERVER_JAR" com.google.devtools.build.remote.worker.RemoteWorker \
  --listen_port="$PORT" --work_path=/worker/work --cas_path=/worker/cas --jobs="$SLOTS" \
  >"$STATE/worker.log" 2>&1
