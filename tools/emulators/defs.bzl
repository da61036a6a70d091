"""emulated_cc_test: a C/C++ test that runs on whichever platform it is built for.

`bazel test //pkg:test` runs it on the host; `--config=corstone300` builds it as Cortex-M55 firmware
(with //toolchains/corstone300's startup and semihosting) and runs it on QEMU's mps3-an547;
`--config=aarch64` builds a static aarch64 Linux binary and runs it under qemu-aarch64-static. Output
and exit status come back to Bazel either way. On platforms without an emulator the test is skipped.
"""

load(":emulator.bzl", "emulator_test")

# Platforms that have an emulator (//tools/emulators:target_emulator selects the same way).
_RUNNABLE = select({
    "//tools/emulators:corstone300": [],
    "//tools/emulators:linux_aarch64": [],
    "//tools/emulators:linux_x86_64": [],
    "//conditions:default": ["//toolchains/constraints:incompatible"],
})

_BOARD_SUPPORT = select({
    "//tools/emulators:corstone300": [
        "//toolchains/corstone300:semihosting",
        "//toolchains/corstone300:startup",
    ],
    "//conditions:default": [],
})

def emulated_cc_test(
        name,
        srcs,
        deps = [],
        copts = [],
        linkopts = [],
        data = [],
        target_compatible_with = [],
        tags = [],
        **kwargs):
    """A cc test built for the target platform and run on its emulator (or natively on the host).

    Args:
      name: test name; the program is built as `<name>_binary`.
      srcs: C/C++ sources with a main() returning 0 on success.
      deps: cc_library dependencies.
      copts: extra compiler flags.
      linkopts: extra linker flags.
      data: files the test reads at run time; `args` may name them with $(rootpath <label>).
      target_compatible_with: further constraints (e.g. a core the test's intrinsics need); the test
        is always limited to platforms with an emulator.
      tags: extra tags; `qemu` is always added so CI can pick or skip emulated tests.
      **kwargs: passed to the test rule (size, timeout, args, flaky, ...); size defaults to small.
    """
    kwargs.setdefault("size", "small")
    compatible = _RUNNABLE + target_compatible_with
    native.cc_binary(
        name = name + "_binary",
        srcs = srcs,
        deps = deps + _BOARD_SUPPORT,
        copts = copts,
        linkopts = linkopts,
        target_compatible_with = compatible,
        testonly = True,
        tags = ["manual"],
    )
    emulator_test(
        name = name,
        binary = name + "_binary",
        data = data,
        target_compatible_with = compatible,
        tags = tags + ["qemu"],
        **kwargs
    )
