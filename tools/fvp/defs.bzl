"""arm_fvp_test: runs Corstone-300 firmware on Arm's Corstone-300 FVP (Cortex-M55 + Ethos-U55).

The firmware is built for //toolchains/platforms:corstone300 whatever the command line's platform, so
`./bazelw test //pkg:name` is enough. Where no FVP is installed ($ARM_FVP_CORSTONE300 unset) the test
fails with instructions for getting one; it never passes without running. The macro tags every test
`fvp` and `manual`, so `//...` leaves them out: run them by name, or with `--test_tag_filters=fvp` on
an explicit target list.
"""

def _corstone300_impl(settings, attr):
    _ignore = (settings, attr)
    return {"//command_line_option:platforms": "//toolchains/platforms:corstone300"}

_corstone300 = transition(
    implementation = _corstone300_impl,
    inputs = [],
    outputs = ["//command_line_option:platforms"],
)

def _fvp_test_impl(ctx):
    firmware = ctx.attr.firmware[0][DefaultInfo].files_to_run.executable
    command = [ctx.file._runner, ctx.file._fvp, firmware]
    launcher = ctx.actions.declare_file(ctx.label.name + ".sh")
    ctx.actions.write(
        output = launcher,
        content = "#!/usr/bin/env bash\nexec {} \"$@\"\n".format(" ".join([f.short_path for f in command])),
        is_executable = True,
    )
    runfiles = ctx.runfiles(files = command + [ctx.file._fvp_version] + ctx.files.data)
    for target in ctx.attr.data:
        runfiles = runfiles.merge(target[DefaultInfo].default_runfiles)
    return [DefaultInfo(executable = launcher, runfiles = runfiles)]

_fvp_test = rule(
    implementation = _fvp_test_impl,
    test = True,
    doc = "Runs `firmware` (built for Corstone-300) on the Corstone-300 FVP; passes if it exits with 0.",
    attrs = {
        "firmware": attr.label(
            mandatory = True,
            executable = True,
            cfg = _corstone300,
            doc = "The firmware ELF, built for //toolchains/platforms:corstone300 by this rule.",
        ),
        "data": attr.label_list(
            allow_files = True,
            doc = "Files the firmware reads over semihosting; `args` may name them with $(rootpath).",
        ),
        "_runner": attr.label(default = "//tools/fvp:run_fvp_corstone300.sh", allow_single_file = True),
        "_fvp": attr.label(default = "@arm_fvp_corstone300//:fvp", allow_single_file = True),
        "_fvp_version": attr.label(default = "@arm_fvp_corstone300//:VERSION", allow_single_file = True),
        "_allowlist_function_transition": attr.label(
            default = "@bazel_tools//tools/allowlists/function_transition_allowlist",
        ),
    },
)

def arm_fvp_test(name, firmware = "//runtime/firmware:pte_firmware", tags = [], **kwargs):
    """A test running `firmware` on the Corstone-300 FVP, left out of `//...`.

    Args:
      name: test name.
      firmware: the firmware to run; pte_firmware by default (args as its command line).
      tags: extra tags; `fvp` and `manual` are always added.
      **kwargs: passed to the test (args, data, size, timeout, ...).
    """
    kwargs.setdefault("size", "medium")
    _fvp_test(
        name = name,
        firmware = firmware,
        tags = tags + ["fvp", "manual"],
        **kwargs
    )
