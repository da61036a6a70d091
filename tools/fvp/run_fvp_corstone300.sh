#!/usr/bin/env bash
# Runs a Corstone-300 firmware ELF on Arm's Corstone SSE-300 + Ethos-U55 FVP with semihosting: the
# firmware's arguments, host files and console go through semihosting as on QEMU; the exit status is the
# firmware's (taken from its last line, "pte_firmware: exit status N", where the FVP does not pass it on).
#
# Usage: run_fvp_corstone300.sh <fvp> <firmware.elf> [arguments...]
set -euo pipefail
fvp="$1"
firmware="$2"
shift 2

# The FVP cuts semihosting command lines at 256 characters; a cut one would run with wrong arguments.
command_line="$firmware $*"
if ((${#command_line} > 255)); then
  echo "run_fvp_corstone300: the firmware's command line has ${#command_line} characters; the FVP keeps 255" >&2
  exit 2
fi

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
# No visualisation, telnet terminals or UART windows; 128 MACs as the Ethos-U55-128 the models target.
status=0
"$fvp" \
  -C mps3_board.visualisation.disable-visualisation=1 \
  -C mps3_board.telnetterminal0.start_telnet=0 \
  -C mps3_board.telnetterminal1.start_telnet=0 \
  -C mps3_board.telnetterminal2.start_telnet=0 \
  -C mps3_board.uart0.out_file=- \
  -C ethosu.num_macs=128 \
  -C cpu0.semihosting-enable=1 \
  -C cpu0.semihosting-cwd="$PWD" \
  -C cpu0.semihosting-cmd_line="$command_line" \
  --quiet --application "cpu0=$firmware" 2>&1 | tee "$log" || status=$?
reported="$(sed -nE 's/^pte_firmware: exit status ([0-9]+)$/\1/p' "$log" | tail -1)"
exit "${reported:-$status}"
