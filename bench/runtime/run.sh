#!/usr/bin/env bash
# The runtime on Corstone-300 for Ethos-U55-128 models whose compute is all delegated: the firmware's code
# and data size, the memory a run plans, and the Cortex-M55 instructions one inference executes outside
# the NPU (the q/dq at the edges, layout copies between partitions, the delegate's input/output copies),
# beside each model's .pte size, its partitions and Vela's NPU cycle estimate summed over them.
#
#   bench/runtime/run.sh
#
# Instructions come from QEMU's mps3-an547 with -icount shift=0 (one instruction per virtual nanosecond)
# and the firmware's SysTick count across Method::execute: ticks * 31.25, +-32 instructions. QEMU has no
# NPU, so the firmware runs with --stub-npu: the delegate's inputs are copied into scratch, its command
# stream is parsed as the driver does, and its outputs are copied out, but nothing is computed.
# Extra Bazel startup flags (e.g. --output_base=...) come from $BAZEL_STARTUP_FLAGS.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

read -r -a startup <<<"${BAZEL_STARTUP_FLAGS:-}"
bazel=(./bazelw "${startup[@]}")
models=(//runtime/testdata:tiny_conv_u55 //models:dscnn_u55_pte //models:mv2_u55_pte //models:mv2_u55_int8_io_pte)

# Optimised (-O2), as firmware ships; the default fastbuild is -O1. Extra build flags come from
# $BENCH_BUILD_FLAGS, e.g. `--define inner_loops=scalar` to measure without the Helium inner loops.
read -r -a extra_flags <<<"${BENCH_BUILD_FLAGS:-}"
config=(--config=corstone300 --compilation_mode=opt "${extra_flags[@]}")
"${bazel[@]}" build "${config[@]}" --output_groups=default,vela_summary \
  //runtime/firmware:pte_firmware "${models[@]}" >&2
bin="$("${bazel[@]}" info "${config[@]}" bazel-bin 2>/dev/null)"
toolchain="$("${bazel[@]}" info output_base 2>/dev/null)/external/arm_none_eabi/usr/bin"
firmware="$bin/runtime/firmware/pte_firmware"

# Section sizes in bytes (arm-none-eabi-size -A: "name size address").
section() {
  "$toolchain/arm-none-eabi-size" -A "$firmware" | awk -v name="$1" '$1 == name { size += $2 } END { print size + 0 }'
}
code=$(($(section .vectors) + $(section .text) + $(section .rodata) + $(section .ARM.exidx) +
  $(section .init_array)))
printf 'pte_firmware (-c opt): %d B code+rodata (.text %d, .rodata %d), %d B .data, %d B .bss; ' \
  "$code" "$(section .text)" "$(section .rodata)" "$(section .data)" "$(section .bss)"
printf 'DDR region %d B (.ddr_bss)\n' "$(section .ddr_bss)"

printf '\n%-16s %10s %10s %10s %10s %12s %24s\n' model ".pte bytes" partitions planned "arena used" \
  "CPU instr." "NPU cycles (Vela 5.2.0)"
for label in "${models[@]}"; do
  name="${label##*:}"
  package="${label%%:*}"
  package="${package#//}"
  pte="$bin/$package/$name.pte"
  summary="$bin/$package/${name}_vela_summary.csv"
  # The firmware reads the program over semihosting relative to QEMU's working directory.
  semihosting="enable=on,target=native,arg=pte_firmware,arg=--model,arg=$name.pte,arg=--fill-inputs,arg=0.5"
  output="$(cd "$(dirname "$pte")" && qemu-system-arm -M mps3-an547 -display none -monitor none -serial none \
    -icount shift=0 -semihosting-config "$semihosting,arg=--stub-npu" -kernel "$firmware" 2>&1)" || {
    echo "$output" >&2
    exit 1
  }
  planned="$(sed -nE 's/.*, ([0-9]+) planned, .*/\1/p' <<<"$output")"
  arena="$(sed -nE 's/.*runtime arena ([0-9]+) used.*/\1/p' <<<"$output")"
  # The firmware prints a load: and an execute: line; one inference is the execute: line.
  instructions="$(sed -nE 's/^execute: .*= ([0-9]+) instructions when QEMU runs with -icount.*/\1/p' <<<"$output")"
  # Vela's summary has a row per partition.
  read -r partitions npu_cycles < <(python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(len(rows), sum(int(float(row["cycles_npu"])) for row in rows))' "$summary")
  printf '%-16s %10d %10d %10d %10d %12d %24d\n' "$name" "$(stat -c %s "$pte")" "$partitions" "$planned" "$arena" \
    "$instructions" "$npu_cycles"
done
