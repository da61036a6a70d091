"""Rules that run a target-platform binary on the host: `emulator` describes how, `emulator_test` does it."""

EmulatorInfo = provider(
    doc = "How to run a binary of some target platform on the build host.",
    fields = {
        "runner": "File or None: script called as `runner <tools...> <binary> <arguments...>`; " +
                  "None runs `<tools...> <binary> <arguments...>` directly.",
        "tools": "list of File: the emulator's executables, given in order before the binary.",
        "data": "list of File: further files a run depends on (e.g. a record of the emulator's version).",
    },
)

def _emulator_impl(ctx):
    return [EmulatorInfo(runner = ctx.file.runner, tools = ctx.files.tools, data = ctx.files.data)]

emulator = rule(
    implementation = _emulator_impl,
    doc = "A way to run binaries of one target platform: the emulator, and a runner script if it needs one.",
    attrs = {
        "runner": attr.label(
            allow_single_file = [".sh"],
            doc = "Script taking the tools' paths, then the binary and its arguments, exiting with the " +
                  "binary's status. Without one, the tools and the binary are run as one command line.",
        ),
        "tools": attr.label_list(
            allow_files = True,
            cfg = "exec",
            doc = "Emulator executables, in order, placed before the binary on the command line.",
        ),
        "data": attr.label_list(
            allow_files = True,
            doc = "Files every run depends on besides the tools, so a change to them re-runs tests.",
        ),
    },
)

def _emulator_test_impl(ctx):
    emulator = ctx.attr.emulator[EmulatorInfo]
    binary = ctx.executable.binary
    command = ([emulator.runner] if emulator.runner else []) + emulator.tools + [binary]
    launcher = ctx.actions.declare_file(ctx.label.name + ".sh")

    # Tests start in the main repository's runfiles directory: short paths resolve from there, those of
    # other repositories (../qemu/...) included.
    ctx.actions.write(
        output = launcher,
        content = "#!/usr/bin/env bash\nexec {} \"$@\"\n".format(" ".join([f.short_path for f in command])),
        is_executable = True,
    )
    runfiles = ctx.runfiles(files = command + emulator.data + ctx.files.data)
    runfiles = runfiles.merge(ctx.attr.binary[DefaultInfo].default_runfiles)
    for target in ctx.attr.data:
        runfiles = runfiles.merge(target[DefaultInfo].default_runfiles)
    return [DefaultInfo(executable = launcher, runfiles = runfiles)]

emulator_test = rule(
    implementation = _emulator_test_impl,
    test = True,
    doc = "Runs `binary` (built for the target platform) under `emulator`; passes if it exits with 0.",
    attrs = {
        "binary": attr.label(
            mandatory = True,
            executable = True,
            cfg = "target",
            doc = "The program under test, built for the target platform.",
        ),
        "emulator": attr.label(
            default = "//tools/emulators:target_emulator",
            providers = [EmulatorInfo],
            doc = "How to run it; by default the emulator of the target platform.",
        ),
        "data": attr.label_list(
            allow_files = True,
            doc = "Files the program reads at run time (from its working directory, the runfiles " +
                  "root; on Corstone-300 through semihosting); `args` may name them with $(rootpath).",
        ),
    },
)
