#!/usr/bin/env bash
# Builds Bazel's own remote execution worker (CAS, action cache, ByteStream and Execution in one process)
# from Debian's bazel-bootstrap-source, with plain javac against the installed Bazel's server jar: no
# Bazel build and no download.
#
# Usage: tools/rbe/build_worker.sh OUT_DIR     (writes OUT_DIR/classes; prints the classpath)
#
# The worker's source is Debian's, not ours, so it is not committed: it is copied from the package and
# changed here in one place. Upstream it listens on every address (NettyServerBuilder.forPort); a worker
# that runs any command it is sent must listen on loopback only.
set -euo pipefail

readonly SOURCE_PACKAGE=bazel-bootstrap-source
readonly SOURCE_ROOT=/usr/src/bazel-bootstrap/src/tools/remote/src/main/java
readonly SERVER_JAR=/usr/share/bazel/A-server.jar
readonly WORKER_MAIN=com/google/devtools/build/remote/worker/RemoteWorker.java

fail() { echo "rbe/build_worker: $*" >&2; exit 2; }

[[ $# -eq 1 ]] || fail "usage: $0 OUT_DIR"
out="$1"
[[ -d "$SOURCE_ROOT" ]] ||
  fail "$SOURCE_ROOT is missing: install Debian's $SOURCE_PACKAGE (apt-get install --no-install-recommends $SOURCE_PACKAGE)"
[[ -f "$SERVER_JAR" ]] || fail "$SERVER_JAR is missing: install Debian's bazel-bootstrap (./bazelw does)"
command -v javac >/dev/null || fail "javac is missing: install Debian's openjdk-17-jdk-headless"

# Reused while Debian's packages (the source and the server jar) are the same versions.
stamp="$(dpkg-query -W -f='${Version} ' "$SOURCE_PACKAGE" bazel-bootstrap 2>/dev/null || true) loopback-1"
if [[ -f "$out/classes.stamp" && "$(cat "$out/classes.stamp")" == "$stamp" ]]; then
  echo "$out/classes:$SERVER_JAR"
  exit 0
fi

rm -rf "$out/src" "$out/classes" "$out/classes.stamp"
mkdir -p "$out/src" "$out/classes"
cp -r "$SOURCE_ROOT/." "$out/src/"

# Loopback only. The sed must change exactly one line, or the source moved on and this step must too.
main="$out/src/$WORKER_MAIN"
before="$(grep -c 'NettyServerBuilder.forPort(workerOptions.listenPort)' "$main" || true)"
[[ "$before" -eq 1 ]] || fail "expected one NettyServerBuilder.forPort(...) in $WORKER_MAIN, found $before: update this script"
sed -i \
  -e 's/NettyServerBuilder.forPort(workerOptions.listenPort)/NettyServerBuilder.forAddress(new java.net.InetSocketAddress("127.0.0.1", workerOptions.listenPort))/' \
  "$main"
grep -q 'InetSocketAddress("127.0.0.1"' "$main" || fail "the loopback change did not apply to $WORKER_MAIN"

mapfile -t sources < <(find "$out/src" -name '*.java' | sort)
javac -nowarn -encoding UTF-8 -d "$out/classes" -cp "$SERVER_JAR" "${sources[@]}" 2> "$out/javac.log" ||
  { cat "$out/javac.log" >&2; fail "javac failed on the worker's ${#sources[@]} sources"; }
echo "$stamp" >"$out/classes.stamp"
echo "$out/classes:$SERVER_JAR"
