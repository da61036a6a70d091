"""program_oracle_outputs: inputs and expected outputs of a delegated .pte, made on the host at build time
by program_oracle.py (CPU ops in torch, Ethos-U delegates in the TOSA reference model)."""

def _program_oracle_outputs_impl(ctx):
    directory = ctx.actions.declare_directory(ctx.label.name)
    program = ctx.attr.program[DefaultInfo]
    ptes = [f for f in program.files.to_list() if f.extension == "pte"]
    if len(ptes) != 1:
        fail("{}: program must give exactly one .pte, {} gives {}".format(ctx.label, ctx.attr.program.label, ptes))
    args = ctx.actions.args()
    args.add("--pte", ptes[0])
    args.add("--output-dir", directory.path)
    args.add("--seed", ctx.attr.seed)
    ctx.actions.run(
        executable = ctx.executable._oracle,
        arguments = [args],
        # The .tosa graphs sit beside the .pte in the arm_pte target's runfiles.
        inputs = program.default_runfiles.files,
        outputs = [directory],
        mnemonic = "ProgramOracle",
        progress_message = "Computing expected outputs of {} on the host".format(ctx.attr.program.label),
    )
    return [DefaultInfo(files = depset([directory]), runfiles = ctx.runfiles(files = [directory]))]

program_oracle_outputs = rule(
    implementation = _program_oracle_outputs_impl,
    doc = "A directory `<name>/` with `input<i>.npy` (seeded uniform floats) and `expected<i>.npy` for `program`.",
    attrs = {
        "program": attr.label(
            mandatory = True,
            doc = "An arm_pte target for an Ethos-U target (its .tosa files are read beside the .pte).",
        ),
        "seed": attr.int(default = 0, doc = "Seed of the random inputs."),
        "_oracle": attr.label(
            default = "//arm/ethosu/npu_model:program_oracle",
            executable = True,
            cfg = "exec",
        ),
    },
)
