"""The two oracles a whole delegated .pte is checked against, chosen by name in the test macros
(pte_runner_oracle_test, arm_run_oracle_test, npu_model_firmware_test).

- "delegates": program_oracle.py. The q/dq ops in numpy as ExecuTorch's kernels compute them, each
  delegate on the TOSA reference model. For programs whose CPU part is q/dq only; seeded float inputs.
- "executorch": partitioned_program_oracle.py. Every CPU run on ExecuTorch's own host runtime, each
  delegate on the TOSA reference model: any partly delegated program; seeded float and integer inputs.
- "executorch_npu_model": the same with Ethos-U delegates on the functional NPU model, for programs whose
  command stream is known to depart from its TOSA graph (say which where it is used).
"""

def _partitioned_with_npu_model(**kwargs):
    partitioned_program_outputs(ethos_u_delegates = "npu_model", **kwargs)

def _single_pte(ctx):
    ptes = [f for f in ctx.attr.program[DefaultInfo].files.to_list() if f.extension == "pte"]
    if len(ptes) != 1:
        fail("{}: program must give exactly one .pte, {} gives {}".format(ctx.label, ctx.attr.program.label, ptes))
    return ptes[0]

def _run_oracle(ctx, oracle, extra_args, mnemonic, progress_message):
    """Runs `oracle` on the program's .pte into the directory `<name>/` and returns its providers."""
    directory = ctx.actions.declare_directory(ctx.label.name)
    args = ctx.actions.args()
    args.add("--pte", _single_pte(ctx))
    args.add("--output-dir", directory.path)
    args.add("--seed", ctx.attr.seed)
    args.add_all(extra_args)
    ctx.actions.run(
        executable = oracle,
        arguments = [args],
        # The .tosa graphs sit beside the .pte in the arm_pte target's runfiles.
        inputs = ctx.attr.program[DefaultInfo].default_runfiles.files,
        outputs = [directory],
        mnemonic = mnemonic,
        progress_message = progress_message,
    )
    return [DefaultInfo(files = depset([directory]), runfiles = ctx.runfiles(files = [directory]))]

_SEED = attr.int(default = 0, doc = "Seed of the random inputs.")

def _program_oracle_outputs_impl(ctx):
    return _run_oracle(
        ctx,
        ctx.executable._oracle,
        extra_args = [],
        mnemonic = "ProgramOracle",
        progress_message = "Computing expected outputs of {} on the host".format(ctx.attr.program.label),
    )

program_oracle_outputs = rule(
    implementation = _program_oracle_outputs_impl,
    doc = "A directory `<name>/` with `input<i>.npy` (seeded uniform floats) and `expected<i>.npy` for `program`.",
    attrs = {
        "program": attr.label(
            mandatory = True,
            doc = "An arm_pte target for an Ethos-U target (its .tosa files are read beside the .pte).",
        ),
        "seed": _SEED,
        "_oracle": attr.label(
            default = "//arm/ethosu/npu_model:program_oracle",
            executable = True,
            cfg = "exec",
        ),
    },
)

def _partitioned_program_outputs_impl(ctx):
    with_npu_model = ctx.attr.ethos_u_delegates == "npu_model"
    return _run_oracle(
        ctx,
        ctx.executable._oracle_with_npu_model if with_npu_model else ctx.executable._oracle,
        extra_args = ["--int-high", str(ctx.attr.int_high), "--ethos-u-delegates", ctx.attr.ethos_u_delegates],
        mnemonic = "PartitionedProgramOracle",
        progress_message = "Running {} on ExecuTorch's runtime and the TOSA reference model".format(ctx.attr.program.label),
    )

partitioned_program_outputs = rule(
    implementation = _partitioned_program_outputs_impl,
    doc = """A directory `<name>/` with `input<i>.npy` (seeded) and `expected<i>.npy` for `program`: its CPU
instructions on ExecuTorch's host runtime, its delegates on the TOSA reference model.""",
    attrs = {
        "ethos_u_delegates": attr.string(
            default = "tosa_reference",
            values = ["tosa_reference", "npu_model"],
            doc = "What runs Ethos-U delegates: the TOSA reference model, or the NPU model for known departures.",
        ),
        "int_high": attr.int(
            default = 16,
            doc = "Integer inputs (token ids) are drawn from [0, int_high): keep it within the vocabulary.",
        ),
        "program": attr.label(
            mandatory = True,
            doc = "An arm_pte target whose delegates were lowered to TOSA (its .tosa files are read beside the .pte).",
        ),
        "seed": _SEED,
        "_oracle": attr.label(
            default = "//runtime/crosscheck:partitioned_program_oracle",
            executable = True,
            cfg = "exec",
        ),
        # The same with the NPU model's library in its runfiles: only programs that need it rerun when it changes.
        "_oracle_with_npu_model": attr.label(
            default = "//runtime/crosscheck:partitioned_program_oracle_with_npu_model",
            executable = True,
            cfg = "exec",
        ),
    },
)

_ORACLES = {
    "delegates": program_oracle_outputs,
    "executorch": partitioned_program_outputs,
    "executorch_npu_model": _partitioned_with_npu_model,
}

def oracle_outputs(name, program, oracle, **kwargs):
    """`<name>/` holding input<i>.npy and expected<i>.npy for `program`, made by the oracle named `oracle`."""
    if oracle not in _ORACLES:
        fail("oracle must be one of {}, got {}".format(sorted(_ORACLES.keys()), oracle))
    _ORACLES[oracle](name = name, program = program, **kwargs)
