"""Our runtime against ExecuTorch's: expected outputs made by ExecuTorch at build time, and tests that run
a program with our runner for the target platform and compare its outputs bit for bit."""

load("//tools/emulators:emulator.bzl", "emulator_test")

def _executorch_outputs_impl(ctx):
    directory = ctx.actions.declare_directory(ctx.label.name)
    args = ctx.actions.args()
    args.add("--output-dir", directory.path)
    # The directories themselves: the generator finds the programs and inputs in them.
    args.add_all(ctx.files.programs, expand_directories = False)
    ctx.actions.run(
        executable = ctx.executable._generator,
        arguments = [args],
        inputs = ctx.files.programs,
        outputs = [directory],
        mnemonic = "ExecuTorchOutputs",
        progress_message = "Running {} on ExecuTorch's runtime".format(
            ", ".join([str(target.label) for target in ctx.attr.programs]),
        ),
    )
    return [DefaultInfo(files = depset([directory]), runfiles = ctx.runfiles(files = [directory]))]

executorch_outputs = rule(
    implementation = _executorch_outputs_impl,
    doc = """A directory `<name>/` holding `<program>_expected<i>.npy`: ExecuTorch's host runtime's outputs for
every program in `programs` (directories of `<program>.pte` and `<program>_input<i>.npy`).""",
    attrs = {
        "programs": attr.label_list(
            mandatory = True,
            allow_files = True,
            doc = "Directories made by pte_test_programs.",
        ),
        "_generator": attr.label(
            default = "//runtime/crosscheck:executorch_outputs",
            executable = True,
            cfg = "exec",
        ),
    },
)

# The runner for each platform: the Corstone-300 firmware, else pte_runner (Linux, incl. static aarch64).
_RUNNER = select({
    "//tools/emulators:corstone300": "//runtime/firmware:pte_firmware",
    "//conditions:default": "//runtime/runner:pte_runner",
})

def matches_executorch_test(name, program, programs, expected, inputs = 1, outputs = 1, **kwargs):
    """Runs `program` with the target platform's runner (on its emulator) and checks every output against
    ExecuTorch's, bit for bit (the runner exits 3 on a difference).

    Args:
      name: test name.
      program: program name inside `programs`, e.g. "softmax".
      programs: pte_test_programs target holding `<program>.pte` and its inputs.
      expected: executorch_outputs target holding `<program>_expected<i>.npy`.
      inputs: how many inputs the program takes.
      outputs: how many outputs it returns.
      **kwargs: passed to the test (size, tags, ...).
    """
    args = ["--model", "$(rootpath {})/{}.pte".format(programs, program)]
    for i in range(inputs):
        args += ["--input", "$(rootpath {})/{}_input{}.npy".format(programs, program, i)]
    for i in range(outputs):
        args += ["--expected-output", "$(rootpath {})/{}_expected{}.npy".format(expected, program, i)]
    kwargs.setdefault("size", "small")
    emulator_test(
        name = name,
        binary = _RUNNER,
        args = args + ["--output-dir", "."],
        data = [programs, expected],
        tags = kwargs.pop("tags", []) + ["qemu"],
        **kwargs
    )
