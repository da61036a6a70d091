#!/usr/bin/env bash
# Remote execution scaling: the wall time of one fixed set of actions, built and tested from nothing,
# locally and on the loopback worker (tools/rbe) with 1, 2 and 4 execution slots.
#
# The set is the C++ runtime's op tests (kernels, core, the NPU model and its driver): 115 spawns, every
# .cc compiled, linked and run, plus the dozen Python actions that export and lower their test programs
# (each pays ~15 s of imports: the Python op tests themselves are left out, they would measure the
# machine's load rather than the engine). Each run starts from a clean output tree and a fresh worker
# (empty CAS), so every action executes. From Bazel's JSON profile it also sums where the remote runs
# spent their time: uploading inputs, Execute calls, downloading outputs, building Merkle trees.
#
# Usage: bench/rbe_scaling.sh [SLOTS ...]     (default: 1 2 4; prints a markdown table)
#   ARM_NPU_RBE_DIR: as for tests/rbe/check.sh (default /var/tmp/arm_npu_rbe)
set -euo pipefail

readonly ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly STATE="${ARM_NPU_RBE_DIR:-/var/tmp/arm_npu_rbe}"
readonly SET=(
  //runtime/kernels:kernels_test
  //runtime/core:all
  //runtime/npu_model:npu_model_test
  //runtime/npu_model:npu_model_driver_test
)
SLOT_COUNTS=("$@")
[[ ${#SLOT_COUNTS[@]} -gt 0 ]] || SLOT_COUNTS=(1 2 4)

# shellcheck source=../tools/rbe/loopback.sh
source "$ROOT/tools/rbe/loopback.sh"

work="$(mktemp -d)"
readonly OUTPUT_BASE="$work/output_base"
cleanup() {
  rbe_stop
  (cd "$ROOT" && ./bazelw --output_base="$OUTPUT_BASE" clean --expunge >/dev/null 2>&1) || true
  rm -rf "$work"
}
trap cleanup EXIT

rbe_prepare "$STATE"
main_output_base="$(cd "$ROOT" && ./bazelw info output_base 2>/dev/null)"
(cd "$ROOT" && ./bazelw build --nobuild "${SET[@]}" >/dev/null 2>&1) || true  # fetches python_venv there
bazel() {
  (cd "$ROOT" && ./bazelw --output_base="$OUTPUT_BASE" "$@" \
    --override_repository=python_venv="$main_output_base/external/python_venv" --symlink_prefix=/)
}

# From Bazel's JSON profile, summed over all actions (seconds): uploading inputs to the CAS, Execute calls
# (queueing on the worker plus running; parallel calls overlap), downloading outputs, and building
# input Merkle trees on the client.
profile_phases() {
  python3 - "$1" <<'PY'
import gzip, json, sys
events = json.load(gzip.open(sys.argv[1]))
events = events["traceEvents"] if isinstance(events, dict) else events
by_category, by_name = {}, {}
for event in events:
    if event.get("ph") == "X":
        seconds = event.get("dur", 0) / 1e6
        by_category[event.get("cat", "")] = by_category.get(event.get("cat", ""), 0) + seconds
        by_name[event.get("name", "")] = by_name.get(event.get("name", ""), 0) + seconds
phases = (
    by_category.get("Remote execution upload time", 0),
    by_category.get("remote action execution", 0),
    by_category.get("remote output download", 0),
    sum(value for name, value in by_name.items() if name.startswith("MerkleTree.build")),
)
print(" ".join(f"{value:.0f}" for value in phases))
PY
}

# One clean, timed run: wall seconds, critical path, spawn summary, profile phases.
measure() {
  local name="$1"
  shift
  bazel clean >/dev/null 2>&1
  # Analysis is not what scales: do it before the clock starts.
  bazel test --nobuild "$@" "${SET[@]}" >/dev/null 2>&1
  local start end
  start="$(date +%s.%N)"
  bazel test --profile="$work/$name.profile.gz" "$@" "${SET[@]}" >"$work/$name.log" 2>&1 ||
    { tail -40 "$work/$name.log" >&2; echo "rbe_scaling: the $name run failed" >&2; exit 1; }
  end="$(date +%s.%N)"
  local wall critical spawns
  wall="$(python3 -c "print(f'{$end - $start:.1f}')")"
  critical="$(sed -nE 's/.*Critical Path: ([0-9.]+)s.*/\1/p' "$work/$name.log" | tail -1)"
  spawns="$(grep -E '^INFO: [0-9]+ process' "$work/$name.log" | tail -1 | sed -E 's/^INFO: //; s/\.$//')"
  echo "$name|$wall|$critical|$spawns|$(profile_phases "$work/$name.profile.gz")|$(cut -d' ' -f1 /proc/loadavg)"
}

results=("$(measure local --jobs="$(nproc)")")
for slots in "${SLOT_COUNTS[@]}"; do
  rbe_start "$STATE" "$slots" "$work/worker"
  results+=("$(measure "remote, $slots slots" --config=rbe --remote_executor="grpc://127.0.0.1:$RBE_PORT")")
  rbe_stop
done

local_wall="$(cut -d'|' -f2 <<<"${results[0]}")"
echo
echo "| run | wall s | speedup vs local | critical path s | spawns | upload s | Execute calls s | download s | Merkle trees s | load avg |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for row in "${results[@]}"; do
  IFS='|' read -r name wall critical spawns phases load <<<"$row"
  read -r upload execution download merkle <<<"$phases"
  speedup="$(python3 -c "print(f'{$local_wall / $wall:.2f}')")"
  if [[ "$name" == local ]]; then upload="-" execution="-" download="-" merkle="-"; fi
  echo "| $name | $wall | $speedup | $critical | $spawns | $upload | $execution | $download | $merkle | $load |"
done
echo
echo "$(nproc) cores, $(date -u +%Y-%m-%d); times include every action of the set, not Bazel's analysis."
