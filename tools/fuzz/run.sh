#!/usr/bin/env bash
# Builds the runtime's libFuzzer targets (runtime/fuzz/) with Debian's clang, AddressSanitizer and
# UndefinedBehaviorSanitizer, and runs each for a bounded time seeded with the runtime's test programs.
# Exits non-zero when a fuzzer finds a crash; the reproducer is kept under $FUZZ_WORK/<fuzzer>/artifacts/.
#
#   tools/fuzz/run.sh [seconds per fuzzer, default 60]
#
# Sanitizer builds stay outside Bazel (its toolchains here are for the product targets); Bazel only makes
# what the sources need: the flatc-generated .pte readers and the seed programs. Needs Debian's clang-14
# and libclang-rt-14-dev (libFuzzer): `apt-get install --no-install-recommends clang-14 libclang-rt-14-dev`.
# Extra Bazel startup flags (e.g. --output_base=...) come from $BAZEL_STARTUP_FLAGS.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

seconds="${1:-60}"
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

# The runtime as the device builds it (no runner, firmware or test files), plus the fake NPU.
mapfile -t sources < <(find runtime/core runtime/kernels runtime/delegate -name '*.cc' ! -name '*_test.cc' | sort)
sources+=(runtime/runner/host_files.cc)
flags=(-std=c++17 -fno-exceptions -fno-rtti -ffp-contract=off -O1 -g -I. -I"$bin" -isystem "$flatbuffers"
  -fsanitize=address,undefined -fno-sanitize-recover=undefined)

mkdir -p "$work/objects"
objects=()
for source in "${sources[@]}"; do
  object="$work/objects/${source//\//_}.o"
  "$clang" "${flags[@]}" -fsanitize=fuzzer-no-link -c "$source" -o "$object"
  objects+=("$object")
done

# Seeds: every test program, and the Ethos-U delegate blob cut out of the Ethos-U program.
mkdir -p "$work/seeds/pte_loader" "$work/seeds/bin_stream"
cp "$bin"/runtime/testdata/float_programs/*.pte "$bin"/runtime/testdata/quantized_programs/*.pte \
  "$bin"/runtime/testdata/tiny_conv_u55.pte "$work/seeds/pte_loader/"
python3 - "$bin/runtime/testdata/tiny_conv_u55.pte" "$work/seeds/bin_stream/tiny_conv_u55.bin" <<'EOF'
import sys
data = open(sys.argv[1], "rb").read()
start = data.index(b"vela_bin_stream\0")
end = data.index(b"vela_end_stream\0") + 32
open(sys.argv[2], "wb").write(data[start:end])
EOF

status=0
for fuzzer in pte_loader bin_stream; do
  "$clang" "${flags[@]}" -fsanitize=fuzzer "runtime/fuzz/${fuzzer}_fuzzer.cc" "${objects[@]}" -o "$work/$fuzzer"
  mkdir -p "$work/$fuzzer.corpus" "$work/$fuzzer.artifacts"
  echo "fuzz: $fuzzer for ${seconds}s"
  "$work/$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$work/$fuzzer.artifacts/" "$work/$fuzzer.corpus" "$work/seeds/$fuzzer" \
    2>"$work/$fuzzer.log" || {
    status=1
    echo "fuzz: $fuzzer found a crash (log: $work/$fuzzer.log, input in $work/$fuzzer.artifacts/)" >&2
    tail -40 "$work/$fuzzer.log" >&2
  }
  grep -E '^stat::number_of_executed_units|^Done' "$work/$fuzzer.log" || true
done
exit "$status"
