#!/usr/bin/env bash
# Proves the build runs under remote execution on a worker that sees nothing of this machine but the
# execution image, and that it gives the same bytes as a local build.
#
#   1. builds Bazel's remote worker from Debian's bazel-bootstrap-source (tools/rbe/build_worker.sh,
#      listening on 127.0.0.1 only) and the execution image tree (tools/rbe/make_image_tree.sh);
#   2. starts the worker in a bubblewrap root holding only /usr, Java's configuration, the image and the
#      worker's own directories (tools/rbe/start_worker.sh): the workspace, the output base and $HOME
#      do not exist there;
#   3. builds and tests, with --config=rbe in an output base of its own, a set that crosses every kind of
#      action: model lowerings to .pte (Ethos-U55, VGF), op tests on every target, host C++, a directory
#      output, a Cortex-M55 firmware test on QEMU and a static aarch64 test (zig);
#   4. passes only if every spawn ran remotely ("N remote", no local, sandboxed or worker spawns), every
#      test passed, no action's command line or environment names a path of this machine, and the
#      .pte files are byte-identical to those of a local build.
#
# Usage: tests/rbe/check.sh
#   ARM_NPU_RBE_DIR   where the worker and the image tree are kept between runs (default
#                     /var/tmp/arm_npu_rbe; the image takes ~5 min to make the first time, 6 GB)
#   ARM_NPU_RBE_SLOTS the worker's execution slots (default: the number of cores)
# The caller's output base is used read-only for the local reference build and for the external
# repositories it already fetched (passed with --override_repository, so nothing is fetched twice).
set -euo pipefail

readonly ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
readonly STATE="${ARM_NPU_RBE_DIR:-/var/tmp/arm_npu_rbe}"
readonly SLOTS="${ARM_NPU_RBE_SLOTS:-$(nproc)}"

# What runs remotely: host targets (Python, C++, lowering), then each cross platform's emulated test.
readonly PTE_TARGETS=(//models:small_cnn_u55_pte //models:small_cnn_vgf_pte)
readonly HOST_TARGETS=(
  "${PTE_TARGETS[@]}"
  //models:pte_loads_test
  //arm/ops:tosa_FP //arm/ops:tosa_INT //arm/ops:u55_INT //arm/ops:u85_INT //arm/ops:vgf_FP //arm/ops:vgf_INT
  //toolchains/tests:dot_product_test
  # Its test programs are a directory output (made by a Python action), a kind of output a REAPI worker
  # treats differently from Bazel's local strategies.
  //runtime/core:method_test
)
# A few op cases on each target (case ids are <op>_<case>_<target>).
readonly OP_FILTER=abs
readonly CROSS_RUNS=(
  "corstone300 //toolchains/tests:host_io_test"
  "aarch64 //toolchains/tests:dot_product_test"
)
# The repositories the set needs, reused from the caller's output base.
readonly REUSED_REPOSITORIES=(python_venv lavapipe arm_none_eabi zig qemu)

say() { echo "rbe/check: $*"; }
fail() { echo "rbe/check: FAILED: $*" >&2; exit 1; }
# shellcheck source=../../tools/rbe/loopback.sh
source "$ROOT/tools/rbe/loopback.sh"
rbe_cannot_run() { echo "rbe/check: CANNOT RUN: $*" >&2; exit 2; }

bazel_main() { (cd "$ROOT" && ./bazelw "$@"); }

work="$(mktemp -d)"
readonly RBE_OUTPUT_BASE="$work/output_base"
cleanup() {
  rbe_stop
  if [[ -d "$RBE_OUTPUT_BASE" ]]; then
    # The output base holds read-only files; let Bazel remove it.
    (cd "$ROOT" && ./bazelw --output_base="$RBE_OUTPUT_BASE" clean --expunge >/dev/null 2>&1) || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

say "building the worker and the execution image under $STATE"
rbe_prepare "$STATE"

# The local reference: the .pte files of an ordinary build, and every repository the set needs.
say "local reference build of ${PTE_TARGETS[*]}"
bazel_main build "${PTE_TARGETS[@]}" >"$work/local.log" 2>&1 || { cat "$work/local.log" >&2; fail "the local build failed"; }
bazel_main fetch @zig//:files @arm_none_eabi//:all_files @qemu//:VERSIONS @lavapipe//:icd >>"$work/local.log" 2>&1 ||
  { cat "$work/local.log" >&2; fail "fetching the toolchains locally failed"; }
main_output_base="$(bazel_main info output_base 2>/dev/null)"
main_bin="$(bazel_main info bazel-bin 2>/dev/null)"
overrides=()
for repository in "${REUSED_REPOSITORIES[@]}"; do
  overrides+=("--override_repository=$repository=$main_output_base/external/$repository")
done

rbe_start "$STATE" "$SLOTS" "$work/worker"
say "worker on 127.0.0.1:$RBE_PORT with $SLOTS slots, in a root without $ROOT, $main_output_base or $HOME"

# The worker's root must really hide the host: the same bwrap root cannot see the workspace.
bwrap --ro-bind /usr /usr --symlink usr/lib /lib --symlink usr/lib64 /lib64 --symlink usr/bin /bin \
  --ro-bind "$STATE/image/opt" /opt /usr/bin/test ! -e "$ROOT" -a ! -e "$main_output_base" -a ! -e "$HOME" ||
  fail "the worker's root can see the workspace, the output base or the home directory"

bazel_rbe() {
  (cd "$ROOT" && ./bazelw --output_base="$RBE_OUTPUT_BASE" "$@" --config=rbe \
    --remote_executor="grpc://127.0.0.1:$RBE_PORT" "${overrides[@]}" --symlink_prefix=/)
}

# Spawns by kind from Bazel's summary line, e.g. "INFO: 42 processes: 7 internal, 35 remote.".
spawns() { grep -E '^INFO: [0-9]+ process' "$1" | tail -1; }
total_remote=0
run_remote() {
  local log="$1"
  shift
  say "bazel test --config=rbe $*"
  bazel_rbe test "$@" >"$log" 2>&1 || { tail -60 "$log" >&2; fail "bazel test --config=rbe $* did not pass"; }
  local summary remote other
  summary="$(spawns "$log")"
  say "  $summary"
  remote="$(sed -nE 's/.* ([0-9]+) remote[,.].*/\1/p' <<<"$summary")"
  # Anything but internal (symlink trees, file writes) and remote ran on this machine.
  other="$(sed -E 's/^INFO: [0-9]+ processes?: //; s/[0-9]+ (internal|remote)[,.]?//g' <<<"$summary" | tr -d ' .,')"
  [[ "${remote:-0}" -gt 0 ]] || fail "no action ran remotely: $summary"
  [[ -z "$other" ]] || fail "some actions ran on this machine ($other): $summary"
  grep -qE "^Executed [0-9]+ out of [0-9]+ tests?: [0-9]+ tests? pass" "$log" ||
    fail "not every test passed: $(grep -E '^Executed' "$log")"
  say "  $(grep -E '^Executed [0-9]+ out of' "$log" | tail -1)"
  total_remote=$((total_remote + remote))
}

run_remote "$work/host.log" --test_filter="$OP_FILTER" --test_sharding_strategy=disabled "${HOST_TARGETS[@]}"
for run in "${CROSS_RUNS[@]}"; do
  read -r platform target <<<"$run"
  run_remote "$work/$platform.log" --config="$platform" "$target"
done

# No action may name a path of this machine: the command lines and environments of every action in the
# set (the remote worker would not have these paths).
say "checking every action's command line and environment for paths of this machine"
aquery_set="$(printf ' + deps(%s)' "${HOST_TARGETS[@]}")"
bazel_rbe aquery --output=text "${aquery_set# + }" >"$work/aquery.txt" 2>"$work/aquery.log" ||
  { cat "$work/aquery.log" >&2; fail "aquery failed"; }
for path in "$ROOT" "$main_output_base" "$RBE_OUTPUT_BASE" "$HOME/"; do
  if grep -qF "$path" "$work/aquery.txt"; then
    grep -F "$path" "$work/aquery.txt" | head -5 >&2
    fail "an action names $path (above)"
  fi
done

rbe_bin="$(bazel_rbe info bazel-bin 2>/dev/null)"
for target in "${PTE_TARGETS[@]}"; do
  package="${target#//}"
  relative="${package%%:*}/${target##*:}.pte"
  cmp "$main_bin/$relative" "$rbe_bin/$relative" || fail "$relative differs between the local and the remote build"
  say "$relative: byte-identical to the local build ($(stat -c %s "$rbe_bin/$relative") bytes)"
  for path in "$ROOT" "$main_output_base" "$RBE_OUTPUT_BASE" "$HOME/"; do
    ! grep -qaF "$path" "$rbe_bin/$relative" || fail "$relative contains the path $path"
  done
done
say "$total_remote actions ran remotely, none locally; 1 passed, 0 failed"
