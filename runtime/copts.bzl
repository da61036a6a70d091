"""Compiler flags shared by every runtime target: the same sources build for host, Cortex-M and aarch64."""

# No exceptions or RTTI anywhere (device builds have neither), and warnings are errors so a host build
# catches what a cross build would.
RUNTIME_COPTS = [
    "-std=c++17",
    "-fno-exceptions",
    "-fno-rtti",
    # Bit-identical float results on every target: no fused multiply-add unless a kernel asks for it
    # (clang contracts a * b + c by default, aarch64 has FMA, x86-64 baseline does not).
    "-ffp-contract=off",
    "-Wall",
    "-Wextra",
    "-Werror",
]
