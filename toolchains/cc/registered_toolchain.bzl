"""registered_cc_toolchain: a cc_toolchain and the toolchain() that offers it, as one declaration.

Both of our cross toolchains run on x86_64 Linux and differ only in their files and in the platforms
they build for; this keeps that difference the only thing their BUILD files say.
"""

_HOST = [
    "@platforms//cpu:x86_64",
    "@platforms//os:linux",
]

def registered_cc_toolchain(
        name,
        config,
        target_compatible_with,
        all_files,
        compiler_files,
        linker_files,
        ar_files = None,
        objcopy_files = None,
        strip_files = None):
    """Declares `<name>` (register it in WORKSPACE) backed by the cc_toolchain `<name>_cc`.

    Args:
      name: the toolchain() target's name.
      config: the cc_toolchain_config target.
      target_compatible_with: constraints of the platforms this toolchain builds for.
      all_files: every file an action may need.
      compiler_files: the compiler's files (also used for assembling).
      linker_files: the linker's files.
      ar_files: the archiver's files; defaults to all_files.
      objcopy_files: objcopy's files; none when the toolchain has no objcopy.
      strip_files: strip's files; none when the toolchain has no strip.
    """
    empty = name + "_no_files"
    native.filegroup(
        name = empty,
        srcs = [],
    )
    native.cc_toolchain(
        name = name + "_cc",
        all_files = all_files,
        ar_files = ar_files or all_files,
        as_files = compiler_files,
        compiler_files = compiler_files,
        dwp_files = ":" + empty,
        linker_files = linker_files,
        objcopy_files = objcopy_files or (":" + empty),
        strip_files = strip_files or (":" + empty),
        supports_param_files = True,
        # Naming the external repository's files: keep `bazel build //...` on the host from fetching it.
        tags = ["manual"],
        toolchain_config = config,
    )
    native.toolchain(
        name = name,
        exec_compatible_with = _HOST,
        target_compatible_with = target_compatible_with,
        toolchain = ":" + name + "_cc",
        toolchain_type = "@bazel_tools//tools/cpp:toolchain_type",
    )
