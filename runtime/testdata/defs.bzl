"""pte_test_programs: the .pte programs the runtime's tests run, made at build time."""

def _pte_test_programs_impl(ctx):
    directory = ctx.actions.declare_directory(ctx.label.name)
    args = ctx.actions.args()
    args.add("--output-dir", directory.path)
    args.add_all(ctx.attr.programs)
    ctx.actions.run(
        executable = ctx.executable.generator,
        arguments = [args],
        outputs = [directory],
        mnemonic = "PteTestPrograms",
        progress_message = "Exporting {} test programs with ExecuTorch".format(len(ctx.attr.programs)),
    )
    return [DefaultInfo(files = depset([directory]), runfiles = ctx.runfiles(files = [directory]))]

pte_test_programs = rule(
    implementation = _pte_test_programs_impl,
    doc = """A directory `<name>/` holding `<program>.pte` and `<program>_input<i>.npy` for each program.

`generator` runs once for all programs: every Python process pays ~15 s to import torch and executorch.
""",
    attrs = {
        "programs": attr.string_list(
            doc = "Program names, as the generator knows them; empty for every program it knows.",
        ),
        "generator": attr.label(
            mandatory = True,
            executable = True,
            cfg = "exec",
            doc = "py_binary taking `--output-dir DIR program...`.",
        ),
    },
)
