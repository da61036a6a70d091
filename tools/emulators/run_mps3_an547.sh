#!/usr/bin/env bash
# Runs a Corstone-300 firmware ELF on QEMU's mps3-an547 (SSE-300 + Cortex-M55) with semihosting: the
# firmware's stdout/stderr are this script's, its exit status (SYS_EXIT_EXTENDED) is QEMU's, and the
# arguments reach main() as the semihosting command line.
#
# Usage: run_mps3_an547.sh <qemu-system-arm> <firmware.elf> [arguments...]
set -euo pipefail
qemu="$1"
firmware="$2"
shift 2

# QEMU option values escape commas by doubling them.
semihosting="enable=on,target=native,arg=${firmware//,/,,}"
for argument in "$@"; do
  semihosting+=",arg=${argument//,/,,}"
done

# No display, monitor or UART: semihosting is the only channel, so stdout holds the firmware's output.
exec "$qemu" -M mps3-an547 -display none -monitor none -serial none \
  -semihosting-config "$semihosting" -kernel "$firmware"
