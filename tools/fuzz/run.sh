#!/usr/bin/env bash
# Builds the runtime's libFuzzer targets (runtime/fuzz/) with Debian's clang, AddressSanitizer and
# UndefinedBehaviorSanitizer, replays every regression input (runtime/fuzz/regressions/<fuzzer>/), then
# fuzzes each target seeded with the regressions and the runtime's test programs.
#
#   tools/fuzz/run.sh --ci                           CI: each fuzzer's CI_RUNS executions (about a minute
#                                                    each on a loaded 2-core machine) from a fresh corpus
#                                                    with a fixed seed: the same inputs on every run
#   tools/fuzz/run.sh --runs N [--seed S]            the same with N executions per fuzzer (seed default 1)
#   tools/fuzz/run.sh --seconds S [--campaign]       a bounded-time run; --campaign keeps going after a
#                                                    finding (libFuzzer -fork=1 -ignore_crashes=1) and
#                                                    keeps its corpus in $FUZZ_WORK across runs
#   tools/fuzz/run.sh SECONDS                        the same as --seconds SECONDS
#   --fuzzer NAME (repeatable) limits the run to pte_loader, bin_stream or npu_model.
#
# Exits 1 when a regression input fails again or a fuzzer finds a crash; reproducers are kept under
# $FUZZ_WORK/<fuzzer>.artifacts/. A time-bounded run explores as far as the machine's speed allows, so it
# can find an old bug by chance; CI uses --runs, which cannot.
#
# Sanitizer builds stay outside Bazel (its toolchains here are for the product targets); Bazel only makes
# what the sources need: the flatc-generated .pte readers and the seed programs. Needs Debian's clang-14
# and libclang-rt-14-dev (libFuzzer): `apt-get install --no-install-recommends clang-14 libclang-rt-14-dev`.
# Extra Bazel startup flags (e.g. --output_base=...) come from $BAZEL_STARTUP_FLAGS.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

# Executions per fuzzer in CI: a fixed count, not a time, so a faster or idler machine does not explore
# further and find an old bug by chance.
declare -A CI_RUNS=([pte_loader]=60000 [bin_stream]=600000 [npu_model]=10000)

ci=0
runs=""
seconds=""
seed=1
campaign=0
fuzzers=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --ci) ci=1; shift ;;
    --runs) runs="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --campaign) campaign=1; shift ;;
    --fuzzer) fuzzers+=("$2"); shift 2 ;;
    [0-9]*) seconds="$1"; shift ;;
    *) echo "fuzz: unknown argument '$1' (see the comment at the top of $0)" >&2; exit 2 ;;
  esac
done
if [[ $ci -eq 0 && -z "$runs" && -z "$seconds" ]]; then
  echo "fuzz: give --ci, --runs N (both deterministic) or --seconds S" >&2
  exit 2
fi
[[ ${#fuzzers[@]} -gt 0 ]] || fuzzers=(pte_loader bin_stream npu_model)

work="${FUZZ_WORK:-/tmp/pte_fuzz}"
clang="${CLANG:-clang++-14}"
read -r -a startup <<<"${BAZEL_STARTUP_FLAGS:-}"
bazel=(./bazelw "${startup[@]}")

if ! command -v "$clang" >/dev/null; then
  echo "fuzz: $clang is missing: apt-get install --no-install-recommends clang-14 libclang-rt-14-dev" >&2
  exit 1
fi

"${bazel[@]}" build //runtime/schema:program_schema \
  //runtime/testdata:float_programs //runtime/testdata:quantized_programs //runtime/testdata:tiny_conv_u55
bin="$("${bazel[@]}" info bazel-bin)"
flatbuffers="$("${bazel[@]}" info output_base)/external/python_venv/venv/lib/python3.11/site-packages/include"

# The runtime as the device builds it (no runner, firmware or test files), plus the fake NPU and the
# functional NPU model (which host runners run every Ethos-U stream on).
mapfile -t sources < <(find runtime/core runtime/kernels runtime/delegate runtime/npu_model -name '*.cc' \
  ! -name '*_test.cc' ! -name 'c_api.cc' | sort)
# The host builds the scalar inner loops (the Helium ones are Cortex-M55 only).
sources+=(runtime/inner_loops/inner_loops_scalar.cc runtime/runner/host_files.cc)
flags=(-std=c++17 -fno-exceptions -fno-rtti -ffp-contract=off -O1 -g -I. -I"$bin" -isystem "$flatbuffers"
  -fsanitize=address,undefined -fno-sanitize-recover=undefined)

# Objects are kept in $FUZZ_WORK between runs: about 160 sanitizer builds cost 10-20 minutes on a loaded 2-core
# machine. One is rebuilt when it is older than its source, than any runtime header or than the flags' record.
mkdir -p "$work/objects"
flags_record="$work/objects/flags.txt"
if [[ "$(cat "$flags_record" 2>/dev/null)" != "$clang ${flags[*]}" ]]; then
  echo "$clang ${flags[*]}" >"$flags_record"
fi
objects=()
for source in "${sources[@]}"; do
  object="$work/objects/${source//\//_}.o"
  if [[ ! -f "$object" || "$source" -nt "$object" || "$flags_record" -nt "$object" ||
        -n "$(find runtime "$bin/runtime/schema" -name '*.h' -newer "$object" -print -quit 2>/dev/null)" ]]; then
    "$clang" "${flags[@]}" -fsanitize=fuzzer-no-link -c "$source" -o "$object"
  fi
  objects+=("$object")
done

# Seeds: every test program, and the Ethos-U delegate blob cut out of the Ethos-U program.
mkdir -p "$work/seeds/pte_loader" "$work/seeds/bin_stream" "$work/seeds/npu_model"
cp "$bin"/runtime/testdata/float_programs/*.pte "$bin"/runtime/testdata/quantized_programs/*.pte \
  "$bin"/runtime/testdata/tiny_conv_u55.pte "$work/seeds/pte_loader/"
python3 - "$bin/runtime/testdata/tiny_conv_u55.pte" "$work/seeds/bin_stream/tiny_conv_u55.bin" <<'EOF'
import sys
data = open(sys.argv[1], "rb").read()
start = data.index(b"vela_bin_stream\0")
end = data.index(b"vela_end_stream\0") + 32
open(sys.argv[2], "wb").write(data[start:end])
EOF
cp "$work/seeds/bin_stream/tiny_conv_u55.bin" "$work/seeds/npu_model/"

status=0
for fuzzer in "${fuzzers[@]}"; do
  "$clang" "${flags[@]}" -fsanitize=fuzzer "runtime/fuzz/${fuzzer}_fuzzer.cc" "${objects[@]}" -o "$work/$fuzzer"
  regressions="runtime/fuzz/regressions/$fuzzer"
  mkdir -p "$work/$fuzzer.artifacts"
  log="$work/$fuzzer.log"

  # Every input that once crashed a fuzzer runs first, each once: an old bug back is a failure of its own,
  # reported before any new search starts.
  echo "fuzz: $fuzzer: replaying $(find "$regressions" -type f | wc -l) regression inputs"
  if ! "$work/$fuzzer" -runs=1 "$regressions"/* >"$log.regressions" 2>&1; then
    status=1
    echo "fuzz: $fuzzer: a regression input fails again (log: $log.regressions)" >&2
    tail -40 "$log.regressions" >&2
    continue
  fi

  fuzzer_runs="$runs"
  [[ $ci -eq 0 || -n "$fuzzer_runs" ]] || fuzzer_runs="${CI_RUNS[$fuzzer]}"
  options=(-seed="$seed" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$work/$fuzzer.artifacts/")
  if [[ -n "$fuzzer_runs" ]]; then
    # A fresh corpus each time: what earlier runs found must not change which inputs this one tries; and
    # no re-reading of the corpus directory on a timer.
    corpus="$(mktemp -d "$work/$fuzzer.corpus.XXXXXX")"
    options+=(-runs="$fuzzer_runs" -reload=0)
    echo "fuzz: $fuzzer: $fuzzer_runs runs, seed $seed"
  else
    corpus="$work/$fuzzer.corpus"
    [[ $campaign -eq 1 ]] || rm -rf "$corpus"
    mkdir -p "$corpus"
    options+=(-max_total_time="$seconds")
    [[ $campaign -eq 0 ]] || options+=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
    echo "fuzz: $fuzzer: ${seconds}s, seed $seed$([[ $campaign -eq 1 ]] && echo ", campaign")"
  fi
  if ! "$work/$fuzzer" "${options[@]}" "$corpus" "$regressions" "$work/seeds/$fuzzer" 2>"$log"; then
    status=1
    echo "fuzz: $fuzzer found a crash (log: $log, input in $work/$fuzzer.artifacts/)" >&2
    tail -40 "$log" >&2
  fi
  [[ -z "$fuzzer_runs" ]] || rm -rf "$corpus"
  grep -E '^stat::number_of_executed_units|^Done|^INFO: fuzzed for|^#[0-9]+.*DONE' "$log" || true
  findings="$(find "$work/$fuzzer.artifacts" -type f | wc -l)"
  if [[ $campaign -eq 1 && $findings -gt 0 ]]; then
    status=1
    echo "fuzz: $fuzzer: $findings findings in $work/$fuzzer.artifacts/" >&2
  fi
done
exit "$status"
