"""npu_model_firmware_test: a whole delegated program on QEMU's Corstone-300, its Ethos-U delegates on the
functional NPU model running on the Cortex-M55, against outputs the host computes without our runtime."""

load("//runtime/crosscheck:oracles.bzl", "oracle_outputs")
load("//tools/emulators:emulator.bzl", "emulator_test")
load(":embedded_program.bzl", "pte_firmware_image")

def npu_model_firmware_test(name, program, oracle = "delegates", tags = [], **kwargs):
    """`<name>`: runs `program` in an image built with npu = "model" and checks its first output bit for bit.

    The inputs and expected outputs come from program_oracle.py (`<name>_oracle/`): the q/dq ops in numpy
    as ExecuTorch's kernels compute them, the delegates in the TOSA reference model.

    Args:
      name: the test.
      oracle: which oracle makes the inputs and expected outputs (runtime/crosscheck/oracles.bzl):
        "delegates" (q/dq in numpy, delegates on the TOSA reference model) or "executorch" (CPU runs on
        ExecuTorch's host runtime), for programs with other CPU ops.
      program: an arm_pte target for ethos-u55-128 with one input and one output.
      tags: extra tags; `qemu` and `u55` are always added.
      **kwargs: passed to the test (size, timeout, ...).
    """
    oracle_outputs(
        name = name + "_oracle",
        oracle = oracle,
        testonly = True,
        program = program,
    )
    pte_firmware_image(
        name = name + "_image",
        testonly = True,
        expected_outputs = [name + "_oracle/expected0.npy"],
        inputs = [name + "_oracle/input0.npy"],
        npu = "model",
        program = Label(program).name + ".pte",
        srcs = [
            name + "_oracle",
            program,
        ],
    )
    emulator_test(
        name = name,
        binary = name + "_image",
        tags = tags + ["qemu", "u55"],
        target_compatible_with = ["//toolchains/constraints:cortex-m55"],
        **kwargs
    )
